#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static const struct field_desc mem_sys_fields[] = {
    FIELD_DESC("total", "B", FIELD_GAUGE),	FIELD_DESC("free", "B", FIELD_GAUGE),
    FIELD_DESC("available", "B", FIELD_GAUGE),	FIELD_DESC("buffers", "B", FIELD_GAUGE),
    FIELD_DESC("cached", "B", FIELD_GAUGE),	FIELD_DESC("used", "B", FIELD_GAUGE),
    FIELD_DESC("swap_total", "B", FIELD_GAUGE), FIELD_DESC("swap_free", "B", FIELD_GAUGE),
    FIELD_DESC("shmem", "B", FIELD_GAUGE),	FIELD_DESC("sreclaimable", "B", FIELD_GAUGE),
    FIELD_DESC("buff_cache", "B", FIELD_GAUGE),
};

static const struct stream_desc mem_sys_stream = {
    .name = "mem.sys",
    /* 2: used and buff_cache as free(1) of procps-ng 4 counts them; version 1
     * files hold used = total - free - buffers - cached - sreclaimable */
    .version = 2,
    .entity = ENTITY_NONE,
    .nfields = ARRAY_SIZE(mem_sys_fields),
    .fields = mem_sys_fields,
    .help = "host memory from /proc/meminfo, as free(1) counts it: used = total-available, "
	    "buff_cache = buffers+cached+sreclaimable",
};

static const struct field_desc mem_proc_fields[] = {
    FIELD_DESC("rss", "B", FIELD_GAUGE),    FIELD_DESC("hwm", "B", FIELD_GAUGE),
    FIELD_DESC("uid", "", FIELD_ATTR),	    FIELD_DESC("ppid", "", FIELD_ATTR),
    FIELD_DESC("threads", "", FIELD_GAUGE),
};

static const struct stream_desc mem_proc_stream = {
    .name = "mem.proc",
    .version = 1,
    .entity = ENTITY_PID,
    .nfields = ARRAY_SIZE(mem_proc_fields),
    .fields = mem_proc_fields,
    .help = "per-process resident memory (VmRSS) and its high-water mark (VmHWM)",
};

static const struct field_desc proc_cpu_fields[] = {
    FIELD_DESC("utime", "s", FIELD_COUNTER), FIELD_DESC("stime", "s", FIELD_COUNTER),
    FIELD_DESC("state", "", FIELD_ATTR),     FIELD_DESC("nice", "", FIELD_ATTR),
    FIELD_DESC("kthread", "", FIELD_ATTR),   FIELD_DESC("start", "s", FIELD_ATTR),
};

static const struct stream_desc proc_cpu_stream = {
    .name = "proc.cpu",
    .version = 1,
    .entity = ENTITY_PID,
    .nfields = ARRAY_SIZE(proc_cpu_fields),
    .fields = proc_cpu_fields,
    .help = "per-process CPU seconds (user, system) from /proc/PID/stat, the state letter's "
	    "code, nice, 1 for a kernel thread, start in seconds since boot",
};

static const struct field_desc proc_thread_fields[] = {
    FIELD_DESC("utime", "s", FIELD_COUNTER),
    FIELD_DESC("stime", "s", FIELD_COUNTER),
    FIELD_DESC("state", "", FIELD_ATTR),
    FIELD_DESC("tgid", "", FIELD_ATTR),
};

static const struct stream_desc proc_thread_stream = {
    .name = "proc.thread",
    .version = 1,
    .entity = ENTITY_PID,
    .nfields = ARRAY_SIZE(proc_thread_fields),
    .fields = proc_thread_fields,
    .help = "per-thread CPU seconds (user, system), the state letter's code and the owning "
	    "process (--process-threads); entity = thread id, label = thread name",
};

static const struct stream_desc *const mem_streams[] = {
    &mem_sys_stream, &mem_proc_stream, &proc_cpu_stream, &proc_thread_stream, NULL};

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
	int rc = stream_table_add(t, &mem_proc_stream);

	if (rc < 0)
		return rc;
	st->sids.proc = (uint32_t)rc;
	rc = stream_table_add(t, &proc_cpu_stream);
	if (rc < 0)
		return rc;
	st->sids.cpu = (uint32_t)rc;
	if (!threads)
		return 0;
	rc = stream_table_add(t, &proc_thread_stream);
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
	rc = stream_table_add(ctx->streams, &mem_sys_stream);
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
	double v[11];

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
	v[0] = m.total;
	v[1] = m.free;
	v[2] = m.available;
	v[3] = m.buffers;
	v[4] = m.cached;
	v[5] = procfs_mem_used(&m);
	v[6] = m.swap_total;
	v[7] = m.swap_free;
	v[8] = m.shmem;
	v[9] = m.sreclaimable;
	v[10] = procfs_mem_buff_cache(&m);
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
