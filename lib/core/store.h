/* SPDX-License-Identifier: GPL-2.0-only */
/* The store keeps what the panes show: per (stream, entity) series with the
 * latest sample, per-second rates of counters, and a bucketed history (fine
 * buckets of one refresh each, then coarse ones of STORE_COARSE_FACTOR). It
 * is fed by the bus (store_consumer_ops) and read by the TUI under its lock.
 * Time is the samples' own time, so replay and live read the same way. */
#ifndef ASYS_STORE_H
#define ASYS_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "bus.h"
#include "record.h"
#include "stream.h"

#define STORE_FINE_BUCKETS 600
/* fine slots a new series starts with; the ring doubles up to the above */
#define STORE_FINE_FIRST 75
#define STORE_COARSE_BUCKETS 360
/* coarse slots a new series starts with, doubling up to the above: a
 * series of a process that lives a minute needs 6 of the 360 */
#define STORE_COARSE_FIRST 8
#define STORE_COARSE_FACTOR 10
/* A per-process stream (ENTITY_PID) has a series for every process and
 * thread of the node: its fine ring spans two minutes of refreshes (the
 * width of a process graph), its coarse ring a quarter of an hour. At the
 * full sizes a process costs a fifth of what a node-wide series does. */
#define STORE_PID_FINE_BUCKETS 120
#define STORE_PID_COARSE_BUCKETS 90
/* What one store keeps, whatever its producers send (a replayed file may
 * declare a million entities): series per stream and in all, and bytes of
 * history rings. Records of entities past the caps are dropped (counted by
 * store_dropped); a series past the history budget keeps its latest values
 * but draws no history. An entity's GONE frees its series. Every process
 * of a node is an entity of mem.proc and proc.cpu: 16384 holds the 10,000
 * of a busy one. */
#define STORE_ENTITIES_MAX 16384
#define STORE_SERIES_MAX 32768
#define STORE_HISTORY_BYTES (128u << 20)

struct store;
struct series;

struct field_stats {
	double avg; /* gauge: mean; counter: mean rate per second */
	double min; /* counter: the lowest rate over windows of at least the period */
	/* counter: the peak rate over windows of at least the stream's sampling
	 * period (store_peak.h), the whole window of the query being one of
	 * them, so min <= avg <= max; NaN when no window ended in it */
	double max;
	uint64_t n; /* buckets behind the figures (0: all NaN) */
};

struct store *store_new(const struct stream_table *t, uint64_t bucket_ns);
void store_free(struct store *s);
extern const struct bus_consumer_ops store_consumer_ops;  /* ctx = struct store * */
void store_consume(struct store *s, const struct rec *r); /* takes the lock */
void store_clear(struct store *s);			  /* replay seek: forget all series */

void store_lock(struct store *s);
void store_unlock(struct store *s);

/* Everything below: call with the lock held. */
uint64_t store_bucket_ns(const struct store *s);
uint64_t store_latest_ns(const struct store *s); /* newest sample time seen */
uint64_t store_records(const struct store *s);
/* Records refused because their entity was past the caps above. */
uint64_t store_dropped(const struct store *s);
/* Live entities of a stream in first-seen order; returns the total count. */
size_t store_entities(const struct store *s, uint32_t stream, uint64_t *out, size_t n);
const struct series *store_series(const struct store *s, uint32_t stream, uint64_t entity);
/* Every distinct status the store was given, with its time, and the notes
 * of store_note: the TUI's message log (msglog.h). Kept across
 * store_clear, so a replay's seek does not forget what was said. */
const struct msglog *store_msglog(const struct store *s);
/* Adds the application's own message (a failed recording) to that log,
 * stamped ts_ns (0: the newest sample's time). Takes the lock. */
void store_note(struct store *s, uint64_t ts_ns, const char *text);
/* Status text of a stream (STATUS_STREAM) or an entity, or NULL. */
const char *store_status(const struct store *s, uint32_t stream, uint64_t entity);

const char *series_label(const struct series *se); /* NULL if none */
uint64_t series_last_ns(const struct series *se);
double series_last(const struct series *se, uint32_t field); /* raw value; NaN if unknown */
/* Counter: rate per second between the last two samples; gauge: last value. */
double series_rate(const struct series *se, uint32_t field);
uint64_t series_resets(const struct series *se); /* counters seen to go backwards */
/* The shortest window the peaks of its counters are taken over: the
 * stream's nominal sampling period, or, for a stream recorded without it,
 * the median of its first sample intervals; 0 before any is known. */
uint64_t series_peak_window_ns(const struct series *se);
/* Stats over the window of window_ns ending at end_ns (whole buckets). */
int series_window(const struct series *se, uint32_t field, uint64_t end_ns, uint64_t window_ns,
		  struct field_stats *out);
/* Bucket averages (rates for counters), oldest first, ending at end_ns, one
 * per step_ns (a multiple of the bucket); NaN where no data. Returns n. */
size_t series_history(const struct series *se, uint32_t field, uint64_t end_ns, uint64_t step_ns,
		      double *out, size_t n);

#endif
