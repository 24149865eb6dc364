/* SPDX-License-Identifier: GPL-2.0-only */
/* The recorder's bus side and its writer thread; the file side (frames,
 * segments, trailer, disk full) is in rec_writer_file.c. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "rec_writer_file.h"
#include "util.h"

#define REC_CHUNK_NS_DEFAULT 250000000ull
#define REC_CHUNK_BYTES_DEFAULT (1u << 20)
#define REC_QUEUE_BYTES_DEFAULT (64u << 20)
#define REC_PUMP_SLACK_NS REC_WRITER_LATENCY_NS /* one bus pump while recording */

static void chunk_free(struct wchunk *c)
{
	if (!c)
		return;
	buf_free(&c->recs);
	free(c);
}

/* ---- bus thread side: never blocks on I/O ---- */

static void enqueue(struct rec_writer *w, struct wchunk *c)
{
	pthread_mutex_lock(&w->qlock);
	if (w->closing_queue || w->qbytes + c->recs.len > w->queue_bytes) {
		/* the writer is behind: lose this chunk, say so with a GAP */
		if (!w->qgap.records || c->t_min < w->qgap.t_min)
			w->qgap.t_min = c->t_min;
		if (c->t_max > w->qgap.t_max)
			w->qgap.t_max = c->t_max;
		w->qgap.records += c->nrecs;
		w->dropped += c->nrecs;
		pthread_mutex_unlock(&w->qlock);
		chunk_free(c);
		return;
	}
	c->next = NULL;
	if (w->qtail)
		w->qtail->next = c;
	else
		w->qhead = c;
	w->qtail = c;
	w->qbytes += c->recs.len;
	w->qpending = true;
	pthread_mutex_unlock(&w->qlock);
}

static void close_chunk(struct rec_writer *w, uint32_t stream)
{
	struct wchunk *c = w->open[stream];

	if (!c)
		return;
	w->open[stream] = NULL;
	enqueue(w, c);
}

static void wr_consume(void *ctx, const struct rec *r)
{
	struct rec_writer *w = ctx;
	struct wchunk *c;

	if (r->stream >= STREAM_MAX || r->len < sizeof(*r))
		return;
	c = w->open[r->stream];
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c) {
			w->dropped++;
			return;
		}
		c->stream = r->stream;
		c->opened_ns = asys_now_ns();
		c->t_min = UINT64_MAX;
		w->open[r->stream] = c;
	}
	buf_put(&c->recs, r, r->len);
	if (c->recs.failed) {
		w->dropped++;
		c->recs.failed = false;
		return;
	}
	c->nrecs++;
	if (r->ts_ns < c->t_min)
		c->t_min = r->ts_ns;
	if (r->ts_ns > c->t_max)
		c->t_max = r->ts_ns;
	if (c->recs.len >= w->chunk_bytes)
		close_chunk(w, r->stream);
}

/* Closes the chunks when the oldest is due: a pump early rather than late,
 * since the bound is "at most 250 ms". All of them at once, so the streams'
 * chunks stay in step and the writer wakes once for them all. */
static void wr_end(void *ctx)
{
	struct rec_writer *w = ctx;
	uint64_t now = asys_now_ns();
	bool due = false;

	for (uint32_t s = 0; s < STREAM_MAX && !due; s++)
		due = w->open[s] && now - w->open[s]->opened_ns + REC_PUMP_SLACK_NS >= w->chunk_ns;
	for (uint32_t s = 0; s < STREAM_MAX && due; s++)
		close_chunk(w, s);
	if (w->qpending) {
		w->qpending = false;
		pthread_mutex_lock(&w->qlock);
		pthread_cond_signal(&w->qcond);
		pthread_mutex_unlock(&w->qlock);
	}
}

const struct bus_consumer_ops rec_writer_consumer_ops = {
    .consume = wr_consume,
    .end = wr_end,
};

/* ---- writer thread ---- */

static void deadline_in(struct timespec *ts, uint64_t ns)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += (time_t)(ns / 1000000000ull);
	ts->tv_nsec += (long)(ns % 1000000000ull);
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void *writer_thread(void *arg)
{
	struct rec_writer *w = arg;

	util_block_signals(); /* SIGTERM & co. are the main thread's to handle */
	/* named, so its CPU can be told apart (bench/record reads it) */
	pthread_setname_np(pthread_self(), "asys-writer");
	pthread_mutex_lock(&w->qlock);
	for (;;) {
		struct wchunk *list;
		struct wgap gap;
		struct timespec ts;

		/* chunks come every chunk_ns and wake it; the timeout is for
		 * the duties of writer_tick, none of them finer than a second */
		while (!w->qhead && !w->qgap.records && !w->stop) {
			deadline_in(&ts, 1000000000ull);
			if (pthread_cond_timedwait(&w->qcond, &w->qlock, &ts) == ETIMEDOUT)
				break;
		}
		list = w->qhead;
		w->qhead = w->qtail = NULL;
		w->qbytes = 0;
		gap = w->qgap;
		memset(&w->qgap, 0, sizeof(w->qgap));
		pthread_mutex_unlock(&w->qlock);

		if (gap.records) {
			char why[96];

			snprintf(why, sizeof(why), "recorder behind: %llu records dropped",
				 (unsigned long long)gap.records);
			writer_gap(w, gap.t_min, gap.t_max, why);
		}
		while (list) {
			struct wchunk *next = list->next;

			writer_chunk(w, list);
			chunk_free(list);
			list = next;
		}
		writer_tick(w);

		pthread_mutex_lock(&w->qlock);
		if (w->stop && !w->qhead && !w->qgap.records)
			break;
	}
	pthread_mutex_unlock(&w->qlock);
	return NULL;
}

struct rec_writer *rec_writer_new(const struct stream_table *t, const struct rec_writer_opts *o,
				  int *err, char *msg, size_t msgn)
{
	struct rec_writer *w = calloc(1, sizeof(*w));
	char dummy[8];
	int rc;

	if (!msg) {
		msg = dummy;
		msgn = sizeof(dummy);
	}
	if (!w) {
		*err = -ENOMEM;
		snprintf(msg, msgn, "out of memory");
		return NULL;
	}
	/* without it, rec_writer_event_fd says -1 and the caller polls */
	w->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	w->streams = t;
	w->opts = *o;
	w->path = util_strdup(o->path);
	w->command = util_strdup(o->command);
	w->chunk_ns = o->chunk_ns ? o->chunk_ns : REC_CHUNK_NS_DEFAULT;
	w->chunk_bytes = o->chunk_bytes ? o->chunk_bytes : REC_CHUNK_BYTES_DEFAULT;
	w->queue_bytes = o->queue_bytes ? o->queue_bytes : REC_QUEUE_BYTES_DEFAULT;
	w->fd = -1;
	w->start_ns = asys_now_ns();
	pthread_mutex_init(&w->qlock, NULL);
	pthread_mutex_init(&w->slock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&w->qcond, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (!w->path) {
		rc = -EINVAL;
		snprintf(msg, msgn, "no output file given");
		goto fail;
	}
	/* refused before any file exists: a name is recorded whole or not at all */
	for (uint32_t i = 0; i < stream_table_count(t); i++) {
		rc = rec_schema_check(stream_table_get(t, i), msg, msgn);
		if (rc)
			goto fail;
	}
	rc = writer_init(w, msg, msgn);
	if (rc)
		goto fail;
	rc = pthread_create(&w->thread, NULL, writer_thread, w);
	if (rc) {
		rc = -rc;
		snprintf(msg, msgn, "cannot start the writer thread: %s", strerror(-rc));
		goto fail;
	}
	w->running = true;
	return w;
fail:
	*err = rc;
	rec_writer_free(w);
	return NULL;
}

int rec_writer_close(struct rec_writer *w)
{
	int rc;

	if (!w || w->closed)
		return 0;
	for (uint32_t s = 0; s < STREAM_MAX; s++)
		close_chunk(w, s);
	if (w->running) {
		pthread_mutex_lock(&w->qlock);
		w->stop = true;
		pthread_cond_signal(&w->qcond);
		pthread_mutex_unlock(&w->qlock);
		pthread_join(w->thread, NULL);
		w->running = false;
	}
	rc = writer_finish(w);
	w->closed = true;
	return rc;
}

void rec_writer_free(struct rec_writer *w)
{
	if (!w)
		return;
	rec_writer_close(w);
	for (uint32_t s = 0; s < STREAM_MAX; s++)
		chunk_free(w->open[s]);
	while (w->qhead) {
		struct wchunk *n = w->qhead->next;

		chunk_free(w->qhead);
		w->qhead = n;
	}
	writer_release(w);
	pthread_mutex_destroy(&w->qlock);
	pthread_mutex_destroy(&w->slock);
	pthread_cond_destroy(&w->qcond);
	if (w->event_fd >= 0)
		close(w->event_fd);
	free(w->path);
	free(w->command);
	free(w);
}

int rec_writer_event_fd(struct rec_writer *w)
{
	return w->event_fd;
}

void rec_writer_get_stats(struct rec_writer *w, struct rec_writer_stats *out)
{
	pthread_mutex_lock(&w->slock);
	*out = w->stats;
	pthread_mutex_unlock(&w->slock);
	pthread_mutex_lock(&w->qlock);
	out->dropped += w->dropped;
	pthread_mutex_unlock(&w->qlock);
	out->start_ns = w->start_ns;
}

void rec_writer_status_line(struct rec_writer *w, char *buf, size_t n)
{
	struct rec_writer_stats st;
	char size[32];
	const char *base;
	uint64_t s;

	rec_writer_get_stats(w, &st);
	if (st.paused) {
		snprintf(buf, n, "recording paused: %s",
			 st.error == ENOSPC || st.error == EDQUOT || st.error == 0
			     ? "disk full"
			     : strerror(st.error));
		return;
	}
	base = strrchr(st.path, '/');
	base = base ? base + 1 : st.path;
	util_fmt_bytes(size, sizeof(size), (double)st.bytes);
	s = (asys_now_ns() - st.start_ns) / 1000000000ull;
	snprintf(buf, n, "\u25cf REC %s %s %02llu:%02llu:%02llu", base, size,
		 (unsigned long long)(s / 3600), (unsigned long long)(s / 60 % 60),
		 (unsigned long long)(s % 60));
}

void rec_segment_path(char *buf, size_t n, const char *path, uint32_t seg)
{
	size_t l = strlen(path);

	if (seg == 0)
		snprintf(buf, n, "%s", path);
	else if (l > 5 && !strcmp(path + l - 5, ".asys"))
		snprintf(buf, n, "%.*s.%u.asys", (int)(l - 5), path, seg);
	else
		snprintf(buf, n, "%s.%u", path, seg);
}
