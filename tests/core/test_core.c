/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "bus.h"
#include "catalogue.h"
#include "collector.h"
#include "engine.h"
#include "options.h"
#include "ring.h"
#include "store.h"
#include "store_int.h"
#include "store_peak.h"
#include "stream.h"
#include "strsafe.h"
#include "util.h"
#include "../check_run.h"

static const struct field_desc t_fields[] = {
    FIELD_DESC("bytes", "B", FIELD_COUNTER),
    FIELD_DESC("temp", "C", FIELD_GAUGE),
};
static const struct stream_desc t_stream = {"t.s",    1,      ENTITY_KEY,  2,
					    t_fields, "test", .rate_hz = 0};

START_TEST(ring_roundtrip_and_wrap)
{
	struct ring *r = ring_new(4096);
	uint64_t buf[64];
	const void *p;
	size_t len;
	int pushed = 0, popped = 0;

	ck_assert_ptr_nonnull(r);
	/* push and pop 1000 records of varying size: wraps many times */
	for (int i = 0; i < 1000; i++) {
		size_t l = 8 * (size_t)(2 + i % 40);

		memset(buf, 0, sizeof(buf));
		buf[0] = (uint32_t)l;
		buf[1] = (uint64_t)i;
		ck_assert_int_eq(ring_push(r, buf, l), 0);
		pushed++;
		p = ring_peek(r, &len);
		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq(len, l);
		ck_assert_uint_eq(((const uint64_t *)p)[1], (uint64_t)i);
		ring_pop(r, len);
		popped++;
	}
	ck_assert_ptr_null(ring_peek(r, &len));
	ck_assert_int_eq(pushed, popped);
	ring_free(r);
}
END_TEST

START_TEST(ring_full_drops_and_counts)
{
	struct ring *r = ring_new(4096);
	uint64_t buf[32] = {256};
	int ok = 0;

	for (int i = 0; i < 100; i++)
		if (ring_push(r, buf, 256) == 0)
			ok++;
	ck_assert_int_eq(ok, 16);
	ck_assert_uint_eq(ring_dropped(r), 84);
	ck_assert_int_eq(ring_push(r, buf, 12), -EINVAL); /* not a multiple of 8 */
	ring_free(r);
}
END_TEST

/* A drained ring starts over at the front (its later records touch the
 * same pages); one with records not yet taken does not move. */
START_TEST(ring_rewind_when_drained)
{
	struct ring *r = ring_new(1 << 16);
	uint64_t buf[16] = {128};
	const void *p;
	size_t len;
	uint64_t head;

	for (int i = 0; i < 100; i++)
		ck_assert_int_eq(ring_push(r, buf, 128), 0);
	head = atomic_load(&r->head);
	ring_rewind(r); /* 100 records not taken */
	ck_assert_uint_eq(atomic_load(&r->head), head);
	while ((p = ring_peek(r, &len)))
		ring_pop(r, len);
	ring_rewind(r);
	buf[1] = 42;
	ck_assert_int_eq(ring_push(r, buf, 128), 0);
	p = ring_peek(r, &len);
	ck_assert_ptr_eq(p, r->buf);
	ck_assert_uint_eq(len, 128);
	ck_assert_uint_eq(((const uint64_t *)p)[1], 42);
	ring_pop(r, len);
	ck_assert_ptr_null(ring_peek(r, &len));
	ring_rewind(r); /* under RING_REWIND_MIN from the front: stays */
	ck_assert_int_eq(ring_push(r, buf, 128), 0);
	ck_assert_ptr_eq(ring_peek(r, &len), r->buf + 128);
	/* the pad to the end is not room taken: after a rewind at 12.8 KB,
	 * 25.6 KB more go in and nothing is dropped */
	while ((p = ring_peek(r, &len)))
		ring_pop(r, len);
	for (int i = 0; i < 100; i++)
		ck_assert_int_eq(ring_push(r, buf, 128), 0);
	while ((p = ring_peek(r, &len)))
		ring_pop(r, len);
	ring_rewind(r);
	for (int i = 0; i < 200; i++)
		ck_assert_int_eq(ring_push(r, buf, 128), 0);
	ck_assert_uint_eq(ring_dropped(r), 0);
	for (int i = 0; i < 200; i++) {
		ck_assert_ptr_nonnull(p = ring_peek(r, &len));
		ring_pop(r, len);
	}
	ck_assert_ptr_null(ring_peek(r, &len));
	ring_free(r);
}
END_TEST

START_TEST(ring_reserve_commit_and_room_after_pop)
{
	struct ring *r = ring_new(4096);
	uint64_t buf[32] = {256};
	size_t len;
	uint64_t *w;

	for (int i = 0; i < 16; i++)
		ck_assert_int_eq(ring_push(r, buf, 256), 0);
	ck_assert_int_eq(ring_push(r, buf, 256), -ENOBUFS);
	/* the producer's cached view of tail must catch up with the pops */
	for (int i = 0; i < 3; i++) {
		ck_assert_ptr_nonnull(ring_peek(r, &len));
		ring_pop(r, len);
	}
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(ring_push(r, buf, 256), 0);
	ck_assert_int_eq(ring_push(r, buf, 256), -ENOBUFS);
	ck_assert_uint_eq(ring_dropped(r), 2);
	while (ring_peek(r, &len))
		ring_pop(r, len);
	/* 24 bytes short of the end: the next 64-byte record needs a pad */
	for (int i = 0; i < 15; i++) {
		ck_assert_int_eq(ring_push(r, buf, 256), 0);
		ck_assert_ptr_nonnull(ring_peek(r, &len));
		ring_pop(r, len);
	}
	buf[0] = 232;
	ck_assert_int_eq(ring_push(r, buf, 232), 0);
	ck_assert_ptr_nonnull(ring_peek(r, &len));
	ring_pop(r, len);
	w = ring_reserve(r, 64);
	ck_assert_ptr_nonnull(w);
	w[0] = 64;
	w[1] = 42;
	/* not visible before the commit, then whole, past the pad */
	ck_assert_ptr_null(ring_peek(r, &len));
	ring_commit(r, 64);
	w = (uint64_t *)ring_peek(r, &len);
	ck_assert_ptr_nonnull(w);
	ck_assert_uint_eq(len, 64);
	ck_assert_uint_eq(w[1], 42);
	ring_pop(r, len);
	ck_assert_ptr_null(ring_peek(r, &len));
	ck_assert_ptr_null(ring_reserve(r, 12)); /* not a multiple of 8 */
	ring_free(r);
}
END_TEST

/* Labels and GONE records are kept for late consumers through a hash: a
 * flood of them costs O(1) each, not a scan of all the others (200000
 * labels took minutes that way). */
START_TEST(bus_sticky_flood)
{
	struct stream_table *t = stream_table_new();
	struct bus *b = bus_new();
	struct ring *r = ring_new(1 << 22);
	struct emitter em = {.ring = r};
	uint64_t t0 = asys_now_ns();

	ck_assert_int_eq(stream_table_add(t, &t_stream), 0);
	ck_assert_int_eq(bus_add_ring(b, r), 0);
	for (uint64_t e = 0; e < 200000; e++) {
		ck_assert_int_eq(emit_label(&em, 0, e, 1000000000ull, "a label"), 0);
		if (e % 8192 == 8191)
			bus_pump(b);
	}
	for (uint64_t e = 0; e < 200000; e++) {
		ck_assert_int_eq(emit_gone(&em, 0, e + 100000, 1000000000ull), 0);
		if (e % 8192 == 8191)
			bus_pump(b);
	}
	bus_pump(b);
	ck_assert_msg(asys_now_ns() - t0 < 20000000000ull, "took %.1f s",
		      (double)(asys_now_ns() - t0) / 1e9);
	bus_free(b);
	ring_free(r);
	stream_table_free(t);
}
END_TEST

static atomic_int notify_seen;

static void count_consume(void *ctx, const struct rec *r)
{
	(void)ctx;
	(void)r;
	atomic_fetch_add(&notify_seen, 1);
}

static const struct bus_consumer_ops count_ops = {.consume = count_consume};

/* 1 when the eventfd was written since the last call, 0 when not. */
static int notified(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return (int)v;
}

/* A screen's wake: one write, by the first pump that begins at or after the
 * time asked for; a helping thread's pump is due then even within the bus
 * period; a request of 0 cancels. */
START_TEST(bus_notify_after_wakes_once_past_its_time)
{
	struct bus *b = bus_new();
	struct ring *r = ring_new(1 << 16);
	struct emitter em = {.ring = r};
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	struct timespec ms = {0, 1000000};

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bus_add_ring(b, r), 0);
	ck_assert_int_ge(bus_attach(b, &count_ops, NULL), 0);
	ck_assert_int_eq(emit_label(&em, 0, 1, 1, "x"), 0);
	ck_assert_int_eq(bus_start(b, 10000000000ull), 0);
	/* the thread's first pump; it then waits out its 10 s period */
	for (int i = 0; i < 5000 && !atomic_load(&notify_seen); i++)
		nanosleep(&ms, NULL);
	ck_assert_int_eq(atomic_load(&notify_seen), 1);
	bus_set_helped(b, true, true);

	ck_assert(!bus_pump_due(b, asys_now_ns()));
	bus_notify_after(b, fd, asys_now_ns() + 10000000000ull);
	bus_pump(b);
	ck_assert(!bus_pump_due(b, asys_now_ns()));
	ck_assert_int_eq(notified(fd), 0);

	bus_notify_after(b, fd, asys_now_ns());
	ck_assert(bus_pump_due(b, asys_now_ns()));
	ck_assert_int_eq(notified(fd), 1);
	bus_pump(b);
	ck_assert(!bus_pump_due(b, asys_now_ns()));
	ck_assert_int_eq(notified(fd), 0);
	/* the bus thread's pump, as a busy store hands it over */
	bus_notify_after(b, fd, asys_now_ns());
	bus_pump(b);
	ck_assert_int_eq(notified(fd), 1);

	bus_notify_after(b, fd, asys_now_ns());
	bus_notify_after(b, fd, 0);
	bus_pump(b);
	ck_assert_int_eq(notified(fd), 0);

	bus_free(b);
	ring_free(r);
	close(fd);
}
END_TEST

/* Pops every record of r; the first max kinds and entities into the arrays. */
static int drain_kinds(struct ring *r, uint8_t *kinds, uint64_t *ents, int max)
{
	const struct rec *x;
	size_t len;
	int n = 0;

	while ((x = ring_peek(r, &len))) {
		if (n < max) {
			kinds[n] = x->kind;
			ents[n] = x->entity;
		}
		n++;
		ring_pop(r, len);
	}
	return n;
}

/* A label, GONE or status is said once: an emitter that keeps texts holds
 * those a full ring refuses (no drop counted) and pushes them, in order,
 * before its next record; one that does not drops them as before; what it
 * holds is bounded, and past that a text is dropped and counted. */
START_TEST(emitter_keeps_texts_a_full_ring_refuses)
{
	struct ring *r = ring_new(1 << 12);
	struct emitter keep = {.ring = r}, plain = {.ring = r};
	double v[4] = {0};
	uint8_t kinds[64];
	uint64_t ents[64], dropped;
	char big[901];
	int s = 0, i;

	emit_keep_texts(&keep);
	while (emit_sample(&keep, 0, 100, 1, v, 0) == 0)
		s++;
	ck_assert_uint_eq(ring_dropped(r), 1);
	ck_assert_int_eq(emit_label(&plain, 0, 7, 1, "lost"), -ENOBUFS);
	ck_assert_uint_eq(ring_dropped(r), 2);
	ck_assert_int_eq(emit_label(&keep, 0, 1, 1, "first"), 0);
	ck_assert_int_eq(emit_gone(&keep, 0, 2, 1), 0);
	ck_assert_int_eq(emit_status(&keep, 0, STATUS_STREAM, 1, "why"), 0);
	ck_assert_uint_eq(emit_kept_count(&keep), 3);
	ck_assert_int_eq(emit_label(&plain, 0, 8, 1, "lost too"), -ENOBUFS);
	ck_assert_uint_eq(ring_dropped(r), 3);
	ck_assert_int_eq(drain_kinds(r, kinds, ents, 64), s);

	ck_assert_int_eq(emit_sample(&keep, 0, 100, 2, v, 4), 0);
	ck_assert_int_eq(drain_kinds(r, kinds, ents, 64), 4);
	ck_assert_int_eq(kinds[0], REC_LABEL);
	ck_assert_uint_eq(ents[0], 1);
	ck_assert_int_eq(kinds[1], REC_GONE);
	ck_assert_uint_eq(ents[1], 2);
	ck_assert_int_eq(kinds[2], REC_STATUS);
	ck_assert_int_eq(kinds[3], REC_SAMPLE);
	ck_assert_uint_eq(emit_kept_count(&keep), 0);

	/* a text behind held ones waits its turn even where it would fit */
	while (emit_sample(&keep, 0, 100, 1, v, 0) == 0)
		;
	ck_assert_int_eq(emit_label(&keep, 0, 3, 1, "third"), 0);
	ck_assert_uint_eq(emit_kept_count(&keep), 1);
	ck_assert_int_eq(drain_kinds(r, kinds, ents, 64) > 0, 1);
	ck_assert_int_eq(emit_label(&keep, 0, 4, 1, "fourth"), 0);
	ck_assert_int_eq(drain_kinds(r, kinds, ents, 64), 2);
	ck_assert_uint_eq(ents[0], 3);
	ck_assert_uint_eq(ents[1], 4);

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	while (emit_sample(&keep, 0, 100, 1, v, 0) == 0)
		;
	dropped = ring_dropped(r);
	for (i = 0; i < 10000 && emit_label(&keep, 0, (uint64_t)i, 1, big) == 0; i++)
		;
	ck_assert_int_gt(i, 50);
	ck_assert_int_lt(i, 10000);
	ck_assert_uint_eq(ring_dropped(r), dropped + 1);
	drain_kinds(r, kinds, ents, 64);
	ck_assert(!emit_flush_kept(&keep)); /* a 4 KiB ring takes a few */
	ck_assert_uint_lt(emit_kept_count(&keep), (size_t)i);
	emit_release(&keep);
	emit_release(&keep);
	emit_release(&plain); /* its count of what the full ring refused */
	emit_release(NULL);
	ck_assert_uint_eq(emit_kept_count(&keep), 0);
	ring_free(r);
}
END_TEST

/* A collector whose first tick fills its thread's ring, then names an
 * entity: the label meets the full ring. */
static atomic_int flood_ticks, flood_filled, label_seen;

static double freq_flood(const struct asys_options *o)
{
	(void)o;
	return 100;
}

static int init_flood(const struct coll_ctx *c, void **st)
{
	(void)c;
	*st = NULL;
	return 0;
}

static int sample_flood(void *st, struct emitter *out, uint64_t now)
{
	double v[2] = {1, 2};
	int i = 0;

	(void)st;
	if (atomic_load(&flood_ticks) == 0) {
		while (i < 10000000 && emit_sample(out, 0, 1, now, v, 2) == 0)
			i++;
		atomic_store(&flood_filled, i < 10000000);
		emit_label(out, 0, 42, now, "after the flood");
	}
	atomic_fetch_add(&flood_ticks, 1);
	return 0;
}

static void fini_none(void *st)
{
	(void)st;
}

static const struct collector c_flood = {.name = "flood",
					 .frequency = freq_flood,
					 .init = init_flood,
					 .sample = sample_flood,
					 .fini = fini_none};

static void label_consume(void *ctx, const struct rec *r)
{
	(void)ctx;
	if (r->kind == REC_LABEL && r->entity == 42 &&
	    !strcmp((const char *)(r + 1), "after the flood"))
		atomic_store(&label_seen, 1);
}

static const struct bus_consumer_ops label_ops = {.consume = label_consume};

/* The engine's sampling thread holds a label its full ring refused and
 * sends it once the ring drains. The bus starts only after a tick has
 * found the ring still full, so nothing drains while the label is made. */
START_TEST(engine_sends_a_label_its_full_ring_refused)
{
	const struct collector *list[] = {&c_flood, NULL};
	struct engine_group_stats st[ENGINE_MAX_GROUPS];
	struct stream_table *t = stream_table_new();
	struct bus *b = bus_new();
	struct timespec ms = {0, 1000000};
	struct asys_options o;
	struct engine *e;

	ck_assert_int_eq(stream_table_add(t, &t_stream), 0);
	options_defaults(&o);
	e = engine_new(&o, t, b, list);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(engine_init(e), 0);
	ck_assert_int_ge(bus_attach(b, &label_ops, NULL), 0);
	ck_assert_int_eq(engine_start(e), 0);
	for (int i = 0; i < 10000 && atomic_load(&flood_ticks) < 3; i++)
		nanosleep(&ms, NULL);
	ck_assert_int_ge(atomic_load(&flood_ticks), 3);
	ck_assert_int_eq(atomic_load(&flood_filled), 1);
	ck_assert_int_eq(atomic_load(&label_seen), 0);
	ck_assert_int_eq(bus_start(b, 5000000), 0);
	/* at a tick, not at the stop */
	for (int i = 0; i < 10000 && !atomic_load(&label_seen); i++)
		nanosleep(&ms, NULL);
	ck_assert_int_eq(atomic_load(&label_seen), 1);
	engine_stop(e);
	ck_assert_int_eq(engine_stats(e, st, ENGINE_MAX_GROUPS), 1);
	ck_assert_uint_eq(st[0].dropped, 1); /* the sample that found it full */
	bus_stop(b);
	bus_free(b);
	engine_free(e);
	stream_table_free(t);
}
END_TEST

START_TEST(stream_table_rules)
{
	struct stream_table *t = stream_table_new();
	struct stream_desc other = t_stream;
	struct field_desc f2[2] = {t_fields[0], FIELD_DESC("temp", "K", FIELD_GAUGE)};

	ck_assert_int_eq(stream_table_add(t, &t_stream), 0);
	ck_assert_int_eq(stream_table_add(t, &t_stream), 0); /* identical: same id */
	other.fields = f2;
	ck_assert_int_eq(stream_table_add(t, &other), -EEXIST);
	ck_assert_int_eq(stream_table_find(t, "t.s"), 0);
	ck_assert_int_eq(stream_table_find(t, "nope"), -ENOENT);
	ck_assert_int_eq(stream_field_index(stream_table_get(t, 0), "temp"), 1);
	ck_assert_str_eq(stream_table_get(t, 0)->fields[0].unit, "B");
	stream_table_free(t);
	stream_table_free(NULL);
}
END_TEST

START_TEST(str_escape_controls_and_caps)
{
	char b[64], small[8];

	ck_assert_str_eq(str_escape(b, sizeof(b), "eth0", 0), "eth0");
	ck_assert_str_eq(str_escape(b, sizeof(b), "\x1b[2J\x1b]0;t\x07\n\r\t\\", 0),
			 "\\e[2J\\e]0;t\\x07\\n\\r\\t\\\\");
	ck_assert_str_eq(str_escape(b, sizeof(b), "a\x7f\xff\xc3", 0), "a\\x7F\\xFF\\xC3");
	/* UTF-8 passes, C1 controls (CSI is U+009B) do not */
	ck_assert_str_eq(str_escape(b, sizeof(b), "caf\xc3\xa9 \xe2\x82\xac", 0),
			 "caf\xc3\xa9 \xe2\x82\xac");
	ck_assert_str_eq(str_escape(b, sizeof(b),
				    "\xc2\x9b"
				    "2J",
				    0),
			 "\\xC2\\x9B2J");
	ck_assert_str_eq(str_escape(b, sizeof(b), "\xed\xa0\x80", 0), "\\xED\\xA0\\x80");
	/* bidirectional controls reorder what follows: shown by code point */
	ck_assert_str_eq(str_escape(b, sizeof(b),
				    "a\xe2\x80\xae"
				    "b\xd8\x9c\xe2\x81\xa9\xe2\x80\x8e",
				    0),
			 "a\\u202Eb\\u061C\\u2069\\u200E");
	/* their neighbours are text */
	ck_assert_str_eq(str_escape(b, sizeof(b), "\xe2\x80\xa9\xe2\x81\xaa\xd8\x9b", 0),
			 "\xe2\x80\xa9\xe2\x81\xaa\xd8\x9b");
	ck_assert(!str_needs_escape("caf\xc3\xa9 a\\b"));
	ck_assert(str_needs_escape("x\xc2\x9d"));
	ck_assert(str_needs_escape("x\xe2\x80\xae"));
	ck_assert(str_needs_escape("x\xff"));
	ck_assert(str_needs_escape("\x1b"));
	/* capped with an ellipsis, never in half an escape or character */
	ck_assert_str_eq(str_escape(b, sizeof(b), "abcdefghij", 8), "abcde...");
	ck_assert_str_eq(str_escape(b, sizeof(b), "abcdefgh", 8), "abcdefgh");
	ck_assert_str_eq(str_escape(b, sizeof(b), "abcd\x1b\x1bxyz", 8), "abcd...");
	ck_assert_str_eq(str_escape(b, sizeof(b), "ab\xe2\x82\xac\xe2\x82\xac", 7), "ab...");
	ck_assert_str_eq(str_escape(small, sizeof(small), "0123456789", 0), "0123...");
	ck_assert_str_eq(str_escape(small, 3, "0123456789", 0), "01");
	ck_assert_str_eq(str_escape(small, 1, "x", 0), "");
	ck_assert_str_eq(str_escape(b, sizeof(b), NULL, 0), "");
	for (int c = 1; c < 256; c++) {
		char in[2] = {(char)c, 0};

		str_escape(b, sizeof(b), in, 0);
		for (const char *p = b; *p; p++)
			ck_assert_msg((unsigned char)*p >= 0x20 && *p != 0x7f, "byte %d leaks", c);
	}
}
END_TEST

/* Every stream of the catalogue has a unique name and its fields where its
 * constants say; a recorded schema that moved or dropped a field is read by
 * name, and a stream the catalogue does not know is not found. */
START_TEST(catalogue_fields_by_constant_and_name)
{
	static const struct field_desc moved[] = {
	    FIELD_DESC("hwm", "B", FIELD_GAUGE),
	    FIELD_DESC("rss", "B", FIELD_GAUGE),
	};
	const struct stream_desc old = {"mem.proc", 1, ENTITY_PID, 2, moved, "old", 0};
	const struct stream_desc *mp = CATALOGUE_STREAM(STREAM_MEM_PROC);

	for (int i = 0; i < STREAM_COUNT; i++) {
		const struct stream_desc *d = CATALOGUE_STREAM(i);

		ck_assert_int_eq(catalogue_find(catalogue_name(i)), i);
		for (unsigned int f = 0; f < d->nfields; f++)
			ck_assert_int_eq(catalogue_field_index(d, i, f), (int)f);
		ck_assert_ptr_null(catalogue_field(i, d->nfields));
	}
	ck_assert_int_eq(mp->nfields, MEM_PROC_NFIELDS);
	ck_assert_str_eq(catalogue_field(STREAM_MEM_PROC, MEM_PROC_RSS), "rss");
	ck_assert_int_eq(catalogue_field_index(&old, STREAM_MEM_PROC, MEM_PROC_RSS), 1);
	ck_assert_int_eq(catalogue_field_index(&old, STREAM_MEM_PROC, MEM_PROC_HWM), 0);
	ck_assert_int_eq(catalogue_field_index(&old, STREAM_MEM_PROC, MEM_PROC_UID), -1);
	ck_assert_int_eq(catalogue_field_index(NULL, STREAM_MEM_PROC, MEM_PROC_RSS), -1);
	ck_assert_int_eq(catalogue_find("t.s"), -1);
	ck_assert_int_eq(catalogue_find(NULL), -1);
}
END_TEST

static Suite *core_suite(void)
{
	Suite *s = suite_create("core");
	TCase *tc = tcase_create("core");

	/* the 4 s default: 5000 series under ASan on a loaded 2-core machine hit it */
	tcase_set_timeout(tc, 30);

	tcase_add_test(tc, ring_roundtrip_and_wrap);
	tcase_add_test(tc, ring_full_drops_and_counts);
	tcase_add_test(tc, ring_rewind_when_drained);
	tcase_add_test(tc, ring_reserve_commit_and_room_after_pop);
	tcase_add_test(tc, stream_table_rules);
	tcase_add_test(tc, bus_sticky_flood);
	tcase_add_test(tc, bus_notify_after_wakes_once_past_its_time);
	tcase_add_test(tc, emitter_keeps_texts_a_full_ring_refuses);
	tcase_add_test(tc, engine_sends_a_label_its_full_ring_refused);
	tcase_add_test(tc, str_escape_controls_and_caps);
	tcase_add_test(tc, catalogue_fields_by_constant_and_name);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(core_suite(), NULL);
}
