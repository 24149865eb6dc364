/* gpurt_ktime: kernel GPU time and copies of a workload started with
 * `asys top -- cmd` / `asys record -- cmd`, from the runtime's profiling
 * interface. libasys-inject.so (inject/inject_kact.c) aggregates CUPTI's
 * activity records in the workload; this reads the KACT section of the
 * region asys made for it (gpurt_ktime_read.c) each refresh, and once more
 * after the workload ended (flush), when the last buffers are in. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asys_inject.h"
#include "collector.h"
#include "demangle.h"
#include "gpurt_ktime.h"
#include "inject_host.h"
#include "ktab.h"
#include "stream.h"
#include "strsafe.h"
#include "util.h"

static const struct field_desc ktime_fields[] = {
    FIELD_DESC("pid", "", FIELD_ATTR),
    FIELD_DESC("device", "", FIELD_ATTR),
    {.name = "count", .unit = "", .kind = FIELD_COUNTER, .label = "launches"},
    {.name = "total_ns", .unit = "ns", .kind = FIELD_COUNTER, .label = "GPU time"},
    {.name = "min_ns", .unit = "ns", .kind = FIELD_GAUGE, .label = "min"},
    {.name = "max_ns", .unit = "ns", .kind = FIELD_GAUGE, .label = "max"},
};
static const struct stream_desc ktime_stream = {
    .name = "gpurt.ktime",
    .version = 1,
    .entity = ENTITY_KEY,
    .nfields = ARRAY_SIZE(ktime_fields),
    .fields = ktime_fields,
    .help = "kernel executions and GPU time per (process, device, kernel) from the "
	    "profiling interface, for a workload started by asys; label \"PID<TAB>kernel\"; "
	    "min_ns/max_ns since the process started",
};
static const struct field_desc kcopy_fields[] = {
    FIELD_DESC("pid", "", FIELD_ATTR),
    FIELD_DESC("count", "", FIELD_COUNTER),
    FIELD_DESC("bytes", "B", FIELD_COUNTER),
    FIELD_DESC("total_ns", "ns", FIELD_COUNTER),
};
static const struct stream_desc kcopy_stream = {
    .name = "gpurt.kcopy",
    .version = 1,
    .entity = ENTITY_KEY,
    .nfields = ARRAY_SIZE(kcopy_fields),
    .fields = kcopy_fields,
    .help = "memory copies per (process, direction) as the device executed them, from the "
	    "profiling interface; label \"PID<TAB>HtoD|DtoH|DtoD|HtoH|PtoP|other\"",
};
static const struct stream_desc *const ktime_streams[] = {&ktime_stream, &kcopy_stream, NULL};

struct ktime_state {
	const void *sec; /* the section, read-only */
	size_t len;
	int s_time, s_copy;
	struct ktab labelled; /* struct ktab_key: the entities labelled */
	struct emitter *out;
	uint64_t ts;
	char status[256];
	bool status_sent;
	/* this pass's status, from the slots */
	uint32_t failed_pid;
	char failed[KACT_STATUS_MAX * 4 + 4];
	uint64_t dropped;
	char err[256];
};

static double ktime_frequency(const struct asys_options *o)
{
	/* only a workload asys starts loads the injection */
	if (!o->command || options_scope(o) == SCOPE_NONE)
		return 0;
	return o->delay_s > 0 ? 1.0 / o->delay_s : 1.0;
}

static uint64_t ktime_entity(uint32_t pid, uint32_t dev, const char *name)
{
	uint64_t x =
	    khash_fnv64(1469598103934665603ull ^ ((uint64_t)pid << 32 | dev), name, strlen(name));

	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	return (x >> 1) | 1; /* clear of STATUS_STREAM, never 0 (the empty mark) */
}

/* true the first time an entity is seen (it needs its label) */
static bool ktime_fresh(struct ktime_state *s, uint64_t ent)
{
	void *rec;

	return ktab_get(&s->labelled, 0, ent, &rec) == 1;
}

static void on_proc(void *ctx, const struct ktime_proc *p)
{
	struct ktime_state *s = ctx;

	if (p->state == KACT_FAILED && !s->failed_pid) {
		s->failed_pid = p->pid;
		util_strlcpy(s->failed, p->status, sizeof(s->failed));
	}
	s->dropped += p->dropped;
}

static void on_kernel(void *ctx, const struct ktime_kernel *k)
{
	struct ktime_state *s = ctx;
	uint64_t ent = ktime_entity(k->pid, k->device, k->name);
	double v[6] = {
	    (double)k->pid,    k->overflow ? NAN : (double)k->device,
	    (double)k->count,  (double)k->total_ns,
	    (double)k->min_ns, (double)k->max_ns,
	};

	if (ktime_fresh(s, ent)) {
		char label[KTIME_NAME_MAX + 600], name[512];
		const char *shown = k->name;

		/* CUPTI names kernels by their mangled symbol; escaped text demangles
		 * as itself, so only a plain one is tried */
		if (!demangle_name(k->name, name, sizeof(name)))
			shown = name;
		snprintf(label, sizeof(label), "%u\t%s", k->pid, shown);
		emit_label(s->out, (uint32_t)s->s_time, ent, s->ts, label);
	}
	emit_sample(s->out, (uint32_t)s->s_time, ent, s->ts, v, ARRAY_SIZE(v));
}

static void on_copy(void *ctx, const struct ktime_copy *c)
{
	struct ktime_state *s = ctx;
	uint64_t ent = ktime_entity(c->pid, UINT32_MAX - 1 - c->dir, "");
	double v[4] = {(double)c->pid, (double)c->count, (double)c->bytes, (double)c->total_ns};

	if (ktime_fresh(s, ent)) {
		char label[64];

		snprintf(label, sizeof(label), "%u\t%s", c->pid, ktime_dir_name(c->dir));
		emit_label(s->out, (uint32_t)s->s_copy, ent, s->ts, label);
	}
	emit_sample(s->out, (uint32_t)s->s_copy, ent, s->ts, v, ARRAY_SIZE(v));
}

static void set_status(struct ktime_state *s, const char *text)
{
	if (s->status_sent && !strcmp(s->status, text))
		return;
	util_strlcpy(s->status, text, sizeof(s->status));
	s->status_sent = true;
	emit_status(s->out, (uint32_t)s->s_time, STATUS_STREAM, s->ts, text);
}

static void ktime_pass(struct ktime_state *s, struct emitter *out)
{
	static const struct ktime_visit visit = {on_proc, on_kernel, on_copy};
	const char *note = inject_host_note(ASYS_INJECT_SEC_KACT);
	char text[sizeof(s->status)];
	uint32_t np = 0, nk = 0;
	int r;

	s->out = out;
	s->ts = asys_now_ns();
	s->failed_pid = 0;
	s->dropped = 0;
	r = ktime_read(s->sec, s->len, &visit, s);
	/* the host's word first: a variable the user set, the library missing */
	if (*note)
		snprintf(text, sizeof(text), "%s", note);
	else if (r < 0)
		snprintf(text, sizeof(text),
			 "kernel GPU time: the workload overwrote its shared region's head");
	else if (s->failed_pid)
		snprintf(text, sizeof(text), "kernel GPU time in process %u: %.200s", s->failed_pid,
			 s->failed);
	else if (s->dropped)
		snprintf(
		    text, sizeof(text),
		    "kernel GPU time: the profiling library lost %llu records; times are short",
		    (unsigned long long)s->dropped);
	else if (!kact_section_geometry(s->sec, s->len, &np, &nk) && (uint32_t)r == np)
		snprintf(text, sizeof(text),
			 "kernel GPU time: the job's first %u processes took every slot; later "
			 "ones are not timed",
			 np);
	else
		text[0] = '\0';
	set_status(s, text);
}

/* The section, read-only; its head written through the host's writable
 * mapping while it is fresh, before the workload runs. */
static int ktime_section(struct ktime_state *s)
{
	size_t size = 0, rwlen = 0;
	const void *base = inject_host_map(&size);
	struct kact_head *rw = inject_host_section_rw(ASYS_INJECT_SEC_KACT, &rwlen);
	const char *note = inject_host_note(ASYS_INJECT_SEC_KACT);

	s->sec = asys_inject_section((void *)(uintptr_t)base, size, ASYS_INJECT_SEC_KACT, &s->len);
	if (!s->sec || !rw) {
		snprintf(s->err, sizeof(s->err), "%s",
			 *note ? note
			       : "kernel GPU time is measured only in a command started by asys "
				 "(asys top -- CMD)");
		return -ENODEV;
	}
	if (!__atomic_load_n(&rw->magic, __ATOMIC_ACQUIRE) &&
	    kact_section_init(rw, rwlen, KACT_PROCS_DEFAULT, KACT_KERNELS_DEFAULT)) {
		snprintf(s->err, sizeof(s->err),
			 "kernel GPU time: the shared region's section is too small (%zu bytes)",
			 rwlen);
		return -ENOSPC;
	}
	return 0;
}

static int ktime_init(const struct coll_ctx *ctx, void **state)
{
	struct ktime_state *s = calloc(1, sizeof(*s));
	int r;

	*state = s;
	if (!s)
		return -ENOMEM;
	ktab_init(&s->labelled, sizeof(struct ktab_key), 64, KTAB_MIXED);
	r = ktime_section(s);
	if (r)
		return r;
	s->s_time = stream_table_add(ctx->streams, &ktime_stream);
	s->s_copy = stream_table_add(ctx->streams, &kcopy_stream);
	if (s->s_time < 0 || s->s_copy < 0) {
		snprintf(s->err, sizeof(s->err), "kernel GPU time: cannot register its streams");
		return s->s_time < 0 ? s->s_time : s->s_copy;
	}
	return 0;
}

static int ktime_sample(void *state, struct emitter *out, uint64_t now_ns)
{
	(void)now_ns;
	ktime_pass(state, out);
	return 0;
}

/* The workload's last buffers come at its exit, after the last tick. */
static void ktime_flush(void *state, struct emitter *out)
{
	if (state)
		ktime_pass(state, out);
}

static void ktime_fini(void *state)
{
	struct ktime_state *s = state;

	if (!s)
		return;
	ktab_fini(&s->labelled);
	free(s);
}

static const char *ktime_last_error(const void *state)
{
	const struct ktime_state *s = state;

	return s && s->err[0] ? s->err : NULL;
}

const struct collector gpurt_ktime_collector = {
    .name = "gpurt_ktime",
    .streams = ktime_streams,
    .frequency = ktime_frequency,
    .init = ktime_init,
    .sample = ktime_sample,
    .flush = ktime_flush,
    .fini = ktime_fini,
    .last_error = ktime_last_error,
    .workload_fed = true,
};
