/* SPDX-License-Identifier: GPL-2.0-only */
/* Every /proc and /sys path goes through one root so tests can point the
 * collectors at fixture trees (ASYS_SYSROOT, default "/"). */
#ifndef ASYS_SYSROOT_H
#define ASYS_SYSROOT_H

#include <stddef.h>
#include <sys/types.h>

void sysroot_set(const char *root); /* NULL or "" = "/" ; copies */
const char *sysroot_get(void);
/* Builds root + path into buf; -ENAMETOOLONG if it does not fit. */
int sysroot_path(char *buf, size_t n, const char *path);
int sysroot_open(const char *path, int flags);
/* Reads a whole small file (at most n-1 bytes, NUL-terminated); bytes or -errno. */
ssize_t sysroot_read_file(const char *path, char *buf, size_t n);
/* pread on an open fd from offset 0, NUL-terminated; bytes or -errno. */
ssize_t sysroot_pread_all(int fd, char *buf, size_t n);

#endif
