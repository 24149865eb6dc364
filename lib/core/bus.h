/* SPDX-License-Identifier: GPL-2.0-only */
/* The bus: drains the producers' rings on its own thread and hands each
 * record to the attached consumers (store, recorder, exporters). Consumers
 * can attach and detach at run time; a new one first gets the current labels
 * and statuses, so a recording started late still names its entities. */
#ifndef ASYS_BUS_H
#define ASYS_BUS_H

#include <stdbool.h>
#include <stdint.h>
#include "record.h"
#include "ring.h"

struct bus;

struct emit_kept;

struct emitter {
	struct ring *ring;
	/* set by the engine for the first collector of a tick: when the tick
	 * began (CLOCK_MONOTONIC ns), 0 otherwise; see emit_tick_start */
	uint64_t tick_ns;
	/* texts (labels, GONEs, statuses) that met a full ring, pushed before
	 * the next record; only where keep is set (emit_keep_texts) */
	bool keep;
	size_t nkept;
	struct emit_kept *kept; /* owned: emit_release */
	/* records a full ring refused, by stream id (STREAM_MAX of them),
	 * from the first loss on; owned: emit_release */
	uint64_t *lost;
};

/* The emitter holds the texts a full ring refuses, up to 64 KiB, instead
 * of dropping them: a text is said once, a sample again at the next tick.
 * Its owner calls emit_release when done with it. */
void emit_keep_texts(struct emitter *e);
void emit_release(struct emitter *e);
/* Pushes the held texts, in order, as far as the ring has room; true when
 * none is left. The engine calls it at each tick and after the last. */
bool emit_flush_kept(struct emitter *e);
size_t emit_kept_count(const struct emitter *e);

struct bus_consumer_ops {
	void (*begin)(void *ctx); /* before a batch; may be NULL */
	void (*consume)(void *ctx, const struct rec *r);
	void (*end)(void *ctx); /* after a batch; may be NULL */
	/* begin, or false at once where begin would wait (a sampling thread's
	 * pump does not wait); NULL: begin never waits long */
	bool (*try_begin)(void *ctx);
};

struct bus *bus_new(void);
void bus_free(struct bus *b); /* stops the thread; does not free rings */
/* Rings are not owned. Add them before bus_start. -ENOSPC past 64. */
int bus_add_ring(struct bus *b, struct ring *r);
/* The same for the ring of a collector the workload feeds: the labels it
 * carries are remembered for later consumers within a bound of their own. */
int bus_add_ring_fed(struct bus *b, struct ring *r);
/* Returns a handle >= 0 or -errno. */
int bus_attach(struct bus *b, const struct bus_consumer_ops *ops, void *ctx);
/* The same, for a consumer that must get a record within latency_ns of its
 * emission (the recorder: what a kill -9 may lose): while it is attached the
 * bus pumps at least that often, else once per bus_start's period. */
int bus_attach_within(struct bus *b, const struct bus_consumer_ops *ops, void *ctx,
		      uint64_t latency_ns);
void bus_detach(struct bus *b, int handle);
/* period_ns: how often the bus pumps when no consumer asks for less. */
int bus_start(struct bus *b, uint64_t period_ns);
void bus_stop(struct bus *b); /* joins the thread after a last drain */
/* Drain everything now, on the caller's thread; returns records handled. */
uint64_t bus_pump(struct bus *b);
/* A sampling thread that wakes at least once a period offers to pump at the
 * end of its ticks: bus_set_helped(b, true, all), then bus_pump_due after
 * each tick, which pumps when a period has passed since the last pump, and
 * never waits: where another pump runs or a consumer's try_begin says it is
 * busy, it wakes the bus thread to pump instead and returns false. The bus
 * thread then sleeps several periods at a time (a wake of an idle thread
 * costs 20-70 us on a VM), still woken by a ring past half full and still
 * keeping the shorter period a consumer asks for, unless all: every ring
 * but the engine's start-up one is written on the helping thread, whose
 * pump after a tick then meets any consumer's latency. false before that
 * thread stops. */
void bus_set_helped(struct bus *b, bool on, bool all);
/* The period given to bus_start; 0 while the bus thread is not running. */
uint64_t bus_period_ns(const struct bus *b);
bool bus_pump_due(struct bus *b, uint64_t now_ns);
/* One write of 1 to fd (an eventfd the caller keeps open) after the first
 * pump that begins at or after at_ns (asys_now_ns): a screen that draws
 * then finds the records sampled until at_ns in its store, and is woken by
 * the pumping thread, a wake that costs a sixth of one by its own timer on
 * a VM. A helping sampling thread pumps at its first tick past at_ns,
 * whether or not a period has passed. A new request replaces the last;
 * at_ns 0 cancels it. */
void bus_notify_after(struct bus *b, int fd, uint64_t at_ns);
/* Records lost to full rings, over all producers. */
uint64_t bus_dropped(struct bus *b);

#endif
