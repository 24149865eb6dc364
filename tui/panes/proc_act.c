/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "proc.h"
#include "sysroot.h"

/* The process table's actions on the live machine, asked for by a key:
 * read a process's own files (environment, command line, cgroup) through
 * the sysroot, signal it, renice it. Nothing shown in the table comes from
 * here; the table reads the store. */

ssize_t proc_act_read(uint64_t pid, const char *name, char *buf, size_t n)
{
	char path[64];
	int fd;
	ssize_t len = 0;

	if (!pid || pid > INT32_MAX || n < 1)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%llu/%s", (unsigned long long)pid, name);
	fd = sysroot_open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fd;
	/* environ and cmdline hold NULs: read until the end, not as a string */
	while ((size_t)len < n - 1) {
		ssize_t r = read(fd, buf + len, n - 1 - (size_t)len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			len = -errno;
			break;
		}
		if (r == 0)
			break;
		len += r;
	}
	close(fd);
	buf[len > 0 ? len : 0] = '\0';
	return len;
}

bool proc_act_here(void)
{
	return !strcmp(sysroot_get(), "/");
}

/* Field 22 of /proc/PID/stat, the start in clock ticks after boot: with
 * the pid, what names one process (a pid alone is reused); -ESRCH for a
 * process that has exited (a zombie: its pid is not free yet, but a signal
 * reaches no one). The command (field 2) may hold spaces and parentheses:
 * count from its last ')'. */
static int start_ticks(uint64_t pid, unsigned long long *ticks)
{
	char buf[1024];
	const char *p;
	ssize_t len = proc_act_read(pid, "stat", buf, sizeof(buf));

	if (len < 0)
		return len == -ENOENT ? -ESRCH : (int)len;
	p = strrchr(buf, ')');
	if (!p)
		return -EPROTO;
	if (p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'))
		return -ESRCH;
	/* the space before field f, up to the start's */
	for (int f = 3; f <= 22; f++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -EPROTO;
	}
	return sscanf(p + 1, "%llu", ticks) == 1 ? 0 : -EPROTO;
}

static int pidfd_open_(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

static int pidfd_signal(int fd, int sig)
{
#ifdef SYS_pidfd_send_signal
	return (int)syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
#else
	(void)fd;
	(void)sig;
	errno = ENOSYS;
	return -1;
#endif
}

/* Whether the start the table knows (seconds after boot, NaN or <= 0:
 * unknown) is that of ticks, within the rounding of a double of seconds. */
static bool same_start(double start_s, unsigned long long ticks)
{
	long hz = sysconf(_SC_CLK_TCK);

	if (!(start_s > 0) || hz <= 0)
		return true;
	return fabs(start_s * (double)hz - (double)ticks) < 1.0;
}

/* Whether t's process still runs: signal 0 through the pidfd (a reused pid
 * is another process's, and the pidfd says ESRCH), then its start time and
 * state read again (-ESRCH: another process, or a zombie). */
static int target_alive(const struct proc_target *t)
{
	unsigned long long now;
	int rc;

	if (t->fd >= 0 && pidfd_signal(t->fd, 0) < 0)
		return -errno;
	/* a zombie takes signals: the start (and state) say it has exited */
	rc = start_ticks(t->pid, &now);
	if (rc < 0)
		return rc;
	return now == t->start ? 0 : -ESRCH;
}

int proc_act_hold(struct proc_target *t, uint64_t pid, double start_s)
{
	int rc;

	t->fd = -1;
	t->held = false;
	if (!pid || pid > INT32_MAX)
		return -EINVAL;
	t->pid = pid;
	/* the pidfd first: the start read after it is that of the process it
	 * holds if that process still runs once it is read */
	t->fd = pidfd_open_((pid_t)pid);
	if (t->fd < 0 && errno != ENOSYS)
		return -errno;
	rc = start_ticks(pid, &t->start);
	/* alive after the read, or EPERM: what the user may not signal is
	 * refused as such, whichever process it is */
	if (!rc && t->fd >= 0)
		rc = target_alive(t);
	if (!rc && !same_start(start_s, t->start))
		rc = -ESRCH;
	if (rc < 0) {
		if (t->fd >= 0)
			close(t->fd);
		t->fd = -1;
		return rc;
	}
	t->held = true;
	return 0;
}

/* A zeroed target holds nothing (fd 0 is not its). */
void proc_act_release(struct proc_target *t)
{
	if (t->held && t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	t->held = false;
}

int proc_act_signal(struct proc_target *t, int sig)
{
	int rc;

	if (!t->held)
		return -ESRCH;
	/* alive and still the same: with a pidfd, the signal goes to its
	 * process whatever happens next; without, the start time checked
	 * right before */
	rc = target_alive(t);
	if (rc < 0)
		return rc;
	if (t->fd >= 0)
		return pidfd_signal(t->fd, sig) < 0 ? -errno : 0;
	return kill((pid_t)t->pid, sig) < 0 ? -errno : 0;
}

/* The nice value of the process pid that started at start_s moved by
 * delta; *now gets the new one. setpriority takes no pidfd: the process
 * held by one is checked to be alive right before, and a live process's
 * pid is its own. */
int proc_act_nice(uint64_t pid, double start_s, int delta, int *now)
{
	struct proc_target t;
	int cur, rc;

	rc = proc_act_hold(&t, pid, start_s);
	if (rc < 0)
		return rc;
	errno = 0;
	cur = getpriority(PRIO_PROCESS, (id_t)pid);
	if (cur == -1 && errno)
		rc = -errno;
	else if ((rc = target_alive(&t)) == 0 &&
		 setpriority(PRIO_PROCESS, (id_t)pid, cur + delta) < 0)
		rc = -errno;
	if (!rc)
		*now = cur + delta;
	proc_act_release(&t);
	return rc;
}
