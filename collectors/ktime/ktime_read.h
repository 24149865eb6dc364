/* SPDX-License-Identifier: GPL-2.0-only */
/* The reader of the KTIME section (inject/inject_ktime.h): kernel durations
 * and copies that libasys-inject.so aggregates inside a workload started
 * with `-- cmd`. The section is the workload's to write: every count is
 * bounded by the section's size, names are read up to their bound and
 * escaped, and a row that changes while it is copied is skipped. */
#ifndef ASYS_KTIME_READ_H
#define ASYS_KTIME_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inject_ktime.h"

/* escaped for a terminal: up to 4 bytes per byte, and "..." */
#define KTIME_NAME_MAX (KTIME_SEC_NAME_MAX * 4 + 4)

struct ktime_kernel {
	uint32_t pid;
	uint32_t device; /* UINT32_MAX for the overflow row */
	bool overflow;
	uint64_t count, total_ns, min_ns, max_ns;
	char name[KTIME_NAME_MAX];
};

struct ktime_copy {
	uint32_t pid;
	uint32_t dir; /* enum ktime_sec_copy_dir */
	uint64_t count, bytes, total_ns;
};

struct ktime_proc {
	uint32_t pid;
	uint32_t state; /* enum ktime_sec_state; another value is read as FAILED */
	uint64_t records, dropped, buffers;
	char status[KTIME_STATUS_MAX * 4 + 4]; /* escaped */
};

/* What ktime_read calls for each claimed slot, its copies with a count and
 * its kernel rows; any may be NULL. */
struct ktime_visit {
	void (*proc)(void *ctx, const struct ktime_proc *p);
	void (*kernel)(void *ctx, const struct ktime_kernel *k);
	void (*copy)(void *ctx, const struct ktime_copy *c);
};

/* The number of claimed slots visited, or -EINVAL when the section's head
 * is not one this build reads or does not fit in len. */
int ktime_read(const void *sec, size_t len, const struct ktime_visit *v, void *ctx);
/* "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "other"; "?" out of range. */
const char *ktime_dir_name(uint32_t dir);

#endif
