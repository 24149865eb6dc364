/* The per-process part of the mem collector: the top processes by RSS
 * system-wide, or the process tree of the roots in opts->pids. */
#ifndef ASYS_MEMPROC_H
#define ASYS_MEMPROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"

struct memproc;
struct emitter;

/* 0, or -errno with a sentence in err. Rows go to stream sid_proc. */
int memproc_new(struct memproc **out, uint32_t sid_proc, const struct asys_options *o,
		bool tree_mode, char *err, size_t n);
void memproc_free(struct memproc *m);
/* One tick; full = a refresh is due. System-wide, only a full tick scans. */
void memproc_sample(struct memproc *m, struct emitter *out, bool full);

#endif
