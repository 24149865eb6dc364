/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalogue.h"
#include "collector.h"
#include "mem.h"
#include "memproc.h"
#include "proc_api.h"
#include "stream.h"
#include "sysroot.h"
#include "util.h"

/* The mem collector: host totals from /proc/meminfo (kept open, pread) on
 * every tick, and per process (memproc.c) RSS / watermark (mem.proc) and CPU
 * times (proc.cpu): every process once per refresh system-wide, or the
 * process tree at the full rate; per thread CPU times (proc.thread) with
 * --process-threads. */

static const struct stream_desc *const mem_streams[] = {
    CATALOGUE_STREAM(STREAM_MEM_SYS), CATALOGUE_STREAM(STREAM_MEM_PROC),
    CATALOGUE_STREAM(STREAM_PROC_CPU), CATALOGUE_STREAM(STREAM_PROC_THREAD), NULL};

struct mem_state {
	int fd_meminfo;
	char buf[8192];
	uint32_t sid_sys;
	struct memproc_sids sids;
	enum sample_scope scope;
	uint64_t period_ns, next_scan_ns;
	struct memproc *mp; /* NULL with -s none */
	bool meminfo_status_set;
	char proc_status[256]; /* why there are no rows; sent once */
	char err[256];
};

struct mem_opts {
	bool sampling;	  /* --host-memory-sampling */
	double frequency; /* --host-memory-sampling-frequency */
	bool threads;	  /* --process-threads */
};

static const struct mem_opts mem_defaults = {.sampling = true, .frequency = 10};

static const struct opt_desc mem_opt_descs[] = {
    {.lng = "host-memory-sampling",
     .arg = "BOOL",
     .help = "sample host memory at its own rate, true|false (default true; false: once "
	     "per refresh)",
     .cmds = OPT_CMD_SAMPLE,
     .type = OPT_BOOL,
     .off = OPT_OFF(struct mem_opts, sampling)},
    {.lng = "host-memory-sampling-frequency",
     .arg = "HZ",
     .help = "host memory sampling rate, 1-1000 (default 10)",
     .cmds = OPT_CMD_SAMPLE,
     .type = OPT_DOUBLE,
     .off = OPT_OFF(struct mem_opts, frequency),
     .lo = 1,
     .hi = 1000,
     .unit = "Hz"},
    {.lng = "process-threads",
     .help = "also sample every thread's CPU times (stream proc.thread), once per refresh",
     .cmds = OPT_CMD_SAMPLE,
     .type = OPT_FLAG,
     .off = OPT_OFF(struct mem_opts, threads)},
};

static const struct opt_table mem_options = {
    .name = "mem",
    .title = "Host memory",
    .opts = mem_opt_descs,
    .nopts = ARRAY_SIZE(mem_opt_descs),
    .size = sizeof(struct mem_opts),
    .defaults = &mem_defaults,
};

static double mem_frequency(const struct asys_options *o)
{
	const struct mem_opts *mo = options_get(o, &mem_options);

	if (mo->sampling && mo->frequency > 0)
		return mo->frequency;
	return o->delay_s > 0 ? 1.0 / o->delay_s : 1.0;
}

static void mem_fini(void *state)
{
	struct mem_state *st = state;

	if (!st)
		return;
	if (st->fd_meminfo >= 0)
		close(st->fd_meminfo);
	memproc_free(st->mp);
	free(st);
}

/* mem.proc and proc.cpu, and proc.thread when asked for. */
static int mem_add_proc_streams(struct mem_state *st, struct stream_table *t, bool threads)
{
	int rc = stream_table_add(t, CATALOGUE_STREAM(STREAM_MEM_PROC));

	if (rc < 0)
		return rc;
	st->sids.proc = (uint32_t)rc;
	rc = stream_table_add(t, CATALOGUE_STREAM(STREAM_PROC_CPU));
	if (rc < 0)
		return rc;
	st->sids.cpu = (uint32_t)rc;
	if (!threads)
		return 0;
	rc = stream_table_add(t, CATALOGUE_STREAM(STREAM_PROC_THREAD));
	if (rc < 0)
		return rc;
	st->sids.thread = (uint32_t)rc;
	return 0;
}

static int mem_init(const struct coll_ctx *ctx, void **state)
{
	const struct asys_options *o = ctx->opts;
	const struct mem_opts *mo = options_get(o, &mem_options);
	struct mem_state *st = calloc(1, sizeof(*st));
	int rc;

	*state = st;
	if (!st)
		return -ENOMEM;
	st->fd_meminfo = -1;
	rc = stream_table_add(ctx->streams, CATALOGUE_STREAM(STREAM_MEM_SYS));
	if (rc < 0)
		goto fail;
	st->sid_sys = (uint32_t)rc;
	st->scope = options_scope(o);
	/* -s none: no mem.proc stream at all, so a pane or a recording tells
	 * "no process followed" from the schema */
	if (st->scope != SCOPE_NONE) {
		rc = mem_add_proc_streams(st, ctx->streams, mo->threads);
		if (rc < 0)
			goto fail;
	}
	st->period_ns = (uint64_t)((o->delay_s > 0 ? o->delay_s : 1.0) * 1e9);

	st->fd_meminfo = sysroot_open("/proc/meminfo", O_RDONLY);
	if (st->fd_meminfo < 0) {
		rc = st->fd_meminfo;
		snprintf(st->err, sizeof(st->err),
			 "cannot open /proc/meminfo: %s (is /proc mounted?)", strerror(-rc));
		return rc;
	}
	if (st->scope == SCOPE_NONE)
		return 0;
	/* without per-process rows the host totals still go on */
	if (memproc_new(&st->mp, &st->sids, o, st->scope == SCOPE_PROCESS_TREE, mo->threads,
			st->proc_status, sizeof(st->proc_status)) < 0)
		st->mp = NULL;
	return 0;
fail:
	snprintf(st->err, sizeof(st->err), "mem collector: %s", strerror(-rc));
	return rc;
}

static void mem_sample_sys(struct mem_state *st, struct emitter *out)
{
	struct procfs_meminfo m;
	uint64_t ts = asys_now_ns();
	ssize_t len = sysroot_pread_all(st->fd_meminfo, st->buf, sizeof(st->buf));
	double v[MEM_SYS_NFIELDS];

	if (len < 0) {
		char msg[160];

		snprintf(msg, sizeof(msg), "cannot read /proc/meminfo: %s", strerror((int)-len));
		if (!st->meminfo_status_set)
			st->meminfo_status_set =
			    emit_status(out, st->sid_sys, STATUS_STREAM, ts, msg) == 0;
		return;
	}
	if (st->meminfo_status_set)
		st->meminfo_status_set = emit_status(out, st->sid_sys, STATUS_STREAM, ts, "") != 0;
	procfs_parse_meminfo(st->buf, &m);
	v[MEM_SYS_TOTAL] = m.total;
	v[MEM_SYS_FREE] = m.free;
	v[MEM_SYS_AVAILABLE] = m.available;
	v[MEM_SYS_BUFFERS] = m.buffers;
	v[MEM_SYS_CACHED] = m.cached;
	v[MEM_SYS_USED] = procfs_mem_used(&m);
	v[MEM_SYS_SWAP_TOTAL] = m.swap_total;
	v[MEM_SYS_SWAP_FREE] = m.swap_free;
	v[MEM_SYS_SHMEM] = m.shmem;
	v[MEM_SYS_SRECLAIMABLE] = m.sreclaimable;
	v[MEM_SYS_BUFF_CACHE] = procfs_mem_buff_cache(&m);
	emit_sample(out, st->sid_sys, 0, ts, v, ARRAY_SIZE(v));
}

static int mem_sample(void *state, struct emitter *out, uint64_t now_ns)
{
	struct mem_state *st = state;
	bool full;

	mem_sample_sys(st, out);
	if (!st->mp) {
		if (st->proc_status[0] && emit_status(out, st->sids.proc, STATUS_STREAM,
						      asys_now_ns(), st->proc_status) == 0)
			st->proc_status[0] = '\0';
		return 0;
	}
	/* the once-per-refresh part, on absolute deadlines like the engine's */
	full = st->next_scan_ns == 0 || now_ns >= st->next_scan_ns;
	if (full) {
		st->next_scan_ns = (st->next_scan_ns ? st->next_scan_ns : now_ns) + st->period_ns;
		if (st->next_scan_ns <= now_ns)
			st->next_scan_ns = now_ns + st->period_ns;
	}
	memproc_sample(st->mp, out, full);
	return 0;
}

static const char *mem_last_error(const void *state)
{
	const struct mem_state *st = state;

	return st && st->err[0] ? st->err : NULL;
}

const struct collector mem_collector = {
    .name = "mem",
    .streams = mem_streams,
    .options = &mem_options,
    .frequency = mem_frequency,
    .init = mem_init,
    .sample = mem_sample,
    .fini = mem_fini,
    .last_error = mem_last_error,
};
