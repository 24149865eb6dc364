#include "config.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "memproc_int.h"
#include "sysroot.h"

/* What the system-wide scan can leave out when nothing changed.
 *
 * Kernel threads are most of a node's processes and most of them sleep
 * through a refresh. Their stat (4-5 us of kernel time, the process table's
 * largest cost) can only change when they run: CPU times and state move
 * with the run time, and the rest (parent, threads, start, flags) is fixed
 * for a kernel thread. Their schedstat (about 1 us) holds the run time and
 * the count of runs, so a kernel thread whose two are unchanged keeps the
 * last report's row. Only its nice value can change without it running
 * (renice): stat is read anyway every MEM_STATUS_REFRESH reports. A user
 * process is always read whole: its RSS moves without it running (reclaim)
 * and its parent when its parent exits. */

/* The run time (ns) and the count of runs of a schedstat line; false when
 * it is not one. */
static bool kthread_parse(const char *s, uint64_t *run_ns, uint64_t *runs)
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

bool memproc_kthread_idle(struct memproc *st, struct mem_proc *p, struct mem_proc *old)
{
	uint64_t run_ns, runs;
	ssize_t len;

	if (!old || !old->kthread || old->fd_sched < 0)
		return false;
	p->fd_sched = old->fd_sched;
	old->fd_sched = -1;
	/* the fd is the task's: it reads nothing once the thread is gone,
	 * never a newcomer on its pid */
	len = sysroot_pread_all(p->fd_sched, st->buf, sizeof(st->buf) - 1);
	if (len <= 0) {
		memproc_close_fd(st, &p->fd_sched);
		return false;
	}
	st->buf[len] = '\0';
	if (!kthread_parse(st->buf, &run_ns, &runs)) {
		memproc_close_fd(st, &p->fd_sched);
		return false;
	}
	/* read before stat: a run in between shows at the next report */
	p->run_ns = run_ns;
	p->runs = runs;
	if (old->stat_age >= MEM_STATUS_REFRESH || run_ns != old->run_ns || runs != old->runs ||
	    p->fd_stat < 0)
		return false;
	p->kthread = true;
	p->stat_age = old->stat_age + 1;
	memcpy(p->v, old->v, sizeof(p->v));
	memcpy(p->cpu, old->cpu, sizeof(p->cpu));
	memcpy(p->name, old->name, sizeof(p->name));
	return true;
}

void memproc_kthread_keep(struct memproc *st, struct mem_proc *p)
{
	ssize_t len;

	p->stat_age = 0;
	if (p->fd_sched >= 0)
		return;
	/* opened after stat: its figures may be newer than the stat read,
	 * so the next report reads stat again and takes them from there */
	len = memproc_read_kept(st, p->pid, "schedstat", &p->fd_sched, true);
	if (len <= 0)
		memproc_close_fd(st, &p->fd_sched);
	p->run_ns = p->runs = UINT64_MAX;
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

	if (st->fd_loadavg == -1) {
		struct statfs sf;

		st->fd_loadavg = sysroot_open("/proc/loadavg", O_RDONLY);
		if (st->fd_loadavg >= 0 &&
		    (fstatfs(st->fd_loadavg, &sf) || sf.f_type != PROC_SUPER_MAGIC)) {
			close(st->fd_loadavg);
			st->fd_loadavg = -2;
		}
	}
	if (st->fd_loadavg < 0) {
		st->fd_loadavg = -2;
		return true;
	}
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
