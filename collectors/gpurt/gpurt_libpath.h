/* SPDX-License-Identifier: GPL-2.0-only */
/* Where the dynamic loader would find a runtime library: the directories of
 * LD_LIBRARY_PATH, the loader's cache (/etc/ld.so.cache) and the PPU SDK's
 * library directories. gpurt attaches to these files before a followed
 * command runs, because a uprobe goes on a file, and a process that loads
 * the file and calls it at once would otherwise run before discovery sees
 * the mapping. */
#ifndef ASYS_GPURT_LIBPATH_H
#define ASYS_GPURT_LIBPATH_H

#include <stddef.h>

#include "gpurt_probes.h"

#define GPURT_LIBPATH_DIRS_MAX 64	    /* directories taken from LD_LIBRARY_PATH */
#define GPURT_LIBPATH_DIR_ENTRIES 65536	    /* entries read from one directory */
#define GPURT_LIBPATH_CACHE_MAX (32u << 20) /* bytes of ld.so.cache read */

typedef void (*gpurt_libpath_fn)(const char *path, void *arg);

/* Calls fn for every file in those places whose name a probe of p wants.
 * ld_library_path, ppu_home and cache may be NULL (then none, the default
 * SDK, /etc/ld.so.cache). A file may come more than once. */
void gpurt_libpath_each(const struct gpurt_probes *p, const char *ld_library_path,
			const char *ppu_home, const char *cache, gpurt_libpath_fn fn, void *arg);
/* The library paths in an ld.so.cache image (new format, alone or after the
 * old one) whose file names a probe wants; entries out of bounds are
 * skipped. Returns how many fn was called for. */
size_t gpurt_libpath_cache(const struct gpurt_probes *p, const unsigned char *buf, size_t len,
			   gpurt_libpath_fn fn, void *arg);

#endif
