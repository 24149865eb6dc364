/* The demo's streams, registered as the collectors register them: from
 * their descriptors in the registry, so that the panes recognise the data.
 * Two exceptions: ppu.metrics has fields only once a metric selection is
 * made (as ppu_metrics.c does at init), and the gpurt collector is built
 * only with libbpf, while the panes that draw its streams are built always;
 * so its schema is copied here and checked against the collector's
 * whenever that is built. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "demo.h"
#include "ppu_catalogue.h"
#include "registry.h"
#include "util.h"

/* The summary set with the I/O metrics the pane draws on the third line. */
#define DEMO_METRIC_SET "summary"
#define DEMO_METRIC_LIST                                                                           \
	"l2__transaction_hit_rate.pct,pcie__read_bytes.sum.per_second,"                            \
	"pcie__write_bytes.sum.per_second,icnltx__bytes.sum.per_second,"                           \
	"icnlrx__bytes.sum.per_second"

static const struct field_desc gpurt_mem_fields[] = {
    FIELD_DESC("device_bytes", "B", FIELD_GAUGE), FIELD_DESC("pinned_bytes", "B", FIELD_GAUGE),
    FIELD_DESC("allocs", "", FIELD_COUNTER),	  FIELD_DESC("frees", "", FIELD_COUNTER),
    FIELD_DESC("fails", "", FIELD_COUNTER),	  FIELD_DESC("last_fail_size", "B", FIELD_ATTR),
    FIELD_DESC("last_fail_ns", "ns", FIELD_ATTR),
};
static const struct stream_desc gpurt_mem_copy = {
    .name = "gpurt.mem",
    .version = 1,
    .entity = ENTITY_PID,
    .nfields = ARRAY_SIZE(gpurt_mem_fields),
    .fields = gpurt_mem_fields,
    .help = "device and pinned host memory per process from runtime uprobes; "
	    "last_fail_ns is CLOCK_MONOTONIC",
};
static const struct field_desc gpurt_kern_fields[] = {
    FIELD_DESC("launches", "", FIELD_COUNTER),
    FIELD_DESC("pid", "", FIELD_ATTR),
};
static const struct stream_desc gpurt_kern_copy = {
    .name = "gpurt.kernels",
    .version = 1,
    .entity = ENTITY_KEY,
    .nfields = ARRAY_SIZE(gpurt_kern_fields),
    .fields = gpurt_kern_fields,
    .help = "kernel launches per (process, kernel); label \"PID<TAB>kernel name\"",
};
#define COPY_PAIR(dir)                                                                             \
	FIELD_DESC(dir "_calls", "", FIELD_COUNTER), FIELD_DESC(dir "_bytes", "B", FIELD_COUNTER)
static const struct field_desc gpurt_copy_fields[] = {
    COPY_PAIR("htod"),	  COPY_PAIR("dtoh"), COPY_PAIR("dtod"),	  COPY_PAIR("htoh"),
    COPY_PAIR("unknown"), COPY_PAIR("set"),  COPY_PAIR("pinned"), COPY_PAIR("pageable"),
};
static const struct stream_desc gpurt_copy_copy = {
    .name = "gpurt.copy",
    .version = 1,
    .entity = ENTITY_PID,
    .nfields = ARRAY_SIZE(gpurt_copy_fields),
    .fields = gpurt_copy_fields,
    .help = "memory copies and memsets per process from runtime uprobes, by direction",
};
static const struct stream_desc *const gpurt_copies[] = {&gpurt_mem_copy, &gpurt_kern_copy,
							 &gpurt_copy_copy};

static const char *const demo_stream_names[DS_COUNT] = {
    [DS_PPU_DEV] = "ppu.dev",	       [DS_PPU_PROC] = "ppu.proc",
    [DS_PPU_UTIL] = "ppu.proc_util",   [DS_PPU_MET] = "ppu.metrics",
    [DS_NIC_LINK] = "nic.link",	       [DS_NIC_RDMA] = "nic.rdma",
    [DS_CPU_CORE] = "cpu.core",	       [DS_CPU_PERF] = "cpu.perf",
    [DS_MEM_SYS] = "mem.sys",	       [DS_MEM_PROC] = "mem.proc",
    [DS_PROC_CPU] = "proc.cpu",	       [DS_GPURT_MEM] = "gpurt.mem",
    [DS_GPURT_KERN] = "gpurt.kernels", [DS_GPURT_COPY] = "gpurt.copy",
};

static bool schema_same(const struct stream_desc *a, const struct stream_desc *b)
{
	if (strcmp(a->name, b->name) || a->version != b->version || a->entity != b->entity ||
	    a->nfields != b->nfields)
		return false;
	for (uint32_t f = 0; f < a->nfields; f++)
		if (strcmp(a->fields[f].name, b->fields[f].name) ||
		    strcmp(a->fields[f].unit, b->fields[f].unit) ||
		    a->fields[f].kind != b->fields[f].kind)
			return false;
	return true;
}

/* ppu.metrics with one field per metric of the selection, as its init makes
 * it; the selection must fit a PPU's counters, as it would live. */
static int schema_metrics(struct demo *d, const struct stream_desc *proto, char *err, size_t n)
{
	static struct field_desc fields[PPU_METRIC_MAX];
	struct ppu_selection sel;
	struct stream_desc sd = *proto;
	int rc;

	rc = ppu_selection_build(DEMO_METRIC_SET, DEMO_METRIC_LIST, &sel, err, n);
	if (rc)
		return rc;
	if (ppu_selection_cost(&sel) > ppu_profile_for("PPU")->budget) {
		snprintf(err, n, "the demo's metric selection needs more counters than a PPU has");
		return -E2BIG;
	}
	for (size_t i = 0; i < sel.n; i++) {
		const struct ppu_metric *m = &ppu_metric_catalogue[sel.idx[i]];

		fields[i] = ppu_metric_field(m);
	}
	sd.nfields = (uint32_t)sel.n;
	sd.fields = fields;
	return stream_table_add(d->streams, &sd);
}

/* A gpurt stream: the collector's when it is built (and then the copy must
 * match it), else the copy. */
static int schema_gpurt(struct demo *d, const struct stream_desc *built,
			const struct stream_desc *copy, char *err, size_t n)
{
	if (built && !schema_same(built, copy)) {
		snprintf(err, n,
			 "demo/demo_schema.c: its copy of %s differs from the collector's; "
			 "copy the collector's fields",
			 copy->name);
		return -EINVAL;
	}
	return stream_table_add(d->streams, built ? built : copy);
}

static int schema_one(struct demo *d, const struct stream_desc *sd, char *err, size_t n)
{
	if (!strcmp(sd->name, "ppu.metrics"))
		return schema_metrics(d, sd, err, n);
	for (size_t i = 0; i < ARRAY_SIZE(gpurt_copies); i++)
		if (!strcmp(sd->name, gpurt_copies[i]->name))
			return schema_gpurt(d, sd, gpurt_copies[i], err, n);
	return stream_table_add(d->streams, sd);
}

/* How often each stream is emitted (demo_every in demo_host.c, demo_ppu.c
 * and demo_procs.c; NIC counters at every tick). */
static const double demo_stream_hz[DS_COUNT] = {
    [DS_PPU_DEV] = 1,
    [DS_PPU_PROC] = 1,
    [DS_PPU_UTIL] = 1,
    [DS_PPU_MET] = 10,
    [DS_NIC_LINK] = 1e9 / DEMO_TICK_NS,
    [DS_NIC_RDMA] = 1e9 / DEMO_TICK_NS,
    [DS_CPU_CORE] = 1,
    [DS_CPU_PERF] = 1,
    [DS_MEM_SYS] = 2,
    [DS_MEM_PROC] = 1,
    [DS_PROC_CPU] = 1,
    [DS_GPURT_MEM] = 1,
    [DS_GPURT_KERN] = 1,
    [DS_GPURT_COPY] = 1,
};

int demo_schema(struct demo *d, char *err, size_t n)
{
	int rc = 0;

	for (size_t c = 0; collector_registry[c] && rc >= 0; c++)
		for (size_t s = 0; collector_registry[c]->streams[s] && rc >= 0; s++)
			rc = schema_one(d, collector_registry[c]->streams[s], err, n);
	for (size_t i = 0; i < ARRAY_SIZE(gpurt_copies) && rc >= 0; i++)
		if (stream_table_find(d->streams, gpurt_copies[i]->name) < 0)
			rc = schema_gpurt(d, NULL, gpurt_copies[i], err, n);
	if (rc < 0) {
		if (!*err)
			snprintf(err, n, "cannot register the streams: %s", strerror(-rc));
		return rc;
	}
	/* a stream this build has no collector for (nic without libmnl) is
	 * not written: this build has no pane for it either */
	for (int i = 0; i < DS_COUNT; i++) {
		rc = stream_table_find(d->streams, demo_stream_names[i]);
		d->sid[i] = rc < 0 ? UINT32_MAX : (uint32_t)rc;
		/* the rates the generator emits them at, as the engine records
		 * a collector's: the NIC peaks are over one 50 ms tick */
		if (rc >= 0)
			stream_table_set_rate(d->streams, (uint32_t)rc, demo_stream_hz[i]);
	}
	return 0;
}
