/* SPDX-License-Identifier: GPL-2.0-only */
/* The CPU pane's figures, computed from the store for the view's instant:
 * per-core state shares, their total and its history, and the IPC. Drawing is in pane_cpu.c. */
#ifndef ASYS_CPU_DATA_H
#define ASYS_CPU_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pane.h"

enum cpu_state {
	CS_USER,
	CS_NICE,
	CS_SYSTEM,
	CS_IRQ,
	CS_SOFTIRQ,
	CS_IOWAIT,
	CS_STEAL,
	CS_IDLE,
	CS_N
};

struct cpu_row {
	uint64_t id;
	double share[CS_N]; /* of all time; NaN unknown */
	double busy;	    /* 0..1, not idle and not iowait */
	bool offline;
};

struct cpu_data {
	uint64_t key_end, key_records; /* what the cached figures are for */
	bool have_key;
	int stream;	      /* cpu.core id, or -1 */
	const char *why;      /* no rows: why (points into the store or static) */
	struct cpu_row *rows; /* sorted by core number */
	size_t n, cap;
	uint64_t *ents;
	size_t ecap;
	struct cpu_row total;
	double ipc;
	char ipc_why[200];
	bool ipc_absent; /* no cpu.perf data nor a word why (a recording without it) */
	double *hist;	 /* cpu_data_history's scratch: CS_N rows of hcap */
	size_t hcap;
};

struct cpu_data *cpu_data_new(void);
void cpu_data_free(struct cpu_data *s);
/* Recomputes the figures unless the view and the store are where they were. */
void cpu_data_compute(struct cpu_data *s, const struct view *v);
/* Total busy share (0..1) of the last n refreshes ending at v->end_ns,
 * oldest first, from the store's history of the total (or of the cores
 * summed when there is no total); NaN where there is no data. Call after
 * cpu_data_compute. Returns n, or 0 when out of memory. */
size_t cpu_data_history(struct cpu_data *s, const struct view *v, double *out, size_t n);

#endif
