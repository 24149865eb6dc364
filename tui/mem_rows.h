/* The memory pane's process rows (pane_mem.c), the copy of the last ones
 * it keeps for when every process of the table has gone (a workload that
 * ended): the table then shows them marked exited, not an empty table; and
 * the text of a row's FAIL cell. */
#ifndef ASYS_MEM_ROWS_H
#define ASYS_MEM_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MEM_NCOLS 10	/* the pane's columns */
#define MEM_KEPT_MAX 64 /* rows kept: a screenful */

struct proc_row {
	uint64_t pid;
	double val[MEM_NCOLS];
	const char *label; /* the store's (valid while it is locked), or the copy's */
	const char *user;  /* the uid cache's, or the copy's */
};

struct mem_kept_row {
	char label[256];
	char user[33];
};

struct mem_kept {
	struct proc_row *rows;	   /* MEM_KEPT_MAX, labels pointing into text */
	struct mem_kept_row *text; /* MEM_KEPT_MAX */
	size_t n;
	uint64_t ns;   /* the view's instant when they were kept */
	bool restored; /* the last restore gave rows */
};

/* Copies the first rows of this frame (the store frees a process's label
 * when it goes). */
void mem_kept_save(struct mem_kept *k, const struct proc_row *rows, size_t n, uint64_t ns);
/* Fills out (room for MEM_KEPT_MAX) with the kept rows, unless the view
 * went back before them (a replay's seek); returns how many. */
size_t mem_kept_restore(struct mem_kept *k, struct proc_row *out, uint64_t ns);
void mem_kept_free(struct mem_kept *k);

struct view;
/* The FAIL column's cell of process pid, from gpurt.mem. */
void mem_fmt_fail(char *buf, size_t n, const struct view *v, uint64_t pid, double fails);

#endif
