/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
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

#include <msgpack.h>

#include "collector.h"
#include "rec_export.h"
#include "rec_player.h"
#include "session.h"
#include "rec_testlib.h"
#include "rec_check.h"

static char *dir;

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

static void same_records(const struct buf *a, const struct buf *b)
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
	static const uint8_t big[] = {0xdd, 0xff, 0xff, 0xff, 0xff, 0x01};
	uint8_t deep[400];
	struct mp_cur c = {big, big + sizeof(big), false};
	uint32_t n;

	ck_assert(!mp_array(&c, &n));
	memset(deep, 0x91, sizeof(deep)); /* [[[[...]]]] far past the depth cap */
	deep[sizeof(deep) - 1] = 0x01;
	c = (struct mp_cur){deep, deep + sizeof(deep), false};
	ck_assert(!mp_skip(&c));
	/* a str that claims more bytes than are left */
	c = (struct mp_cur){(const uint8_t *)"\xdb\x00\x00\x10\x00xx",
			    (const uint8_t *)"\xdb\x00\x00\x10\x00xx" + 7, false};
	ck_assert(!mp_skip(&c));
}
END_TEST

START_TEST(roundtrip_synthetic)
{
	char p[512];
	struct buf exp = {0}, got = {0};
	uint64_t holes;

	path_in(p, sizeof(p), "rt.asys");
	ck_assert_int_eq(tl_write(p, 20000, 4096, 3000, &exp), 0);
	ck_assert_int_eq(tl_read_all(p, &got, &holes), 0);
	ck_assert_uint_eq(holes, 0);
	same_records(&exp, &got);
	buf_free(&exp);
	buf_free(&got);
}
END_TEST

static void pack_str(msgpack_packer *pk, const char *s)
{
	msgpack_pack_str(pk, strlen(s));
	msgpack_pack_str_body(pk, s, strlen(s));
}

static int decode_schema(const struct buf *b, uint32_t *id, struct stream_desc *d)
{
	struct mp_cur c = {b->p, b->p + b->len, false};

	return rec_schema_decode_one(&c, id, d);
}

START_TEST(schema_display_roundtrip)
{
	static const struct field_desc f[] = {
	    {.name = "cu",
	     .unit = "%",
	     .group = "compute",
	     .label = "CU act",
	     .display = "CU Active",
	     .show = FIELD_SHOW_PERCENT},
	    {.name = "rd", .unit = "byte/second", .group = "io", .show = FIELD_SHOW_BYTE_RATE},
	    FIELD_DESC("plain", "B", FIELD_COUNTER),
	};
	const struct stream_desc d = {"t.meta", 1, ENTITY_DEVICE, 3, f, "help", .rate_hz = 0};
	struct stream_table *t = stream_table_new();
	struct buf b = {0};
	struct stream_desc got;
	msgpack_packer pk;
	uint32_t id = 0;

	msgpack_packer_init(&pk, &b, rec_buf_msgpack_write);
	rec_schema_encode_one(&pk, 3, &d);
	ck_assert_int_eq(decode_schema(&b, &id, &got), 0);
	ck_assert_uint_eq(id, 3);
	ck_assert_uint_eq(got.nfields, 3);
	ck_assert_str_eq(got.fields[0].group, "compute");
	ck_assert_str_eq(got.fields[0].label, "CU act");
	ck_assert_str_eq(got.fields[0].display, "CU Active");
	ck_assert_int_eq(got.fields[0].show, FIELD_SHOW_PERCENT);
	ck_assert_str_eq(got.fields[1].group, "io");
	ck_assert_ptr_null(got.fields[1].label);
	ck_assert_ptr_null(got.fields[1].display);
	ck_assert_int_eq(got.fields[1].show, FIELD_SHOW_BYTE_RATE);
	ck_assert_ptr_null(got.fields[2].group);
	ck_assert_int_eq(got.fields[2].show, FIELD_SHOW_AUTO);
	ck_assert_int_eq(got.fields[2].kind, FIELD_COUNTER);
	/* what was written and what was read are the same stream */
	ck_assert_int_eq(stream_table_add(t, &d), 0);
	ck_assert_int_eq(stream_table_add(t, &got), 0);
	ck_assert_str_eq(stream_table_get(t, 0)->fields[0].label, "CU act");
	rec_schema_desc_free(&got);
	stream_table_free(t);
	buf_free(&b);
}
END_TEST

/* A field as written before display metadata, and one from a later writer
 * with keys and a way of showing this build does not know. */
START_TEST(schema_without_display_keys)
{
	struct buf b = {0};
	struct stream_desc got;
	msgpack_packer pk;
	uint32_t id = 9;

	msgpack_packer_init(&pk, &b, rec_buf_msgpack_write);
	msgpack_pack_map(&pk, 3);
	pack_str(&pk, "id");
	msgpack_pack_uint32(&pk, 0);
	pack_str(&pk, "name");
	pack_str(&pk, "ppu.metrics");
	pack_str(&pk, "fields");
	msgpack_pack_array(&pk, 2);
	msgpack_pack_array(&pk, 3);
	pack_str(&pk, "cu__cycles_active.avg.pct_of_peak_sustained_elapsed");
	pack_str(&pk, "%");
	msgpack_pack_uint8(&pk, FIELD_GAUGE);
	msgpack_pack_array(&pk, 5);
	pack_str(&pk, "later");
	pack_str(&pk, "byte");
	msgpack_pack_uint8(&pk, FIELD_GAUGE);
	msgpack_pack_map(&pk, 3);
	pack_str(&pk, "colour");
	msgpack_pack_array(&pk, 2);
	msgpack_pack_uint8(&pk, 1);
	msgpack_pack_uint8(&pk, 2);
	pack_str(&pk, "show");
	pack_str(&pk, "sparkle");
	pack_str(&pk, "group");
	pack_str(&pk, "memory");
	pack_str(&pk, "a fifth element");
	ck_assert_int_eq(decode_schema(&b, &id, &got), 0);
	ck_assert_uint_eq(id, 0);
	ck_assert_uint_eq(got.nfields, 2);
	ck_assert_ptr_null(got.fields[0].label);
	ck_assert_ptr_null(got.fields[0].group);
	ck_assert_str_eq(field_label(&got.fields[0]), got.fields[0].name);
	ck_assert_str_eq(field_group(&got.fields[0]), "");
	ck_assert_int_eq(field_show_of(&got.fields[0]), FIELD_SHOW_PERCENT);
	ck_assert_str_eq(got.fields[1].group, "memory");
	ck_assert_int_eq(got.fields[1].show, FIELD_SHOW_AUTO);
	ck_assert_int_eq(field_show_of(&got.fields[1]), FIELD_SHOW_BYTES);
	rec_schema_desc_free(&got);
	buf_free(&b);
}
END_TEST

/* Through a whole file: the writer records the metadata, the reader gives
 * it back; a recording made before it existed still opens. */
START_TEST(schema_display_in_file)
{
	const char *src = getenv("top_srcdir");
	const struct stream_desc *d;
	struct rec_reader *r;
	char p[512], msg[256];
	int id;

	path_in(p, sizeof(p), "meta.asys");
	ck_assert_int_eq(tl_write(p, 200, 4096, 0, NULL), 0);
	ck_assert_int_eq(rec_reader_open(p, &r, msg, sizeof(msg), NULL, 0), 0);
	id = stream_table_find(rec_reader_streams(r), "syn.a");
	ck_assert_int_ge(id, 0);
	d = stream_table_get(rec_reader_streams(r), (uint32_t)id);
	ck_assert_str_eq(d->fields[0].label, "pwr");
	ck_assert_str_eq(d->fields[0].group, "power");
	ck_assert_str_eq(d->fields[0].display, "Power draw");
	ck_assert_int_eq(d->fields[0].show, FIELD_SHOW_COUNT);
	ck_assert_ptr_null(d->fields[1].label);
	rec_reader_free(r);
	if (!src)
		return;
	snprintf(p, sizeof(p), "%s/tests/data/good.asys", src);
	ck_assert_int_eq(rec_reader_open(p, &r, msg, sizeof(msg), NULL, 0), 0);
	id = stream_table_find(rec_reader_streams(r), "syn.a");
	ck_assert_int_ge(id, 0);
	d = stream_table_get(rec_reader_streams(r), (uint32_t)id);
	ck_assert_ptr_null(d->fields[0].label);
	ck_assert_str_eq(field_label(&d->fields[0]), "g1");
	rec_reader_free(r);
}
END_TEST

START_TEST(exists_needs_force)
{
	char p[512], msg[256];
	struct stream_table *t = tl_table();
	struct rec_writer_opts o = {0};
	struct stat st;
	int err = 0;
	struct rec_writer *w;
	FILE *f;

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
	/* a file of one's own that asys did not write is no recording */
	path_in(p, sizeof(p), "notes.txt");
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs("keep me\n", f);
	fclose(f);
	w = rec_writer_new(t, &o, &err, msg, sizeof(msg));
	ck_assert_ptr_null(w);
	ck_assert_int_eq(err, -EPERM);
	ck_assert_ptr_nonnull(strstr(msg, "is not an asys recording"));
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_size, 8);
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
			bool seen[256] = {false};
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
				REQUIRE(k < nf,
					"flip %zu.%d: a frame at %llu that was never "
					"written",
					byte, bit, (unsigned long long)it.off);
				REQUIRE(rec_crc32c(0, it.payload, it.len) == fr[k].crc,
					"flip %zu.%d: frame %zu read back changed", byte, bit, k);
				seen[k] = true;
			}
			for (size_t k = 0; k < nf; k++) {
				bool inside = byte >= fr[k].off && byte < fr[k].end;

				REQUIRE(seen[k] || inside, "flip %zu.%d: frame %zu lost", byte, bit,
					k);
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
			uint64_t t = tl_seek_target(fr, nf, i, &rng), got, before;

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
		REQUIRE(worst < size / (mode ? 2 : 8), "mode %d: a seek read %llu of %llu bytes",
			mode, (unsigned long long)worst, (unsigned long long)size);
	}
	rec_reader_free(r);

	/* The same file cut before its trailer, as a killed recorder leaves it:
	 * the seek checkpoints come from the walk over the frames at open. */
	{
		char pc[512];
		size_t n, nc = nf;
		uint64_t cut = size, worst = 0;
		void *buf = slurp(p, &n);

		for (size_t i = 0; i < nf; i++)
			if (fr[i].type == REC_FT_TRAILER) {
				cut = fr[i].off;
				nc = i;
				break;
			}
		ck_assert_uint_lt(cut, size);
		path_in(pc, sizeof(pc), "seek-cut.asys");
		spit(pc, buf, cut);
		free(buf);
		ck_assert_int_eq(rec_reader_open(pc, &r, msg, sizeof(msg), NULL, 0), 0);
		ck_assert(!rec_reader_has_trailer(r));
		for (size_t i = 0; i < nc + 400; i++) {
			uint64_t t = tl_seek_target(fr, nc, i, &rng), got, before;

			before = rec_reader_bytes_read(r);
			got = rec_reader_seek_time(r, t);
			if (rec_reader_bytes_read(r) - before > worst)
				worst = rec_reader_bytes_read(r) - before;
			REQUIRE(got == linear_seek(fr, nc, t, cut),
				"cut t %llu: seek %llu, linear %llu", (unsigned long long)t,
				(unsigned long long)got,
				(unsigned long long)linear_seek(fr, nc, t, cut));
		}
		/* a checkpoint every 64 KiB: a seek reads about one window */
		REQUIRE(worst < cut / 8, "cut: a seek read %llu of %llu bytes",
			(unsigned long long)worst, (unsigned long long)cut);
		rec_reader_free(r);
	}
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

/* Times past 64-bit nanoseconds are refused with -ERANGE, never wrapped
 * or cast out of range (the sanitizer build aborts on either). */
START_TEST(time_out_of_range)
{
	static const char *const far[] = {"2300-01-01 00:00:00", "+1e300s", "-1e300s", "+99999999h",
					  "1800-01-01 00:00:00"};
	uint64_t t0 = 1000000000000ull, t1 = t0 + 600000000000ull, out = 0;
	int64_t origin = 1764424800ll * 1000000000 - (int64_t)t0, wall;
	char buf[64];

	for (size_t i = 0; i < sizeof(far) / sizeof(far[0]); i++)
		ck_assert_msg(rec_parse_time(far[i], origin, t0, t1, t0, t1, &out) == -ERANGE, "%s",
			      far[i]);
	ck_assert_int_eq(rec_parse_time("12:00:00.9e99", origin, t0, t1, t0, t1, &out), -EINVAL);
	ck_assert_int_eq(rec_parse_time("+nan", origin, t0, t1, t0, t1, &out), -EINVAL);
	/* a forged clock origin: no first day to put a time of day on */
	ck_assert_int_eq(rec_parse_time("12:00:00", INT64_MAX, t0, t1, t0, t1, &out), -ERANGE);
	ck_assert_int_eq(rec_parse_time("+1s", origin, t0, UINT64_MAX, UINT64_MAX - 1, t1, &out),
			 -ERANGE);
	ck_assert_int_eq(rec_parse_time("100%", origin, 0, UINT64_MAX, 0, 0, &out), 0);
	ck_assert_uint_eq(out, UINT64_MAX);
	ck_assert(!rec_wall_ns(INT64_MAX, 1, &wall));
	ck_assert(!rec_wall_ns(INT64_MIN, 1, &wall));
	ck_assert(!rec_wall_ns(0, UINT64_MAX, &wall));
	ck_assert(rec_wall_ns(origin, t0, &wall) && wall == 1764424800ll * 1000000000);
	rec_time_range(buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "2262-04-11"));
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
	ADD(schema_display_roundtrip);
	ADD(schema_without_display_keys);
	ADD(schema_display_in_file);
	ADD(exists_needs_force);
	ADD(truncate_every_byte);
	ADD(bitflip_sweep);
	ADD(seek_matches_linear);
	ADD(time_expressions);
	ADD(time_out_of_range);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rec_check_main(rec_suite, &dir);
}
