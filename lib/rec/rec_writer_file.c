/* SPDX-License-Identifier: GPL-2.0-only */
/* The recorder's file side, run on the writer thread: what to write when.
 * Chunks become DATA frames; labels and statuses are repeated so a seek
 * finds names; a full disk pauses recording and a GAP frame resumes it;
 * segments rotate by size or time. The frames themselves: rec_writer_frame.c. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "rec_writer_int.h"
#include "rec_zstd.h"
#include "util.h"

int writer_init(struct rec_writer *w, char *msg, size_t msgn)
{
	const char *why = NULL;

	if (getrandom(w->uuid, sizeof(w->uuid), GRND_NONBLOCK) != (ssize_t)sizeof(w->uuid)) {
		uint64_t t = util_now_ns(CLOCK_REALTIME) ^ (uint64_t)getpid();

		memcpy(w->uuid, &t, 8);
	}
	w->clock_origin_ns = (int64_t)(util_now_ns(CLOCK_REALTIME) - util_now_ns(CLOCK_MONOTONIC));
	w->zstd = rec_zstd(&why);
	if (!w->zstd) {
		snprintf(msg, msgn, "%s", why);
		return -ELIBACC;
	}
	w->zctx = w->zstd->create_cctx();
	if (!w->zctx) {
		snprintf(msg, msgn, "out of memory");
		return -ENOMEM;
	}
	w->last_fsync_ns = asys_now_ns();
	return writer_open_segment(w, msg, msgn);
}

/* ---- labels and statuses, repeated so a seek still finds names ---- */

static void sticky_note(struct rec_writer *w, const struct rec *r)
{
	size_t i;
	struct rec *c;

	for (i = 0; i < w->nsticky; i++) {
		const struct rec *s = w->sticky[i];

		if (s->stream == r->stream && s->entity == r->entity &&
		    (s->kind == r->kind || r->kind == REC_GONE))
			break;
	}
	if (r->kind == REC_GONE) {
		for (size_t k = 0; k < w->nsticky;) {
			if (w->sticky[k]->stream == r->stream &&
			    w->sticky[k]->entity == r->entity) {
				free(w->sticky[k]);
				w->sticky[k] = w->sticky[--w->nsticky];
			} else {
				k++;
			}
		}
		return;
	}
	c = malloc(r->len);
	if (!c)
		return;
	memcpy(c, r, r->len);
	if (i < w->nsticky) {
		free(w->sticky[i]);
		w->sticky[i] = c;
		return;
	}
	if (w->nsticky == w->capsticky) {
		size_t cap = w->capsticky ? w->capsticky * 2 : 64;
		struct rec **ns = realloc(w->sticky, cap * sizeof(*ns));

		if (!ns) {
			free(c);
			return;
		}
		w->sticky = ns;
		w->capsticky = cap;
	}
	w->sticky[w->nsticky++] = c;
}

static int put_data(struct rec_writer *w, uint32_t stream, const uint8_t *recs, size_t len,
		    uint32_t nrecs, uint64_t t_min, uint64_t t_max)
{
	int rc;

	w->enc.len = 0;
	rc = rec_data_encode(&w->enc, stream, recs, len, nrecs);
	if (rc)
		return rc;
	return writer_put_frame(w, REC_FT_DATA, stream, t_min, t_max, w->enc.p, w->enc.len, true);
}

/* The current labels and statuses, stamped at the newest time written. */
static void put_sticky(struct rec_writer *w)
{
	for (uint32_t s = 0; s < w->nschemas; s++) {
		struct buf b = {0};
		uint32_t n = 0;

		for (size_t i = 0; i < w->nsticky; i++) {
			struct rec *r = w->sticky[i];

			if (r->stream != s)
				continue;
			r->ts_ns = w->hwm;
			r->flags |= REC_FLAG_REPEAT;
			buf_put(&b, r, r->len);
			n++;
		}
		if (n && !b.failed)
			put_data(w, s, b.p, b.len, n, w->hwm, w->hwm);
		buf_free(&b);
	}
	w->last_sticky_ns = asys_now_ns();
}

static void pause_extend(struct rec_writer *w, uint64_t t_min, uint64_t t_max, uint64_t recs)
{
	if (!w->pause_gap.records && !w->pause_gap.t_max)
		w->pause_gap.t_min = t_min;
	if (t_min < w->pause_gap.t_min)
		w->pause_gap.t_min = t_min;
	if (t_max > w->pause_gap.t_max)
		w->pause_gap.t_max = t_max;
	w->pause_gap.records += recs;
	pthread_mutex_lock(&w->slock);
	w->stats.dropped += recs;
	pthread_mutex_unlock(&w->slock);
}

void writer_gap(struct rec_writer *w, uint64_t t_min, uint64_t t_max, const char *why)
{
	if (w->paused) {
		pause_extend(w, t_min, t_max, 0);
		return;
	}
	writer_put_gap(w, t_min, t_max, why);
}

static bool need_rotate(struct rec_writer *w, size_t next_len)
{
	const struct rec_writer_opts *o = &w->opts;
	uint64_t after = w->off + next_len + REC_FRAME_OVERHEAD + writer_trailer_bound(w);

	if (w->seg_frames == 0)
		return false;
	if (o->rotate_size && after > o->rotate_size)
		return true;
	return o->rotate_s > 0 && (double)(asys_now_ns() - w->seg_start_ns) / 1e9 >= o->rotate_s;
}

static void rotate(struct rec_writer *w)
{
	char msg[256];

	writer_close_segment(w);
	w->seg++;
	if (writer_open_segment(w, msg, sizeof(msg)) < 0) {
		if (w->fd >= 0) {
			close(w->fd);
			w->fd = -1;
		}
		w->paused = true;
		writer_stats_sync(w);
		return;
	}
	put_sticky(w);
}

/* The labels and statuses of a chunk, kept to be repeated. */
static void chunk_notes(struct rec_writer *w, const struct wchunk *c)
{
	size_t off = 0;

	for (uint32_t i = 0; i < c->nrecs; i++) {
		const struct rec *r = (const struct rec *)(const void *)(c->recs.p + off);

		if (r->kind != REC_SAMPLE)
			sticky_note(w, r);
		off += r->len;
	}
}

/* A chunk written: its stream's span and counts, and the file's. */
static void chunk_written(struct rec_writer *w, const struct wchunk *c)
{
	struct wstream_stat *s = &w->sstat[c->stream];
	uint32_t ns = 0;
	size_t off = 0;

	for (uint32_t i = 0; i < c->nrecs; i++) {
		const struct rec *r = (const struct rec *)(const void *)(c->recs.p + off);

		ns += r->kind == REC_SAMPLE;
		off += r->len;
	}
	if (!s->records || c->t_min < s->t_min)
		s->t_min = c->t_min;
	if (c->t_max > s->t_max)
		s->t_max = c->t_max;
	s->records += c->nrecs;
	s->samples += ns;
	pthread_mutex_lock(&w->slock);
	w->stats.records += c->nrecs;
	pthread_mutex_unlock(&w->slock);
	writer_stats_sync(w);
}

/* --max-size: true when a frame of flen bytes would not leave room for the
 * trailer, which then stops the recording here. */
static bool chunk_over_limit(struct rec_writer *w, size_t flen)
{
	/* the trailer holds every checkpoint (16 bytes each, before compression)
	 * beside its fixed part */
	uint64_t trailer = REC_TRAILER_RESERVE + 16 * (uint64_t)w->nckpt;

	if (!w->opts.max_size || w->stats.bytes + flen + trailer <= w->opts.max_size)
		return false;
	pthread_mutex_lock(&w->slock);
	if (!w->stats.limit_reached)
		writer_notify(w);
	w->stats.limit_reached = true;
	pthread_mutex_unlock(&w->slock);
	return true;
}

/* The chunk's DATA frame, built in w->fbuf: its length, or -errno. Built
 * again after any other frame, which uses the same buffers. */
static ssize_t chunk_build(struct rec_writer *w, const struct wchunk *c)
{
	w->enc.len = 0;
	if (rec_data_encode(&w->enc, c->stream, c->recs.p, c->recs.len, c->nrecs))
		return -ENOMEM;
	return writer_build_frame(w, REC_FT_DATA, c->stream, c->t_min, c->t_max, w->enc.p,
				  w->enc.len, true);
}

/* A frame that could not be written: pause, and count the chunk as lost. */
static void chunk_failed(struct rec_writer *w, const struct wchunk *c, uint64_t now)
{
	w->paused = true;
	w->last_attempt_ns = now;
	memset(&w->pause_gap, 0, sizeof(w->pause_gap));
	pause_extend(w, c->t_min, c->t_max, c->nrecs);
	writer_stats_sync(w);
}

void writer_chunk(struct rec_writer *w, struct wchunk *c)
{
	uint64_t now = asys_now_ns();
	ssize_t flen;

	chunk_notes(w, c);
	if (w->fd < 0 || (w->paused && now - w->last_attempt_ns < 1000000000ull)) {
		pause_extend(w, c->t_min, c->t_max, c->nrecs);
		return;
	}
	if (c->stream >= w->nschemas && c->stream < stream_table_count(w->streams))
		writer_put_schemas(w, w->nschemas, stream_table_count(w->streams));
	if (c->stream >= w->nschemas) {
		pause_extend(w, 0, 0, 0);
		return; /* a stream nobody registered: nothing can read it back */
	}
	flen = chunk_build(w, c);
	if (flen == -ENOMEM)
		return;
	/* the limits are judged on the frame as it will be written */
	if (flen > 0 && chunk_over_limit(w, (size_t)flen)) {
		pause_extend(w, c->t_min, c->t_max, c->nrecs);
		return;
	}
	if (flen > 0 && need_rotate(w, (size_t)flen - REC_FRAME_OVERHEAD)) {
		rotate(w);
		flen = chunk_build(w, c);
	}
	if (w->paused) {
		w->last_attempt_ns = now;
		if (w->fd < 0 ||
		    writer_put_gap(w, w->pause_gap.t_min, w->pause_gap.t_max, "disk full")) {
			pause_extend(w, c->t_min, c->t_max, c->nrecs);
			return;
		}
		w->paused = false;
		memset(&w->pause_gap, 0, sizeof(w->pause_gap));
		flen = chunk_build(w, c);
	}
	if (flen < 0 || writer_write_frame(w, REC_FT_DATA, (size_t)flen)) {
		chunk_failed(w, c, now);
		return;
	}
	chunk_written(w, c);
}

void writer_tick(struct rec_writer *w)
{
	uint64_t now = asys_now_ns();
	double fs = w->opts.fsync_s > 0 ? w->opts.fsync_s : 1.0;

	if (w->fd < 0)
		return;
	if (!w->paused && now - w->last_sticky_ns >= REC_STICKY_REPEAT_NS)
		put_sticky(w);
	if (!w->paused && w->nckpt - w->ckpt_indexed >= REC_INDEX_CKPTS)
		writer_put_index(w);
	if ((double)(now - w->last_fsync_ns) / 1e9 >= fs) {
		fdatasync(w->fd);
		w->last_fsync_ns = now;
	}
	if (!w->paused && w->opts.rotate_s > 0 &&
	    (double)(now - w->seg_start_ns) / 1e9 >= w->opts.rotate_s && w->seg_frames)
		rotate(w);
}

int writer_finish(struct rec_writer *w)
{
	int err;

	if (w->fd < 0)
		return w->stats.error ? -w->stats.error : 0;
	if (w->paused) {
		/* one more try, so a recording that got its space back ends whole */
		if (!writer_put_gap(w, w->pause_gap.t_min, w->pause_gap.t_max, "disk full"))
			w->paused = false;
	}
	writer_close_segment(w);
	writer_stats_sync(w);
	pthread_mutex_lock(&w->slock);
	err = w->stats.error;
	pthread_mutex_unlock(&w->slock);
	return err ? -err : 0;
}

void writer_release(struct rec_writer *w)
{
	if (w->fd >= 0) {
		close(w->fd);
		w->fd = -1;
	}
	for (size_t i = 0; i < w->nsticky; i++)
		free(w->sticky[i]);
	free(w->sticky);
	free(w->ckpt);
	free(w->gaps);
	if (w->zstd)
		w->zstd->free_cctx(w->zctx);
	buf_free(&w->enc);
	buf_free(&w->zbuf);
	buf_free(&w->fbuf);
}
