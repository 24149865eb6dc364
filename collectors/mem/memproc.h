/* SPDX-License-Identifier: GPL-2.0-only */
/* The per-process part of the mem collector: every process system-wide, or
 * the process tree of the roots in opts->pids. */
#ifndef ASYS_MEMPROC_H
#define ASYS_MEMPROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"

struct memproc;
struct emitter;

/* The streams the rows go to: mem.proc, proc.cpu and, with threads,
 * proc.thread. */
struct memproc_sids {
	uint32_t proc, cpu, thread;
};

/* 0, or -errno with a sentence in err. */
int memproc_new(struct memproc **out, const struct memproc_sids *sids, const struct asys_options *o,
		bool tree_mode, bool threads, char *err, size_t n);
void memproc_free(struct memproc *m);
/* One tick; full = a refresh is due. System-wide, only a full tick scans. */
void memproc_sample(struct memproc *m, struct emitter *out, bool full);

#endif
