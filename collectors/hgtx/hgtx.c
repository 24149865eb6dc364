/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asys_inject.h"
#include "collector.h"
#include "env.h"
#include "hgtx.h"
#include "hgtx_stream.h"
#include "hgtx_read.h"
#include "inject_host.h"
#include "opttab.h"
#include "stream.h"
#include "util.h"

/* The hgtx collector: the HGTX/NVTX ranges libasys-inject.so counts inside
 * a workload started after `--`, read from the shared region once per
 * refresh into hgtx.ranges. It runs only with a command: a process asys did
 * not start has no region (and would need a restart under asys). */

static const struct stream_desc *const hgtx_streams[] = {CATALOGUE_STREAM(STREAM_HGTX_RANGES),
							 NULL};

#define HGTX_ROWS_MAX (INJ_HGTX_PROCS * INJ_HGTX_NAMES)
/* The most ranges tracked at once: twice what one read can hold. Ranges of
 * a process that ended, and ranges no read has shown for HGTX_UNSEEN_TICKS
 * (a name the workload rewrote), are forgotten, so only a job that keeps
 * this many alive at once meets it; it is then said in the status. The
 * table has twice the room, which keeps its probes short. */
#define HGTX_KNOWN_CAP 65536u
#define HGTX_UNSEEN_TICKS 3u
/* Tests only: a lower bound, to reach it with a few processes. */
#define HGTX_KNOWN_CAP_ENV "ASYS_HGTX_KNOWN_CAP"

struct hgtx_known {
	uint64_t key; /* 0: free */
	uint32_t slot;
	uint32_t pid;
	uint32_t seen; /* the tick that last read it */
};

struct hgtx_state {
	uint32_t sid;
	struct inj_hgtx_section *rw; /* for the epoch only */
	const struct inj_hgtx_section *sec;
	size_t len;
	struct hgtx_row *rows;
	struct hgtx_known *known;
	uint32_t mask; /* of the table, a power of two */
	uint32_t cap, live;
	uint32_t tick;
	uint64_t refused;		   /* ranges this tick the cap left out */
	bool ended;			   /* a process ended this tick: sweep now */
	uint32_t gone_pid[INJ_HGTX_PROCS]; /* the pid whose end went out, per slot */
	char status[2048];
	bool status_sent;
	char err[512];
};

struct hgtx_opts {
	bool ranges; /* --hgtx-ranges */
};

static const struct hgtx_opts hgtx_defaults = {.ranges = true};

static const struct opt_desc hgtx_opt_descs[] = {
    {.lng = "hgtx-ranges",
     .arg = "BOOL",
     .help = "count the HGTX/NVTX ranges of the command after -- through libasys-inject.so "
	     "(default true)",
     .cmds = OPT_CMD_TOP | OPT_CMD_RECORD,
     .type = OPT_BOOL,
     .off = OPT_OFF(struct hgtx_opts, ranges)},
};

static const struct opt_table hgtx_options = {
    .name = "hgtx",
    .title = "HGTX ranges",
    .opts = hgtx_opt_descs,
    .nopts = ARRAY_SIZE(hgtx_opt_descs),
    .size = sizeof(struct hgtx_opts),
    .defaults = &hgtx_defaults,
};

/* Whether these options count the ranges of their command: a command, and
 * --hgtx-ranges not false; the job is handed the library only then. */
static bool hgtx_ranges_wanted(const struct asys_options *o)
{
	const struct hgtx_opts *ho = options_get(o, &hgtx_options);

	return o->command && ho->ranges;
}

static double hgtx_frequency(const struct asys_options *o)
{
	double hz;

	if (!hgtx_ranges_wanted(o))
		return 0;
	/* once per refresh: the library keeps sums, a read costs a walk of them */
	hz = o->delay_s > 0 ? 1.0 / o->delay_s : 1.0;
	return hz < 1 ? 1 : hz > 100 ? 100 : hz;
}

/* The HGTX section of the region, its size in *len; NULL when there is no
 * region or the section is too small to hold its layout. */
static const struct inj_hgtx_section *hgtx_section(size_t *len)
{
	const struct inj_hgtx_section *sec = inject_host_section(ASYS_INJECT_SEC_HGTX, len);

	return sec && *len >= sizeof(*sec) ? sec : NULL;
}

bool hgtx_region_serves(uint32_t pid)
{
	size_t len = 0;
	const struct inj_hgtx_section *sec = hgtx_section(&len);
	bool listed = false;

	if (!sec || !pid)
		return false;
	for (int i = 0; i < INJ_HGTX_PROCS && !listed; i++)
		listed = __atomic_load_n(&sec->procs[i].pid, __ATOMIC_RELAXED) == pid;
	/* the workload writes the slots: a pid it copied from another process
	 * would hide that process's ranges from the probes */
	return listed && inject_host_in_job(pid);
}

/* The bound on live ranges: HGTX_KNOWN_CAP, or lower for a test. */
static uint32_t hgtx_cap(void)
{
	const char *v = env_get(HGTX_KNOWN_CAP_ENV);
	char *end;
	unsigned long n = v ? strtoul(v, &end, 10) : 0;

	return v && *v && !*end && n > 0 && n < HGTX_KNOWN_CAP ? (uint32_t)n : HGTX_KNOWN_CAP;
}

static int hgtx_init(const struct coll_ctx *ctx, void **state)
{
	struct hgtx_state *st = calloc(1, sizeof(*st));
	int id;

	*state = st;
	if (!st)
		return -ENOMEM;
	st->sec = hgtx_section(&st->len);
	st->rw = inject_host_section_rw(ASYS_INJECT_SEC_HGTX, NULL);
	if (!st->sec || !st->rw) {
		const char *note = inject_host_note(ASYS_INJECT_SEC_HGTX);

		snprintf(st->err, sizeof(st->err), "%s",
			 *note ? note
			       : "HGTX ranges are counted only in a command started by asys "
				 "(asys top -- CMD)");
		return -ENODEV;
	}
	st->cap = hgtx_cap();
	st->mask = 1;
	while (st->mask < 2 * st->cap)
		st->mask <<= 1;
	st->rows = calloc(HGTX_ROWS_MAX, sizeof(*st->rows));
	st->known = calloc(st->mask, sizeof(*st->known));
	st->mask--;
	if (!st->rows || !st->known)
		return -ENOMEM;
	id = stream_table_add(ctx->streams, CATALOGUE_STREAM(STREAM_HGTX_RANGES));
	if (id < 0)
		return id;
	st->sid = (uint32_t)id;
	/* the library works only once the section says its version: a region
	 * nobody reads stays unused */
	__atomic_store_n(&st->rw->version, INJ_HGTX_VERSION, __ATOMIC_RELEASE);
	return 0;
}

static uint32_t hgtx_home(const struct hgtx_state *st, uint64_t key)
{
	return (uint32_t)(util_mix64(key) & st->mask);
}

/* The entry of key in the known table, a new one when *fresh; NULL when
 * the cap is met. */
static struct hgtx_known *hgtx_find(struct hgtx_state *st, uint64_t key, bool *fresh)
{
	uint64_t k = key ? key : 1;

	for (uint32_t i = hgtx_home(st, k);; i = (i + 1) & st->mask) {
		struct hgtx_known *e = &st->known[i];

		if (e->key == k) {
			*fresh = false;
			return e;
		}
		if (!e->key) {
			if (st->live >= st->cap)
				return NULL;
			e->key = k;
			st->live++;
			*fresh = true;
			return e;
		}
	}
}

/* Frees entry i, moving back the entries after it that it kept from their
 * home (linear probing has no tombstones: a lookup stops at a hole). */
static void hgtx_forget(struct hgtx_state *st, uint32_t i)
{
	for (uint32_t j = (i + 1) & st->mask; st->known[j].key; j = (j + 1) & st->mask) {
		uint32_t home = hgtx_home(st, st->known[j].key);

		if (((j - home) & st->mask) >= ((j - i) & st->mask)) {
			st->known[i] = st->known[j];
			i = j;
		}
	}
	st->known[i].key = 0;
	st->live--;
}

static bool hgtx_alive(uint32_t pid)
{
	return pid && (kill((pid_t)pid, 0) == 0 || errno != ESRCH);
}

static void hgtx_say(struct hgtx_state *st, struct emitter *out, uint64_t ts,
		     const struct hgtx_lost *lost)
{
	char buf[sizeof(st->status)];
	const char *note = inject_host_note(ASYS_INJECT_SEC_HGTX);
	int n = snprintf(buf, sizeof(buf), "%s", note);

	if (lost->names)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n,
			      "%s%llu ranges had no room in the name table: counted as (other)",
			      n ? "; " : "", (unsigned long long)lost->names);
	if (lost->procs || lost->shards)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n,
			      "%s%llu processes and %llu threads found no slot: not counted",
			      n > 0 && (size_t)n < sizeof(buf) ? "; " : "",
			      (unsigned long long)lost->procs, (unsigned long long)lost->shards);
	/* no count: the sentence stays the same while it holds, so it goes
	 * out once, not at every tick */
	if (st->refused && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - (size_t)n,
			 "%sover %u ranges live at once: the newest are not shown until "
			 "processes of the job end",
			 n > 0 ? "; " : "", st->cap);
	if (st->status_sent && !strcmp(buf, st->status))
		return;
	if (emit_status(out, st->sid, STATUS_STREAM, ts, buf) == 0) {
		util_strlcpy(st->status, buf, sizeof(st->status));
		st->status_sent = true;
	}
}

static void hgtx_emit_row(struct hgtx_state *st, struct emitter *out, uint64_t ts,
			  const struct hgtx_row *r)
{
	bool fresh = false;
	struct hgtx_known *e = hgtx_find(st, r->key, &fresh);
	double *v;

	if (!e) {
		st->refused++;
		return;
	}
	e->seen = st->tick;
	if (fresh) {
		e->slot = r->slot;
		e->pid = r->pid;
		if (emit_label(out, st->sid, e->key, ts, r->label) < 0) {
			hgtx_forget(st, (uint32_t)(e - st->known)); /* labelled at the next tick */
			return;
		}
	}
	v = emit_sample_begin(out, st->sid, e->key, ts, HGTX_NFIELDS);
	if (!v)
		return;
	v[0] = r->pid;
	v[1] = r->depth;
	v[2] = r->color;
	v[3] = r->count;
	v[4] = r->total_ns;
	v[5] = r->self_ns;
	v[6] = r->min_ns;
	v[7] = r->max_ns;
	emit_sample_end(out, HGTX_NFIELDS);
}

/* Whether an entry is done: its process ended (its end goes out after
 * its last sample), or no read showed it for a while (a name rewritten). */
static bool hgtx_stale(const struct hgtx_state *st, const struct hgtx_known *e)
{
	return (e->slot < INJ_HGTX_PROCS && st->gone_pid[e->slot] == e->pid) ||
	       st->tick - e->seen >= HGTX_UNSEEN_TICKS;
}

/* Forgets the stale entries, each with its end: at once when a process
 * ended, else every few ticks (a walk of the whole table). */
static void hgtx_sweep(struct hgtx_state *st, struct emitter *out, uint64_t ts)
{
	if (!st->ended && st->tick % HGTX_UNSEEN_TICKS)
		return;
	st->ended = false;
	for (uint32_t i = 0; i <= st->mask;) {
		struct hgtx_known *e = &st->known[i];

		if (!e->key || !hgtx_stale(st, e)) {
			i++;
			continue;
		}
		emit_gone(out, st->sid, e->key, ts);
		hgtx_forget(st, i); /* another entry may have moved into i */
	}
}

static int hgtx_sample(void *state, struct emitter *out, uint64_t now_ns)
{
	struct hgtx_state *st = state;
	struct hgtx_lost lost;
	uint32_t closed, slot;
	uint64_t ts = emit_tick_start(out);
	bool alive[INJ_HGTX_PROCS];
	size_t n;

	(void)now_ns;
	st->tick++;
	st->refused = 0;
	/* close the epoch: writers move to the other min/max slot */
	closed = __atomic_fetch_add(&st->rw->epoch, 1, __ATOMIC_ACQ_REL);
	for (slot = 0; slot < INJ_HGTX_PROCS; slot++)
		alive[slot] =
		    hgtx_alive(__atomic_load_n(&st->sec->procs[slot].pid, __ATOMIC_RELAXED));
	n = hgtx_read(st->sec, st->len, closed, st->rows, HGTX_ROWS_MAX, &lost);
	for (size_t i = 0; i < n; i++) {
		const struct hgtx_row *r = &st->rows[i];

		if (r->slot < INJ_HGTX_PROCS && st->gone_pid[r->slot] != r->pid)
			hgtx_emit_row(st, out, ts, r);
	}
	for (slot = 0; slot < INJ_HGTX_PROCS; slot++) {
		uint32_t pid = __atomic_load_n(&st->sec->procs[slot].pid, __ATOMIC_RELAXED);

		if (pid && !alive[slot] && st->gone_pid[slot] != pid) {
			st->gone_pid[slot] = pid;
			st->ended = true;
		}
	}
	hgtx_sweep(st, out, ts);
	hgtx_say(st, out, ts, &lost);
	return 0;
}

/* After the last tick: what the workload did since, and its end. */
static void hgtx_flush(void *state, struct emitter *out)
{
	struct hgtx_state *st = state;

	if (st && st->sec)
		hgtx_sample(st, out, asys_now_ns());
}

static void hgtx_fini(void *state)
{
	struct hgtx_state *st = state;

	if (!st)
		return;
	free(st->rows);
	free(st->known);
	free(st);
}

static const char *hgtx_last_error(const void *state)
{
	const struct hgtx_state *st = state;

	return st && st->err[0] ? st->err : NULL;
}

/* The job gets the region, and with --hgtx-ranges the variable that makes
 * the header-only NVTX load libasys-inject.so. */
static int hgtx_prepare_job(const struct coll_ctx *ctx, struct job_env *env)
{
	const char *lib, *note;

	if (inject_host_prepare(env) == 0 && hgtx_ranges_wanted(ctx->opts)) {
		lib = inject_host_lib(ASYS_INJECT_SEC_HGTX);
		if (lib)
			inject_host_env(env, ASYS_INJECT_SEC_HGTX, "NVTX_INJECTION64_PATH", lib);
	}
	note = inject_host_note(ASYS_INJECT_SEC_HGTX);
	if (*note)
		job_env_note(env, "HGTX ranges: %s", note);
	return 0;
}

const struct collector hgtx_collector = {
    .name = "hgtx",
    .streams = hgtx_streams,
    .options = &hgtx_options,
    .frequency = hgtx_frequency,
    .init = hgtx_init,
    .sample = hgtx_sample,
    .flush = hgtx_flush,
    .fini = hgtx_fini,
    .last_error = hgtx_last_error,
    .workload_fed = true,
    .prepare_job = hgtx_prepare_job,
};
