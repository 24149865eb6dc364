/* A bounded single-producer single-consumer ring of variable-size records.
 * The producer never blocks: a record that does not fit is dropped and
 * counted, so a slow consumer cannot stall a collector. */
#ifndef ASYS_RING_H
#define ASYS_RING_H

#include <stdint.h>
#include <stddef.h>
#include <stdatomic.h>

struct ring {
	uint8_t *buf;
	size_t size; /* power of two */
	_Alignas(64) _Atomic uint64_t head; /* written by the producer */
	/* The producer's last look at tail: it reads the consumer's line only
	 * when this says the record may not fit (once per bus drain, not once
	 * per record: a look costs a cache miss to the consumer's core). */
	uint64_t tail_seen;
	size_t pad; /* bytes skipped by the reservation in progress */
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
/* Copy len bytes (len % 8 == 0, len >= 8) in; 0 or -ENOBUFS (counted). */
int ring_push(struct ring *r, const void *rec, size_t len);
/* Zero-copy push: room for len bytes (same rules as ring_push), or NULL
 * when the record cannot go in (a full ring counts a drop). The record is
 * visible to the consumer only after ring_commit(r, len). */
void *ring_reserve(struct ring *r, size_t len);
void ring_commit(struct ring *r, size_t len);
/* Asks for the next len bytes of the ring in cache for writing: a producer
 * that knows what a tick will emit overlaps those misses with its reads. */
void ring_prefetch(const struct ring *r, size_t len);
/* Peek the next record; its first 4 bytes are its length. NULL if empty. */
const void *ring_peek(struct ring *r, size_t *len);
void ring_pop(struct ring *r, size_t len);
uint64_t ring_dropped(const struct ring *r);
/* Consumer: the ring was emptied; the producer may wake it again. */
void ring_drained(struct ring *r);

#endif
