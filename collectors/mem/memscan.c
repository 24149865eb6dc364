/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "memproc_int.h"
#include "proc_api.h"
#include "sysroot.h"

/* What the system-wide scan can leave out when nothing changed.
 *
 * Most of a node's processes sleep through a refresh: the kernel threads,
 * and the daemons and shells of the users. A process's stat (4-5 us of
 * kernel time, the process table's largest cost) changes mostly when it
 * runs: CPU times, state, threads and faults move only then, so a process
 * that did not run since the last report keeps that report's row. Whether
 * it ran comes from one read of the BPF task iterator (procrun.h: every
 * thread's run time and switches, summed per process, and the threads),
 * or where that cannot be loaded from a kept schedstat (about 1 us; it is
 * one thread's, so only a kernel thread or a process of one thread may
 * keep its row that way). With these exceptions:
 * - nice can change without the process running (a renice by another):
 *   stat is read anyway every MEM_STATUS_REFRESH reports;
 * - a user process's RSS falls without it running when the kernel
 *   reclaims its pages: its rows are kept only while /proc/vmstat's
 *   reclaim counters (pages scanned, swapped out) stand still;
 * - its parent changes when its parent exits: after the scan, a kept row
 *   whose parent left is read again (memproc_reparented).
 * The process tree (always) reads its user processes whole. */

/* The run time (ns) and the count of runs of a schedstat line; false when
 * it is not one. */
static bool sched_parse(const char *s, uint64_t *run_ns, uint64_t *runs)
{
	char *end;

	*run_ns = strtoull(s, &end, 10);
	if (end == s || *end != ' ')
		return false;
	s = end;
	(void)strtoull(s, &end, 10); /* time waiting on a run queue */
	if (end == s || *end != ' ')
		return false;
	s = end;
	*runs = strtoull(s, &end, 10);
	return end != s;
}

void memproc_close_fd(struct memproc *st, int *fd)
{
	if (*fd < 0)
		return;
	close(*fd);
	*fd = -1;
	st->nfds--;
}

/* Reads pid's file NAME into st->buf through *kept (moved there from the
 * last report's row) or a fresh open, kept when the budget allows. Bytes,
 * or -errno. A kept fd of an exited process reads ESRCH or nothing, never a
 * newcomer that reused the pid: that one is opened afresh. */
ssize_t memproc_read_kept(struct memproc *st, pid_t pid, const char *name, int *kept, bool keep)
{
	char rel[48];
	ssize_t len;

	if (*kept >= 0) {
		len = sysroot_pread_all(*kept, st->buf, sizeof(st->buf));
		if (len > 0)
			return len;
		memproc_close_fd(st, kept);
	}
	snprintf(rel, sizeof(rel), "%d/%s", (int)pid, name);
	if (!keep || st->nfds >= st->fd_budget)
		return memproc_read_rel(st, rel, st->buf, sizeof(st->buf));
	*kept = openat(dirfd(st->procdir), rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (*kept < 0)
		return -errno;
	st->nfds++;
	len = sysroot_pread_all(*kept, st->buf, sizeof(st->buf));
	if (len <= 0)
		memproc_close_fd(st, kept);
	return len;
}

/* A row that may repeat needs only its schedstat fd: with many processes
 * (the fd budget half spent), its stat fd goes back, so that the budget
 * keeps as many such rows as it can. */
static void stat_fd_spare(struct memproc *st, struct mem_proc *p)
{
	if (st->nfds >= st->fd_budget / 2)
		memproc_close_fd(st, &p->fd_stat);
}

/* Whether old's row may be kept without reading its stat: the iterator
 * sums every thread, schedstat is one thread's. */
static bool idle_allowed(const struct memproc *st, const struct mem_proc *old, bool always)
{
	if (old->kthread)
		return true;
	return !always && st->reclaim_quiet && (st->runs_valid || old->v[MP_THREADS] == 1);
}

/* The process's run time and switch count (its fingerprint with the thread
 * count) from this scan's iterator read; false when it has none. */
static bool run_of(const struct memproc *st, pid_t pid, uint64_t *run_ns, uint64_t *runs)
{
	const struct procrun_sum *s = procrun_find(st->runs, st->nruns, (uint32_t)pid);

	*run_ns = *runs = UINT64_MAX;
	if (!s)
		return false;
	*run_ns = s->run_ns;
	*runs = s->switches ^ ((uint64_t)s->threads << 48);
	return true;
}

/* The row's run time and count of runs, read before its stat: from the
 * iterator, or through its kept schedstat. False when there are none. */
static bool run_now(struct memproc *st, struct mem_proc *p, uint64_t *run_ns, uint64_t *runs)
{
	ssize_t len;

	if (st->runs_valid)
		return run_of(st, p->pid, run_ns, runs);
	if (p->fd_sched < 0)
		return false;
	/* the fd is the task's: it reads nothing once the thread is gone,
	 * never a newcomer on its pid */
	len = sysroot_pread_all(p->fd_sched, st->buf, sizeof(st->buf) - 1);
	if (len > 0) {
		st->buf[len] = '\0';
		if (sched_parse(st->buf, run_ns, runs))
			return true;
	}
	memproc_close_fd(st, &p->fd_sched);
	return false;
}

bool memproc_idle_row(struct memproc *st, struct mem_proc *p, struct mem_proc *old, bool always)
{
	uint64_t run_ns, runs;

	if (!old)
		return false;
	if (!st->runs_valid) {
		if (old->fd_sched < 0)
			return false;
		p->fd_sched = old->fd_sched;
		old->fd_sched = -1;
	}
	p->run_ns = p->runs = UINT64_MAX;
	if (!idle_allowed(st, old, always) || !run_now(st, p, &run_ns, &runs))
		return false;
	/* read before stat: a run in between shows at the next report */
	p->run_ns = run_ns;
	p->runs = runs;
	if (old->stat_age >= MEM_STATUS_REFRESH || run_ns != old->run_ns || runs != old->runs)
		return false;
	stat_fd_spare(st, p);
	p->kthread = old->kthread;
	p->idle = true;
	p->stat_age = old->stat_age + 1;
	p->status_age = old->status_age + 1;
	p->rss_pages = old->rss_pages;
	p->faults = old->faults;
	memcpy(p->v, old->v, sizeof(p->v));
	memcpy(p->cpu, old->cpu, sizeof(p->cpu));
	memcpy(p->name, old->name, sizeof(p->name));
	return true;
}

void memproc_sched_keep(struct memproc *st, struct mem_proc *p, bool always, bool first)
{
	ssize_t len;

	if (!p->kthread && (always || (!st->runs_valid && p->v[MP_THREADS] != 1))) {
		memproc_close_fd(st, &p->fd_sched);
		return;
	}
	/* the forced reads of a crowd seen at once come due apart */
	p->stat_age = first ? (uint16_t)(p->pid % MEM_STATUS_REFRESH) : 0;
	stat_fd_spare(st, p);
	if (st->runs_valid) {
		/* read at the scan's start, before this stat */
		memproc_close_fd(st, &p->fd_sched);
		run_of(st, p->pid, &p->run_ns, &p->runs);
		return;
	}
	/* none to keep: the row is read whole (an open to read it once
	 * would be wasted) */
	if (p->fd_sched >= 0 || st->nfds >= st->fd_budget)
		return;
	/* opened after stat: its figures may be newer than the stat read,
	 * so the next report reads stat again and takes them from there */
	len = memproc_read_kept(st, p->pid, "schedstat", &p->fd_sched, true);
	if (len <= 0)
		memproc_close_fd(st, &p->fd_sched);
	p->run_ns = p->runs = UINT64_MAX;
}

/* The inode of the initial pid namespace (the kernel's PROC_PID_INIT_INO,
 * not in its UAPI headers). */
#define MEM_PID_INIT_INO 0xEFFFFFFCu

/* Only in the initial pid namespace, on the host's own /proc: the
 * iterator's pids are the kernel's, a container's /proc has its own. */
static bool runs_usable(void)
{
	struct stat sb;
	const char *root = sysroot_get();

	return (!root || !strcmp(root, "/")) && !stat("/proc/self/ns/pid", &sb) &&
	       sb.st_ino == MEM_PID_INIT_INO;
}

void memproc_runs_read(struct memproc *st)
{
	st->runs_valid = false;
	if (!st->run_tried) {
		st->run_tried = true;
		if (runs_usable())
			procrun_open(&st->run);
	}
	if (st->run && !procrun_read(st->run, &st->runs, &st->nruns))
		st->runs_valid = true;
}

/* A file of /proc kept open across scans in *fd: -1 opens it, -2 says it is
 * not used (missing, or the root's /proc is not a procfs: a fixture's
 * counters do not move with its processes). True when *fd is open. */
static bool proc_kept(int *fd, const char *path)
{
	if (*fd == -1) {
		struct statfs sf;

		*fd = sysroot_open(path, O_RDONLY);
		if (*fd >= 0 && (fstatfs(*fd, &sf) || sf.f_type != PROC_SUPER_MAGIC)) {
			close(*fd);
			*fd = -2;
		}
	}
	if (*fd < 0)
		*fd = -2;
	return *fd >= 0;
}

/* The sum of /proc/vmstat's reclaim counters (pgscan_*, pgsteal_*,
 * pswpout), or -1 where it cannot be read. */
static long long reclaim_events(struct memproc *st)
{
	long long sum = 0;
	ssize_t len;

	if (!proc_kept(&st->fd_vmstat, "/proc/vmstat"))
		return -1;
	len = sysroot_pread_all(st->fd_vmstat, st->buf, sizeof(st->buf) - 1);
	if (len <= 0 || (size_t)len == sizeof(st->buf) - 1)
		return -1;
	st->buf[len] = '\0';
	for (const char *l = st->buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, "pgscan_", 7) && strncmp(l, "pgsteal_", 8) &&
		    strncmp(l, "pswpout ", 8))
			continue;
		const char *sp = strchr(l, ' ');
		if (sp)
			sum += strtoll(sp + 1, NULL, 10);
	}
	return sum;
}

void memproc_reclaim_check(struct memproc *st)
{
	long long ev = reclaim_events(st);

	st->reclaim_quiet = ev >= 0 && st->reclaim_last >= 0 && ev == st->reclaim_last;
	st->reclaim_last = ev;
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return x < y ? -1 : x > y;
}

/* The pids of the last report that left or were taken by another process
 * (both lists sorted by pid), into gone; cap when there are more, or when
 * cur is not sorted. */
static size_t gone_pids(const struct memproc *st, pid_t *gone, size_t cap)
{
	size_t i = 0, j = 0, n = 0;

	for (size_t k = 1; k < st->ncur; k++)
		if (st->cur[k - 1].pid >= st->cur[k].pid)
			return cap;
	while (i < st->nprocs && n < cap) {
		pid_t pid = st->procs[i].pid;

		while (j < st->ncur && st->cur[j].pid < pid)
			j++;
		if (j == st->ncur || st->cur[j].pid != pid || st->cur[j].reused)
			gone[n++] = pid;
		i++;
	}
	return n;
}

size_t memproc_reparented(struct memproc *st)
{
	enum { GONE_MAX = 256 };
	pid_t gone[GONE_MAX];
	size_t ngone, n = 0;
	bool any = false;

	for (size_t j = 0; j < st->ncur && !any; j++)
		any = st->cur[j].idle && !st->cur[j].kthread;
	if (!any)
		return 0;
	ngone = gone_pids(st, gone, GONE_MAX);
	for (size_t j = 0; j < st->ncur; j++) {
		struct mem_proc *p = &st->cur[j];
		pid_t ppid = (pid_t)p->v[MP_PPID];

		if (!p->idle || p->kthread)
			continue;
		/* past the bound, every kept row is read again */
		if (ngone == GONE_MAX || bsearch(&ppid, gone, ngone, sizeof(*gone), pid_cmp)) {
			p->reread = true;
			n++;
		}
	}
	return n;
}

/* The listing of /proc (about 1 us an entry, most of it the kernel's
 * dentry lookups) finds the processes that started since the last one;
 * those that left are found anyway, as their kept stat reads nothing. No
 * process can have started while the last pid the kernel handed out (the
 * last field of /proc/loadavg, read before the listing) has not moved, so
 * the scan then goes over the last report's rows instead. Every
 * MEM_LIST_REFRESH reports it lists anyway, and always where the root's
 * /proc is not a procfs (a fixture: its loadavg does not move with it). */
bool memproc_list_due(struct memproc *st)
{
	char buf[128];
	ssize_t len;
	const char *sp;
	long long last;
	bool due;

	if (!proc_kept(&st->fd_loadavg, "/proc/loadavg"))
		return true;
	len = sysroot_pread_all(st->fd_loadavg, buf, sizeof(buf) - 1);
	if (len <= 0)
		return true;
	buf[len] = '\0';
	sp = strrchr(buf, ' ');
	last = sp ? strtoll(sp + 1, NULL, 10) : -1;
	due = last <= 0 || last != st->last_pid || st->list_age >= MEM_LIST_REFRESH;
	st->last_pid = last;
	st->list_age = due ? 0 : st->list_age + 1;
	return due;
}
