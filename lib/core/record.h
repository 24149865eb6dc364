/* SPDX-License-Identifier: GPL-2.0-only */
/* The unit that flows from producers (collectors, the player) to consumers
 * (store, recorder): a sample, a label, a status line or an entity's end. */
#ifndef ASYS_RECORD_H
#define ASYS_RECORD_H

#include <stdint.h>

enum rec_kind {
	REC_SAMPLE = 1, /* values[nvals] for (stream, entity) at ts_ns */
	REC_LABEL = 2,	/* text names the entity ("eth0", "python train.py") */
	REC_GONE = 3,	/* the entity ended (process exit, NIC removed) */
	REC_STATUS = 4, /* text says why the stream has no data; "" = fine again */
};

#define REC_TEXT_MAX 1024

/* 32-byte header, then nvals doubles (SAMPLE) or NUL-terminated text padded
 * to 8 bytes. Values are doubles; an unknown value is NaN, never 0. */
struct rec {
	uint32_t len; /* total bytes, multiple of 8 */
	uint8_t kind;
	uint8_t flags;
	uint16_t nvals;
	uint32_t stream;
	uint32_t reserved;
	uint64_t entity;
	uint64_t ts_ns; /* CLOCK_MONOTONIC nanoseconds */
};

static inline const double *rec_values(const struct rec *r)
{
	return (const double *)(const void *)(r + 1);
}

static inline const char *rec_text(const struct rec *r)
{
	return (const char *)(r + 1);
}

#endif
