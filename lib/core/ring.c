/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ring.h"

/* Records never wrap: one that does not fit before the end of the buffer is
 * preceded by a pad record (length with the top bit set) that the consumer
 * skips, so ring_peek can hand out a contiguous pointer. */
#define RING_PAD 0x80000000u

struct ring *ring_new(size_t size_bytes)
{
	struct ring *r;
	size_t size = 4096;

	while (size < size_bytes && size < ((size_t)1 << 30))
		size <<= 1;
	r = aligned_alloc(64, sizeof(*r) + 63 - (sizeof(*r) + 63) % 64);
	if (!r)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->wake_fd = -1;
	r->buf = aligned_alloc(64, size);
	if (!r->buf) {
		free(r);
		return NULL;
	}
	r->size = size;
	return r;
}

void ring_prefault(struct ring *r)
{
	memset(r->buf, 0, r->size);
}

void ring_free(struct ring *r)
{
	if (!r)
		return;
	free(r->buf);
	free(r);
}

/* A record the ring takes at all: whole 8-byte words, under half the ring. */
static bool ring_len_ok(const struct ring *r, size_t len)
{
	return len >= 8 && !(len % 8) && len < r->size / 2 && len < RING_PAD;
}

/* Whether len bytes fit now, a pad to the end included; looks at the
 * consumer's tail again when the last look says no. */
static bool ring_fits(struct ring *r, uint64_t head, size_t len)
{
	size_t room_to_end = r->size - (head & (r->size - 1));
	size_t need = room_to_end < len ? len + room_to_end : len;

	if (r->size - (head - r->tail_seen) >= need)
		return true;
	r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
	return r->size - (head - r->tail_seen) >= need;
}

bool ring_room(struct ring *r, size_t len)
{
	return ring_len_ok(r, len) &&
	       ring_fits(r, atomic_load_explicit(&r->head, memory_order_relaxed), len);
}

void *ring_reserve_slow(struct ring *r, size_t len)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	size_t off = head & (r->size - 1);
	size_t room_to_end = r->size - off;

	if (!ring_len_ok(r, len))
		return NULL;
	if (!ring_fits(r, head, len)) {
		/* one producer: a plain add, no locked instruction */
		atomic_store_explicit(&r->dropped,
				      atomic_load_explicit(&r->dropped, memory_order_relaxed) + 1,
				      memory_order_relaxed);
		return NULL;
	}
	if (room_to_end < len) {
		uint32_t pad = RING_PAD | (uint32_t)room_to_end;

		/* the pad is published with the record by ring_commit */
		memcpy(r->buf + off, &pad, sizeof(pad));
		r->pad = room_to_end;
		off = 0;
	} else {
		r->pad = 0;
	}
	return r->buf + off;
}

/* Below this offset a rewind saves too little to be worth the pad. */
#define RING_REWIND_MIN 4096

void ring_rewind(struct ring *r)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	size_t off = head & (r->size - 1);
	uint32_t pad;

	if (off < RING_REWIND_MIN)
		return;
	r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
	if (r->tail_seen != head)
		return;
	pad = RING_PAD | (uint32_t)(r->size - off);
	memcpy(r->buf + off, &pad, sizeof(pad));
	head += r->size - off;
	atomic_store_explicit(&r->head, head, memory_order_release);
	/* The pad is taken as read here, or the ring would count it as full
	 * until the consumer's next pass (records dropped, a wake for it). A
	 * consumer that saw the pad stores the same value; one that goes past
	 * it needs a later head, published after this store. */
	atomic_store_explicit(&r->tail, head, memory_order_release);
	r->tail_seen = head;
}

#if defined(__x86_64__)
__attribute__((target("prfchw")))
#endif
void ring_prefetch(const struct ring *r, size_t len)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	size_t off = head & (r->size - 1) & ~(size_t)63;

	if (len > r->size / 4)
		len = r->size / 4;
	for (size_t i = 0; i < len + 64; i += 64)
		__builtin_prefetch(r->buf + ((off + i) & (r->size - 1)), 1, 3);
}

/* Past half full by the producer's last view: look again, and wake the
 * consumer once if it really is. */
void ring_wake_check(struct ring *r, uint64_t head)
{
	uint64_t one = 1;

	r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
	if (head - r->tail_seen > r->size / 2 &&
	    !atomic_exchange_explicit(&r->wake_sent, 1, memory_order_relaxed) &&
	    write(r->wake_fd, &one, sizeof(one)) < 0) {
		/* an eventfd write fails only at a count near 2^64 */
	}
}

void ring_drained(struct ring *r)
{
	atomic_store_explicit(&r->wake_sent, 0, memory_order_relaxed);
}

int ring_push(struct ring *r, const void *rec, size_t len)
{
	void *dst = ring_reserve(r, len);

	if (!dst)
		return ring_len_ok(r, len) ? -ENOBUFS : -EINVAL;
	memcpy(dst, rec, len);
	ring_commit(r, len);
	return 0;
}

const void *ring_peek(struct ring *r, size_t *len)
{
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	uint32_t l;

	while (tail != head) {
		size_t off = tail & (r->size - 1);

		memcpy(&l, r->buf + off, sizeof(l));
		if (l & RING_PAD) {
			tail += l & ~RING_PAD;
			atomic_store_explicit(&r->tail, tail, memory_order_release);
			continue;
		}
		*len = l;
		return r->buf + off;
	}
	return NULL;
}

void ring_pop(struct ring *r, size_t len)
{
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);

	atomic_store_explicit(&r->tail, tail + len, memory_order_release);
}

uint64_t ring_dropped(const struct ring *r)
{
	return atomic_load_explicit(&((struct ring *)r)->dropped, memory_order_relaxed);
}
