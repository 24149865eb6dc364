/* SPDX-License-Identifier: GPL-2.0-only */
/* Internals of the store shared by store.c (ingest) and store_query.c (reads). */
#ifndef ASYS_STORE_INT_H
#define ASYS_STORE_INT_H

#include <pthread.h>
#include "msglog.h"
#include "store.h"
#include "store_peak.h"

/* One closed bucket of one field: the mean (a rate for counters) and the
 * largest value (for counters the peak rate over windows of at least the
 * sampling period, store_peak.h; NaN when no window ended in it). Floats
 * halve the history's footprint; displays do not need more. */
struct bucket {
	float avg;
	float max;
	float min;
};

/* The open bucket of one field. For counters, dsum/dtsum give the exact mean
 * rate over the bucket; min/max are over the windows that ended in it. */
struct acc {
	double sum, dsum, dtsum, min, max;
	uint64_t n;
};

#define STORE_NO_HIST 0xffffu

struct series {
	uint64_t bucket_ns;
	uint32_t stream;
	uint64_t entity;
	struct series *hnext; /* hash chain */
	char *label;
	char *status;
	uint32_t nf;
	const struct field_desc *fields; /* the stream table's, not owned */
	uint64_t last_ns, prev_ns;
	double *last; /* nf */
	double *rate; /* nf: last per-sample rate (counters) */
	uint64_t resets;
	/* peaks of counters: windows of at least period_ns; the period is the
	 * stream's nominal one, or estimated from the intervals (period_est) */
	uint64_t period_ns;
	bool period_known;
	struct peak_est est;
	struct peak_win *pw; /* nf */
	bool nohist;	     /* no room for history rings: latest values only */
	/* the history rings hold the hnf fields that are not attributes (an
	 * attribute's buckets read as its latest value): hidx[f] is field f's
	 * place in a ring's bucket row, or STORE_NO_HIST */
	uint32_t hnf;
	uint16_t *hidx;	     /* nf */
	int64_t first_idx;   /* the first bucket with a sample */
	int64_t open_idx;    /* bucket being filled, -1 before the first sample */
	struct acc *open;    /* nf */
	int64_t *fine_tag;   /* bucket index held in each fine slot, -1 = none */
	struct bucket *fine; /* fine_cap * hnf */
	/* slots of the fine ring: it grows to fine_max (STORE_FINE_BUCKETS,
	 * or STORE_PID_FINE_BUCKETS for a process) as buckets close, so a
	 * series younger than the ring's span costs its age */
	uint32_t fine_cap, fine_max;
	int64_t coarse_open;
	/* the history: NULL until the first bucket closes (series_hist) */
	struct acc *copen; /* hnf: open coarse bucket, fed by closed fine buckets */
	int64_t *coarse_tag;
	struct bucket *coarse;		 /* coarse_cap * hnf */
	uint32_t coarse_cap, coarse_max; /* grows to coarse_max as fine's does */
	/* a flat run instead of the rings (store_hist.c): the row (hnf buckets)
	 * of every closed bucket from flat_first to flat_last, then room for a
	 * head row, bucket flat_first - 1's when flat_head; or NULL */
	struct bucket *flat;
	bool flat_head;
	int64_t flat_first, flat_last;
	uint64_t run; /* with rings: closed buckets in a row equal to the last */
};

struct stream_slot {
	struct series **list; /* first-seen order */
	size_t n, cap;
	char *status;
};

struct store {
	pthread_mutex_t lock;
	const struct stream_table *t;
	uint64_t bucket_ns;
	uint64_t latest_ns;
	uint64_t records;
	struct series **hash;
	size_t hsize, count;
	size_t hist_bytes;  /* of all history rings, within STORE_HISTORY_BYTES */
	uint64_t dropped;   /* entities refused by the caps */
	struct msglog *log; /* every distinct status, for the message log */
	struct stream_slot streams[STREAM_MAX];
	bool no_flat; /* rings from the first closed bucket: tests compare */
};

/* A closed view of the open bucket (used by readers before it closes). */
struct bucket store_acc_close(const struct acc *a, enum field_kind kind);
void store_acc_reset(struct acc *a, uint32_t n);

/* History (store_hist.c): a series' rings given back, to the budget too
 * (a run stays); the open bucket closed into the history; and bucket idx
 * of history field h of a series that holds a flat run (se->flat), 1 with
 * *out set or 0, as the rings would answer. */
void store_hist_free(struct store *s, struct series *se);
void series_close_open(struct store *s, struct series *se);
int store_flat_at(const struct series *se, uint16_t h, int64_t idx, struct bucket *out);

/* The series of (stream, entity), or NULL; under the lock. */
struct series *store_lookup(const struct store *s, uint32_t stream, uint64_t entity);

#endif
