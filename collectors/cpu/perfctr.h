/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-core hardware counters (cycles, instructions) for the cpu collector,
 * encoded by libpfm4 and counted with perf_event_open. Only built with
 * HAVE_PFM. Counting on a CPU needs perf_event_paranoid <= 0 or CAP_PERFMON
 * (root); where the PMU is virtualised away the kernel answers ENOENT. */
#ifndef ASYS_PERFCTR_H
#define ASYS_PERFCTR_H

#include <stddef.h>
#include <stdint.h>

struct perfctr;

/* Opens a {cycles, instructions} group on each CPU i < ncpu with online[i]
 * set. 0 and *out, or -errno and a sentence in why ("IPC n/a: ..."). A CPU
 * that fails after the first one worked (it went offline meanwhile) is left
 * closed and reads NaN. */
int perfctr_open(const uint8_t *online, int ncpu, struct perfctr **out, char *why, size_t n);
/* The same with two other events (a leader and a member), e.g. software
 * ones for tests on machines without a PMU. */
int perfctr_open_events(const char *const events[2], const uint8_t *online, int ncpu,
			struct perfctr **out, char *why, size_t n);
void perfctr_free(struct perfctr *p);
/* Counts since the group was opened, scaled for multiplexing. NaN for a CPU
 * without counters. Returns 0, or -errno when the read failed (the CPU went
 * offline: the group is closed, perfctr_reopen may bring it back). */
int perfctr_read(struct perfctr *p, int cpu, double *cycles, double *instructions);
/* Opens the group of a CPU that has none (it came online); 0 or -errno. */
int perfctr_reopen(struct perfctr *p, int cpu);
int perfctr_is_open(const struct perfctr *p, int cpu);
/* The sentence for a perf_event_open errno (err > 0), for the pane. */
void perfctr_explain(int err, char *buf, size_t n);

#endif
