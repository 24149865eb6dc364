/* SPDX-License-Identifier: GPL-2.0-only */
/* gpurt, user side, shared between its files: the collector's state. */
#ifndef ASYS_GPURT_INT_H
#define ASYS_GPURT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "ktab.h"
#include "collector.h"
#include "gpurt.h"
#include "gpurt_api.h"
#include "gpurt_scan.h"

struct gpurt_syms;
struct gpurt_watch;
struct ring_buffer;

/* the streams a process has been labelled in (struct gpurt_pid) */
#define GPURT_IN_MEM 1u
#define GPURT_IN_COPY 2u

struct gpurt_pid {
	uint32_t pid;
	uint32_t labelled; /* GPURT_IN_ */
};

/* a kernel seen in the launches map */
struct kent {
	struct ktab_key ek; /* first: the table's key */
	struct gpurt_launch_key key;
	uint8_t tries; /* 0 = named for good */
};

/* What the sweep of an ended process's entries needs (gpurt.c's kernels,
 * gpurt_hgtx.c's ranges): their GONE goes out with ts. */
struct gpurt_drop {
	struct gpurt_state *s;
	struct emitter *out;
	uint32_t pid;
	uint64_t ts;
};

struct gpurt_state {
	struct gpurt_bpf *skel;
	struct gpurt_scan scan;
	struct gpurt_watch *watch; /* owns scan once started */
	struct ring_buffer *exits;
	struct emitter *out; /* for the exits ring's callback */
	uint32_t *dead;	     /* processes found ended at this tick */
	size_t ndead;
	struct gpurt_syms *syms;
	struct ktab kents;	/* struct kent */
	struct gpurt_pid *pids; /* processes we have emitted for */
	size_t npids, cappids;
	int s_mem, s_kern, s_copy;
	int s_ranges; /* hgtx.ranges, registered at the first range; -1 before */
	struct stream_table *streams;
	struct ktab rents; /* hgtx.ranges entities (gpurt_hgtx.c) */
	char status[256];
	bool status_sent;
	bool need_load, load_failed;
	char err[512];
};

/* Notes a process we emit for; true when it has no label yet in stream
 * (GPURT_IN_), which is then taken as given. */
bool gpurt_pid_note(struct gpurt_state *s, uint32_t pid, uint32_t stream);
/* The process's command line as a label of stream id. */
void gpurt_pid_label(struct gpurt_state *s, struct emitter *out, int stream, uint32_t pid,
		     uint64_t ts);

/* gpurt.copy (gpurt_copy.c): every process's counts; one process's last
 * ones and its end, before its maps are swept */
void gpurt_copy_read(struct gpurt_state *s, struct emitter *out);
void gpurt_copy_final(struct gpurt_state *s, struct emitter *out, uint32_t pid);

/* hgtx.ranges from the NVTX v2 probes (gpurt_hgtx.c) */
void gpurt_hgtx_read(struct gpurt_state *s, struct emitter *out);
void gpurt_hgtx_final(struct gpurt_state *s, struct emitter *out, uint32_t pid);
void gpurt_hgtx_init(struct gpurt_state *s);
void gpurt_hgtx_free(struct gpurt_state *s);

/* Opens, loads and attaches the BPF object, then starts the discovery
 * (gpurt_load.c). 0 or -errno with s->err set. */
int gpurt_load(struct gpurt_state *s);

#endif
