/* SPDX-License-Identifier: GPL-2.0-only */
/* The demo's streams, registered as the collectors register them: from
 * their descriptors in the registry (the catalogue's), so that the panes
 * recognise the data. Two exceptions: ppu.metrics has fields only once a
 * metric selection is made (as ppu_metrics.c does at init), and the gpurt
 * collector is built only with libbpf, while the panes that draw its streams
 * are built always: without it, its streams come from the catalogue. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "catalogue.h"
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

/* The catalogue's stream of each of the demo's. */
static const enum stream_id demo_stream_ids[DS_COUNT] = {
    [DS_PPU_DEV] = STREAM_PPU_DEV,	    [DS_PPU_PROC] = STREAM_PPU_PROC,
    [DS_PPU_UTIL] = STREAM_PPU_PROC_UTIL,   [DS_PPU_MET] = STREAM_PPU_METRICS,
    [DS_NIC_LINK] = STREAM_NIC_LINK,	    [DS_NIC_RDMA] = STREAM_NIC_RDMA,
    [DS_CPU_CORE] = STREAM_CPU_CORE,	    [DS_CPU_PERF] = STREAM_CPU_PERF,
    [DS_MEM_SYS] = STREAM_MEM_SYS,	    [DS_MEM_PROC] = STREAM_MEM_PROC,
    [DS_PROC_CPU] = STREAM_PROC_CPU,	    [DS_GPURT_MEM] = STREAM_GPURT_MEM,
    [DS_GPURT_KERN] = STREAM_GPURT_KERNELS, [DS_GPURT_COPY] = STREAM_GPURT_COPY,
};

enum stream_id demo_stream_id(enum demo_stream ds)
{
	return demo_stream_ids[ds];
}

/* The gpurt streams, registered from the catalogue when the gpurt
 * collector (built only with libbpf) does not register them. */
static const enum stream_id demo_gpurt[] = {STREAM_GPURT_MEM, STREAM_GPURT_KERNELS,
					    STREAM_GPURT_COPY};

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

static int schema_one(struct demo *d, const struct stream_desc *sd, char *err, size_t n)
{
	if (sd == CATALOGUE_STREAM(STREAM_PPU_METRICS))
		return schema_metrics(d, sd, err, n);
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
	for (size_t i = 0; i < ARRAY_SIZE(demo_gpurt) && rc >= 0; i++)
		if (stream_table_find(d->streams, catalogue_name(demo_gpurt[i])) < 0)
			rc = stream_table_add(d->streams, CATALOGUE_STREAM(demo_gpurt[i]));
	if (rc < 0) {
		if (!*err)
			snprintf(err, n, "cannot register the streams: %s", strerror(-rc));
		return rc;
	}
	/* a stream this build has no collector for (nic without libmnl) is
	 * not written: this build has no pane for it either */
	for (int i = 0; i < DS_COUNT; i++) {
		rc = stream_table_find(d->streams, catalogue_name(demo_stream_ids[i]));
		d->sid[i] = rc < 0 ? UINT32_MAX : (uint32_t)rc;
		/* the rates the generator emits them at, as the engine records
		 * a collector's: the NIC peaks are over one 50 ms tick */
		if (rc >= 0)
			stream_table_set_rate(d->streams, (uint32_t)rc, demo_stream_hz[i]);
	}
	return 0;
}
