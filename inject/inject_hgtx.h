/* SPDX-License-Identifier: GPL-2.0-only */
/* The HGTX section of the shared region (ASYS_INJECT_SEC_HGTX): what
 * libasys-inject.so writes of the HGTX/NVTX ranges of a workload, and asys
 * reads once per refresh.
 *
 * Everything is preallocated and fixed in size, so the range path allocates
 * nothing and takes no lock:
 *  - a slot per process (procs[]), claimed by the library with a CAS of its
 *    pid on a free slot (0), at load and again in the child of a fork. It
 *    holds the domains, the name table and the start/end ranges still open;
 *  - a name is one (domain, category, text) of that process, found by a hash
 *    with open addressing in names[]; a slot goes 0 -> 1 (CAS, being
 *    written) -> 2 (ready, release store) and never changes afterwards but
 *    for its colour. Name 0 is "other": the ranges of names that found no
 *    room, counted in names_full;
 *  - a shard per thread (shards[]), claimed with a CAS of 1 + the process
 *    slot's index; a thread that ends retires its shard and a new thread of
 *    the same process adopts it (the rows are sums, so they stay right).
 *    The shard holds the thread's push/pop stack and a row per name, which
 *    only that thread writes;
 *  - a row is published under a sequence number (odd while written), so a
 *    reader copies it whole or tries again. Its min and max are kept per
 *    reader epoch: asys increments `epoch` before it reads, the writer keeps
 *    the extremes of the ranges ended in epoch E in slot E & 1 tagged E + 1,
 *    and the reader takes slot E & 1 of the epoch it just closed.
 *
 * asys writes `epoch` and nothing else; the library writes the rest. The
 * reader trusts none of it: indices are checked against the arrays, texts
 * are copied and cut, and a row that stays torn is skipped. */
#ifndef ASYS_INJECT_HGTX_H
#define ASYS_INJECT_HGTX_H

#include <stdint.h>

#define INJ_HGTX_VERSION 1u
#define INJ_HGTX_PROCS 64
#define INJ_HGTX_SHARDS 256
#define INJ_HGTX_NAMES 512  /* per process; 0 is "other" */
#define INJ_HGTX_DOMAINS 32 /* per process; 0 is the default domain */
#define INJ_HGTX_TEXT 120   /* bytes of a name or a domain kept */
#define INJ_HGTX_STACK 64   /* pushes deeper than this are counted, not timed */
#define INJ_HGTX_OPEN 1024  /* start/end ranges open at once per process */
#define INJ_HGTX_PROBES 64  /* name slots tried before "other" */

enum inj_hgtx_slot_state {
	INJ_HGTX_FREE = 0,
	INJ_HGTX_WRITING = 1,
	INJ_HGTX_READY = 2,
	INJ_HGTX_RETIRED = 3, /* shards only: its thread ended */
};

#define INJ_HGTX_COLOR_SET (1u << 24) /* in a name's color: 0xRRGGBB is given */

struct inj_hgtx_name {
	uint32_t state; /* enum inj_hgtx_slot_state */
	uint32_t domain;
	uint32_t category;
	uint32_t color; /* INJ_HGTX_COLOR_SET | 0xRRGGBB, or 0 */
	uint32_t hash;
	uint32_t len;
	char text[128]; /* NUL-terminated, at most INJ_HGTX_TEXT bytes */
};

struct inj_hgtx_domain {
	uint32_t state;
	uint32_t len;
	char name[128];
};

/* A range started with nvtxRangeStart*, until its nvtxRangeEnd: slot id %
 * INJ_HGTX_OPEN. id is written last (release) and cleared by the CAS of the
 * end that claims it. */
struct inj_hgtx_open {
	uint64_t id;
	uint64_t start_ns;
	uint32_t name;
	uint32_t pad;
};

struct inj_hgtx_proc {
	uint32_t pid; /* CAS 0 -> pid */
	uint32_t state;
	uint64_t start_ns; /* CLOCK_MONOTONIC when the library took the slot */
	uint64_t next_id;  /* of start/end ranges */
	uint64_t marks;	   /* nvtxMark* calls */
	uint64_t names_full, domains_full, open_lost, stack_deep, pops_unmatched;
	struct inj_hgtx_domain dom[INJ_HGTX_DOMAINS];
	struct inj_hgtx_name names[INJ_HGTX_NAMES];
	struct inj_hgtx_open open[INJ_HGTX_OPEN];
};

struct inj_hgtx_row {
	uint32_t seq;	/* odd while the owner writes */
	uint32_t depth; /* nesting depth when last ended, 0 = outermost */
	uint64_t count, total_ns, self_ns;
	uint64_t min_ns[2], max_ns[2];
	uint32_t ep[2]; /* 1 + the epoch slot k's extremes belong to */
};

struct inj_hgtx_frame {
	uint64_t start_ns;
	uint64_t child_ns; /* time in ranges pushed inside this one */
	uint32_t name;
	uint32_t domain;
};

struct inj_hgtx_shard {
	uint32_t proc;	/* 1 + index in procs[]; 0 free */
	uint32_t state; /* READY while its thread runs, RETIRED after */
	uint32_t tid;
	uint32_t depth; /* pushes not yet popped; may pass INJ_HGTX_STACK */
	struct inj_hgtx_frame stack[INJ_HGTX_STACK];
	struct inj_hgtx_row rows[INJ_HGTX_NAMES];
};

struct inj_hgtx_section {
	uint32_t version; /* INJ_HGTX_VERSION, set by asys */
	uint32_t epoch;	  /* written by asys before each read */
	uint64_t procs_full, shards_full;
	uint8_t pad[40];
	struct inj_hgtx_proc procs[INJ_HGTX_PROCS];
	struct inj_hgtx_shard shards[INJ_HGTX_SHARDS];
};

#endif
