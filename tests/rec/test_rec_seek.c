/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* Seeking through the trailer: the writer's checkpoints are as dense as the
 * reader's own from a walk at open, a seek reads one region past its
 * checkpoint rather than a chain of headers, and a trailer with sparser
 * checkpoints (as older writers spaced them) still seeks exactly. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <msgpack.h>

#include "rec_testlib.h"
#include "rec_check.h"

#define MAXF 20000
#define CKPT_BYTES (64u << 10)
#define CKPT_FRAMES 16
/* Small frames: one region up to the next checkpoint's header, at most 64
 * KiB past a checkpoint and the frame there (not a 128 KiB read-ahead
 * window). Big frames: at most 128 KiB of them, and one header past. */
#define SEEK_READ_SMALL ((64u << 10) + 2 * REC_FRAME_HDR)
#define SEEK_READ_MAX ((128u << 10) + 2 * REC_FRAME_HDR)

static char *dir;
static struct tl_frame fr[MAXF];

struct ckpt {
	uint64_t off, hwm;
};

/* The file's bytes, and a copy of its TRAILER frame's payload. */
static void *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	void *p;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	rewind(f);
	p = malloc(*n ? *n : 1);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(fread(p, 1, *n, f), *n);
	fclose(f);
	return p;
}

static uint8_t *trailer_payload(const char *path, struct rec_frame_header *h, uint64_t *off,
				size_t *len)
{
	struct rec_reader *r;
	struct rec_item it;
	char msg[256];
	uint8_t *p = NULL;

	ck_assert_int_eq(rec_reader_open(path, &r, msg, sizeof(msg), NULL, 0), 0);
	while (rec_reader_next(r, &it) == 1)
		if (it.kind == REC_ITEM_FRAME && it.h.type == REC_FT_TRAILER) {
			p = malloc(it.len);
			ck_assert_ptr_nonnull(p);
			memcpy(p, it.payload, it.len);
			*len = it.len;
			*h = it.h;
			*off = it.off;
		}
	rec_reader_free(r);
	ck_assert_ptr_nonnull(p);
	return p;
}

static const msgpack_object *map_get(const msgpack_object *m, const char *key)
{
	for (uint32_t i = 0; i < m->via.map.size; i++) {
		const msgpack_object_kv *kv = &m->via.map.ptr[i];

		if (kv->key.type == MSGPACK_OBJECT_STR && kv->key.via.str.size == strlen(key) &&
		    !memcmp(kv->key.via.str.ptr, key, strlen(key)))
			return &kv->val;
	}
	return NULL;
}

/* The trailer's checkpoints; their number. */
static size_t trailer_ckpts(const char *path, struct ckpt **out)
{
	struct rec_frame_header h;
	uint64_t off;
	size_t len, n;
	uint8_t *p = trailer_payload(path, &h, &off, &len);
	msgpack_unpacked u;
	const msgpack_object *c;

	msgpack_unpacked_init(&u);
	ck_assert_int_eq(msgpack_unpack_next(&u, (const char *)p, len, NULL),
			 MSGPACK_UNPACK_SUCCESS);
	ck_assert_int_eq(u.data.type, MSGPACK_OBJECT_MAP);
	c = map_get(&u.data, "checkpoints");
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->type, MSGPACK_OBJECT_BIN);
	ck_assert_uint_eq(c->via.bin.size % 16, 0);
	n = c->via.bin.size / 16;
	*out = malloc(n ? c->via.bin.size : 1);
	ck_assert_ptr_nonnull(*out);
	memcpy(*out, c->via.bin.ptr, c->via.bin.size);
	msgpack_unpacked_destroy(&u);
	free(p);
	return n;
}

/* The checkpoints the writer promises: the first DATA or GAP frame, then the
 * first that begins 64 KiB or more after the previous one, or 16 DATA or GAP
 * frames after it. */
static void check_dense(const char *path, size_t nf)
{
	struct ckpt *c;
	size_t n = trailer_ckpts(path, &c), k = 0, since = 0;
	uint64_t last = 0;

	for (size_t i = 0; i < nf; i++) {
		if (fr[i].type != REC_FT_DATA && fr[i].type != REC_FT_GAP)
			continue;
		if (k == 0 || fr[i].off - last >= CKPT_BYTES || since >= CKPT_FRAMES) {
			REQUIRE(k < n, "%s: %zu checkpoints, frame at %llu should be one", path, n,
				(unsigned long long)fr[i].off);
			REQUIRE(c[k].off == fr[i].off, "%s: checkpoint %zu at %llu, expected %llu",
				path, k, (unsigned long long)c[k].off,
				(unsigned long long)fr[i].off);
			last = fr[i].off;
			since = 0;
			k++;
		}
		since++;
	}
	ck_assert_uint_eq(k, n);
	free(c);
}

static uint64_t linear_seek(size_t nf, uint64_t t, uint64_t size)
{
	for (size_t i = 0; i < nf; i++)
		if (fr[i].t_max >= t)
			return fr[i].off;
	return size;
}

/* Seeks at every frame edge and at random times match a linear scan; the
 * most bytes one seek read. */
static uint64_t seeks_exact(const char *path, size_t nf)
{
	struct rec_reader *r;
	char msg[256];
	uint64_t rng = 5, worst = 0, size;

	ck_assert_int_eq(rec_reader_open(path, &r, msg, sizeof(msg), NULL, 0), 0);
	ck_assert(rec_reader_has_trailer(r));
	size = rec_reader_size(r);
	for (size_t i = 0; i < nf + 400; i++) {
		uint64_t t = tl_seek_target(fr, nf, i, &rng), got, before;

		before = rec_reader_bytes_read(r);
		got = rec_reader_seek_time(r, t);
		if (rec_reader_bytes_read(r) - before > worst)
			worst = rec_reader_bytes_read(r) - before;
		REQUIRE(got == linear_seek(nf, t, size), "%s t %llu: seek %llu, linear %llu", path,
			(unsigned long long)t, (unsigned long long)got,
			(unsigned long long)linear_seek(nf, t, size));
	}
	rec_reader_free(r);
	return worst;
}

/* Small frames (2 KiB chunks: 16 frames per checkpoint) and big ones (each
 * past 64 KiB: every frame a checkpoint). */
START_TEST(checkpoints_dense_seek_one_region)
{
	static const size_t chunk[] = {2048, 1u << 20};
	static const uint64_t recs[] = {150000, 600000};

	for (int k = 0; k < 2; k++) {
		char p[512];
		size_t nf;
		uint64_t worst, big = 0;

		snprintf(p, sizeof(p), "%s/dense%d.asys", dir, k);
		ck_assert_int_eq(tl_write(p, recs[k], chunk[k], 20000, NULL), 0);
		nf = tl_frames(p, fr, MAXF);
		ck_assert_uint_gt(nf, 40);
		for (size_t i = 0; i < nf; i++)
			if (fr[i].type == REC_FT_DATA && fr[i].end - fr[i].off > CKPT_BYTES)
				big++;
		if (k == 1)
			ck_assert_uint_gt(big, 20);
		check_dense(p, nf);
		worst = seeks_exact(p, nf);
		REQUIRE(worst <= (k ? SEEK_READ_MAX : SEEK_READ_SMALL),
			"%s: a seek read %llu bytes", p, (unsigned long long)worst);
	}
}
END_TEST

/* The file with its trailer rewritten keeping every keep-th checkpoint. */
static void thin_trailer(const char *path, const char *out, size_t keep)
{
	struct rec_frame_header h;
	uint64_t toff;
	size_t len, n, fn;
	uint8_t *p = trailer_payload(path, &h, &toff, &len), *file = slurp(path, &fn), *frame;
	msgpack_sbuffer sb;
	msgpack_packer pk;
	msgpack_unpacked u;
	uint8_t foot[REC_FOOTER_LEN];
	FILE *f;

	msgpack_unpacked_init(&u);
	ck_assert_int_eq(msgpack_unpack_next(&u, (const char *)p, len, NULL),
			 MSGPACK_UNPACK_SUCCESS);
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, u.data.via.map.size);
	for (uint32_t i = 0; i < u.data.via.map.size; i++) {
		const msgpack_object_kv *kv = &u.data.via.map.ptr[i];

		msgpack_pack_object(&pk, kv->key);
		if (kv->val.type != MSGPACK_OBJECT_BIN) {
			msgpack_pack_object(&pk, kv->val);
			continue;
		}
		n = kv->val.via.bin.size / 16;
		msgpack_pack_bin(&pk, (n + keep - 1) / keep * 16);
		for (size_t c = 0; c < n; c += keep)
			msgpack_pack_bin_body(&pk, kv->val.via.bin.ptr + c * 16, 16);
	}
	h.codec = REC_CODEC_NONE;
	h.stored_len = h.raw_len = (uint32_t)sb.size;
	h.payload_crc = rec_crc32c(0, sb.data, sb.size);
	frame = malloc(REC_FRAME_OVERHEAD + sb.size);
	ck_assert_ptr_nonnull(frame);
	rec_frame_header_encode(frame, &h);
	memcpy(frame + REC_FRAME_HDR, sb.data, sb.size);
	rec_frame_tail_encode(frame + REC_FRAME_HDR + sb.size,
			      (uint32_t)(REC_FRAME_OVERHEAD + sb.size));
	rec_footer_encode(foot,
			  &(struct rec_footer){toff, (uint32_t)(REC_FRAME_OVERHEAD + sb.size)});
	f = fopen(out, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(file, 1, toff, f), toff);
	ck_assert_uint_eq(fwrite(frame, 1, REC_FRAME_OVERHEAD + sb.size, f),
			  REC_FRAME_OVERHEAD + sb.size);
	ck_assert_uint_eq(fwrite(foot, 1, sizeof(foot), f), sizeof(foot));
	ck_assert_int_eq(fclose(f), 0);
	free(frame);
	msgpack_sbuffer_destroy(&sb);
	msgpack_unpacked_destroy(&u);
	free(file);
	free(p);
}

/* Checkpoints further apart than a region (every 16th frame of 2 KiB
 * chunks thinned to every 32nd of those, and every 16th of big frames):
 * seeks walk the rest header by header and stay exact. */
START_TEST(sparse_checkpoints_still_exact)
{
	static const size_t chunk[] = {2048, 1u << 20};
	static const uint64_t recs[] = {150000, 600000};

	for (int k = 0; k < 2; k++) {
		char p[512], q[512];
		struct ckpt *c;
		size_t nf, n;

		snprintf(p, sizeof(p), "%s/sparse%d.asys", dir, k);
		snprintf(q, sizeof(q), "%s/sparse%d-thin.asys", dir, k);
		ck_assert_int_eq(tl_write(p, recs[k], chunk[k], 20000, NULL), 0);
		thin_trailer(p, q, k ? 16 : 32);
		n = trailer_ckpts(q, &c);
		ck_assert_uint_gt(n, 2);
		ck_assert_uint_gt(c[1].off - c[0].off, SEEK_READ_MAX);
		free(c);
		nf = tl_frames(q, fr, MAXF);
		ck_assert_uint_gt(nf, 40);
		seeks_exact(q, nf);
	}
}
END_TEST

static Suite *seek_suite(void)
{
	Suite *s = suite_create("rec_seek");
	TCase *tc = tcase_create("seek");

	tcase_set_timeout(tc, 120);
	ADD(checkpoints_dense_seek_one_region);
	ADD(sparse_checkpoints_still_exact);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rec_check_main(seek_suite, &dir);
}
