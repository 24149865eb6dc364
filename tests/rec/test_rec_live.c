/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: serial */
/* The rec tests of things in motion: a reader following a growing file, a
 * writer falling behind or rotating, the real collectors recorded for 10 s,
 * and the player. The format and damage tests are in test_rec.c. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector.h"
#include "rec_check.h"
#include "rec_export.h"
#include "rec_player.h"
#include "rec_testlib.h"
#include "session.h"

static char *dir;

static void path_in(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", dir, name);
}

struct follow_ctx {
	const char *path;
	volatile bool done;
	uint64_t samples_written;
};

static void *follow_writer(void *arg)
{
	struct follow_ctx *f = arg;
	struct stream_table *t = tl_table();
	struct rec_writer_opts o = {.path = f->path, .force = true, .chunk_bytes = 2048};
	_Alignas(8) uint8_t buf[4096];
	struct tl_gen g = {.ts = 1000};
	struct rec_writer_stats st;
	char msg[256];
	int err;
	struct rec_writer *w = rec_writer_new(t, &o, &err, msg, sizeof(msg));

	ck_assert_ptr_nonnull(w);
	for (int i = 0; i < 200000; i++) {
		rec_writer_consumer_ops.consume(w, tl_next(&g, buf));
		if (i % 256 == 0) {
			rec_writer_consumer_ops.end(w);
			usleep(200);
		}
	}
	rec_writer_close(w);
	rec_writer_get_stats(w, &st);
	f->samples_written = st.records;
	ck_assert_uint_eq(st.dropped, 0);
	rec_writer_free(w);
	stream_table_free(t);
	f->done = true;
	return NULL;
}

static void count_cb(void *ctx, const struct rec *r)
{
	(void)r;
	(*(uint64_t *)ctx)++;
}

/* A reader follows a file being appended to and never calls it damaged. */
START_TEST(follow_growing_file)
{
	char p[512], msg[256];
	struct follow_ctx f = {.path = p};
	pthread_t th;
	struct rec_reader *r = NULL;
	struct rec_item it;
	uint64_t got = 0, again = 0;
	int rc;

	path_in(p, sizeof(p), "follow.asys");
	unlink(p);
	ck_assert_int_eq(pthread_create(&th, NULL, follow_writer, &f), 0);
	while (rec_reader_open(p, &r, msg, sizeof(msg), NULL, 0))
		usleep(1000);
	for (;;) {
		bool was_done = f.done;

		rc = rec_reader_next(r, &it);
		if (rc == 1) {
			REQUIRE(it.kind == REC_ITEM_FRAME, "false damage at %llu: %s",
				(unsigned long long)it.off, it.why);
			if (it.h.type == REC_FT_DATA)
				ck_assert_int_eq(rec_reader_data(r, &it, count_cb, &got), 0);
			continue;
		}
		ck_assert(rc == 0 || rc == -EAGAIN);
		if (was_done && rc == 0)
			break;
		again++;
		usleep(500);
	}
	pthread_join(th, NULL);
	ck_assert_uint_eq(got, f.samples_written);
	ck_assert_uint_gt(again, 10); /* it really did catch up with the writer */
	rec_reader_free(r);
}
END_TEST

/* A writer that falls behind drops whole chunks and says so with a GAP. */
START_TEST(queue_overflow_gap)
{
	char p[512], msg[256];
	struct stream_table *t = tl_table();
	struct rec_writer_opts o = {.force = true, .chunk_bytes = 512, .queue_bytes = 2048};
	_Alignas(8) uint8_t buf[4096];
	struct tl_gen g = {.ts = 1000};
	struct rec_writer_stats st;
	struct rec_reader *r;
	struct rec_item it;
	uint64_t gaps = 0, got = 0;
	int err;
	struct rec_writer *w;

	path_in(p, sizeof(p), "overflow.asys");
	o.path = p;
	w = rec_writer_new(t, &o, &err, msg, sizeof(msg));
	ck_assert_ptr_nonnull(w);
	for (int i = 0; i < 100000; i++)
		rec_writer_consumer_ops.consume(w, tl_next(&g, buf));
	rec_writer_close(w);
	rec_writer_get_stats(w, &st);
	ck_assert_uint_gt(st.dropped, 0);
	ck_assert_uint_eq(st.dropped + st.records, 100000);
	ck_assert_int_eq(rec_reader_open(p, &r, msg, sizeof(msg), NULL, 0), 0);
	while (rec_reader_next(r, &it) == 1) {
		ck_assert(it.kind == REC_ITEM_FRAME);
		gaps += it.h.type == REC_FT_GAP;
		if (it.h.type == REC_FT_DATA)
			rec_reader_data(r, &it, count_cb, &got);
	}
	ck_assert_uint_gt(gaps, 0);
	ck_assert_uint_eq(got, st.records);
	rec_reader_free(r);
	rec_writer_free(w);
	stream_table_free(t);
}
END_TEST

START_TEST(rotate_segments)
{
	char p[512], p1[512], msg[256];
	struct stream_table *t = tl_table();
	struct rec_writer_opts o = {.force = true, .chunk_bytes = 2048, .rotate_size = 64 << 10};
	_Alignas(8) uint8_t buf[4096];
	struct tl_gen g = {.ts = 1000};
	struct rec_writer_stats st;
	struct buf got = {0};
	uint64_t holes, total = 0, samples = 0, sent = 0;
	int err;
	struct rec_writer *w;

	path_in(p, sizeof(p), "rot.asys");
	o.path = p;
	w = rec_writer_new(t, &o, &err, msg, sizeof(msg));
	ck_assert_ptr_nonnull(w);
	for (int i = 0; i < 50000; i++) {
		const struct rec *r = tl_next(&g, buf);

		sent += r->kind == REC_SAMPLE;
		rec_writer_consumer_ops.consume(w, r);
		if (i % 128 == 0)
			rec_writer_consumer_ops.end(w);
	}
	rec_writer_close(w);
	rec_writer_get_stats(w, &st);
	ck_assert_uint_ge(st.segment, 2);
	for (uint32_t s = 0; s <= st.segment; s++) {
		struct stat sb;
		struct rec_reader *r;

		rec_segment_path(p1, sizeof(p1), p, s);
		ck_assert_int_eq(stat(p1, &sb), 0);
		ck_assert_uint_le((uint64_t)sb.st_size, 64 << 10);
		/* each segment stands alone: schemas, and a trailer */
		ck_assert_int_eq(rec_reader_open(p1, &r, msg, sizeof(msg), NULL, 0), 0);
		ck_assert_uint_eq(stream_table_count(rec_reader_streams(r)), 3);
		ck_assert(rec_reader_has_trailer(r));
		rec_reader_free(r);
		got.len = 0;
		ck_assert_int_eq(tl_read_all(p1, &got, &holes), 0);
		ck_assert_uint_eq(holes, 0);
		for (size_t off = 0; off < got.len; off += ((struct rec *)(got.p + off))->len) {
			total++;
			samples += ((struct rec *)(got.p + off))->kind == REC_SAMPLE;
		}
	}
	/* every record is in exactly one segment (plus repeated labels at each
	 * start), and every sample exactly once: none lost at a rotation */
	ck_assert_uint_ge(total, 50000);
	ck_assert_uint_eq(samples, sent);
	buf_free(&got);
	rec_writer_free(w);
	stream_table_free(t);
}
END_TEST

static void tap_consume(void *ctx, const struct rec *r)
{
	buf_put(ctx, r, r->len);
}

static const struct bus_consumer_ops tap_ops = {.consume = tap_consume};

/* Record 10 s of the real collectors; every record the bus delivered is in
 * the file, in order, with the same values. */
START_TEST(roundtrip_live)
{
	struct asys_options o;
	struct session *s;
	struct buf tap = {0}, got = {0};
	struct rec_writer_opts wo = {.force = true};
	struct rec_writer *w;
	char p[512], msg[256];
	uint64_t holes, samples = 0;
	int err, h1, h2;

	path_in(p, sizeof(p), "live.asys");
	options_defaults(&o);
	o.delay_s = 0.25;
	o.scope = SCOPE_SYSTEM_WIDE;
	s = session_new(&o, false);
	ck_assert_ptr_nonnull(s);
	wo.path = p;
	w = rec_writer_new(s->streams, &wo, &err, msg, sizeof(msg));
	ck_assert_msg(w != NULL, "%s", msg);
	h1 = bus_attach(s->bus, &tap_ops, &tap);
	h2 = bus_attach(s->bus, &rec_writer_consumer_ops, w);
	ck_assert_int_ge(h1, 0);
	ck_assert_int_ge(h2, 0);
	ck_assert_int_eq(session_start(s), 0);
	sleep(10);
	session_stop(s);
	bus_detach(s->bus, h2);
	bus_detach(s->bus, h1);
	ck_assert_int_eq(rec_writer_close(w), 0);
	ck_assert_int_eq(tl_read_all(p, &got, &holes), 0);
	ck_assert_uint_eq(holes, 0);
	for (size_t off = 0; off < tap.len; off += ((struct rec *)(tap.p + off))->len)
		samples += ((struct rec *)(tap.p + off))->kind == REC_SAMPLE;
	ck_assert_uint_gt(samples, 40); /* 10 s of cpu and mem at 4 Hz at least */
	same_records_n(&tap, &got, stream_table_count(s->streams));
	rec_writer_free(w);
	session_free(s);
	buf_free(&tap);
	buf_free(&got);
}
END_TEST

struct order_tap {
	uint64_t n, last_ts, out_of_order, first_ts;
};

static void order_consume(void *ctx, const struct rec *r)
{
	struct order_tap *o = ctx;

	if (!o->n)
		o->first_ts = r->ts_ns;
	if (r->ts_ns < o->last_ts)
		o->out_of_order++;
	o->last_ts = r->ts_ns;
	o->n++;
}

static const struct bus_consumer_ops order_ops = {.consume = order_consume};

/* The player feeds every record, in time order across streams, and a jump
 * clears the store and lands where asked. */
START_TEST(player_plays_and_seeks)
{
	char p[512], msg[256];
	struct buf exp = {0};
	struct rec_player *pl;
	struct store *st;
	struct bus *b = bus_new();
	struct ring *ring = ring_new(1 << 22);
	struct order_tap tap = {0};
	uint64_t n = 0, t0, t1, target;

	path_in(p, sizeof(p), "play.asys");
	ck_assert_int_eq(tl_write(p, 20000, 4096, 0, &exp), 0);
	for (size_t off = 0; off < exp.len; off += ((struct rec *)(exp.p + off))->len)
		n++;
	pl = rec_player_open(p, msg, sizeof(msg), NULL, 0);
	ck_assert_ptr_nonnull(pl);
	st = store_new(rec_player_streams(pl), 100000000ull);
	bus_add_ring(b, ring);
	bus_attach(b, &store_consumer_ops, st);
	bus_attach(b, &order_ops, &tap);
	bus_start(b, 2000000);
	ck_assert_int_eq(rec_player_start(pl, ring, st, 100000000ull, 64, NULL), 0);
	for (int i = 0; i < 600 && !rec_player_at_end(pl); i++)
		usleep(10000);
	ck_assert(rec_player_at_end(pl));
	usleep(50000);
	ck_assert_uint_eq(tap.n, n);
	ck_assert_uint_eq(tap.out_of_order, 0);
	ck_assert_uint_eq(ring_dropped(ring), 0);
	/* a jump to the middle, paused: the store holds the pre-roll up to it */
	rec_player_span(pl, &t0, &t1);
	rec_player_pause(pl, true);
	target = t0 + (t1 - t0) / 2;
	memset(&tap, 0, sizeof(tap));
	ck_assert_int_eq(rec_player_seek_expr(pl, "50%"), 0);
	for (int i = 0; i < 300; i++) {
		uint64_t latest;

		usleep(10000);
		store_lock(st);
		latest = store_latest_ns(st);
		store_unlock(st);
		if (latest + 20000000ull >= target)
			break;
	}
	usleep(100000);
	store_lock(st);
	ck_assert_uint_le(store_latest_ns(st), target);
	ck_assert_uint_ge(store_latest_ns(st) + 20000000ull, target);
	store_unlock(st);
	ck_assert_uint_eq(tap.out_of_order, 0);
	/* the pre-roll starts 120 s before the target, or at the start */
	ck_assert_uint_le(
	    tap.first_ts,
	    (target > t0 + REC_PLAYER_PREROLL_NS ? target - REC_PLAYER_PREROLL_NS : t0) +
		1000000000ull);
	ck_assert_uint_ge(tap.first_ts, t0);
	ck_assert_uint_eq(rec_player_now(pl), target);
	rec_player_stop(pl);
	bus_free(b);
	store_free(st);
	ring_free(ring);
	rec_player_free(pl);
	buf_free(&exp);
}
END_TEST

static Suite *rec_live_suite(void)
{
	Suite *s = suite_create("rec-live");
	TCase *tc = tcase_create("motion");

	tcase_set_timeout(tc, 120);
	ADD(follow_growing_file);
	ADD(queue_overflow_gap);
	ADD(rotate_segments);
	ADD(player_plays_and_seeks);
	suite_add_tcase(s, tc);
	tc = tcase_create("live");
	tcase_set_timeout(tc, 60);
	ADD(roundtrip_live);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rec_check_main(rec_live_suite, &dir);
}
