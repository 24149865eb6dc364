/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bus.h"
#include "collector.h"
#include "util.h"

/* The emit API, the producer side of the bus: records go straight into the
 * emitter's ring. A sample that meets a full ring is dropped and counted;
 * the next tick has another. A label, GONE or status is said once, so an
 * emitter that keeps texts (emit_keep_texts) holds those that meet a full
 * ring and pushes them, in order, before its next record: a kernel would
 * otherwise stay unnamed and an exited process listed for the rest of the
 * run. */

/* The most text records an emitter holds: some hundred labels of full
 * length, a whole system's processes of usual ones. */
#define EMIT_KEPT_BYTES (64 * 1024)

struct emit_kept {
	size_t used;
	_Alignas(8) uint8_t buf[EMIT_KEPT_BYTES];
};

void emit_keep_texts(struct emitter *e)
{
	e->keep = true;
}

void emit_release(struct emitter *e)
{
	if (!e)
		return;
	free(e->kept);
	e->kept = NULL;
	e->nkept = 0;
	free(e->lost);
	e->lost = NULL;
}

/* One record of the stream refused by a full ring: counted for it, so a
 * loss can name whom it hit. Off the fast path: the ring is full anyway. */
static void emit_count_lost(struct emitter *e, uint32_t stream)
{
	uint64_t *lost = e->lost;

	/* another thread may read the counts (engine_stats): atomics */
	if (!lost) {
		lost = calloc(STREAM_MAX, sizeof(*lost));
		__atomic_store_n(&e->lost, lost, __ATOMIC_RELEASE);
	}
	if (lost && stream < STREAM_MAX)
		__atomic_fetch_add(&lost[stream], 1, __ATOMIC_RELAXED);
}

size_t emit_kept_count(const struct emitter *e)
{
	return e->nkept;
}

bool emit_flush_kept(struct emitter *e)
{
	struct emit_kept *k = e->kept;
	size_t off = 0;

	if (!e->nkept)
		return true;
	while (off < k->used) {
		const struct rec *r = (const void *)(k->buf + off);

		if (!ring_room(e->ring, r->len))
			break;
		ring_push(e->ring, r, r->len);
		off += r->len;
		e->nkept--;
	}
	memmove(k->buf, k->buf + off, k->used - off);
	k->used -= off;
	return e->nkept == 0;
}

/* Holds r for later; -ENOBUFS when this emitter keeps nothing or is full. */
static int emit_hold(struct emitter *e, const struct rec *r)
{
	if (!e->keep)
		return -ENOBUFS;
	if (!e->kept) {
		e->kept = malloc(sizeof(*e->kept));
		if (!e->kept)
			return -ENOBUFS;
		e->kept->used = 0;
	}
	if (EMIT_KEPT_BYTES - e->kept->used < r->len)
		return -ENOBUFS;
	memcpy(e->kept->buf + e->kept->used, r, r->len);
	e->kept->used += r->len;
	e->nkept++;
	return 0;
}

uint64_t asys_now_ns(void)
{
	return util_now_ns(CLOCK_MONOTONIC);
}

uint64_t emit_tick_start(const struct emitter *e)
{
	return e->tick_ns ? e->tick_ns : asys_now_ns();
}

double *emit_sample_begin(struct emitter *e, uint32_t stream, uint64_t entity, uint64_t ts_ns,
			  uint32_t nvals)
{
	uint32_t len = (uint32_t)(sizeof(struct rec) + nvals * sizeof(double));
	struct rec *r;

	if (nvals > STREAM_MAX_FIELDS)
		return NULL;
	/* the texts first, so that an entity's label comes before its samples
	 * whenever the ring has room for both */
	if (__builtin_expect(e->nkept != 0, 0))
		emit_flush_kept(e);
	r = ring_reserve(e->ring, len);
	if (!r) {
		emit_count_lost(e, stream);
		return NULL;
	}
	*r = (struct rec){.len = len,
			  .kind = REC_SAMPLE,
			  .nvals = (uint16_t)nvals,
			  .stream = stream,
			  .entity = entity,
			  .ts_ns = ts_ns};
	return (double *)(void *)(r + 1);
}

void emit_sample_end(struct emitter *e, uint32_t nvals)
{
	ring_commit(e->ring, sizeof(struct rec) + nvals * sizeof(double));
}

int emit_sample(struct emitter *e, uint32_t stream, uint64_t entity, uint64_t ts_ns,
		const double *v, uint32_t nvals)
{
	/* written in place: at kHz rates a second copy through the stack is a
	 * visible share of a sample's cost */
	double *dst = emit_sample_begin(e, stream, entity, ts_ns, nvals);

	if (!dst)
		return nvals > STREAM_MAX_FIELDS ? -EINVAL : -ENOBUFS;
	memcpy(dst, v, nvals * sizeof(double));
	emit_sample_end(e, nvals);
	return 0;
}

void emit_prefetch(struct emitter *e, uint32_t nsamples, uint32_t nvals)
{
	ring_prefetch(e->ring, (size_t)nsamples * (sizeof(struct rec) + nvals * sizeof(double)));
}

static int emit_text(struct emitter *e, uint8_t kind, uint32_t stream, uint64_t entity,
		     uint64_t ts_ns, const char *text)
{
	_Alignas(8) uint8_t buf[sizeof(struct rec) + REC_TEXT_MAX + 8];
	struct rec *r = (struct rec *)buf;
	size_t tl = text ? strnlen(text, REC_TEXT_MAX - 1) : 0;
	size_t len = sizeof(*r) + ((tl + 1 + 7) & ~(size_t)7);
	int rc;

	memset(buf, 0, len);
	*r = (struct rec){
	    .len = (uint32_t)len, .kind = kind, .stream = stream, .entity = entity, .ts_ns = ts_ns};
	if (tl)
		memcpy(r + 1, text, tl);
	/* behind texts that wait, or where the ring has no room: held (a full
	 * ring counts no drop for a text that goes out later) */
	if (((e->nkept && !emit_flush_kept(e)) || (e->keep && !ring_room(e->ring, len))) &&
	    emit_hold(e, r) == 0)
		return 0;
	rc = ring_push(e->ring, r, len); /* counts the drop of one not held */
	if (rc == -ENOBUFS)
		emit_count_lost(e, stream);
	return rc;
}

int emit_label(struct emitter *e, uint32_t stream, uint64_t entity, uint64_t ts_ns,
	       const char *text)
{
	return emit_text(e, REC_LABEL, stream, entity, ts_ns, text);
}

int emit_gone(struct emitter *e, uint32_t stream, uint64_t entity, uint64_t ts_ns)
{
	return emit_text(e, REC_GONE, stream, entity, ts_ns, NULL);
}

int emit_status(struct emitter *e, uint32_t stream, uint64_t entity, uint64_t ts_ns,
		const char *text)
{
	return emit_text(e, REC_STATUS, stream, entity, ts_ns, text);
}
