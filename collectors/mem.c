#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus.h"
#include "collector.h"
#include "procfs.h"
#include "stream.h"
#include "sysroot.h"
#include "util.h"

/* The mem collector: host totals from /proc/meminfo on every tick, and RSS /
 * watermark per process. System-wide, the scan of every /proc/PID runs once
 * per refresh (not per tick): it reads the cheap statm of each process, then
 * status and cmdline of the top MEM_TOP_N only. In process-tree mode the
 * tree of the roots is followed at the full rate through the children files
 * (a ppid scan once per refresh where the kernel has none). */

#define MEM_TOP_N 64
#define MEM_TREE_MAX 4096
#define MEM_LABEL_MAX 256
#define MEM_LABEL_REFRESH 16 /* re-read a cmdline every N reports (setproctitle) */

enum { MP_RSS, MP_HWM, MP_UID, MP_PPID, MP_THREADS, MP_NVALS };

static const struct field_desc mem_sys_fields[] = {
	{ "total", "B", FIELD_GAUGE },	    { "free", "B", FIELD_GAUGE },
	{ "available", "B", FIELD_GAUGE },  { "buffers", "B", FIELD_GAUGE },
	{ "cached", "B", FIELD_GAUGE },	    { "used", "B", FIELD_GAUGE },
	{ "swap_total", "B", FIELD_GAUGE }, { "swap_free", "B", FIELD_GAUGE },
	{ "shmem", "B", FIELD_GAUGE },	    { "sreclaimable", "B", FIELD_GAUGE },
};

static const struct stream_desc mem_sys_stream = {
	.name = "mem.sys",
	.version = 1,
	.entity = ENTITY_NONE,
	.nfields = ARRAY_SIZE(mem_sys_fields),
	.fields = mem_sys_fields,
	.help = "host memory from /proc/meminfo (used = total-free-buffers-cached-sreclaimable)",
};

static const struct field_desc mem_proc_fields[] = {
	{ "rss", "B", FIELD_GAUGE },  { "hwm", "B", FIELD_GAUGE },    { "uid", "", FIELD_GAUGE },
	{ "ppid", "", FIELD_GAUGE }, { "threads", "", FIELD_GAUGE },
};

static const struct stream_desc mem_proc_stream = {
	.name = "mem.proc",
	.version = 1,
	.entity = ENTITY_PID,
	.nfields = ARRAY_SIZE(mem_proc_fields),
	.fields = mem_proc_fields,
	.help = "per-process resident memory (VmRSS) and its high-water mark (VmHWM)",
};

static const struct stream_desc *const mem_streams[] = { &mem_sys_stream, &mem_proc_stream,
							 NULL };

struct mem_proc {
	pid_t pid;
	uint32_t label_age;
	double v[MP_NVALS];
	char name[PROCFS_COMM_MAX]; /* comm when the label was read */
	char label[MEM_LABEL_MAX];  /* "" = not read yet */
};

struct mem_cand {
	pid_t pid;
	pid_t ppid; /* ppid scan only */
	double rss;
};

struct mem_state {
	int fd_meminfo;
	DIR *procdir; /* sysroot /proc, rewound for each scan */
	char buf[8192];
	uint32_t sid_sys, sid_proc;
	enum sample_scope scope;
	const struct asys_options *opts; /* roots: opts->pids (main adds the workload) */
	uint64_t period_ns, next_scan_ns;
	double page_size;
	/* the reported set, sorted by pid; cur is built on each report */
	struct mem_proc *procs, *cur;
	size_t nprocs, ncur, cap;
	struct mem_cand *cand;
	size_t ncand, candcap;
	pid_t *tree; /* process-tree members (MEM_TREE_MAX) */
	size_t ntree;
	bool no_children; /* the kernel has no /proc/PID/task/TID/children */
	unsigned unreadable, unreadable_sent;
	bool meminfo_status_set;
	char err[256];
};

static double mem_frequency(const struct asys_options *o)
{
	if (o->host_memory_sampling && o->host_memory_frequency > 0)
		return o->host_memory_frequency;
	return o->delay_s > 0 ? 1.0 / o->delay_s : 1.0;
}

/* Reads a small file below /proc/ into st->buf. Bytes, or -errno. */
static ssize_t mem_read_rel(struct mem_state *st, const char *rel, char *buf, size_t n)
{
	int fd = openat(dirfd(st->procdir), rel, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = sysroot_pread_all(fd, buf, n);
	close(fd);
	return r;
}

/* A failed per-process read: the process is gone (silent) or hidden from us. */
static void mem_note_error(struct mem_state *st, ssize_t rc)
{
	if (rc == -EACCES || rc == -EPERM)
		st->unreadable++;
}

static void mem_fini(void *state)
{
	struct mem_state *st = state;

	if (!st)
		return;
	if (st->fd_meminfo >= 0)
		close(st->fd_meminfo);
	if (st->procdir)
		closedir(st->procdir);
	free(st->procs);
	free(st->cur);
	free(st->cand);
	free(st->tree);
	free(st);
}

static int mem_init(const struct coll_ctx *ctx, void **state)
{
	const struct asys_options *o = ctx->opts;
	struct mem_state *st = calloc(1, sizeof(*st));
	char path[4096];
	long ps = sysconf(_SC_PAGESIZE);
	int rc;

	*state = st;
	if (!st)
		return -ENOMEM;
	st->fd_meminfo = -1;
	rc = stream_table_add(ctx->streams, &mem_sys_stream);
	if (rc < 0)
		goto fail;
	st->sid_sys = (uint32_t)rc;
	rc = stream_table_add(ctx->streams, &mem_proc_stream);
	if (rc < 0)
		goto fail;
	st->sid_proc = (uint32_t)rc;
	st->page_size = ps > 0 ? (double)ps : 4096.0;
	st->scope = options_scope(o);
	st->period_ns = (uint64_t)((o->delay_s > 0 ? o->delay_s : 1.0) * 1e9);
	st->opts = o;

	st->fd_meminfo = sysroot_open("/proc/meminfo", O_RDONLY);
	if (st->fd_meminfo < 0) {
		rc = st->fd_meminfo;
		snprintf(st->err, sizeof(st->err), "cannot open /proc/meminfo: %s (is /proc mounted?)",
			 strerror(-rc));
		return rc;
	}
	if (st->scope == SCOPE_NONE)
		return 0;
	rc = sysroot_path(path, sizeof(path), "/proc");
	if (rc)
		goto fail;
	st->procdir = opendir(path);
	if (!st->procdir) {
		rc = -errno;
		snprintf(st->err, sizeof(st->err), "cannot list %.200s: %s", path, strerror(-rc));
		return rc;
	}
	st->cap = MEM_TOP_N;
	st->procs = calloc(st->cap, sizeof(*st->procs));
	st->cur = calloc(st->cap, sizeof(*st->cur));
	if (!st->procs || !st->cur) {
		rc = -ENOMEM;
		goto fail;
	}
	if (st->scope == SCOPE_PROCESS_TREE) {
		st->tree = calloc(MEM_TREE_MAX, sizeof(*st->tree));
		if (!st->tree) {
			rc = -ENOMEM;
			goto fail;
		}
	}
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
	double v[10];

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
	emit_sample(out, st->sid_sys, 0, ts, v, ARRAY_SIZE(v));
}

static int mem_cur_grow(struct mem_state *st)
{
	size_t cap = st->cap * 2;
	struct mem_proc *a, *b;

	if (cap > MEM_TREE_MAX)
		return -E2BIG;
	a = realloc(st->procs, cap * sizeof(*a));
	if (!a)
		return -ENOMEM;
	st->procs = a;
	b = realloc(st->cur, cap * sizeof(*b));
	if (!b)
		return -ENOMEM;
	st->cur = b;
	st->cap = cap;
	return 0;
}

/* Reads the status of pid into the next slot of cur; a vanished or hidden
 * process is skipped (0 with nothing added). */
static int mem_add_cur(struct mem_state *st, pid_t pid)
{
	struct procfs_status s;
	struct mem_proc *p;
	char rel[48];
	ssize_t len;

	if (st->ncur == st->cap && mem_cur_grow(st))
		return -E2BIG;
	snprintf(rel, sizeof(rel), "%d/status", (int)pid);
	len = mem_read_rel(st, rel, st->buf, sizeof(st->buf));
	if (len < 0) {
		mem_note_error(st, len);
		return 0;
	}
	if (procfs_parse_status(st->buf, &s) == 0)
		return 0; /* empty: it exited between open and read */
	p = &st->cur[st->ncur++];
	p->pid = pid;
	p->v[MP_RSS] = s.rss;
	p->v[MP_HWM] = s.hwm;
	p->v[MP_UID] = s.uid;
	p->v[MP_PPID] = s.ppid;
	p->v[MP_THREADS] = s.threads;
	util_strlcpy(p->name, s.name, sizeof(p->name));
	p->label[0] = '\0';
	p->label_age = 0;
	return 0;
}

static int mem_cmp_proc(const void *a, const void *b)
{
	pid_t x = ((const struct mem_proc *)a)->pid, y = ((const struct mem_proc *)b)->pid;

	return (x > y) - (x < y);
}

static int mem_cmp_cand(const void *a, const void *b)
{
	const struct mem_cand *x = a, *y = b;

	if (x->rss != y->rss)
		return x->rss < y->rss ? 1 : -1; /* largest first */
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static void mem_read_label(struct mem_state *st, struct mem_proc *p)
{
	char rel[48], cmd[4096];
	ssize_t len;
	int fd;

	snprintf(rel, sizeof(rel), "%d/cmdline", (int)p->pid);
	fd = openat(dirfd(st->procdir), rel, O_RDONLY | O_CLOEXEC);
	len = fd < 0 ? -1 : read(fd, cmd, sizeof(cmd));
	if (fd >= 0)
		close(fd);
	procfs_format_cmdline(cmd, len > 0 ? (size_t)len : 0, p->name, p->label,
			      sizeof(p->label));
}

/* Emits cur (sorted here) against the previous report: labels for the new
 * and renamed, samples for all, gone for those that left. */
static void mem_report(struct mem_state *st, struct emitter *out, uint64_t ts)
{
	size_t i = 0, j = 0;
	struct mem_proc *tmp;

	qsort(st->cur, st->ncur, sizeof(*st->cur), mem_cmp_proc);
	while (i < st->nprocs || j < st->ncur) {
		struct mem_proc *old = i < st->nprocs ? &st->procs[i] : NULL;
		struct mem_proc *nw = j < st->ncur ? &st->cur[j] : NULL;
		const char *prev = NULL;

		if (old && (!nw || old->pid < nw->pid)) {
			emit_gone(out, st->sid_proc, (uint64_t)old->pid, ts);
			i++;
			continue;
		}
		if (nw && j > 0 && st->cur[j - 1].pid == nw->pid) {
			memmove(nw, nw + 1, (st->ncur - j - 1) * sizeof(*nw)); /* duplicate */
			st->ncur--;
			continue;
		}
		if (old && old->pid == nw->pid) {
			i++;
			prev = old->label;
			if (!strcmp(old->name, nw->name) && old->label_age < MEM_LABEL_REFRESH) {
				memcpy(nw->label, old->label, sizeof(nw->label));
				nw->label_age = old->label_age + 1;
			}
		}
		if (!nw->label[0])
			mem_read_label(st, nw);
		if ((!prev || strcmp(prev, nw->label)) &&
		    emit_label(out, st->sid_proc, (uint64_t)nw->pid, ts, nw->label) != 0)
			nw->label[0] = '\0'; /* the ring was full: send it next time */
		emit_sample(out, st->sid_proc, (uint64_t)nw->pid, ts, nw->v, MP_NVALS);
		j++;
	}
	tmp = st->procs;
	st->procs = st->cur;
	st->nprocs = st->ncur;
	st->cur = tmp;
	st->ncur = 0;
}

static void mem_scan_system(struct mem_state *st)
{
	struct dirent *de;

	st->ncand = 0;
	rewinddir(st->procdir);
	while ((de = readdir(st->procdir))) {
		pid_t pid = procfs_pid_from_name(de->d_name);
		char rel[48];
		uint64_t pages;
		ssize_t len;

		if (pid <= 0)
			continue;
		snprintf(rel, sizeof(rel), "%d/statm", (int)pid);
		len = mem_read_rel(st, rel, st->buf, sizeof(st->buf));
		if (len < 0) {
			mem_note_error(st, len);
			continue;
		}
		if (procfs_parse_statm_resident(st->buf, &pages) || pages == 0)
			continue; /* gone, or a kernel thread: no memory of its own */
		if (st->ncand == st->candcap) {
			size_t cap = st->candcap ? st->candcap * 2 : 512;
			struct mem_cand *c;

			if (cap > (1u << 22))
				break;
			c = realloc(st->cand, cap * sizeof(*c));
			if (!c)
				break;
			st->cand = c;
			st->candcap = cap;
		}
		st->cand[st->ncand++] = (struct mem_cand){ pid, 0, (double)pages * st->page_size };
	}
	qsort(st->cand, st->ncand, sizeof(*st->cand), mem_cmp_cand);
	for (size_t i = 0; i < st->ncand && st->ncur < MEM_TOP_N; i++)
		mem_add_cur(st, st->cand[i].pid);
}

static bool mem_tree_has(const struct mem_state *st, pid_t pid)
{
	for (size_t i = 0; i < st->ntree; i++)
		if (st->tree[i] == pid)
			return true;
	return false;
}

static void mem_tree_add(struct mem_state *st, pid_t pid)
{
	if (st->ntree < MEM_TREE_MAX && !mem_tree_has(st, pid))
		st->tree[st->ntree++] = pid;
}

/* Adds the children of every thread of pid; false when the kernel has no
 * children files (then the caller falls back to a ppid scan). */
static bool mem_tree_children(struct mem_state *st, pid_t pid)
{
	char rel[64], buf[4096];
	pid_t kids[512];
	struct dirent *de;
	DIR *d;
	int fd;
	bool any_task = false, any_children = false;

	snprintf(rel, sizeof(rel), "%d/task", (int)pid);
	fd = openat(dirfd(st->procdir), rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return true; /* gone: nothing to follow */
	}
	while ((de = readdir(d))) {
		pid_t tid = procfs_pid_from_name(de->d_name);
		ssize_t len;
		int n;

		if (tid <= 0)
			continue;
		any_task = true;
		snprintf(rel, sizeof(rel), "%d/task/%d/children", (int)pid, (int)tid);
		len = mem_read_rel(st, rel, buf, sizeof(buf));
		if (len < 0)
			continue;
		any_children = true;
		n = procfs_parse_pidlist(buf, kids, ARRAY_SIZE(kids));
		for (int k = 0; k < n && k < (int)ARRAY_SIZE(kids); k++)
			mem_tree_add(st, kids[k]);
	}
	closedir(d);
	return !any_task || any_children;
}

/* Without children files: every process's parent from /proc/PID/stat, then
 * the descendants of the roots. Runs once per refresh. */
static void mem_tree_ppid_scan(struct mem_state *st)
{
	struct dirent *de;
	bool grew = true;

	st->ncand = 0;
	rewinddir(st->procdir);
	while ((de = readdir(st->procdir))) {
		struct procfs_pid_stat ps;
		pid_t pid = procfs_pid_from_name(de->d_name);
		char rel[48];
		ssize_t len;

		if (pid <= 0)
			continue;
		snprintf(rel, sizeof(rel), "%d/stat", (int)pid);
		len = mem_read_rel(st, rel, st->buf, sizeof(st->buf));
		if (len < 0 || procfs_parse_pid_stat(st->buf, &ps))
			continue;
		if (st->ncand == st->candcap) {
			size_t cap = st->candcap ? st->candcap * 2 : 512;
			struct mem_cand *c;

			if (cap > (1u << 22))
				break;
			c = realloc(st->cand, cap * sizeof(*c));
			if (!c)
				break;
			st->cand = c;
			st->candcap = cap;
		}
		st->cand[st->ncand++] = (struct mem_cand){ pid, ps.ppid, 0 };
	}
	/* st->tree holds the roots; add children until nothing changes */
	while (grew && st->ntree < MEM_TREE_MAX) {
		size_t before = st->ntree;

		for (size_t i = 0; i < st->ncand; i++)
			if (mem_tree_has(st, st->cand[i].ppid))
				mem_tree_add(st, st->cand[i].pid);
		grew = st->ntree > before;
	}
}

static void mem_scan_tree(struct mem_state *st, bool full)
{
	if (st->no_children && !full) {
		/* between ppid scans: the members found last time */
		size_t n = st->ntree;

		for (size_t i = 0; i < n; i++)
			mem_add_cur(st, st->tree[i]);
		return;
	}
	st->ntree = 0;
	for (int i = 0; i < st->opts->npids && i < OPT_MAX_PIDS; i++)
		if (st->opts->pids[i] > 0)
			mem_tree_add(st, st->opts->pids[i]);
	if (st->no_children) {
		mem_tree_ppid_scan(st);
	} else {
		for (size_t i = 0; i < st->ntree; i++) {
			if (!mem_tree_children(st, st->tree[i])) {
				st->no_children = true;
				mem_scan_tree(st, true);
				return;
			}
		}
	}
	for (size_t i = 0; i < st->ntree; i++)
		mem_add_cur(st, st->tree[i]);
}

static void mem_emit_unreadable(struct mem_state *st, struct emitter *out, uint64_t ts)
{
	char msg[128];

	if (st->unreadable == st->unreadable_sent)
		return;
	if (st->unreadable)
		snprintf(msg, sizeof(msg), "%u process%s unreadable (run as root to see all)",
			 st->unreadable, st->unreadable == 1 ? "" : "es");
	else
		msg[0] = '\0';
	if (emit_status(out, st->sid_proc, STATUS_STREAM, ts, msg) == 0)
		st->unreadable_sent = st->unreadable;
}

static int mem_sample(void *state, struct emitter *out, uint64_t now_ns)
{
	struct mem_state *st = state;
	bool full;

	mem_sample_sys(st, out);
	if (st->scope == SCOPE_NONE || !st->procdir)
		return 0;
	/* the once-per-refresh part, on absolute deadlines like the engine's */
	full = st->next_scan_ns == 0 || now_ns >= st->next_scan_ns;
	if (full) {
		st->next_scan_ns = (st->next_scan_ns ? st->next_scan_ns : now_ns) + st->period_ns;
		if (st->next_scan_ns <= now_ns)
			st->next_scan_ns = now_ns + st->period_ns;
	}
	if (st->scope == SCOPE_SYSTEM_WIDE && !full)
		return 0;
	st->unreadable = 0;
	st->ncur = 0;
	if (st->scope == SCOPE_SYSTEM_WIDE)
		mem_scan_system(st);
	else
		mem_scan_tree(st, full);
	mem_report(st, out, asys_now_ns());
	mem_emit_unreadable(st, out, asys_now_ns());
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
	.frequency = mem_frequency,
	.init = mem_init,
	.sample = mem_sample,
	.fini = mem_fini,
	.last_error = mem_last_error,
};
