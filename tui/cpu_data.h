/* The CPU pane's figures, computed from the store for the view's instant:
 * per-core state shares, their total and the IPC. Drawing is in pane_cpu.c. */
#ifndef ASYS_CPU_DATA_H
#define ASYS_CPU_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pane.h"

enum cpu_state { CS_USER, CS_NICE, CS_SYSTEM, CS_IRQ, CS_SOFTIRQ, CS_IOWAIT, CS_STEAL, CS_IDLE,
		 CS_N };

struct cpu_row {
	uint64_t id;
	double share[CS_N]; /* of all time; NaN unknown */
	double busy;        /* 0..1, not idle and not iowait */
	bool offline;
};

struct cpu_data {
	uint64_t key_end, key_records; /* what the cached figures are for */
	bool have_key;
	int stream;           /* cpu.core id, or -1 */
	const char *why;      /* no rows: why (points into the store or static) */
	struct cpu_row *rows; /* sorted by core number */
	size_t n, cap;
	uint64_t *ents;
	size_t ecap;
	struct cpu_row total;
	double ipc;
	char ipc_why[200];
};

struct cpu_data *cpu_data_new(void);
void cpu_data_free(struct cpu_data *s);
/* Recomputes the figures unless the view and the store are where they were. */
void cpu_data_compute(struct cpu_data *s, const struct view *v);

#endif
