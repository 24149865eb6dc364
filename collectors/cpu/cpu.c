/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalogue.h"
#include "collector.h"
#include "cpu.h"
#include "proc_api.h"
#include "stream.h"
#include "sysroot.h"
#include "util.h"
#ifdef HAVE_PFM
#include "perfctr.h"
#endif

/* The cpu collector: per-core jiffies from /proc/stat (the store turns them
 * into rates, readers into shares) and, where a PMU exists, per-core cycles
 * and instructions. /proc/stat is pread on each tick, the online list on the
 * ticks where /proc/stat's CPUs changed; both stay open: open+close would
 * cost more than the read. */

#define CPU_STAT_BUF_MIN 16384
#define CPU_STAT_BUF_MAX (8u << 20)
#define CPU_PERF_RETRY_NS 5000000000ull /* reopen counters of a returning CPU */

#define CPU_CORE_NVALS (PROCFS_CPU_NFIELDS + 1)
/* /proc/stat's fields in its order, then online: the catalogue's cpu.core */
_Static_assert(PROCFS_CPU_NFIELDS == CPU_CORE_ONLINE && CPU_CORE_NVALS == CPU_CORE_NFIELDS,
	       "cpu.core is /proc/stat's fields and online");

static const struct stream_desc *const cpu_streams[] = {CATALOGUE_STREAM(STREAM_CPU_CORE),
							CATALOGUE_STREAM(STREAM_CPU_PERF), NULL};

struct cpu_state {
	int fd_stat, fd_online;
	char *buf;
	size_t bufsz;
	char online_buf[4096];
	struct procfs_cpu_line *lines;
	size_t nlines;
	int ncpu;	   /* slots in the per-CPU arrays */
	uint8_t *known;	   /* seen in /proc/stat or listed as present */
	uint8_t *labelled; /* its label went out */
	uint8_t *in_stat;  /* scratch: in this read of /proc/stat */
	uint8_t *online;   /* scratch: in the online list */
	uint8_t *last_set; /* the CPUs of the last read of /proc/stat */
	bool total_labelled;
	uint32_t sid_core, sid_perf;
	char perf_status[256];
	bool perf_status_sent;
	bool stat_status_set;
#ifdef HAVE_PFM
	struct perfctr *pc;
	uint64_t perf_retry_ns;
#endif
	char err[256];
};

struct cpu_opts {
	double frequency; /* --cpu-frequency; 0: once per refresh */
};

static const struct cpu_opts cpu_defaults = {0};

static const struct opt_desc cpu_opt_descs[] = {
    {.lng = "cpu-frequency",
     .arg = "HZ",
     .help = "CPU sampling rate, 1-1000 (default once per refresh)",
     .cmds = OPT_CMD_SAMPLE,
     .type = OPT_DOUBLE,
     .off = OPT_OFF(struct cpu_opts, frequency),
     .lo = 1,
     .hi = 1000,
     .unit = "Hz"},
};

static const struct opt_table cpu_options = {
    .name = "cpu",
    .title = "CPU",
    .opts = cpu_opt_descs,
    .nopts = ARRAY_SIZE(cpu_opt_descs),
    .size = sizeof(struct cpu_opts),
    .defaults = &cpu_defaults,
};

static double cpu_frequency(const struct asys_options *o)
{
	const struct cpu_opts *co = options_get(o, &cpu_options);
	double hz;

	if (co->frequency > 0)
		return co->frequency;
	/* once per refresh: the shares are rates between two samples anyway, and
	 * at 1/delay the cpu collector shares the 1 Hz thread (nic, ppu, gpurt)
	 * instead of costing a thread and four timer wakes a second of its own */
	hz = o->delay_s > 0 ? 1.0 / o->delay_s : 1.0;
	return hz < 1 ? 1 : hz > 100 ? 100 : hz;
}

/* Grows the per-CPU arrays to hold CPU n-1; 0 or -ENOMEM. */
static int cpu_ensure(struct cpu_state *st, int n)
{
	uint8_t **arrs[] = {&st->known, &st->labelled, &st->in_stat, &st->online, &st->last_set};
	int cap = st->ncpu ? st->ncpu : 8;

	if (n <= st->ncpu)
		return 0;
	if (n > PROCFS_CPU_MAX)
		return -EINVAL;
	while (cap < n)
		cap *= 2;
	if (cap > PROCFS_CPU_MAX)
		cap = PROCFS_CPU_MAX;
	for (size_t i = 0; i < ARRAY_SIZE(arrs); i++) {
		uint8_t *p = realloc(*arrs[i], (size_t)cap);

		if (!p)
			return -ENOMEM;
		memset(p + st->ncpu, 0, (size_t)(cap - st->ncpu));
		*arrs[i] = p;
	}
	st->ncpu = cap;
	return 0;
}

/* True when the buffer holds every cpu line whole: some other line (intr,
 * ctxt) starts after them. The huge intr line need not fit. */
static bool cpu_lines_complete(const char *buf)
{
	for (const char *p = strchr(buf, '\n'); p; p = strchr(p, '\n')) {
		p++;
		if (*p && strncmp(p, "cpu", 3))
			return true;
	}
	return false;
}

/* Reads /proc/stat whole enough and parses it into st->lines; returns the
 * number of cpu lines or -errno. */
static int cpu_read_stat(struct cpu_state *st)
{
	for (;;) {
		ssize_t len = sysroot_pread_all(st->fd_stat, st->buf, st->bufsz);
		int cnt;

		if (len < 0)
			return (int)len;
		if ((size_t)len == st->bufsz - 1 && !cpu_lines_complete(st->buf) &&
		    st->bufsz < CPU_STAT_BUF_MAX) {
			char *nb = realloc(st->buf, st->bufsz * 2);

			if (!nb)
				return -ENOMEM;
			st->buf = nb;
			st->bufsz *= 2;
			continue;
		}
		cnt = procfs_parse_stat(st->buf, st->lines, st->nlines);
		if (cnt > (int)st->nlines) {
			struct procfs_cpu_line *nl = realloc(st->lines, (size_t)cnt * sizeof(*nl));

			if (!nl)
				return -ENOMEM;
			st->lines = nl;
			st->nlines = (size_t)cnt;
			cnt = procfs_parse_stat(st->buf, st->lines, st->nlines);
		}
		return cnt;
	}
}

/* Fills st->online from the online list; false when there is none to trust. */
static bool cpu_read_online(struct cpu_state *st)
{
	ssize_t len;

	if (st->fd_online < 0)
		return false;
	len = sysroot_pread_all(st->fd_online, st->online_buf, sizeof(st->online_buf));
	if (len <= 0)
		return false;
	memset(st->online, 0, (size_t)st->ncpu);
	return procfs_parse_cpulist(st->online_buf, st->online, (size_t)st->ncpu) >= 0;
}

/* /proc/stat lists exactly the online CPUs, so the online list can only
 * tell more in the moment between the two reads while a CPU comes or goes:
 * it is read on the ticks where /proc/stat's set of CPUs changed, which
 * saves a read a tick at kHz rates. The set starts empty, so the first
 * read that lists a CPU counts as a change; one that lists none has no CPU
 * the list could mark offline. */
static bool cpu_set_changed(struct cpu_state *st)
{
	bool changed = memcmp(st->last_set, st->in_stat, (size_t)st->ncpu) != 0;

	memcpy(st->last_set, st->in_stat, (size_t)st->ncpu);
	return changed;
}

static void cpu_fini(void *state)
{
	struct cpu_state *st = state;

	if (!st)
		return;
	if (st->fd_stat >= 0)
		close(st->fd_stat);
	if (st->fd_online >= 0)
		close(st->fd_online);
#ifdef HAVE_PFM
	perfctr_free(st->pc);
#endif
	free(st->buf);
	free(st->lines);
	free(st->known);
	free(st->labelled);
	free(st->in_stat);
	free(st->online);
	free(st->last_set);
	free(st);
}

static void cpu_init_perf(struct cpu_state *st)
{
#ifdef HAVE_PFM
	uint8_t *on = calloc((size_t)st->ncpu, 1);
	int top = 0;

	if (!on) {
		snprintf(st->perf_status, sizeof(st->perf_status), "IPC n/a: out of memory");
		return;
	}
	for (int c = 0; c < st->ncpu; c++) {
		if (st->known[c] && st->in_stat[c]) {
			on[c] = 1;
			top = c + 1;
		}
	}
	if (top == 0)
		snprintf(st->perf_status, sizeof(st->perf_status), "IPC n/a: no CPU is online");
	else if (perfctr_open(on, st->ncpu, &st->pc, st->perf_status, sizeof(st->perf_status)))
		st->pc = NULL;
	free(on);
#else
	snprintf(st->perf_status, sizeof(st->perf_status),
		 "IPC n/a: built without libpfm4 (install libpfm4-dev and rebuild)");
#endif
}

/* The CPUs of the first /proc/stat read, and those present but offline
 * from the start (shown as offline too). 0 or -errno. */
static int cpu_init_known(struct cpu_state *st)
{
	char pbuf[4096];
	int rc, cnt = cpu_read_stat(st);

	if (cnt < 0) {
		snprintf(st->err, sizeof(st->err), "cannot parse /proc/stat: %s", strerror(-cnt));
		return cnt;
	}
	for (int i = 0; i < cnt; i++) {
		int c = st->lines[i].cpu;

		if (c == PROCFS_CPU_TOTAL)
			continue;
		rc = cpu_ensure(st, c + 1);
		if (rc)
			return rc;
		st->known[c] = st->in_stat[c] = 1;
	}
	if (sysroot_read_file("/sys/devices/system/cpu/present", pbuf, sizeof(pbuf)) > 0) {
		int top = procfs_parse_cpulist(pbuf, NULL, 0);

		if (top > 0 && cpu_ensure(st, top) == 0)
			procfs_parse_cpulist(pbuf, st->known, (size_t)st->ncpu);
	}
	return 0;
}

static int cpu_init(const struct coll_ctx *ctx, void **state)
{
	struct cpu_state *st = calloc(1, sizeof(*st));
	int rc;

	*state = st;
	if (!st)
		return -ENOMEM;
	st->fd_stat = st->fd_online = -1;
	rc = stream_table_add(ctx->streams, CATALOGUE_STREAM(STREAM_CPU_CORE));
	if (rc < 0)
		goto fail;
	st->sid_core = (uint32_t)rc;
	rc = stream_table_add(ctx->streams, CATALOGUE_STREAM(STREAM_CPU_PERF));
	if (rc < 0)
		goto fail;
	st->sid_perf = (uint32_t)rc;

	st->fd_stat = sysroot_open("/proc/stat", O_RDONLY);
	if (st->fd_stat < 0) {
		rc = st->fd_stat;
		snprintf(st->err, sizeof(st->err),
			 "cannot open %s/proc/stat: %s (is /proc mounted?)",
			 sysroot_get()[1] ? sysroot_get() : "", strerror(-rc));
		return rc;
	}
	st->fd_online = sysroot_open("/sys/devices/system/cpu/online", O_RDONLY);
	st->bufsz = CPU_STAT_BUF_MIN;
	st->buf = malloc(st->bufsz);
	rc = st->buf ? cpu_ensure(st, 8) : -ENOMEM;
	if (!rc)
		rc = cpu_init_known(st);
	if (rc) {
		if (!st->err[0])
			goto fail;
		return rc;
	}
	cpu_init_perf(st);
	return 0;
fail:
	snprintf(st->err, sizeof(st->err), "cpu collector: %s", strerror(-rc));
	return rc;
}

static void cpu_emit_row(struct cpu_state *st, struct emitter *out, uint64_t ent, uint64_t ts,
			 const double *v, bool on)
{
	double row[CPU_CORE_NVALS];

	for (int i = 0; i < PROCFS_CPU_NFIELDS; i++)
		row[i] = on ? v[i] : NAN;
	row[PROCFS_CPU_NFIELDS] = on ? 1.0 : 0.0;
	emit_sample(out, st->sid_core, ent, ts, row, CPU_CORE_NVALS);
}

static void cpu_sample_perf(struct cpu_state *st, struct emitter *out, uint64_t ts)
{
#ifdef HAVE_PFM
	if (st->pc) {
		double sum[2] = {0, 0};
		bool all = true, retry = ts >= st->perf_retry_ns;

		for (int c = 0; c < st->ncpu; c++) {
			double v[2] = {NAN, NAN};

			if (!st->known[c])
				continue;
			/* an offline CPU reads NaN and is no part of the total */
			if (st->in_stat[c]) {
				if (!perfctr_is_open(st->pc, c) && retry) {
					perfctr_reopen(st->pc, c); /* it came back online */
					st->perf_retry_ns = ts + CPU_PERF_RETRY_NS;
				}
				perfctr_read(st->pc, c, &v[0], &v[1]);
				if (isnan(v[0]) || isnan(v[1]))
					all = false;
				sum[0] += v[0];
				sum[1] += v[1];
			}
			emit_sample(out, st->sid_perf, (uint64_t)c, ts, v, 2);
		}
		if (!all)
			sum[0] = sum[1] = NAN;
		emit_sample(out, st->sid_perf, ENTITY_CPU_TOTAL, ts, sum, 2);
		return;
	}
#endif
	if (!st->perf_status_sent &&
	    emit_status(out, st->sid_perf, STATUS_STREAM, ts, st->perf_status) == 0)
		st->perf_status_sent = true;
}

/* The row of CPU c, labelled the first time. */
static void cpu_emit_core(struct cpu_state *st, struct emitter *out, int c, uint64_t ts,
			  const double *v, bool online)
{
	if (!st->labelled[c]) {
		char name[24];

		snprintf(name, sizeof(name), "cpu%d", c);
		st->labelled[c] = emit_label(out, st->sid_core, (uint64_t)c, ts, name) == 0;
	}
	cpu_emit_row(st, out, (uint64_t)c, ts, v, online);
}

/* The status of an unreadable /proc/stat, set once and cleared once. */
static void cpu_stat_status(struct cpu_state *st, struct emitter *out, uint64_t ts, int err)
{
	char msg[160] = "";

	if (err)
		snprintf(msg, sizeof(msg), "cannot read /proc/stat: %s", strerror(-err));
	if (st->stat_status_set != (err != 0) &&
	    emit_status(out, st->sid_core, STATUS_STREAM, ts, msg) == 0)
		st->stat_status_set = err != 0;
}

static int cpu_sample(void *state, struct emitter *out, uint64_t now_ns)
{
	struct cpu_state *st = state;
	uint64_t ts = asys_now_ns();
	int cnt = cpu_read_stat(st);
	bool have_online;

	(void)now_ns;
	cpu_stat_status(st, out, ts, cnt < 0 ? cnt : 0);
	if (cnt < 0)
		return cnt;
	memset(st->in_stat, 0, (size_t)st->ncpu);
	for (int i = 0; i < cnt; i++) {
		int c = st->lines[i].cpu;

		if (c != PROCFS_CPU_TOTAL && cpu_ensure(st, c + 1) == 0)
			st->known[c] = st->in_stat[c] = 1;
	}
	have_online = cpu_set_changed(st) && cpu_read_online(st);
	for (int i = 0; i < cnt; i++) {
		if (st->lines[i].cpu != PROCFS_CPU_TOTAL)
			continue;
		if (!st->total_labelled)
			st->total_labelled =
			    emit_label(out, st->sid_core, ENTITY_CPU_TOTAL, ts, "cpu") == 0;
		cpu_emit_row(st, out, ENTITY_CPU_TOTAL, ts, st->lines[i].v, true);
		break;
	}
	for (int i = 0; i < cnt; i++) {
		int c = st->lines[i].cpu;

		if (c == PROCFS_CPU_TOTAL || c >= st->ncpu)
			continue;
		/* a CPU the online list drops is offline even if /proc/stat lags */
		if (have_online && !st->online[c])
			st->in_stat[c] = 0;
		if (st->in_stat[c] != 1)
			continue; /* not online, or a duplicate line */
		st->in_stat[c] = 2;
		cpu_emit_core(st, out, c, ts, st->lines[i].v, true);
	}
	for (int c = 0; c < st->ncpu; c++)
		if (st->known[c] && !st->in_stat[c])
			cpu_emit_core(st, out, c, ts, NULL, false);
	cpu_sample_perf(st, out, ts);
	return 0;
}

static const char *cpu_last_error(const void *state)
{
	const struct cpu_state *st = state;

	return st && st->err[0] ? st->err : NULL;
}

const struct collector cpu_collector = {
    .name = "cpu",
    .streams = cpu_streams,
    .options = &cpu_options,
    .frequency = cpu_frequency,
    .init = cpu_init,
    .sample = cpu_sample,
    .fini = cpu_fini,
    .last_error = cpu_last_error,
};
