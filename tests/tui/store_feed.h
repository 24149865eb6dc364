/* SPDX-License-Identifier: GPL-2.0-only */
/* One record into a store, as the bus would deliver it: for tests that
 * draw panes from a store they fill themselves. Header only. */
#ifndef ASYS_TESTS_STORE_FEED_H
#define ASYS_TESTS_STORE_FEED_H

#include <stdint.h>
#include <string.h>

#include "record.h"
#include "store.h"

/* A sample of n values, or a label or status of text. */
static inline void feed(struct store *st, uint8_t kind, uint32_t stream, uint64_t entity,
			uint64_t ts, const double *vals, int n, const char *text)
{
	union {
		struct rec r;
		char b[sizeof(struct rec) + 1024];
	} u;
	size_t body = vals ? (size_t)n * sizeof(double) : (strlen(text) + 8) & ~(size_t)7;

	memset(&u, 0, sizeof(u));
	u.r.len = (uint32_t)(sizeof(struct rec) + body);
	u.r.kind = kind;
	u.r.nvals = vals ? (uint16_t)n : 0;
	u.r.stream = stream;
	u.r.entity = entity;
	u.r.ts_ns = ts;
	if (vals)
		memcpy(u.b + sizeof(struct rec), vals, body);
	else
		memcpy(u.b + sizeof(struct rec), text, strlen(text) + 1);
	store_consume(st, &u.r);
}

#endif
