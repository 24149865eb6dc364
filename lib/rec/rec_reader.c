/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rec_reader_int.h"
#include "rec_zstd.h"
#include "util.h"

static int pread_direct(struct rec_reader *r, void *buf, size_t n, uint64_t off, size_t *got_out)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = pread(r->fd, (uint8_t *)buf + got, n - got, (off_t)(off + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	*got_out = got;
	return 0;
}

/* Small reads come from a read-ahead window, so walking frames costs one
 * pread per window rather than two per frame. */
int reader_pread(struct rec_reader *r, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;
	int rc;

	if (n <= WINDOW / 4) {
		if (off >= r->win_off && off + n <= r->win_off + r->win_len) {
			memcpy(buf, r->win + (off - r->win_off), n);
			return 0;
		}
		if (!r->win && !(r->win = malloc(WINDOW)))
			return -ENOMEM;
		r->win_len = 0;
		rc = pread_direct(r, r->win, WINDOW, off, &got);
		if (rc)
			return rc;
		r->win_off = off;
		r->win_len = got;
		r->bytes_read += got;
		if (got < n)
			return -EAGAIN;
		memcpy(buf, r->win, n);
		return 0;
	}

	rc = reader_pread_some(r, buf, n, off, &got);
	if (rc)
		return rc;
	return got < n ? -EAGAIN : 0;
}

int reader_pread_some(struct rec_reader *r, void *buf, size_t n, uint64_t off, size_t *got)
{
	int rc = pread_direct(r, buf, n, off, got);

	if (rc)
		return rc;
	r->bytes_read += *got;
	return 0;
}

uint64_t rec_reader_size(struct rec_reader *r)
{
	struct stat st;

	if (fstat(r->fd, &st) == 0)
		r->size = (uint64_t)st.st_size;
	return r->size;
}

/* ---- schemas and meta ---- */

void reader_add_schemas(struct rec_reader *r, struct mp_cur *c)
{
	uint32_t n;

	if (!mp_array(c, &n))
		return;
	for (uint32_t i = 0; i < n; i++) {
		struct stream_desc d;
		uint32_t id = 0;
		int tid, rc = rec_schema_decode_one(c, &id, &d);

		/* a name past the cap: that stream is unknown, its records skipped */
		if (rc == -ENAMETOOLONG)
			continue;
		if (rc)
			return;
		if (r->map[id] < 0) {
			tid = stream_table_add(r->tab, &d);
			r->map[id] = tid >= 0 ? tid : -1;
		}
		rec_schema_desc_free(&d);
	}
}

void reader_parse_schema(struct rec_reader *r, const uint8_t *p, size_t n)
{
	struct mp_cur c = {p, p + n, false};
	uint32_t m, kl;
	const char *k;

	if (!mp_map(&c, &m))
		return;
	for (uint32_t i = 0; i < m && !c.err; i++) {
		if (!mp_str(&c, &k, &kl))
			return;
		if (mp_key_is(k, kl, "streams"))
			reader_add_schemas(r, &c);
		else
			mp_skip(&c);
	}
}

void reader_copy_str(struct mp_cur *c, char *dst, size_t n)
{
	const char *s;
	uint32_t l;

	if (!mp_str(c, &s, &l))
		return;
	if (l >= n)
		l = (uint32_t)n - 1;
	memcpy(dst, s, l);
	dst[l] = 0;
	for (uint32_t i = 0; i < l; i++)
		if ((unsigned char)dst[i] < 0x20)
			dst[i] = '?';
}

static void parse_meta(struct rec_reader *r, const uint8_t *p, size_t n)
{
	struct mp_cur c = {p, p + n, false};
	struct rec_meta m = {0};
	uint32_t cnt, kl;
	const char *k;
	uint64_t u;

	if (!mp_map(&c, &cnt))
		return;
	for (uint32_t i = 0; i < cnt && !c.err; i++) {
		if (!mp_str(&c, &k, &kl))
			return;
		if (mp_key_is(k, kl, "host"))
			reader_copy_str(&c, m.host, sizeof(m.host));
		else if (mp_key_is(k, kl, "kernel"))
			reader_copy_str(&c, m.kernel, sizeof(m.kernel));
		else if (mp_key_is(k, kl, "version"))
			reader_copy_str(&c, m.version, sizeof(m.version));
		else if (mp_key_is(k, kl, "command"))
			reader_copy_str(&c, m.command, sizeof(m.command));
		else if (mp_key_is(k, kl, "clock_origin_ns"))
			mp_int(&c, &m.clock_origin_ns);
		else if (mp_key_is(k, kl, "start_ns"))
			mp_uint(&c, &m.start_ns);
		else if (mp_key_is(k, kl, "segment")) {
			if (mp_uint(&c, &u))
				m.segment = (uint32_t)u;
		} else
			mp_skip(&c);
	}
	if (c.err)
		return;
	/* The first good META wins. When the file's first one was damaged, this
	 * runs on the player thread while the TUI formats times with the meta
	 * (rec_fmt_time): fill it in, then publish it by setting have last. */
	if (!__atomic_load_n(&r->meta.have, __ATOMIC_ACQUIRE)) {
		m.have = false;
		r->meta = m;
		__atomic_store_n(&r->meta.have, true, __ATOMIC_RELEASE);
	}
}

/* ---- frames ---- */

int reader_load_payload(struct rec_reader *r, const struct rec_frame_header *h, uint64_t off,
			const char **why)
{
	int rc;

	if (reader_raw_too_big(h, off)) {
		*why = "declares more unpacked bytes than the frames before it could need";
		return -EBADMSG;
	}
	if (h->type == REC_FT_DATA && r->data_max &&
	    (h->raw_len > r->data_max || h->stored_len > r->data_max)) {
		*why = "unpacks to more than one of several files read together may hold";
		return -EBADMSG;
	}
	r->stored.len = 0;
	if (buf_reserve(&r->stored, h->stored_len ? h->stored_len : 1))
		return -ENOMEM;
	rc = reader_pread(r, r->stored.p, h->stored_len, off + REC_FRAME_HDR);
	if (rc)
		return rc;
	r->stored.len = h->stored_len;
	if (rec_crc32c(0, r->stored.p, h->stored_len) != h->payload_crc) {
		*why = "checksum mismatch";
		return -EBADMSG;
	}
	if (h->codec == REC_CODEC_NONE)
		return 0;
	r->raw.len = 0;
	if (buf_reserve(&r->raw, h->raw_len ? h->raw_len : 1))
		return -ENOMEM;
	if (!r->dctx && !(r->dctx = r->zstd->create_dctx()))
		return -ENOMEM;
	{
		size_t z = r->zstd->decompress_dctx(r->dctx, r->raw.p, h->raw_len, r->stored.p,
						    h->stored_len);

		if (r->zstd->is_error(z) || z != h->raw_len) {
			*why = "cannot be decompressed";
			return -EBADMSG;
		}
	}
	r->raw.len = h->raw_len;
	return 0;
}

/* Reads and checks the frame header at off. 0, -EAGAIN (not all there yet),
 * -EBADMSG (not a frame). */
int reader_read_header(struct rec_reader *r, uint64_t off, struct rec_frame_header *h)
{
	uint8_t b[REC_FRAME_HDR];
	int rc;

	if (off + REC_FRAME_HDR > r->size && off + REC_FRAME_HDR > rec_reader_size(r))
		return -EAGAIN;
	rc = reader_pread(r, b, sizeof(b), off);
	if (rc)
		return rc;
	return rec_frame_header_decode(b, h);
}

/* The first offset >= from (and < limit) holding a frame header that checks
 * out; limit if none. */
uint64_t reader_find_frame(struct rec_reader *r, uint64_t from, uint64_t limit)
{
	static const uint8_t sync[4] = {REC_SYNC & 0xff, (REC_SYNC >> 8) & 0xff,
					(REC_SYNC >> 16) & 0xff, REC_SYNC >> 24};

	if (limit > r->size)
		limit = r->size;
	if (buf_reserve(&r->scan, SCAN_BLOCK))
		return limit;
	while (from + REC_FRAME_HDR <= limit) {
		size_t n = limit - from < SCAN_BLOCK ? (size_t)(limit - from) : SCAN_BLOCK;
		const uint8_t *p = r->scan.p, *hit;
		struct rec_frame_header h;

		if (reader_pread(r, r->scan.p, n, from))
			return limit;
		while ((hit = memmem(p, n - (size_t)(p - r->scan.p), sync, 4))) {
			uint64_t at = from + (uint64_t)(hit - r->scan.p);

			if (at + REC_FRAME_HDR > limit)
				return limit;
			if (reader_read_header(r, at, &h) == 0)
				return at;
			p = hit + 1;
		}
		if (n < 4)
			break;
		from += n - 3; /* a sync word may straddle the block edge */
	}
	return limit;
}

/* No frame header at r->pos: the bytes up to the next one that checks out
 * are a hole. */
static int reader_hole(struct rec_reader *r, struct rec_item *it)
{
	uint64_t next = reader_find_frame(r, r->pos + 1, r->size);

	it->kind = REC_ITEM_HOLE;
	it->end = next;
	it->why = next >= r->size ? "damaged or zero-filled bytes up to the end of the file"
				  : "damaged bytes";
	r->pos = next;
	return 1;
}

/* A frame read whole: the schemas and meta it carries are taken in, and a
 * trailer marks where the frames end. */
static int reader_frame(struct rec_reader *r, struct rec_item *it)
{
	const struct rec_frame_header *h = &it->h;

	it->kind = REC_ITEM_FRAME;
	it->payload = h->codec == REC_CODEC_NONE ? r->stored.p : r->raw.p;
	it->len = h->raw_len;
	if (h->type == REC_FT_SCHEMA || h->type == REC_FT_TRAILER)
		reader_parse_schema(r, it->payload, it->len);
	/* the footer only points back at the trailer: nothing more to read */
	if (h->type == REC_FT_TRAILER) {
		r->trailer_end = r->pos;
		if (r->size - r->pos == REC_FOOTER_LEN)
			r->pos = r->size;
	} else if (h->type == REC_FT_META)
		parse_meta(r, it->payload, it->len);
	return 1;
}

int rec_reader_next(struct rec_reader *r, struct rec_item *it)
{
	struct rec_frame_header h;
	uint64_t end;
	const char *why = NULL;
	int rc;

	memset(it, 0, sizeof(*it));
	it->off = r->pos;
	if (r->pos >= r->size && r->pos >= rec_reader_size(r))
		return 0;
	/* the footer is written after the trailer: it may appear only now */
	if (r->trailer_end && r->pos == r->trailer_end && r->size - r->pos == REC_FOOTER_LEN) {
		r->pos = r->size;
		return 0;
	}
	rc = reader_read_header(r, r->pos, &h);
	if (rc == -EAGAIN) {
		r->win_len = 0; /* the tail may change (a writer cutting back): reread it */
		return -EAGAIN;
	}
	if (rc == -EBADMSG)
		return reader_hole(r, it);
	if (rc)
		return rc;
	end = r->pos + REC_FRAME_OVERHEAD + h.stored_len;
	if (end > r->size && end > rec_reader_size(r)) {
		r->win_len = 0;
		return -EAGAIN;
	}
	it->h = h;
	it->have_header = true;
	it->end = end;
	rc = reader_load_payload(r, &h, r->pos, &why);
	if (rc == -EAGAIN) {
		r->win_len = 0;
		return -EAGAIN;
	}
	if (rc == -ENOMEM)
		return rc;
	r->pos = end;
	if (rc) {
		if (h.type == REC_FT_TRAILER)
			r->trailer_end = r->pos; /* the footer after it is no frame */
		it->kind = REC_ITEM_HOLE;
		it->why = why ? why : "unreadable frame";
		return 1;
	}
	return reader_frame(r, it);
}

struct map_ctx {
	struct rec_reader *r;
	void (*cb)(void *ctx, const struct rec *rec);
	void *ctx;
};

static void map_cb(void *ctx, const struct rec *rec)
{
	struct map_ctx *m = ctx;
	int tid = m->r->map[rec->stream];

	if (tid < 0)
		return;
	((struct rec *)rec)->stream = (uint32_t)tid;
	m->cb(m->ctx, rec);
}

int rec_reader_data(struct rec_reader *r, const struct rec_item *it,
		    void (*cb)(void *ctx, const struct rec *rec), void *ctx)
{
	struct map_ctx m = {r, cb, ctx};
	uint32_t sid;

	if (it->kind != REC_ITEM_FRAME || it->h.type != REC_FT_DATA)
		return -EINVAL;
	return rec_data_decode(it->payload, it->len, &sid, map_cb, &m);
}

int rec_reader_data_begin(struct rec_reader *r, const struct rec_item *it, struct rec_data_cur *cur)
{
	(void)r;
	if (it->kind != REC_ITEM_FRAME || it->h.type != REC_FT_DATA)
		return -EINVAL;
	return rec_data_begin(cur, it->payload, it->len);
}

int rec_reader_data_more(struct rec_reader *r, struct rec_data_cur *cur, size_t max,
			 void (*cb)(void *ctx, const struct rec *rec), void *ctx)
{
	struct map_ctx m = {r, cb, ctx};

	return rec_data_next(cur, max, map_cb, &m);
}
