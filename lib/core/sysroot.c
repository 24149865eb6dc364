/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysroot.h"
#include "util.h"

/* Set once at startup (or by a test) before any collector runs. */
static char sysroot[4096] = "";

void sysroot_set(const char *root)
{
	size_t len;

	if (!root || !*root || !strcmp(root, "/")) {
		sysroot[0] = '\0';
		return;
	}
	util_strlcpy(sysroot, root, sizeof(sysroot));
	len = strlen(sysroot);
	while (len > 0 && sysroot[len - 1] == '/')
		sysroot[--len] = '\0';
}

const char *sysroot_get(void)
{
	return sysroot[0] ? sysroot : "/";
}

int sysroot_path(char *buf, size_t n, const char *path)
{
	int len = snprintf(buf, n, "%s%s", sysroot, path);

	if (len < 0 || (size_t)len >= n)
		return -ENAMETOOLONG;
	return 0;
}

int sysroot_open(const char *path, int flags)
{
	char full[4096];
	struct stat st;
	int fd, rc = sysroot_path(full, sizeof(full), path);

	if (rc)
		return rc;
	/* O_NONBLOCK: a FIFO in a fixture tree must not hang a collector */
	fd = open(full, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* /proc and /sys hold only files and directories; elsewhere a device
	 * or FIFO could feed a reader without end */
	if (sysroot[0] && (fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

ssize_t sysroot_pread_all(int fd, char *buf, size_t n)
{
	size_t got = 0;

	if (n == 0)
		return -EINVAL;
	while (got < n - 1) {
		ssize_t r = pread(fd, buf + got, n - 1 - got, (off_t)got);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		got += (size_t)r;
		/* procfs (seq_file) and sysfs fill a read as far as they can, so a
		 * short one is the end: asking again to see 0 would double the
		 * syscalls of every sample */
		if ((size_t)r < n - 1 - (got - (size_t)r))
			break;
	}
	buf[got] = '\0';
	return (ssize_t)got;
}

ssize_t sysroot_read_file(const char *path, char *buf, size_t n)
{
	ssize_t r;
	int fd = sysroot_open(path, O_RDONLY);

	if (fd < 0)
		return fd;
	r = sysroot_pread_all(fd, buf, n);
	close(fd);
	return r;
}
