/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "memproc_int.h"
#include "proc_api.h"
#include "sysroot.h"
#include "util.h"

/* The per-process rows of the mem collector (streams mem.proc and
 * proc.cpu). System-wide, the scan of every /proc/PID runs once per
 * refresh, and a process costs one pread of its stat (kept open): it gives
 * the CPU times, state, nice, parent, threads, flags and start. Its status
 * (VmRSS, VmHWM, uid: about twice stat's cost) is read whenever the process
 * ran since the last report, or pages were reclaimed, and at least every
 * MEM_STATUS_REFRESH reports; a row that did not change keeps the last
 * status's figures, which are then still exact (mem_status_still). Kernel
 * threads (PF_KTHREAD in stat's flags) never read
 * status or cmdline. In process-tree mode the tree of the roots is rebuilt
 * once per refresh through the children files of every thread (a ppid
 * scan where the kernel has none) and read whole at the full rate
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

/* Waits for the bus at most ~50 ms a refresh in all: it is woken when the
 * ring passes half full and drains it meanwhile. */
static int mem_emit_retry(int rc, int *tries)
{
	struct timespec ms = {0, 1000000};

	if (rc != -ENOBUFS || *tries >= 50)
		return 0;
	(*tries)++;
	nanosleep(&ms, NULL);
	return 1;
}

int memproc_emit(struct memproc *st, struct emitter *out, uint32_t sid, uint64_t entity,
		 uint64_t ts, const double *v, uint32_t n)
{
	int rc;

	while (mem_emit_retry(rc = emit_sample(out, sid, entity, ts, v, n), &st->emit_waits))
		;
	return rc;
}

int memproc_label(struct memproc *st, struct emitter *out, uint32_t sid, uint64_t entity,
		  uint64_t ts, const char *text)
{
	int rc;

	while (mem_emit_retry(rc = emit_label(out, sid, entity, ts, text), &st->emit_waits))
		;
	return rc;
}

int memproc_gone(struct memproc *st, struct emitter *out, uint32_t sid, uint64_t entity,
		 uint64_t ts)
{
	int rc;

	while (mem_emit_retry(rc = emit_gone(out, sid, entity, ts), &st->emit_waits))
		;
	return rc;
}

/* How a process of the tree ended, as a status of its mem.proc row before
 * the row ends: the table after a job shows it (the message log keeps it
 * after the row is gone), and a recording keeps it for a replay. */
static void mem_exit_status(struct memproc *st, struct emitter *out, const struct mem_proc *old,
			    uint64_t ts)
{
	char text[160];
	int rc;

	if (st->exit_fd < 0)
		return;
	if (!memexit_status(st, old->pid, old->name, text, sizeof(text))) {
		/* it may have ended after this scan's first look */
		memexit_drain(st);
		if (!memexit_status(st, old->pid, old->name, text, sizeof(text)))
			return;
	}
	while (mem_emit_retry(rc = emit_status(out, st->sid.proc, (uint64_t)old->pid, ts, text),
			      &st->emit_waits))
		;
}

/* A process left: its rows end in both streams. */
static void mem_gone(struct memproc *st, struct emitter *out, const struct mem_proc *old,
		     uint64_t ts)
{
	pid_t pid = old->pid;

	mem_exit_status(st, out, old, ts);
	memproc_gone(st, out, st->sid.proc, (uint64_t)pid, ts);
	memproc_gone(st, out, st->sid.cpu, (uint64_t)pid, ts);
}

static int mem_cur_grow(struct memproc *st)
{
	size_t max = st->tree_mode ? MEM_TREE_MAX : MEM_PROCS_MAX;
	size_t cap = st->cap * 2;
	struct mem_proc *a, *b;

	if (st->cap >= max)
		return -E2BIG;
	if (cap > max)
		cap = max;
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

/* The previous report's row of pid (procs is sorted by pid), or NULL.
 * /proc lists pids in order, so the row is usually at or just after the
 * one found last: a walk from there, which only goes forward, costs no
 * more than one pass over procs per scan; a search otherwise. */
static struct mem_proc *mem_old(struct memproc *st, pid_t pid)
{
	struct mem_proc key = {.pid = pid}, *p;
	size_t h = st->old_hint;

	while (h < st->nprocs && st->procs[h].pid < pid)
		h++;
	if (h < st->nprocs && st->procs[h].pid == pid) {
		st->old_hint = h + 1;
		return &st->procs[h];
	}
	p = st->nprocs ? bsearch(&key, st->procs, st->nprocs, sizeof(key), mem_cmp_proc) : NULL;
	if (p)
		st->old_hint = (size_t)(p - st->procs) + 1;
	return p;
}

static void mem_row_stat(struct memproc *st, struct mem_proc *p, const struct procfs_pid_stat *ps)
{
	p->kthread = (ps->flags & PROCFS_PF_KTHREAD) != 0;
	p->cpu[PC_UTIME] = (double)ps->utime / st->clk_tck;
	p->cpu[PC_STIME] = (double)ps->stime / st->clk_tck;
	p->cpu[PC_STATE] = (unsigned char)ps->state;
	p->cpu[PC_NICE] = (double)ps->nice;
	p->cpu[PC_KTHREAD] = p->kthread;
	p->cpu[PC_START] = (double)ps->starttime / st->clk_tck;
	p->v[MP_PPID] = ps->ppid;
	p->v[MP_THREADS] = ps->num_threads >= 0 ? (double)ps->num_threads : NAN;
	util_strlcpy(p->name, ps->comm, sizeof(p->name));
}

/* Whether old's VmRSS, VmHWM and uid still hold, so that status need not be
 * read: the process did not run since they were read (its run time and
 * count of runs, read before this stat, are those of the last report, whose
 * row read status or kept it on the same ground), no page was reclaimed,
 * and its fault counts and stat's resident pages stand still. stat's RSS
 * is no substitute for VmRSS: the kernel sums its per-CPU counters only
 * roughly there, and a process that ran can unmap pages without a fault
 * and without that rough sum moving. */
static bool mem_status_still(const struct memproc *st, const struct mem_proc *p,
			     const struct mem_proc *old, const struct procfs_pid_stat *ps)
{
	return !old->kthread && old->status_age < MEM_STATUS_REFRESH && st->reclaim_quiet &&
	       p->run_ns != UINT64_MAX && p->run_ns == old->run_ns && p->runs == old->runs &&
	       old->rss_pages == ps->rss_pages && old->faults == ps->minflt + ps->majflt;
}

/* status, unless nothing can have changed it: VmRSS, VmHWM and the uid.
 * False when the process is gone. */
static bool mem_row_status(struct memproc *st, struct mem_proc *p, struct mem_proc *old,
			   const struct procfs_pid_stat *ps, bool always)
{
	struct procfs_status s;
	ssize_t len;
	bool zombie = ps->state == 'Z' || ps->state == 'X';

	if (old) {
		p->fd_status = old->fd_status;
		old->fd_status = -1;
	}
	if (!always && old && mem_status_still(st, p, old, ps)) {
		/* an idle process: its status fd is better spent on a busy one */
		memproc_close_fd(st, &p->fd_status);
		p->v[MP_RSS] = zombie ? NAN : old->v[MP_RSS];
		p->v[MP_HWM] = old->v[MP_HWM];
		p->v[MP_UID] = old->v[MP_UID];
		p->status_age = old->status_age + 1;
		p->rss_pages = old->rss_pages;
		p->faults = old->faults;
		return true;
	}
	/* kept open for a process whose status changes at every scan */
	len = memproc_read_kept(st, p->pid, "status", &p->fd_status,
				always || (old && old->status_read));
	if (len <= 0) {
		if (len < 0)
			memproc_note_error(st, len);
		return false;
	}
	if (procfs_parse_status(st->buf, &s) == 0) {
		memproc_close_fd(st, &p->fd_status);
		return false;
	}
	p->v[MP_RSS] = s.rss;
	p->v[MP_HWM] = s.hwm;
	p->v[MP_UID] = s.uid;
	p->status_read = true;
	/* newcomers come due at different scans: a burst of them (a job's
	 * start) does not make every 16th refresh a slow one */
	p->status_age = old ? 0 : (uint16_t)(p->pid % MEM_STATUS_REFRESH);
	p->rss_pages = ps->rss_pages;
	p->faults = ps->minflt + ps->majflt;
	return true;
}

/* Reads p (a row of cur) whole: stat, and status when it may have changed.
 * False when the process is gone or hidden (its fds are closed). */
static bool mem_row_read(struct memproc *st, struct mem_proc *p, struct mem_proc *old,
			 bool always_status)
{
	struct procfs_pid_stat ps;
	ssize_t len = memproc_read_kept(st, p->pid, "stat", &p->fd_stat, true);

	p->idle = false;
	if (len <= 0 || procfs_parse_pid_stat(st->buf, &ps)) {
		if (len < 0)
			memproc_note_error(st, len);
		memproc_close_fd(st, &p->fd_stat);
		memproc_close_fd(st, &p->fd_sched);
		return false;
	}
	mem_row_stat(st, p, &ps);
	if (old && old->cpu[PC_START] != p->cpu[PC_START]) {
		/* another process took the pid since the last report */
		memproc_close_fd(st, &old->fd_status);
		memproc_close_fd(st, &p->fd_sched);
		p->reused = true;
		old = NULL;
	}
	if (p->kthread) {
		/* no memory of their own, and they all run as root */
		p->v[MP_RSS] = p->v[MP_HWM] = NAN;
		p->v[MP_UID] = 0;
		if (old)
			memproc_close_fd(st, &old->fd_status);
	} else if (!mem_row_status(st, p, old, &ps, always_status)) {
		memproc_close_fd(st, &p->fd_stat);
		memproc_close_fd(st, &p->fd_status);
		memproc_close_fd(st, &p->fd_sched);
		return false;
	}
	memproc_sched_keep(st, p, always_status, !old);
	return true;
}

int memproc_add_cur(struct memproc *st, pid_t pid, bool always_status)
{
	struct mem_proc *old, *p;

	/* grow first: it moves procs, where old points */
	if (st->ncur == st->cap && mem_cur_grow(st))
		return -E2BIG;
	old = mem_old(st, pid);
	p = &st->cur[st->ncur];
	*p = (struct mem_proc){.pid = pid, .fd_stat = -1, .fd_status = -1, .fd_sched = -1};
	if (old) {
		p->fd_stat = old->fd_stat;
		old->fd_stat = -1;
	}
	if (memproc_idle_row(st, p, old, always_status) || mem_row_read(st, p, old, always_status))
		st->ncur++;
	return 0;
}

/* Kept rows whose parent left have a new one: read them again, and drop
 * those that left meanwhile. */
static void mem_reread_orphans(struct memproc *st)
{
	if (!memproc_reparented(st))
		return;
	for (size_t j = 0; j < st->ncur;) {
		struct mem_proc *p = &st->cur[j];

		if (!p->reread || mem_row_read(st, p, mem_old(st, p->pid), false)) {
			p->reread = false;
			j++;
			continue;
		}
		memmove(p, p + 1, (st->ncur - j - 1) * sizeof(*p));
		st->ncur--;
	}
}

static void mem_read_label(struct memproc *st, struct mem_proc *p)
{
	char rel[48], cmd[4096], out[MEM_LABEL_MAX];
	ssize_t len = -1;
	int fd;

	/* a kernel thread has no command line */
	if (!p->kthread) {
		snprintf(rel, sizeof(rel), "%d/cmdline", (int)p->pid);
		fd = openat(dirfd(st->procdir), rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		len = fd < 0 ? -1 : read(fd, cmd, sizeof(cmd));
		if (fd >= 0)
			close(fd);
	}
	procfs_format_cmdline(cmd, len > 0 ? (size_t)len : 0, p->name, out, sizeof(out));
	p->label = strdup(out);
}

static void mem_row_free(struct memproc *st, struct mem_proc *p)
{
	memproc_close_fd(st, &p->fd_stat);
	memproc_close_fd(st, &p->fd_status);
	memproc_close_fd(st, &p->fd_sched);
	free(p->label);
	p->label = NULL;
	free(p->group);
	p->group = NULL;
}

/* A row that stays: its label carries over unless it was renamed or is due
 * for a re-read. */
static bool mem_carry_label(struct mem_proc *old, struct mem_proc *nw)
{
	if (!old->label || strcmp(old->name, nw->name) || old->label_age >= MEM_LABEL_REFRESH)
		return false;
	nw->label = old->label;
	nw->label_age = old->label_age + 1;
	old->label = NULL;
	return true;
}

static void mem_report_one(struct memproc *st, struct emitter *out, uint64_t ts,
			   struct mem_proc *old, struct mem_proc *nw)
{
	bool send = true;

	if (old) {
		if (mem_carry_label(old, nw)) {
			send = false;
		} else if (old->label) {
			mem_read_label(st, nw);
			send = !nw->label || strcmp(old->label, nw->label);
		}
		free(old->label);
		old->label = NULL;
	}
	if (!nw->label) {
		mem_read_label(st, nw);
		nw->label_age = (uint16_t)(nw->pid % MEM_LABEL_REFRESH); /* staggered */
	}
	if (send && nw->label &&
	    memproc_label(st, out, st->sid.proc, (uint64_t)nw->pid, ts, nw->label) != 0) {
		free(nw->label); /* the ring was full: send it next time */
		nw->label = NULL;
	}
	memgroup_report(st, out, ts, old, nw);
	memproc_emit(st, out, st->sid.proc, (uint64_t)nw->pid, ts, nw->v, MP_NVALS);
	memproc_emit(st, out, st->sid.cpu, (uint64_t)nw->pid, ts, nw->cpu, PC_NVALS);
}

static bool mem_sorted(const struct mem_proc *a, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (a[i - 1].pid >= a[i].pid)
			return false;
	return true;
}

/* Emits cur (sorted here) against the previous report: labels for the new
 * and renamed, samples for all, gone for those that left. */
static void mem_report(struct memproc *st, struct emitter *out, uint64_t ts)
{
	size_t i = 0, j = 0;
	struct mem_proc *tmp;

	/* /proc lists pids in order: the sort is for fixtures and the tree */
	if (!mem_sorted(st->cur, st->ncur))
		qsort(st->cur, st->ncur, sizeof(*st->cur), mem_cmp_proc);
	while (i < st->nprocs || j < st->ncur) {
		struct mem_proc *old = i < st->nprocs ? &st->procs[i] : NULL;
		struct mem_proc *nw = j < st->ncur ? &st->cur[j] : NULL;

		if (old && (!nw || old->pid < nw->pid)) {
			mem_row_free(st, old);
			mem_gone(st, out, old, ts);
			i++;
			continue;
		}
		if (j > 0 && st->cur[j - 1].pid == nw->pid) {
			mem_row_free(st, nw);
			memmove(nw, nw + 1, (st->ncur - j - 1) * sizeof(*nw)); /* duplicate */
			st->ncur--;
			continue;
		}
		if (old && old->pid == nw->pid) {
			/* fds not handed on are closed: the row is read afresh */
			memproc_close_fd(st, &old->fd_stat);
			memproc_close_fd(st, &old->fd_status);
			memproc_close_fd(st, &old->fd_sched);
			i++;
			if (nw->reused) {
				mem_row_free(st, old);
				mem_gone(st, out, old, ts);
				old = NULL;
			}
		} else {
			old = NULL;
		}
		mem_report_one(st, out, ts, old, nw);
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

		if (cap > MEM_PROCS_MAX)
			return NULL;
		c = realloc(st->cand, cap * sizeof(*c));
		if (!c)
			return NULL;
		st->cand = c;
		st->candcap = cap;
	}
	return &st->cand[st->ncand++];
}

/* Every /proc/PID once, in the order /proc lists them, or the last
 * report's when none can have started since (memproc_list_due). */
static void mem_scan_system(struct memproc *st)
{
	struct dirent *de;

	memproc_reclaim_check(st);
	memproc_runs_read(st);
	if (st->nprocs && !memproc_list_due(st)) {
		/* those the listing found unreadable are not rows: still there */
		st->unreadable = st->unreadable_listed;
		for (size_t i = 0; i < st->nprocs; i++)
			if (memproc_add_cur(st, st->procs[i].pid, false) == -E2BIG)
				break;
	} else {
		rewinddir(st->procdir);
		while ((de = readdir(st->procdir))) {
			pid_t pid = procfs_pid_from_name(de->d_name);

			if (pid > 0 && memproc_add_cur(st, pid, false) == -E2BIG)
				break;
		}
		st->unreadable_listed = st->unreadable;
	}
	mem_reread_orphans(st);
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
	if (emit_status(out, st->sid.proc, STATUS_STREAM, ts, msg) == 0) {
		st->unreadable_sent = st->unreadable;
		st->tree_dropped_sent = dropped;
	}
}

/* Half the soft RLIMIT_NOFILE (the rest is for the other collectors: probe
 * links, sockets, libraries), at most MEM_FD_CAP. */
static int mem_fd_budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return MEM_FD_CAP;
	return rl.rlim_cur / 2 < MEM_FD_CAP ? (int)(rl.rlim_cur / 2) : MEM_FD_CAP;
}

int memproc_new(struct memproc **out, const struct memproc_sids *sids, const struct asys_options *o,
		bool tree_mode, bool threads, char *err, size_t n)
{
	struct memproc *st = calloc(1, sizeof(*st));
	char path[4096];
	long hz = sysconf(_SC_CLK_TCK);
	int rc;

	*out = NULL;
	if (!st) {
		rc = -ENOMEM;
		goto fail;
	}
	st->sid = *sids;
	st->tree_mode = tree_mode;
	st->threads = threads;
	st->opts = o;
	st->clk_tck = hz > 0 ? (double)hz : 100.0;
	st->fd_budget = mem_fd_budget();
	st->fd_loadavg = -1;
	st->fd_vmstat = -1;
	st->reclaim_last = -1;
	st->exit_fd = -1;
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
	st->cap = 256;
	st->procs = calloc(st->cap, sizeof(*st->procs));
	st->cur = calloc(st->cap, sizeof(*st->cur));
	if (tree_mode)
		st->tree = calloc(MEM_TREE_MAX, sizeof(*st->tree));
	if (!st->procs || !st->cur || (tree_mode && !st->tree) || memgroup_init(st)) {
		rc = -ENOMEM;
		goto fail;
	}
	if (tree_mode)
		memexit_open(st);
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
	if (st->fd_loadavg >= 0)
		close(st->fd_loadavg);
	if (st->fd_vmstat >= 0)
		close(st->fd_vmstat);
	procrun_close(st->run);
	memexit_close(st);
	for (size_t i = 0; st->procs && i < st->nprocs; i++)
		mem_row_free(st, &st->procs[i]);
	free(st->procs);
	free(st->cur);
	free(st->cand);
	free(st->tree);
	memproc_threads_free(st);
	memgroup_fini(st);
	free(st);
}

void memproc_sample(struct memproc *st, struct emitter *out, bool full)
{
	uint64_t ts;

	if (!st->tree_mode && !full)
		return;
	st->unreadable = 0;
	st->ncur = 0;
	st->old_hint = 0;
	st->emit_waits = 0;
	ts = asys_now_ns();
	memexit_drain(st);
	if (st->tree_mode)
		memproc_scan_tree(st, full);
	else
		mem_scan_system(st);
	mem_report(st, out, ts);
	if (st->threads && full)
		memproc_threads(st, out, ts);
	mem_emit_unreadable(st, out, asys_now_ns());
}
