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
#include "rec_export.h"
#include "rec_player.h"
#include "session.h"
#include "rec_testlib.h"

static char *dir;

/* Hot loops check with this: check's own asserts write to a pipe each time. */
#define REQUIRE(cond, ...)                       \
	do {                                     \
		if (!(cond))                     \
			ck_abort_msg(__VA_ARGS__); \
	} while (0)

static void path_in(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", dir, name);
}

static void *slurp(const char *path, size_t *n)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	void *p;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	*n = (size_t)st.st_size;
	p = malloc(*n + 1);
	ck_assert_int_eq(read(fd, p, *n), (ssize_t)*n);
	close(fd);
	return p;
}

static void spit(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	REQUIRE(fd >= 0, "open");
	REQUIRE(write(fd, p, n) == (ssize_t)n, "write");
	close(fd);
}

/* Records equal, stream by stream in order (the file keeps per-stream order). */
static void same_records_n(const struct rec_buf *a, const struct rec_buf *b, uint32_t nstreams)
{
	for (uint32_t s = 0; s < nstreams; s++) {
		size_t ia = 0, ib = 0, n = 0;

		for (;;) {
			const struct rec *ra = NULL, *rb = NULL;

			while (ia < a->len && ((const struct rec *)(a->p + ia))->stream != s)
				ia += ((const struct rec *)(a->p + ia))->len;
			while (ib < b->len && ((const struct rec *)(b->p + ib))->stream != s)
				ib += ((const struct rec *)(b->p + ib))->len;
			if (ia < a->len)
				ra = (const struct rec *)(a->p + ia);
			if (ib < b->len)
				rb = (const struct rec *)(b->p + ib);
			if (!ra || !rb) {
				REQUIRE(!ra && !rb, "stream %u: record %zu missing", s, n);
				break;
			}
			REQUIRE(ra->kind == rb->kind, "stream %u record %zu: kind differs", s, n);
			REQUIRE(ra->ts_ns == rb->ts_ns, "stream %u record %zu: ts_ns differs", s, n);
			REQUIRE(ra->entity == rb->entity, "stream %u record %zu: entity differs", s, n);
			REQUIRE(ra->nvals == rb->nvals, "stream %u record %zu: nvals differs", s, n);
			if (ra->kind == REC_SAMPLE)
				REQUIRE(!memcmp(ra + 1, rb + 1, ra->nvals * 8u), "stream %u record %zu: values differ", s, n);
			else
				REQUIRE(!strcmp(rec_text(ra), rec_text(rb)), "stream %u record %zu: text differs", s, n);
			ia += ra->len;
			ib += rb->len;
			n++;
		}
	}
}

static void same_records(const struct rec_buf *a, const struct rec_buf *b)
{
	same_records_n(a, b, 3);
}

START_TEST(crc32c_vectors)
{
	uint8_t buf[1000];

	ck_assert_uint_eq(rec_crc32c(0, "123456789", 9), 0xE3069283u);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	/* against a bitwise reference, at every length and alignment */
	for (size_t off = 0; off < 9; off++) {
		for (size_t n = 0; n + off <= 200; n += 13) {
			uint32_t c = ~0u;

			for (size_t i = 0; i < n; i++) {
				c ^= buf[off + i];
				for (int k = 0; k < 8; k++)
					c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
			}
			ck_assert_uint_eq(rec_crc32c(0, buf + off, n), ~c);
		}
	}
}
END_TEST

START_TEST(msgpack_caps)
{
	/* a 4-billion-element array header with nothing behind it */
	static const uint8_t big[] = { 0xdd, 0xff, 0xff, 0xff, 0xff, 0x01 };
	uint8_t deep[400];
	struct mp_cur c = { big, big + sizeof(big), false };
	uint32_t n;

	ck_assert(!mp_array(&c, &n));
	memset(deep, 0x91, sizeof(deep)); /* [[[[...]]]] far past the depth cap */
	deep[sizeof(deep) - 1] = 0x01;
	c = (struct mp_cur){ deep, deep + sizeof(deep), false };
	ck_assert(!mp_skip(&c));
	/* a str that claims more bytes than are left */
	c = (struct mp_cur){ (const uint8_t *)"\xdb\x00\x00\x10\x00xx", (const uint8_t *)"\xdb\x00\x00\x10\x00xx" + 7, false };
	ck_assert(!mp_skip(&c));
}
END_TEST

START_TEST(roundtrip_synthetic)
{
	char p[512];
	struct rec_buf exp = { 0 }, got = { 0 };
	uint64_t holes;

	path_in(p, sizeof(p), "rt.asys");
	ck_assert_int_eq(tl_write(p, 20000, 4096, 3000, &exp), 0);
	ck_assert_int_eq(tl_read_all(p, &got, &holes), 0);
	ck_assert_uint_eq(holes, 0);
	same_records(&exp, &got);
	rec_buf_free(&exp);
	rec_buf_free(&got);
}
END_TEST

START_TEST(exists_needs_force)
{
	char p[512], msg[256];
	struct stream_table *t = tl_table();
	struct rec_writer_opts o = { 0 };
	struct stat st;
	int err = 0;
	struct rec_writer *w;

	path_in(p, sizeof(p), "excl.asys");
	o.path = p;
	w = rec_writer_new(t, &o, &err, msg, sizeof(msg));
	ck_assert_ptr_nonnull(w);
	rec_writer_free(w);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0640);
	w = rec_writer_new(t, &o, &err, msg, sizeof(msg));
	ck_assert_ptr_null(w);
	ck_assert_int_eq(err, -EEXIST);
	ck_assert_ptr_nonnull(strstr(msg, "--force"));
	o.force = true;
	w = rec_writer_new(t, &o, &err, msg, sizeof(msg));
	ck_assert_ptr_nonnull(w);
	rec_writer_free(w);
	stream_table_free(t);
}
END_TEST

/* Every cut of a small file gives exactly the frames that end before it. */
START_TEST(truncate_every_byte)
{
	char p[512], q[512], msg[256];
	struct tl_frame fr[256];
	size_t size, nf;
	uint8_t *all;

	path_in(p, sizeof(p), "small.asys");
	path_in(q, sizeof(q), "cut.asys");
	ck_assert_int_eq(tl_write(p, 300, 1024, 0, NULL), 0);
	nf = tl_frames(p, fr, 256);
	ck_assert_uint_gt(nf, 5);
	all = slurp(p, &size);
	for (size_t cut = 0; cut <= size; cut++) {
		struct rec_reader *r;
		struct rec_item it;
		size_t k = 0, want = 0;
		int rc;

		spit(q, all, cut);
		rc = rec_reader_open(q, &r, msg, sizeof(msg), NULL, 0);
		if (cut < REC_HEADER_LEN) {
			REQUIRE(rc != 0, "cut %zu opened", cut);
			continue;
		}
		REQUIRE(rc == 0, "cut %zu: %s", cut, msg);
		while ((rc = rec_reader_next(r, &it)) == 1) {
			REQUIRE(it.kind == REC_ITEM_FRAME, "cut %zu: hole at %llu", cut,
				      (unsigned long long)it.off);
			REQUIRE(k < nf, "cut %zu: extra frame", cut);
			REQUIRE(it.off == fr[k].off, "cut %zu: frame %zu moved", cut, k);
			REQUIRE(it.end <= cut, "cut %zu: frame past the cut", cut);
			k++;
		}
		for (size_t i = 0; i < nf; i++)
			want += fr[i].end <= cut;
		REQUIRE(k == want, "cut %zu: %zu frames, want %zu", cut, k, want);
		{
			bool boundary = cut == REC_HEADER_LEN || cut == size;

			for (size_t i = 0; i < nf; i++)
				boundary |= fr[i].end == cut;
			REQUIRE(rc == (boundary ? 0 : -EAGAIN), "cut %zu: rc %d", cut, rc);
		}
		rec_reader_free(r);
	}
	free(all);
}
END_TEST

/* Every single-bit flip is detected or harmless; other frames still read. */
START_TEST(bitflip_sweep)
{
	char p[512], q[512], msg[256];
	struct tl_frame fr[256];
	size_t size, nf;
	uint8_t *all;
	int fd;

	path_in(p, sizeof(p), "small2.asys");
	path_in(q, sizeof(q), "flip.asys");
	ck_assert_int_eq(tl_write(p, 100, 512, 0, NULL), 0);
	nf = tl_frames(p, fr, 256);
	all = slurp(p, &size);
	spit(q, all, size);
	fd = open(q, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	for (size_t byte = 0; byte < size; byte++) {
		for (int bit = 0; bit < 8; bit++) {
			struct rec_reader *r;
			struct rec_item it;
			bool seen[256] = { false };
			uint8_t b = all[byte] ^ (uint8_t)(1 << bit);
			int rc;

			REQUIRE(pwrite(fd, &b, 1, (off_t)byte) == 1, "pwrite");
			rc = rec_reader_open(q, &r, msg, sizeof(msg), NULL, 0);
			REQUIRE(rc == 0, "flip %zu.%d: %s", byte, bit, msg);
			while ((rc = rec_reader_next(r, &it)) == 1) {
				size_t k;

				if (it.kind != REC_ITEM_FRAME)
					continue;
				for (k = 0; k < nf && fr[k].off != it.off; k++)
					;
				REQUIRE(k < nf, "flip %zu.%d: a frame at %llu that was never "
					      "written", byte, bit, (unsigned long long)it.off);
				REQUIRE(rec_crc32c(0, it.payload, it.len) == fr[k].crc,
					      "flip %zu.%d: frame %zu read back changed", byte, bit, k);
				seen[k] = true;
			}
			for (size_t k = 0; k < nf; k++) {
				bool inside = byte >= fr[k].off && byte < fr[k].end;

				REQUIRE(seen[k] || inside, "flip %zu.%d: frame %zu lost", byte,
					      bit, k);
			}
			rec_reader_free(r);
		}
		REQUIRE(pwrite(fd, &all[byte], 1, (off_t)byte) == 1, "pwrite");
	}
	close(fd);
	free(all);
}
END_TEST

static uint64_t linear_seek(const struct tl_frame *fr, size_t nf, uint64_t t, uint64_t size)
{
	for (size_t i = 0; i < nf; i++)
		if (fr[i].t_max >= t)
			return fr[i].off;
	return size;
}

START_TEST(seek_matches_linear)
{
	char p[512], msg[256];
	static struct tl_frame fr[20000];
	size_t nf;
	uint64_t size;
	struct rec_reader *r;
	uint64_t rng = 99;

	path_in(p, sizeof(p), "seek.asys");
	ck_assert_int_eq(tl_write(p, 150000, 2048, 20000, NULL), 0);
	nf = tl_frames(p, fr, 20000);
	ck_assert_uint_gt(nf, 1000);
	ck_assert_int_eq(rec_reader_open(p, &r, msg, sizeof(msg), NULL, 0), 0);
	ck_assert(rec_reader_has_trailer(r));
	size = rec_reader_size(r);
	for (int mode = 0; mode < 2; mode++) {
		uint64_t worst = 0;

		if (mode == 1)
			rec_reader_no_trailer(r);
		for (size_t i = 0; i < nf + 400; i++) {
			uint64_t t, got, before;

			if (i < nf) {
				/* edges: each frame's own end, and just around it */
				t = fr[i].t_max + (i % 3) - 1;
			} else if (i < nf + 4) {
				t = (uint64_t[]){ 0, 1, fr[nf - 1].t_max + 1, UINT64_MAX }[i - nf];
			} else {
				rng = rng * 6364136223846793005ull + 1;
				t = fr[0].t_max + (rng >> 11) % (fr[nf - 1].t_max - fr[0].t_max);
			}
			if (mode == 1 && i < nf && i % 16)
				continue; /* the bisect is slower: every 16th edge */
			before = rec_reader_bytes_read(r);
			got = rec_reader_seek_time(r, t);
			if (rec_reader_bytes_read(r) - before > worst)
				worst = rec_reader_bytes_read(r) - before;
			REQUIRE(got == linear_seek(fr, nf, t, size),
				      "mode %d t %llu: seek %llu, linear %llu", mode,
				      (unsigned long long)t, (unsigned long long)got,
				      (unsigned long long)linear_seek(fr, nf, t, size));
		}
		/* O(log n): a seek reads a small part of the file (bisecting reads a
		 * 128 KiB window per step, a lot of a 3 MB file; bench/record has the
		 * times in a 1.8 GB one) */
		REQUIRE(worst < size / (mode ? 2 : 8), "mode %d: a seek read %llu of %llu bytes", mode,
			      (unsigned long long)worst, (unsigned long long)size);
	}
	rec_reader_free(r);
}
END_TEST

struct follow_ctx {
	const char *path;
	volatile bool done;
	uint64_t samples_written;
};

static void *follow_writer(void *arg)
{
	struct follow_ctx *f = arg;
	struct stream_table *t = tl_table();
	struct rec_writer_opts o = { .path = f->path, .force = true, .chunk_bytes = 2048 };
	_Alignas(8) uint8_t buf[4096];
	struct tl_gen g = { .ts = 1000 };
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
	struct follow_ctx f = { .path = p };
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
	struct rec_writer_opts o = { .force = true, .chunk_bytes = 512, .queue_bytes = 2048 };
	_Alignas(8) uint8_t buf[4096];
	struct tl_gen g = { .ts = 1000 };
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
	struct rec_writer_opts o = { .force = true, .chunk_bytes = 2048, .rotate_size = 64 << 10 };
	_Alignas(8) uint8_t buf[4096];
	struct tl_gen g = { .ts = 1000 };
	struct rec_writer_stats st;
	struct rec_buf got = { 0 };
	uint64_t holes, total = 0;
	int err;
	struct rec_writer *w;

	path_in(p, sizeof(p), "rot.asys");
	o.path = p;
	w = rec_writer_new(t, &o, &err, msg, sizeof(msg));
	ck_assert_ptr_nonnull(w);
	for (int i = 0; i < 50000; i++) {
		rec_writer_consumer_ops.consume(w, tl_next(&g, buf));
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
		ck_assert_uint_le((uint64_t)sb.st_size, (64 << 10) + 8192);
		/* each segment stands alone: schemas, and a trailer */
		ck_assert_int_eq(rec_reader_open(p1, &r, msg, sizeof(msg), NULL, 0), 0);
		ck_assert_uint_eq(stream_table_count(rec_reader_streams(r)), 3);
		ck_assert(rec_reader_has_trailer(r));
		rec_reader_free(r);
		got.len = 0;
		ck_assert_int_eq(tl_read_all(p1, &got, &holes), 0);
		ck_assert_uint_eq(holes, 0);
		for (size_t off = 0; off < got.len; off += ((struct rec *)(got.p + off))->len)
			total++;
	}
	/* every record is in exactly one segment (plus repeated labels at each start) */
	ck_assert_uint_ge(total, 50000);
	rec_buf_free(&got);
	rec_writer_free(w);
	stream_table_free(t);
}
END_TEST

START_TEST(time_expressions)
{
	uint64_t t0 = 1000000000000ull, t1 = t0 + 600000000000ull, out = 0;
	int64_t origin = 1764424800ll * 1000000000 - (int64_t)t0; /* t0 = that wall second */

	ck_assert_int_eq(rec_parse_time("+90s", origin, t0, t1, t0, t1, &out), 0);
	ck_assert_uint_eq(out, t0 + 90000000000ull);
	ck_assert_int_eq(rec_parse_time("-5m", origin, t0, t1, t0, t1, &out), 0);
	ck_assert_uint_eq(out, t1 - 300000000000ull);
	ck_assert_int_eq(rec_parse_time("50%", origin, t0, t1, t0, t1, &out), 0);
	ck_assert_uint_eq(out, t0 + 300000000000ull);
	ck_assert_int_eq(rec_parse_time("@42", origin, t0, t1, t0, t1, &out), 0);
	ck_assert_uint_eq(out, 42);
	ck_assert_int_ne(rec_parse_time("soon", origin, t0, t1, t0, t1, &out), 0);
	ck_assert_int_ne(rec_parse_time("150%", origin, t0, t1, t0, t1, &out), 0);
	ck_assert_int_ne(rec_parse_time("", origin, t0, t1, t0, t1, &out), 0);
	{
		/* the wall time of t0 + 2 min, written as local HH:MM:SS */
		time_t w = 1764424800 + 120;
		struct tm tm;
		char s[32];

		localtime_r(&w, &tm);
		strftime(s, sizeof(s), "%H:%M:%S", &tm);
		ck_assert_int_eq(rec_parse_time(s, origin, t0, t1, t0, t1, &out), 0);
		ck_assert_uint_eq(out, t0 + 120000000000ull);
	}
}
END_TEST

/* REC_ONLY=name runs one test (for timing and debugging). */
#define ADD(t)                                                                  \
	do {                                                                    \
		const char *only = getenv("REC_ONLY");                         \
		if (!only || !strcmp(only, #t))                                 \
			tcase_add_test(tc, t);                                 \
	} while (0)

static void tap_consume(void *ctx, const struct rec *r)
{
	rec_buf_put(ctx, r, r->len);
}

static const struct bus_consumer_ops tap_ops = { .consume = tap_consume };

/* Record 10 s of the real collectors; every record the bus delivered is in
 * the file, in order, with the same values. */
START_TEST(roundtrip_live)
{
	struct asys_options o;
	struct session *s;
	struct rec_buf tap = { 0 }, got = { 0 };
	struct rec_writer_opts wo = { .force = true };
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
	rec_buf_free(&tap);
	rec_buf_free(&got);
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

static const struct bus_consumer_ops order_ops = { .consume = order_consume };

/* The player feeds every record, in time order across streams, and a jump
 * clears the store and lands where asked. */
START_TEST(player_plays_and_seeks)
{
	char p[512], msg[256];
	struct rec_buf exp = { 0 };
	struct rec_player *pl;
	struct store *st;
	struct bus *b = bus_new();
	struct ring *ring = ring_new(1 << 22);
	struct order_tap tap = { 0 };
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
	ck_assert_uint_le(tap.first_ts, (target > t0 + REC_PLAYER_PREROLL_NS
					     ? target - REC_PLAYER_PREROLL_NS : t0) + 1000000000ull);
	ck_assert_uint_ge(tap.first_ts, t0);
	ck_assert_uint_eq(rec_player_now(pl), target);
	rec_player_stop(pl);
	bus_free(b);
	store_free(st);
	ring_free(ring);
	rec_player_free(pl);
	rec_buf_free(&exp);
}
END_TEST

static Suite *rec_suite(void)
{
	Suite *s = suite_create("rec");
	TCase *tc = tcase_create("format");

	tcase_set_timeout(tc, 120);
	ADD(crc32c_vectors);
	ADD(msgpack_caps);
	ADD(roundtrip_synthetic);
	ADD(exists_needs_force);
	ADD(truncate_every_byte);
	ADD(bitflip_sweep);
	ADD(seek_matches_linear);
	ADD(follow_growing_file);
	ADD(queue_overflow_gap);
	ADD(rotate_segments);
	ADD(time_expressions);
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
	SRunner *sr;
	int failed;

	dir = tl_tmpdir();
	if (!dir) {
		perror("mkdtemp");
		return 99;
	}
	sr = srunner_create(rec_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (!failed) {
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd)) {
			/* leftovers in /tmp are harmless */
		}
	}
	free(dir);
	return failed ? 1 : 0;
}
