/* SPDX-License-Identifier: GPL-2.0-only */
/* Reading the HGTX section of the shared region (inject/inject_hgtx.h) into
 * rows of the stream hgtx.ranges: one per (process, domain, name), the
 * categories of a name merged. The section is the workload's to write, so
 * nothing in it is trusted: indices are bounded, texts copied, cut and
 * cleaned, and a row that stays torn is left out of that read. */
#ifndef ASYS_HGTX_READ_H
#define ASYS_HGTX_READ_H

#include <stddef.h>
#include <stdint.h>

#include "inject_hgtx.h"

/* DOMAIN "\x1f" NAME, each at most INJ_HGTX_TEXT bytes */
#define HGTX_LABEL_MAX (2 * INJ_HGTX_TEXT + 2)

struct hgtx_row {
	uint32_t slot; /* process slot */
	uint32_t pid;
	uint64_t key; /* the entity: a hash of pid and label */
	char label[HGTX_LABEL_MAX];
	/* the stream's fields; NaN when unknown */
	double depth, color, count, total_ns, self_ns, min_ns, max_ns;
};

/* The figures a status reports: what did not fit. */
struct hgtx_lost {
	uint64_t procs, shards, names, domains, open, deep;
};

/* Reads the section of len bytes into rows (room for max), the extremes
 * from the epoch `closed` (the one asys just ended). Returns the number of
 * rows, at most max; 0 for a section too small. Allocates nothing. */
size_t hgtx_read(const struct inj_hgtx_section *sec, size_t len, uint32_t closed,
		 struct hgtx_row *rows, size_t max, struct hgtx_lost *lost);

/* Cleans a text into dst (room INJ_HGTX_TEXT + 1): up to its NUL or n
 * bytes, each control character '?'. Returns the length. */
size_t hgtx_clean(char *dst, const char *src, size_t n);

#endif
