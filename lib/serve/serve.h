/* SPDX-License-Identifier: GPL-2.0-only */
/* The exposition: the store's current values as Prometheus text 0.0.4 or
 * OpenMetrics text 1.0.0, and as the snapshot's JSON and text. A scrape
 * copies what it shows out of the store under the store's lock (serve_snap:
 * values only, no formatting) and formats after letting go, so a scrape
 * holds the lock for a copy of numbers, never while writing text. No
 * sampling thread waits for it: the samplers write into their own rings,
 * the bus thread moves records into the store, and a sampling thread that
 * offers to pump the bus only tries the lock (bus_pump_due), leaving the
 * pump to the bus thread while a scrape copies.
 *
 * Metric names come from the stream schema through one table of rules
 * (serve_names.c): asys_ + the stream's prefix + the field + the base unit
 * (bytes, seconds, ratio, hertz, ...) + _total for counters. The same
 * table prints the list in asys-serve(1) (serve_list). */
#ifndef ASYS_SERVE_H
#define ASYS_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "store.h"
#include "stream.h"

enum serve_format {
	SERVE_PROMETHEUS = 0, /* text/plain; version=0.0.4 */
	SERVE_OPENMETRICS,    /* application/openmetrics-text; version=1.0.0 */
};

/* A collector as the endpoint reports it (the application fills these
 * from the registry and the engine's stats). */
struct serve_collector {
	const char *name;
	bool up;	/* sampling: its init succeeded and it has a thread */
	double rate_hz; /* achieved ticks per second of its thread; NaN: unknown */
};

struct serve_snap_opts {
	/* per-process and per-kernel series: the top N of each such stream
	 * by its size column; 0: none; SIZE_MAX: all (the snapshot) */
	size_t processes;
	/* The window of the peaks and of the max and mean of PPU metrics:
	 * the whole buckets of the store (a bucket is one refresh) that end
	 * within this long of the last one, at least one and at most
	 * STORE_FINE_BUCKETS. 0: the last whole bucket only. */
	uint64_t window_ns;
	bool rates; /* counters' rates between their last two samples too */
};

struct serve_snap;

/* Copies the values under the store's lock. NULL when memory runs out. */
struct serve_snap *serve_snap_take(struct store *st, const struct stream_table *t,
				   const struct serve_snap_opts *o);
void serve_snap_free(struct serve_snap *s);

/* The scrape as text: a malloc'd buffer of *len bytes, NULL when memory
 * runs out. version is the build's, for asys_build_info. */
char *serve_format(const struct serve_snap *s, enum serve_format f, const struct serve_collector *c,
		   size_t nc, const char *version, size_t *len);
const char *serve_content_type(enum serve_format f);
/* OpenMetrics when an Accept header names it, else Prometheus text. */
enum serve_format serve_negotiate(const char *accept);

/* The snapshot of asys-snapshot(1): a JSON document (schema version
 * SERVE_JSON_VERSION) or one "stream entity field value" line per value. */
#define SERVE_JSON_VERSION 1
int serve_write_json(const struct serve_snap *s, const struct serve_collector *c, size_t nc,
		     const char *host, double interval_s, FILE *f);
int serve_write_text(const struct serve_snap *s, FILE *f);

/* Every metric family a scrape has for these streams, one line each:
 * "NAME TYPE UNIT HELP" (UNIT "-" when none), asys's own first: what
 * serve_format writes, for the man page's list. 0 or -ENOMEM. */
int serve_list(const struct stream_desc *const *streams, size_t n, FILE *f);

#endif
