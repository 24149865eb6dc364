/* SPDX-License-Identifier: GPL-2.0-only */
/* A bounded single-producer single-consumer ring of variable-size records.
 * The producer never blocks: a record that does not fit is dropped and
 * counted, so a slow consumer cannot stall a collector. */
#ifndef ASYS_RING_H
#define ASYS_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ring {
	/* The producer's line: what a reservation reads and writes, together
	 * (at 1 kHz it is out of cache at every tick; one line, one miss). The
	 * consumer reads head, buf and size, so it shares this line anyway. */
	_Alignas(64) _Atomic uint64_t head; /* written by the producer */
	uint8_t *buf;
	size_t size; /* power of two */
	/* The producer's last look at tail: it reads the consumer's line only
	 * when this says the record may not fit (once per bus drain, not once
	 * per record: a look costs a cache miss to the consumer's core). */
	uint64_t tail_seen;
	size_t pad;		  /* bytes skipped by the reservation in progress */
	_Atomic uint64_t dropped; /* records lost to a full ring; producer-written */
	/* An eventfd the producer writes once when the ring passes half full, so
	 * the consumer drains before it fills (-1: none). wake_sent is cleared
	 * by the consumer (ring_drained). */
	int wake_fd;
	_Atomic int wake_sent;
	_Alignas(64) _Atomic uint64_t tail; /* written by the consumer */
};

struct ring *ring_new(size_t size_bytes);
void ring_free(struct ring *r);
/* Touches every page now, so that the producer's first pass over the ring
 * takes no page faults (a fault costs several us on a VM: at kHz rates it
 * showed in 1-5 % of ticks until the ring had been written once). */
void ring_prefault(struct ring *r);
/* Producer, between records: when the consumer has taken everything, moves
 * the write position back to the start of the buffer (behind a pad record
 * to the end, which it also marks as read: the one store of tail outside
 * the consumer), so that a ring drained after every burst keeps only its
 * largest burst resident instead of every page it ever wrapped through. */
void ring_rewind(struct ring *r);
/* Whether a record of len bytes would go in now (no drop is counted). */
bool ring_room(struct ring *r, size_t len);
/* Copy len bytes (len % 8 == 0, len >= 8) in; 0 or -ENOBUFS (counted). */
int ring_push(struct ring *r, const void *rec, size_t len);
/* Zero-copy push: room for len bytes (same rules as ring_push), or NULL
 * when the record cannot go in (a full ring counts a drop). The record is
 * visible to the consumer only after ring_commit(r, len). Inline: at kHz
 * rates a collector makes these calls per entity, and the common case (room
 * before the end, room by the last look at tail) is a few instructions. */
static inline void *ring_reserve(struct ring *r, size_t len);
static inline void ring_commit(struct ring *r, size_t len);
/* Their uncommon cases, out of line. */
void *ring_reserve_slow(struct ring *r, size_t len);
void ring_wake_check(struct ring *r, uint64_t head);
/* Asks for the next len bytes of the ring in cache for writing: a producer
 * that knows what a tick will emit overlaps those misses with its reads. */
void ring_prefetch(const struct ring *r, size_t len);
/* Peek the next record; its first 4 bytes are its length. NULL if empty. */
const void *ring_peek(struct ring *r, size_t *len);
void ring_pop(struct ring *r, size_t len);
uint64_t ring_dropped(const struct ring *r);
/* Consumer: the ring was emptied; the producer may wake it again. */
void ring_drained(struct ring *r);

static inline void *ring_reserve(struct ring *r, size_t len)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	size_t off = head & (r->size - 1);

	/* any doubt (length, wrap, room) goes the slow way, which checks all */
	if (__builtin_expect((len & 7) || len < 8 || len >= r->size / 2 || r->size - off < len ||
				 r->size - (head - r->tail_seen) < len,
			     0))
		return ring_reserve_slow(r, len);
	r->pad = 0;
	return r->buf + off;
}

static inline void ring_commit(struct ring *r, size_t len)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed) + r->pad + len;

	atomic_store_explicit(&r->head, head, memory_order_release);
	/* past half full by the producer's last view: look again (and wake) */
	if (__builtin_expect(r->wake_fd >= 0 && head - r->tail_seen > r->size / 2, 0))
		ring_wake_check(r, head);
}

#endif
