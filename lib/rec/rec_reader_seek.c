/* SPDX-License-Identifier: GPL-2.0-only */
/* The reader's seeking: from a checkpoint (the trailer's, or one the walk at
 * open left) to the first frame with hwm >= t, or by bisecting the bytes a
 * growing file added after the walk. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rec_reader_int.h"

/* Checkpoints lie at most 64 KiB apart plus the last frame before the next
 * one (the writer's REC_CKPT_BYTES, the walk at open's REC_SCAN_CKPT_BYTES).
 * A seek reads the bytes up to the next checkpoint's header with one pread
 * when they are at most SEEK_REGION_MAX, and decodes the headers in them in
 * memory; further apart, the last frame is a big one: it reads the first
 * SEEK_REGION bytes, which hold the headers of all the frames that start in
 * them, and the header after the big frame alone. A file whose checkpoints
 * are further apart (16 frames, from writers that spaced them by frames
 * only) is still sought exactly, the rest read header by header. */
#define SEEK_REGION ((64u << 10) + REC_FRAME_HDR)
#define SEEK_REGION_MAX ((128u << 10) + REC_FRAME_HDR)

struct seek_region {
	const uint8_t *p;
	uint64_t off;
	size_t len;
};

/* The header at off: from the region when it lies inside it; past it, after
 * a big frame, alone (a 24-byte read rather than a 128 KiB read-ahead
 * window that would hold only it), else through the window, which then
 * holds the small frames after it too. */
static int seek_header(struct rec_reader *r, const struct seek_region *g, uint64_t off,
		       uint32_t prev_len, struct rec_frame_header *h)
{
	uint8_t b[REC_FRAME_HDR];
	size_t got;
	int rc;

	if (g->p && off >= g->off && off - g->off + REC_FRAME_HDR <= g->len)
		return rec_frame_header_decode(g->p + (off - g->off), h);
	if (prev_len < WINDOW / 4)
		return reader_read_header(r, off, h);
	if (off + REC_FRAME_HDR > r->size && off + REC_FRAME_HDR > rec_reader_size(r))
		return -EAGAIN;
	rc = reader_pread_some(r, b, sizeof(b), off, &got);
	if (rc)
		return rc;
	return got < sizeof(b) ? -EAGAIN : rec_frame_header_decode(b, h);
}

/* From a frame at or after from, walk forward to the first with hwm >= t.
 * limit is where the next checkpoint lies (or the end of the data): the
 * region read at once ends there. */
static uint64_t scan_to(struct rec_reader *r, uint64_t from, uint64_t limit, uint64_t t)
{
	struct seek_region g = {NULL, from, 0};
	struct rec_frame_header h;
	uint64_t pos = from;
	uint32_t prev_len = 0;
	size_t n = SEEK_REGION;

	if (limit > from && limit - from + REC_FRAME_HDR <= SEEK_REGION_MAX)
		n = (size_t)(limit - from) + REC_FRAME_HDR;
	r->region.len = 0;
	if (from < r->size && !buf_reserve(&r->region, n) &&
	    !reader_pread_some(r, r->region.p, n, from, &g.len))
		g.p = r->region.p;
	while (pos < r->size) {
		int rc = seek_header(r, &g, pos, prev_len, &h);

		if (rc == -EAGAIN)
			return r->size;
		if (rc) {
			pos = reader_find_frame(r, pos + 1, r->size);
			prev_len = 0;
			continue;
		}
		if (h.hwm >= t)
			return pos;
		pos += REC_FRAME_OVERHEAD + h.stored_len;
		prev_len = h.stored_len;
	}
	return r->size;
}

/* The first checkpoint with hwm >= t (n when none). */
static size_t ckpt_search(const struct wckpt_r *c, size_t n, uint64_t t)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (c[m].hwm < t)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

uint64_t rec_reader_seek_time(struct rec_reader *r, uint64_t t)
{
	uint64_t lo = r->data_start, hi;
	struct rec_frame_header h;

	rec_reader_size(r);
	if (r->use_trailer && r->nckpt) {
		size_t a = ckpt_search(r->ckpt, r->nckpt, t);

		return scan_to(r, a ? r->ckpt[a - 1].off : r->data_start,
			       a < r->nckpt ? r->ckpt[a].off : r->trailer_off, t);
	}
	if (r->nsckpt) {
		size_t a = ckpt_search(r->sckpt, r->nsckpt, t);

		if (a < r->nsckpt)
			return scan_to(r, a ? r->sckpt[a - 1].off : r->data_start, r->sckpt[a].off,
				       t);
		/* past what the walk at open saw (the file grew): bisect the rest */
		lo = r->sckpt[r->nsckpt - 1].off;
	}
	hi = r->size;
	while (hi - lo > BISECT_STOP) {
		uint64_t mid = lo + (hi - lo) / 2, f = reader_find_frame(r, mid, hi);

		if (f >= hi || reader_read_header(r, f, &h)) {
			hi = mid;
			continue;
		}
		if (h.hwm < t)
			lo = f + REC_FRAME_OVERHEAD + h.stored_len;
		else
			hi = mid;
	}
	return scan_to(r, lo, hi, t);
}
