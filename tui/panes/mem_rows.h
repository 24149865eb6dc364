/* SPDX-License-Identifier: GPL-2.0-only */
/* The memory pane's process rows (pane_mem.c), the copy of the last ones
 * it keeps for when every process of the table has gone (a workload that
 * ended): the table then shows them, and those of its processes that ended
 * before it, marked exited, not an empty table; and
 * the text of a row's FAIL cell. */
#ifndef ASYS_MEM_ROWS_H
#define ASYS_MEM_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MEM_NCOLS 17	/* the pane's columns (proc.h's enum proc_col_id) */
#define MEM_KEPT_MAX 64 /* rows kept: a screenful */

/* What a row is, beyond a process. */
enum proc_row_flag {
	PR_KTHREAD = 1u << 0,	/* a kernel thread (proc.cpu kthread) */
	PR_THREAD = 1u << 1,	/* a thread of process ppid (proc.thread) */
	PR_GROUP = 1u << 2,	/* the sum of a container's processes */
	PR_LAST = 1u << 3,	/* tree: the last child of its parent */
	PR_KIDS = 1u << 4,	/* tree: has children */
	PR_COLLAPSED = 1u << 5, /* tree: its children are hidden */
};

struct proc_row {
	uint64_t pid;
	uint64_t ppid;	  /* 0: unknown or none */
	uint64_t devmask; /* the PPUs it has utilisation on (bit = device) */
	double start;	  /* proc.cpu's, s after boot; NaN or 0: unknown */
	double val[MEM_NCOLS];
	const char *label;     /* the store's (valid while it is locked), or the copy's */
	const char *user;      /* the uid cache's, or the copy's */
	const char *container; /* proc.cpu's label, or NULL */
	const char *ended;     /* a kept row's "exit 3" or "signal 9"; NULL: unknown */
	uint32_t branches;     /* tree: bit k set when level k+1 has a sibling below */
	uint16_t depth;	       /* tree: 0 for a root */
	uint16_t flags;	       /* enum proc_row_flag */
	uint32_t nproc;	       /* a group's processes */
};

struct mem_kept_row {
	char label[256];
	char user[33];
	char container[64];
	char ended[32]; /* "" while not known */
};

struct mem_kept {
	struct proc_row *rows;	   /* MEM_KEPT_MAX, labels pointing into text */
	struct mem_kept_row *text; /* MEM_KEPT_MAX */
	size_t n;
	uint64_t ns;   /* the view's instant when they were kept */
	bool restored; /* the last restore gave rows */
};

/* Copies the first rows of this frame (the store frees a process's label
 * when it goes); while there is room, the rows kept before of processes
 * that are no longer in the frame stay, with their last figures: after a
 * job, every process it ran that a frame showed. */
void mem_kept_save(struct mem_kept *k, const struct proc_row *rows, size_t n, uint64_t ns);
/* Fills out (room for MEM_KEPT_MAX) with the kept rows, unless the view
 * went back before them (a replay's seek); returns how many. */
size_t mem_kept_restore(struct mem_kept *k, struct proc_row *out, uint64_t ns);
void mem_kept_free(struct mem_kept *k);
struct view;
/* How each kept process ended, where the collector said so (a status of
 * its mem.proc row, which the message log keeps after the row is gone). */
void mem_kept_ended(struct mem_kept *k, const struct view *v);

/* The FAIL column's cell of process pid, from gpurt.mem. */
void mem_fmt_fail(char *buf, size_t n, const struct view *v, uint64_t pid, double fails);

#endif
