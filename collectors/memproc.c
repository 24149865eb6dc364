#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector.h"
#include "memproc_int.h"
#include "procfs.h"
#include "sysroot.h"
#include "util.h"

/* The per-process rows of the mem collector (stream mem.proc).
 * System-wide, the scan of every /proc/PID runs once per refresh: the rows
 * of the last report are re-read through their kept status fds, every other
 * process through its cheap statm (known kernel threads not at all), and
 * only newcomers to the top MEM_TOP_N get their status and cmdline opened.
 * In process-tree mode the tree of the
 * roots is rebuilt once per refresh through the children files of every
 * thread (a ppid scan where the kernel has none) and read at the full rate
 * (memtree.c). */

/* Reads a small file below /proc/ into st->buf. Bytes, or -errno. */
ssize_t memproc_read_rel(struct memproc *st, const char *rel, char *buf, size_t n)
{
	int fd = openat(dirfd(st->procdir), rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = sysroot_pread_all(fd, buf, n);
	close(fd);
	return r;
}

/* A failed per-process read: the process is gone (silent) or hidden from us. */
void memproc_note_error(struct memproc *st, ssize_t rc)
{
	if (rc == -EACCES || rc == -EPERM)
		st->unreadable++;
}

static int mem_cur_grow(struct memproc *st)
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

static int mem_cmp_proc(const void *a, const void *b)
{
	pid_t x = ((const struct mem_proc *)a)->pid, y = ((const struct mem_proc *)b)->pid;

	return (x > y) - (x < y);
}

/* The previous report's row of pid (procs is sorted by pid), or NULL. */
static struct mem_proc *mem_old(struct memproc *st, pid_t pid)
{
	struct mem_proc key = {.pid = pid};

	return st->nprocs ? bsearch(&key, st->procs, st->nprocs, sizeof(key), mem_cmp_proc) : NULL;
}

static void mem_close_fd(struct memproc *st, int *fd)
{
	if (*fd < 0)
		return;
	close(*fd);
	*fd = -1;
	st->nfds--;
}

/* Reads the status of pid into the next row of cur, through the fd kept
 * from the last report when there is one (it then moves to the new row). A
 * vanished or hidden process is skipped: 0 with nothing added. */
int memproc_add_cur(struct memproc *st, pid_t pid)
{
	struct mem_proc *old, *p;
	struct procfs_status s;
	ssize_t len;
	int fd = -1;

	/* grow first: it moves procs, where old points */
	if (st->ncur == st->cap && mem_cur_grow(st))
		return -E2BIG;
	old = mem_old(st, pid);
	if (old && old->fd >= 0) {
		fd = old->fd;
		old->fd = -1;
	} else {
		char rel[48];

		snprintf(rel, sizeof(rel), "%d/status", (int)pid);
		fd = openat(dirfd(st->procdir), rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			memproc_note_error(st, -errno);
			return 0;
		}
		st->nfds++;
	}
	/* a kept fd of an exited process reads ESRCH or nothing, never a
	 * newcomer that reused the pid */
	len = sysroot_pread_all(fd, st->buf, sizeof(st->buf));
	if (len <= 0 || procfs_parse_status(st->buf, &s) == 0) {
		mem_close_fd(st, &fd);
		if (len < 0)
			memproc_note_error(st, len);
		return 0;
	}
	if (st->nfds > MEM_FD_MAX)
		mem_close_fd(st, &fd);
	p = &st->cur[st->ncur++];
	p->pid = pid;
	p->fd = fd;
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

static int mem_cmp_cand(const void *a, const void *b)
{
	const struct mem_cand *x = a, *y = b;

	if (x->rss != y->rss)
		return x->rss < y->rss ? 1 : -1; /* largest first */
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static void mem_read_label(struct memproc *st, struct mem_proc *p)
{
	char rel[48], cmd[4096];
	ssize_t len;
	int fd;

	snprintf(rel, sizeof(rel), "%d/cmdline", (int)p->pid);
	fd = openat(dirfd(st->procdir), rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	len = fd < 0 ? -1 : read(fd, cmd, sizeof(cmd));
	if (fd >= 0)
		close(fd);
	procfs_format_cmdline(cmd, len > 0 ? (size_t)len : 0, p->name, p->label, sizeof(p->label));
}

/* Emits cur (sorted here) against the previous report: labels for the new
 * and renamed, samples for all, gone for those that left. */
static void mem_report(struct memproc *st, struct emitter *out, uint64_t ts)
{
	size_t i = 0, j = 0;
	struct mem_proc *tmp;

	qsort(st->cur, st->ncur, sizeof(*st->cur), mem_cmp_proc);
	while (i < st->nprocs || j < st->ncur) {
		struct mem_proc *old = i < st->nprocs ? &st->procs[i] : NULL;
		struct mem_proc *nw = j < st->ncur ? &st->cur[j] : NULL;
		const char *prev = NULL;

		if (old && (!nw || old->pid < nw->pid)) {
			mem_close_fd(st, &old->fd);
			emit_gone(out, st->sid_proc, (uint64_t)old->pid, ts);
			i++;
			continue;
		}
		if (nw && j > 0 && st->cur[j - 1].pid == nw->pid) {
			mem_close_fd(st, &nw->fd);
			memmove(nw, nw + 1, (st->ncur - j - 1) * sizeof(*nw)); /* duplicate */
			st->ncur--;
			continue;
		}
		if (old && old->pid == nw->pid) {
			mem_close_fd(st, &old->fd); /* not handed on: read afresh */
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

struct mem_cand *memproc_cand_next(struct memproc *st)
{
	if (st->ncand == st->candcap) {
		size_t cap = st->candcap ? st->candcap * 2 : 512;
		struct mem_cand *c;

		if (cap > (1u << 22))
			return NULL;
		c = realloc(st->cand, cap * sizeof(*c));
		if (!c)
			return NULL;
		st->cand = c;
		st->candcap = cap;
	}
	return &st->cand[st->ncand++];
}

static int mem_cmp_kthread(const void *a, const void *b)
{
	const struct mem_kthread *x = a, *y = b;

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->ino > y->ino) - (x->ino < y->ino);
}

static bool mem_kt_known(const struct memproc *st, pid_t pid, ino_t ino)
{
	struct mem_kthread key = {pid, ino};

	return st->nkt && bsearch(&key, st->kt, st->nkt, sizeof(key), mem_cmp_kthread) != NULL;
}

static void mem_kt_keep(struct memproc *st, pid_t pid, ino_t ino)
{
	if (st->nktn == st->ktcap) {
		size_t cap = st->ktcap ? st->ktcap * 2 : 256;
		struct mem_kthread *a, *b;

		if (cap > (1u << 20))
			return;
		a = realloc(st->kt, cap * sizeof(*a));
		if (a)
			st->kt = a;
		b = realloc(st->ktn, cap * sizeof(*b));
		if (b)
			st->ktn = b;
		if (!a || !b)
			return;
		st->ktcap = cap;
	}
	st->ktn[st->nktn++] = (struct mem_kthread){pid, ino};
}

/* Whether a process without resident memory is a kernel thread (not a
 * zombie, nor a process swapped out whole). */
static bool mem_is_kthread(struct memproc *st, pid_t pid)
{
	struct procfs_pid_stat ps;
	char rel[48];

	snprintf(rel, sizeof(rel), "%d/stat", (int)pid);
	return memproc_read_rel(st, rel, st->buf, sizeof(st->buf)) > 0 &&
	       procfs_parse_pid_stat(st->buf, &ps) == 0 && (ps.flags & PROCFS_PF_KTHREAD);
}

/* Every /proc/PID once: the rows of the last report through their kept
 * status fds, the others through the cheaper statm; then status (kept
 * open) for those that entered the top MEM_TOP_N. */
/* The resident size of one /proc entry, for the ranking: a row read
 * already is re-read (its place in cur into *row), a newcomer's statm is
 * read. False for what has no memory of its own (gone, a zombie, a kernel
 * thread), which is not ranked. */
static bool mem_scan_one(struct memproc *st, pid_t pid, ino_t ino, double *rss, int *row)
{
	struct mem_proc *old = mem_old(st, pid);
	char rel[48];
	uint64_t pages;
	ssize_t len;

	*row = -1;
	if (old && old->fd >= 0) {
		size_t before = st->ncur;

		memproc_add_cur(st, pid);
		if (st->ncur == before)
			return false; /* gone */
		*row = (int)before;
		*rss = st->cur[*row].v[MP_RSS];
		if (!(*rss > 0)) {
			mem_close_fd(st, &st->cur[*row].fd);
			st->ncur--; /* a zombie: no memory of its own any more */
			return false;
		}
		return true;
	}
	snprintf(rel, sizeof(rel), "%d/statm", (int)pid);
	len = memproc_read_rel(st, rel, st->buf, sizeof(st->buf));
	if (len < 0) {
		memproc_note_error(st, len);
		return false;
	}
	if (procfs_parse_statm_resident(st->buf, &pages))
		return false; /* gone */
	if (pages == 0) {
		if (mem_is_kthread(st, pid))
			mem_kt_keep(st, pid, ino);
		return false; /* no memory of its own */
	}
	*rss = (double)pages * st->page_size;
	return true;
}

/* In rank order: keep rows read already, read status for newcomers (one
 * that vanished meanwhile gives its place to the next), and drop rows that
 * fell out of the top. */
static void mem_scan_keep_top(struct memproc *st)
{
	size_t k, taken;

	for (k = 0, taken = 0; k < st->ncand; k++) {
		struct mem_cand *c = &st->cand[k];

		if (taken >= MEM_TOP_N) {
			if (c->cur >= 0) {
				mem_close_fd(st, &st->cur[c->cur].fd);
				st->cur[c->cur].pid = 0;
			}
		} else if (c->cur >= 0) {
			taken++;
		} else {
			size_t before = st->ncur;

			memproc_add_cur(st, c->pid);
			if (st->ncur > before && !(st->cur[before].v[MP_RSS] > 0)) {
				/* it turned zombie after its statm was read */
				mem_close_fd(st, &st->cur[before].fd);
				st->ncur--;
			}
			taken += st->ncur > before;
		}
	}
	for (k = 0; k < st->ncur;) {
		if (st->cur[k].pid == 0)
			st->cur[k] = st->cur[--st->ncur];
		else
			k++;
	}
}

static void mem_scan_system(struct memproc *st)
{
	struct mem_kthread *t;
	struct dirent *de;

	st->ncand = 0;
	st->nktn = 0;
	rewinddir(st->procdir);
	while ((de = readdir(st->procdir))) {
		pid_t pid = procfs_pid_from_name(de->d_name);
		struct mem_cand *c;
		double rss;
		int row;

		if (pid <= 0)
			continue;
		if (mem_kt_known(st, pid, de->d_ino)) {
			mem_kt_keep(st, pid, de->d_ino);
			continue;
		}
		if (!mem_scan_one(st, pid, de->d_ino, &rss, &row))
			continue;
		c = memproc_cand_next(st);
		if (!c)
			break;
		*c = (struct mem_cand){pid, 0, rss, row};
	}
	t = st->kt;
	if (st->nktn)
		qsort(st->ktn, st->nktn, sizeof(*st->ktn), mem_cmp_kthread);
	st->kt = st->ktn;
	st->nkt = st->nktn;
	st->ktn = t;
	if (st->ncand)
		qsort(st->cand, st->ncand, sizeof(*st->cand), mem_cmp_cand);
	mem_scan_keep_top(st);
}

/* What the table leaves out: processes we may not read, and a process
 * tree larger than we follow. */
static void mem_emit_unreadable(struct memproc *st, struct emitter *out, uint64_t ts)
{
	char msg[256] = "";
	bool dropped = st->tree_dropped > 0;

	if (st->unreadable == st->unreadable_sent && dropped == st->tree_dropped_sent)
		return;
	if (dropped)
		snprintf(msg, sizeof(msg),
			 "process tree larger than %d: only the first %d processes are followed; ",
			 MEM_TREE_MAX, MEM_TREE_MAX);
	if (st->unreadable)
		snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
			 "%u process%s unreadable (run as root to see all)", st->unreadable,
			 st->unreadable == 1 ? "" : "es");
	else if (dropped)
		msg[strlen(msg) - 2] = '\0';
	if (emit_status(out, st->sid_proc, STATUS_STREAM, ts, msg) == 0) {
		st->unreadable_sent = st->unreadable;
		st->tree_dropped_sent = dropped;
	}
}

int memproc_new(struct memproc **out, uint32_t sid_proc, const struct asys_options *o,
		bool tree_mode, char *err, size_t n)
{
	struct memproc *st = calloc(1, sizeof(*st));
	char path[4096];
	long ps = sysconf(_SC_PAGESIZE);
	int rc;

	*out = NULL;
	if (!st) {
		rc = -ENOMEM;
		goto fail;
	}
	st->sid_proc = sid_proc;
	st->tree_mode = tree_mode;
	st->opts = o;
	st->page_size = ps > 0 ? (double)ps : 4096.0;
	rc = sysroot_path(path, sizeof(path), "/proc");
	if (rc)
		goto fail;
	st->procdir = opendir(path);
	if (!st->procdir) {
		rc = -errno;
		snprintf(err, n, "cannot list %.200s: %s", path, strerror(-rc));
		memproc_free(st);
		return rc;
	}
	st->cap = MEM_TOP_N;
	st->procs = calloc(st->cap, sizeof(*st->procs));
	st->cur = calloc(st->cap, sizeof(*st->cur));
	if (tree_mode)
		st->tree = calloc(MEM_TREE_MAX, sizeof(*st->tree));
	if (!st->procs || !st->cur || (tree_mode && !st->tree)) {
		rc = -ENOMEM;
		goto fail;
	}
	*out = st;
	return 0;
fail:
	snprintf(err, n, "mem collector: %s", strerror(-rc));
	memproc_free(st);
	return rc;
}

void memproc_free(struct memproc *st)
{
	if (!st)
		return;
	if (st->procdir)
		closedir(st->procdir);
	for (size_t i = 0; st->procs && i < st->nprocs; i++)
		if (st->procs[i].fd >= 0)
			close(st->procs[i].fd);
	free(st->procs);
	free(st->cur);
	free(st->cand);
	free(st->tree);
	free(st->kt);
	free(st->ktn);
	free(st);
}

void memproc_sample(struct memproc *st, struct emitter *out, bool full)
{
	if (!st->tree_mode && !full)
		return;
	st->unreadable = 0;
	st->ncur = 0;
	if (st->tree_mode)
		memproc_scan_tree(st, full);
	else
		mem_scan_system(st);
	mem_report(st, out, asys_now_ns());
	mem_emit_unreadable(st, out, asys_now_ns());
}
