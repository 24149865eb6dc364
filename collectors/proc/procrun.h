/* SPDX-License-Identifier: GPL-2.0-only */
/* procrun: every task's run time in one read, through a BPF task iterator,
 * for the system-wide process scan (memscan.c). Where BPF cannot be loaded
 * (no root, no BTF, a build without BPF) procrun_open fails and the scan
 * reads each process's schedstat instead. */
#ifndef ASYS_PROCRUN_H
#define ASYS_PROCRUN_H

#include <stddef.h>
#include <stdint.h>

/* One process: its live threads' run time and switches summed, and their
 * count. Any thread that ran, started or ended since the last read changes
 * one of the three. */
struct procrun_sum {
	uint32_t tgid;
	uint32_t threads;
	uint64_t run_ns;
	uint64_t switches;
};

struct procrun;

/* 0, or -errno where the iterator cannot be loaded. */
int procrun_open(struct procrun **out);
void procrun_close(struct procrun *pr);
/* Reads every task; *sums (owned by pr, valid until the next read) sorted
 * by tgid. 0, or -errno. */
int procrun_read(struct procrun *pr, const struct procrun_sum **sums, size_t *n);
/* The sum of tgid in sums (sorted), or NULL. */
const struct procrun_sum *procrun_find(const struct procrun_sum *sums, size_t n, uint32_t tgid);

#endif
