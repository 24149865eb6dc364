#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
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

int proc_act_signal(uint64_t pid, int sig)
{
	if (!pid || pid > INT32_MAX)
		return -EINVAL;
	return kill((pid_t)pid, sig) < 0 ? -errno : 0;
}

/* The nice value of pid moved by delta; *now gets the new one. */
int proc_act_nice(uint64_t pid, int delta, int *now)
{
	int cur;

	if (!pid || pid > INT32_MAX)
		return -EINVAL;
	errno = 0;
	cur = getpriority(PRIO_PROCESS, (id_t)pid);
	if (cur == -1 && errno)
		return -errno;
	if (setpriority(PRIO_PROCESS, (id_t)pid, cur + delta) < 0)
		return -errno;
	*now = cur + delta;
	return 0;
}
