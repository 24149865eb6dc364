/* SPDX-License-Identifier: GPL-2.0-only */
/* ktime: kernel GPU time and copies of a workload started with
 * `asys top -- cmd` / `asys record -- cmd`, from the runtime's profiling
 * interface. libasys-inject.so (inject/inject_ktime.c) aggregates CUPTI's
 * activity records in the workload; this reads the KTIME section of the
 * region asys made for it (ktime_read.c) each refresh, and once more
 * after the workload ended (flush), when the last buffers are in. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asys_inject.h"
#include "catalogue.h"
#include "collector.h"
#include "gpurt_api.h"
#include "hgtx.h"
#include "job_env.h"
#include "ktab.h"
#include "ktime.h"
#include "ktime_inject.h"
#include "ktime_read.h"
#include "stream.h"
#include "strsafe.h"
#include "util.h"

static const struct stream_desc *const ktime_streams[] = {
    CATALOGUE_STREAM(STREAM_GPURT_KTIME), CATALOGUE_STREAM(STREAM_GPURT_KCOPY), NULL};

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
	char failed[KTIME_STATUS_MAX * 4 + 4];
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

	if (p->state == KTIME_FAILED && !s->failed_pid) {
		s->failed_pid = p->pid;
		util_strlcpy(s->failed, p->status, sizeof(s->failed));
	}
	s->dropped += p->dropped;
}

static void on_kernel(void *ctx, const struct ktime_kernel *k)
{
	struct ktime_state *s = ctx;
	uint64_t ent = ktime_entity(k->pid, k->device, k->name);
	double v[GPURT_KTIME_NFIELDS] = {
	    [GPURT_KTIME_PID] = (double)k->pid,
	    [GPURT_KTIME_DEVICE] = k->overflow ? NAN : (double)k->device,
	    [GPURT_KTIME_COUNT] = (double)k->count,
	    [GPURT_KTIME_TOTAL_NS] = (double)k->total_ns,
	    [GPURT_KTIME_MIN_NS] = (double)k->min_ns,
	    [GPURT_KTIME_MAX_NS] = (double)k->max_ns,
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
	double v[GPURT_KCOPY_NFIELDS] = {
	    [GPURT_KCOPY_PID] = (double)c->pid,
	    [GPURT_KCOPY_COUNT] = (double)c->count,
	    [GPURT_KCOPY_BYTES] = (double)c->bytes,
	    [GPURT_KCOPY_TOTAL_NS] = (double)c->total_ns,
	};

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
	const char *note = inject_host_note(ASYS_INJECT_SEC_KTIME);
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
	else if (!ktime_section_geometry(s->sec, s->len, &np, &nk) && (uint32_t)r == np)
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
	struct ktime_sec_head *rw = inject_host_section_rw(ASYS_INJECT_SEC_KTIME, &rwlen);
	const char *note = inject_host_note(ASYS_INJECT_SEC_KTIME);

	s->sec = asys_inject_section((void *)(uintptr_t)base, size, ASYS_INJECT_SEC_KTIME, &s->len);
	if (!s->sec || !rw) {
		snprintf(s->err, sizeof(s->err), "%s",
			 *note ? note
			       : "kernel GPU time is measured only in a command started by asys "
				 "(asys top -- CMD)");
		return -ENODEV;
	}
	if (!__atomic_load_n(&rw->magic, __ATOMIC_ACQUIRE) &&
	    ktime_section_init(rw, rwlen, KTIME_PROCS_DEFAULT, KTIME_KERNELS_DEFAULT)) {
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
	s->s_time = stream_table_add(ctx->streams, CATALOGUE_STREAM(STREAM_GPURT_KTIME));
	s->s_copy = stream_table_add(ctx->streams, CATALOGUE_STREAM(STREAM_GPURT_KCOPY));
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

/* The job gets the region, and the variables that make its runtimes load
 * libasys-inject.so as their profiling tool. */
static int ktime_prepare_job(const struct coll_ctx *ctx, struct job_env *env)
{
	const char *note;
	char why[512];

	/* a bad line of the probe file; a missing library is the note's (and
	 * without the region, the tool would have nowhere to write) */
	if (inject_host_prepare(env) == 0 &&
	    ktime_inject_setup(ctx->opts, env, why, sizeof(why)) == -EINVAL)
		job_env_warn(env, "kernel GPU time: %s", why);
	note = inject_host_note(ASYS_INJECT_SEC_KTIME);
	if (*note)
		job_env_note(env, "kernel GPU time: %s", note);
	return 0;
}

const struct collector ktime_collector = {
    .name = "gpurt_ktime",
    .streams = ktime_streams,
    .frequency = ktime_frequency,
    .init = ktime_init,
    .sample = ktime_sample,
    .flush = ktime_flush,
    .fini = ktime_fini,
    .last_error = ktime_last_error,
    .workload_fed = true,
    .prepare_job = ktime_prepare_job,
};
