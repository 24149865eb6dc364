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
	_Alignas(64) _Atomic uint64_t tail; /* written by the consumer */
	_Alignas(64) _Atomic uint64_t dropped; /* records lost to a full ring */
	_Atomic uint64_t pushed;
};

struct ring *ring_new(size_t size_bytes);
void ring_free(struct ring *r);
/* Copy len bytes (len % 8 == 0, len >= 8) in; 0 or -ENOBUFS (counted). */
int ring_push(struct ring *r, const void *rec, size_t len);
/* Peek the next record; its first 4 bytes are its length. NULL if empty. */
const void *ring_peek(struct ring *r, size_t *len);
void ring_pop(struct ring *r, size_t len);
uint64_t ring_dropped(const struct ring *r);

#endif
