/* SPDX-License-Identifier: GPL-2.0-only */
/* gpurt discovery thread: attaches the probe table to a runtime library
 * within milliseconds of a followed process loading it (the `loader` ring of
 * gpurt.bpf.c, fed by a uprobe on the dynamic loader's debugger hook that
 * reports a process whose list of objects gained a runtime library, and by
 * the exec tracepoint that reports a process started by a loader not seen
 * yet: the thread then reads that process's maps once). A scan of /proc,
 * every GPURT_RESCAN_NS for a followed tree and GPURT_RESCAN_WIDE_NS
 * system-wide (or the scan's rescan_ns when shorter, for tests), is the
 * safety net for what no event reports (a static program, a full ring).
 * The sampling thread never waits on an attach. */
#ifndef ASYS_GPURT_WATCH_H
#define ASYS_GPURT_WATCH_H

#include <stddef.h>
#include <stdint.h>

#include "gpurt_scan.h"

#define GPURT_RESCAN_NS 2000000000ull
#define GPURT_RESCAN_WIDE_NS 10000000000ull

struct gpurt_watch;

/* Starts the thread on sc (which it then owns until stop); fd_loader is the
 * ring, or -1 for rescans only. 0 or -errno. */
int gpurt_watch_start(struct gpurt_watch **out, struct gpurt_scan *sc, int fd_loader);
/* Stops and joins the thread; NULL is fine. */
void gpurt_watch_stop(struct gpurt_watch *w);
/* The path of an executable file a followed process mapped (the kernel's
 * device number, inode), noted when the process loaded a runtime library.
 * 0 or -ENOENT. */
int gpurt_watch_path(struct gpurt_watch *w, uint64_t dev, uint64_t ino, char *buf, size_t n);
/* Library files found and probes attached so far. */
void gpurt_watch_counts(struct gpurt_watch *w, size_t *nlibs, size_t *nattached);
/* The same for the gpurt collector's state: probes attached so far, 0
 * before the thread runs. For tests, which must not let a workload's calls
 * start before the thread has attached (a tick never waits for it). */
size_t gpurt_attached(void *state);

#endif
