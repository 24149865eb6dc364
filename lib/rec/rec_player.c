/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bus.h"
#include "collector.h"
#include "rec_export.h"
#include "rec_player.h"
#include "rec_reader.h"
#include "util.h"

#include "rec_player_int.h"

struct rec_player *rec_player_open(const char *path, char *msg, size_t msgn, char *warn,
				   size_t warnn)
{
	struct rec_player *p = calloc(1, sizeof(*p));
	const char *base;

	if (!p) {
		snprintf(msg, msgn, "out of memory");
		return NULL;
	}
	if (rec_reader_open(path, &p->r, msg, msgn, warn, warnn)) {
		free(p);
		return NULL;
	}
	base = strrchr(path, '/');
	p->name = util_strdup(base ? base + 1 : path);
	p->speed = 1.0;
	pthread_mutex_init(&p->lock, NULL);
	rec_reader_time_bounds(p->r, &p->t0, &p->t1);
	p->anchor_t = p->t0;
	return p;
}

const struct stream_table *rec_player_streams(const struct rec_player *p)
{
	return rec_reader_streams(p->r);
}

/* ---- the pending records, emitted in time order ---- */

static void on_rec(void *ctx, const struct rec *r)
{
	struct rec_player *p = ctx;
	size_t off = p->arena.len;

	if (p->npend == p->cappend) {
		size_t cap = p->cappend ? p->cappend * 2 : 4096;
		struct player_rec *np = realloc(p->pend, cap * sizeof(*np));

		if (!np)
			return;
		p->pend = np;
		p->cappend = cap;
	}
	buf_put(&p->arena, r, r->len);
	if (p->arena.failed)
		return;
	p->pend[p->npend++] = (struct player_rec){r->ts_ns, p->seq++, off};
}

static int cmp_pend(const void *a, const void *b)
{
	const struct player_rec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Reads frames until their high-water mark passes target + LOOKAHEAD, and
 * never holds more than PEND_MAX records or PEND_BYTES: a frame that declares millions
 * is decoded a batch per tick, so memory and the time of a tick stay
 * bounded whatever the file holds. */
static void fill(struct rec_player *p, uint64_t target)
{
	struct rec_item it;
	int rc;

	while (p->npend < PEND_MAX && p->arena.len < PEND_BYTES) {
		if (p->in_frame) {
			rc = rec_reader_data_more(p->r, &p->cur, DECODE_STEP, on_rec, p);
			p->in_frame = rc == 1;
			continue;
		}
		if (p->eof || p->read_hwm >= target + LOOKAHEAD_NS)
			break;
		rc = rec_reader_next(p->r, &it);
		if (rc != 1) {
			/* 0: the end; -EAGAIN: cut or still growing, try again next tick */
			p->eof = rc == 0;
			break;
		}
		if (it.kind == REC_ITEM_HOLE) {
			pthread_mutex_lock(&p->lock);
			p->holes++;
			pthread_mutex_unlock(&p->lock);
			continue;
		}
		/* how far the data goes (META and SCHEMA times say nothing about it) */
		if ((it.h.type == REC_FT_DATA || it.h.type == REC_FT_GAP) &&
		    it.h.t_max > p->read_hwm)
			p->read_hwm = it.h.t_max;
		if (it.h.type == REC_FT_DATA)
			p->in_frame = rec_reader_data_begin(p->r, &it, &p->cur) == 0;
	}
	if (p->sorted < p->npend) {
		qsort(p->pend, p->npend, sizeof(*p->pend), cmp_pend);
		p->sorted = p->npend;
	}
}

static int emit(struct rec_player *p, const struct rec *r)
{
	switch (r->kind) {
	case REC_SAMPLE:
		return emit_sample(&p->em, r->stream, r->entity, r->ts_ns, rec_values(r), r->nvals);
	case REC_LABEL:
		return emit_label(&p->em, r->stream, r->entity, r->ts_ns, rec_text(r));
	case REC_STATUS:
		return emit_status(&p->em, r->stream, r->entity, r->ts_ns, rec_text(r));
	case REC_GONE:
		return emit_gone(&p->em, r->stream, r->entity, r->ts_ns);
	}
	return 0;
}

/* Emits pending records up to target; returns how many are left <= target. */
static size_t drain(struct rec_player *p, uint64_t target)
{
	size_t i = 0, k;

	while (i < p->npend && i < BATCH_MAX && p->pend[i].ts <= target) {
		const struct rec *r =
		    (const struct rec *)(const void *)(p->arena.p + p->pend[i].off);

		if (emit(p, r) == -ENOBUFS)
			break;
		i++;
	}
	if (!i)
		return p->npend && p->pend[0].ts <= target;
	memmove(p->pend, p->pend + i, (p->npend - i) * sizeof(*p->pend));
	p->npend -= i;
	p->sorted = p->npend;
	/* compact the arena now and then */
	if (!p->npend) {
		p->arena.len = 0;
	} else if (p->pend[0].off > p->arena.len / 2) {
		size_t base = p->pend[0].off;

		for (k = 0; k < p->npend; k++)
			if (p->pend[k].off < base)
				base = p->pend[k].off;
		memmove(p->arena.p, p->arena.p + base, p->arena.len - base);
		p->arena.len -= base;
		for (k = 0; k < p->npend; k++)
			p->pend[k].off -= base;
	}
	return p->npend && p->pend[0].ts <= target;
}

static void wait_ring_empty(struct rec_player *p)
{
	for (int i = 0; i < 2000; i++) {
		if (atomic_load(&p->ring->head) == atomic_load(&p->ring->tail))
			return;
		struct timespec ts = {0, 1000000};

		nanosleep(&ts, NULL);
	}
}

static void do_seek(struct rec_player *p, uint64_t target)
{
	uint64_t from = target > REC_PLAYER_PREROLL_NS ? target - REC_PLAYER_PREROLL_NS : 0;

	/* let the bus deliver what was pushed, then start the panes afresh */
	wait_ring_empty(p);
	store_clear(p->store);
	p->npend = p->sorted = 0;
	p->arena.len = 0;
	p->eof = false;
	p->in_frame = false;
	p->read_hwm = 0;
	rec_reader_set_pos(p->r, rec_reader_seek_time(p->r, from));
	/* the pre-roll goes in as fast as the ring takes it */
	for (;;) {
		fill(p, target);
		if (!drain(p, target) && !p->in_frame &&
		    (p->eof || p->read_hwm >= target + LOOKAHEAD_NS || !p->npend ||
		     p->pend[0].ts > target))
			break;
		pthread_mutex_lock(&p->lock);
		if (p->stop) {
			pthread_mutex_unlock(&p->lock);
			return;
		}
		pthread_mutex_unlock(&p->lock);
		struct timespec ts = {0, 1000000};

		nanosleep(&ts, NULL);
	}
}

/* Under one lock: true when the thread is to stop; else a seek the
 * controls asked for, if any. */
static bool player_take(struct rec_player *p, bool *do_s, uint64_t *seek)
{
	bool stop;

	pthread_mutex_lock(&p->lock);
	stop = p->stop;
	if (!stop && p->seek_pending) {
		p->seek_pending = false;
		*seek = p->seek_to;
		*do_s = true;
	}
	pthread_mutex_unlock(&p->lock);
	return stop;
}

/* A file still being written: its end moves with what was read and with
 * the file's size, and an end without a trailer is looked at again. */
static void player_follow(struct rec_player *p, uint64_t *last_retry, uint64_t *last_bounds)
{
	/* data read past the known end (the file grew): the end moves with
	 * it, and a replay that stood at the old end plays on from there */
	pthread_mutex_lock(&p->lock);
	if (p->read_hwm > p->t1) {
		if (p->at_end) {
			p->at_end = false;
			reanchor_locked(p, p->t1);
		}
		p->t1 = p->read_hwm;
	}
	pthread_mutex_unlock(&p->lock);
	/* The end of a file without a trailer is not final: a recording
	 * still being written may have ended at a frame boundary. */
	if (p->eof && !rec_reader_has_trailer(p->r) && wall_now() - *last_retry > EOF_RETRY_NS) {
		*last_retry = wall_now();
		p->eof = false;
	}
	/* a growing file: its end moves */
	if (!p->eof && wall_now() - *last_bounds > 1000000000ull) {
		uint64_t a, b;

		*last_bounds = wall_now();
		if (!rec_reader_has_trailer(p->r) && rec_reader_time_bounds(p->r, &a, &b) == 0) {
			pthread_mutex_lock(&p->lock);
			if (b > p->t1)
				p->t1 = b;
			pthread_mutex_unlock(&p->lock);
		}
	}
}

static void *player_thread(void *arg)
{
	struct rec_player *p = arg;
	uint64_t last_bounds = 0, last_retry = 0;

	util_block_signals(); /* SIGTERM & co. are the main thread's to handle */
	for (;;) {
		uint64_t target, seek = 0;
		bool do_s = false;
		struct timespec ts = {0, (long)TICK_NS};

		if (player_take(p, &do_s, &seek))
			break;
		if (do_s) {
			do_seek(p, seek);
			pthread_mutex_lock(&p->lock);
			p->at_end = false;
			/* a seek asked for meanwhile has set the clock to its own
			 * target, which the next seek from it must start from */
			if (!p->seek_pending)
				reanchor_locked(p, seek);
			pthread_mutex_unlock(&p->lock);
		}
		pthread_mutex_lock(&p->lock);
		target = clock_locked(p);
		pthread_mutex_unlock(&p->lock);
		fill(p, target);
		drain(p, target);
		player_follow(p, &last_retry, &last_bounds);
		pthread_mutex_lock(&p->lock);
		if (p->eof && !p->npend && !p->in_frame && target >= p->t1 && !p->at_end) {
			p->at_end = true;
			reanchor_locked(p, p->t1);
		}
		pthread_mutex_unlock(&p->lock);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int rec_player_start(struct rec_player *p, struct ring *ring, struct store *store,
		     uint64_t refresh_ns, double speed, const char *begin)
{
	int rc;

	p->ring = ring;
	p->em.ring = ring;
	p->store = store;
	p->refresh_ns = refresh_ns ? refresh_ns : 1000000000ull;
	p->speed = speed > 0 ? speed : 1.0;
	reanchor_locked(p, p->t0);
	if (begin && (rc = rec_player_seek_expr(p, begin)))
		return rc;
	rc = pthread_create(&p->thread, NULL, player_thread, p);
	if (rc)
		return -rc;
	p->running = true;
	return 0;
}

void rec_player_stop(struct rec_player *p)
{
	if (!p || !p->running)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	p->running = false;
}

void rec_player_free(struct rec_player *p)
{
	if (!p)
		return;
	rec_player_stop(p);
	rec_reader_free(p->r);
	buf_free(&p->arena);
	free(p->pend);
	free(p->name);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/* ---- controls (any thread) ---- */
