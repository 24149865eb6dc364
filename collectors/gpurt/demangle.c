/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "dl_load.h"
#include "util.h"

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);
static cxa_demangle_fn demangle_fn;
static pthread_once_t demangle_once = PTHREAD_ONCE_INIT;

static void demangle_load(void)
{
	static const char *const names[] = {"libstdc++.so.6", NULL};
	const struct dl_sym syms[] = {DL_SYM("__cxa_demangle", &demangle_fn), DL_SYM_END};
	struct dl_why w;

	/* kept open for the life of the process: the function is reused */
	dl_load(names, RTLD_LAZY | RTLD_LOCAL, syms, &w);
}

int demangle_name(const char *name, char *buf, size_t n)
{
	int status = -1;
	char *d;

	/* only for a mangled name: the C++ runtime costs ~0.9 MiB resident */
	if (strncmp(name, "_Z", 2)) {
		util_strlcpy(buf, name, n);
		return -ENOENT;
	}
	pthread_once(&demangle_once, demangle_load);
	if (!demangle_fn) {
		util_strlcpy(buf, name, n);
		return -ENOENT;
	}
	d = demangle_fn(name, NULL, NULL, &status);
	if (!d || status != 0) {
		free(d);
		util_strlcpy(buf, name, n);
		return -EINVAL;
	}
	util_strlcpy(buf, d, n);
	free(d);
	return 0;
}
