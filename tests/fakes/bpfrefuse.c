/* SPDX-License-Identifier: GPL-2.0-only */
/* A kernel that has uprobe-multi links but refuses asys's runtime programs
 * for them, loaded with LD_PRELOAD into the real asys binary: syscall(2)
 * fails BPF_PROG_LOAD with EINVAL when the program is marked for those links
 * (expected attach type 48) and its name starts with "gpurt_". asys's own
 * support probe (an unnamed program) still loads, so asys believes the
 * kernel has the links, and only the load of its programs for them fails.
 * Every other call goes to the real libc.
 *   BPFREFUSE_LOG=FILE   one line "refused NAME" a refused load */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#define UPROBE_MULTI_ATTACH 48

static void note(const char *name)
{
	const char *path = getenv("BPFREFUSE_LOG");
	FILE *f;

	if (!path || !(f = fopen(path, "ae")))
		return;
	fprintf(f, "refused %s\n", name);
	fclose(f);
}

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_bpf && a[0] == BPF_PROG_LOAD && a[1]) {
		const union bpf_attr *at = (const union bpf_attr *)a[1];
		char name[sizeof(at->prog_name) + 1];

		memcpy(name, at->prog_name, sizeof(at->prog_name));
		name[sizeof(at->prog_name)] = '\0';
		if (at->expected_attach_type == UPROBE_MULTI_ATTACH &&
		    strncmp(name, "gpurt_", 6) == 0) {
			note(name);
			errno = EINVAL;
			return -1;
		}
	}
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
