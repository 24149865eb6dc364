/* SPDX-License-Identifier: GPL-2.0-only */
/* The reader's opening (header, trailer, head frames), seeking, and the
 * words it uses to describe holes and times. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rec_export.h"
#include "rec_reader_int.h"
#include "rec_zstd.h"
#include "util.h"

/* ---- trailer ---- */

/* The smallest encodings, so a count the payload cannot hold is refused
 * before anything is allocated: [id, records, samples, t_min, t_max] and
 * [t_min, t_max, why] of single-byte items. */
#define TRAILER_STREAM_MIN_BYTES 6
#define TRAILER_GAP_MIN_BYTES 4

/* At most one entry per stream is kept, whatever the trailer declares. */
static bool trailer_streams(struct rec_reader *r, struct mp_cur *c)
{
	uint32_t cnt;

	if (!mp_array_min(c, &cnt, TRAILER_STREAM_MIN_BYTES))
		return false;
	free(r->tstreams);
	r->ntstreams = 0;
	r->tstreams = calloc(cnt < STREAM_MAX ? (cnt ? cnt : 1) : STREAM_MAX, sizeof(*r->tstreams));
	if (!r->tstreams)
		return false;
	for (uint32_t s = 0; s < cnt; s++) {
		struct rec_trailer_stream t;
		uint32_t five;
		uint64_t id;

		if (!mp_array(c, &five) || five < 5 || !mp_uint(c, &id) ||
		    !mp_uint(c, &t.records) || !mp_uint(c, &t.samples) || !mp_uint(c, &t.t_min) ||
		    !mp_uint(c, &t.t_max))
			return false;
		for (uint32_t x = 5; x < five; x++)
			mp_skip(c);
		if (id < STREAM_MAX && r->map[id] >= 0 && r->ntstreams < STREAM_MAX) {
			t.stream = (uint32_t)r->map[id];
			r->tstreams[r->ntstreams++] = t;
		}
	}
	return true;
}

/* The first REC_READER_GAPS_MAX gaps are kept; the rest are only counted. */
static bool trailer_gaps(struct rec_reader *r, struct mp_cur *c)
{
	uint32_t cnt;

	if (!mp_array_min(c, &cnt, TRAILER_GAP_MIN_BYTES))
		return false;
	free(r->tgaps);
	r->ntgaps = 0;
	r->ntgaps_declared = cnt;
	r->tgaps = calloc(cnt < REC_READER_GAPS_MAX ? (cnt ? cnt : 1) : REC_READER_GAPS_MAX,
			  sizeof(*r->tgaps));
	if (!r->tgaps)
		return false;
	for (uint32_t g = 0; g < cnt; g++) {
		struct rec_gap_info gi = {0};
		uint32_t three;

		if (!mp_array(c, &three) || three < 3 || !mp_uint(c, &gi.t_min) ||
		    !mp_uint(c, &gi.t_max))
			return false;
		reader_copy_str(c, gi.why, sizeof(gi.why));
		for (uint32_t x = 3; x < three; x++)
			mp_skip(c);
		if (r->ntgaps < REC_READER_GAPS_MAX)
			r->tgaps[r->ntgaps++] = gi;
	}
	return !c->err;
}

static bool trailer_item(struct rec_reader *r, struct mp_cur *c, const char *k, uint32_t kl)
{
	uint32_t cnt;
	const char *bin;

	if (mp_key_is(k, kl, "schemas")) {
		reader_add_schemas(r, c);
	} else if (mp_key_is(k, kl, "checkpoints")) {
		/* a copy no larger than the payload that holds it */
		if (!mp_str(c, &bin, &kl) || kl % 16)
			return false;
		free(r->ckpt);
		r->ckpt = malloc(kl ? kl : 1);
		if (!r->ckpt)
			return false;
		memcpy(r->ckpt, bin, kl);
		r->nckpt = kl / 16;
	} else if (mp_key_is(k, kl, "span")) {
		if (!mp_array(c, &cnt) || cnt != 2 || !mp_uint(c, &r->span[0]) ||
		    !mp_uint(c, &r->span[1]))
			return false;
	} else if (mp_key_is(k, kl, "streams")) {
		return trailer_streams(r, c);
	} else if (mp_key_is(k, kl, "gaps")) {
		return trailer_gaps(r, c);
	} else {
		mp_skip(c);
	}
	return !c->err;
}

static void parse_trailer(struct rec_reader *r, const uint8_t *p, size_t n)
{
	struct mp_cur c = {p, p + n, false};
	uint32_t m, kl;
	const char *k;

	if (!mp_map(&c, &m))
		return;
	for (uint32_t i = 0; i < m && !c.err; i++)
		if (!mp_str(&c, &k, &kl) || !trailer_item(r, &c, k, kl))
			return;
	if (c.err)
		return;
	/* checkpoints must point inside the data and go forward */
	for (size_t i = 0; i < r->nckpt; i++)
		if (r->ckpt[i].off < r->data_start || r->ckpt[i].off >= r->trailer_off ||
		    (i &&
		     (r->ckpt[i].off <= r->ckpt[i - 1].off || r->ckpt[i].hwm < r->ckpt[i - 1].hwm)))
			return;
	r->have_trailer = r->use_trailer = true;
}

static void load_trailer(struct rec_reader *r)
{
	uint8_t b[REC_FOOTER_LEN];
	struct rec_footer f;
	struct rec_frame_header h;
	const char *why;

	if (r->size < r->data_start + REC_FRAME_OVERHEAD + REC_FOOTER_LEN)
		return;
	if (reader_pread(r, b, sizeof(b), r->size - REC_FOOTER_LEN) || rec_footer_decode(b, &f))
		return;
	if (f.trailer_off < r->data_start || f.trailer_len < REC_FRAME_OVERHEAD ||
	    f.trailer_off + f.trailer_len != r->size - REC_FOOTER_LEN)
		return;
	if (reader_read_header(r, f.trailer_off, &h) || h.type != REC_FT_TRAILER ||
	    REC_FRAME_OVERHEAD + (uint64_t)h.stored_len != f.trailer_len)
		return;
	if (reader_raw_too_big(&h, f.trailer_off))
		return; /* read without it */
	if (reader_load_payload(r, &h, f.trailer_off, &why))
		return;
	r->trailer_off = f.trailer_off;
	parse_trailer(r, h.codec == REC_CODEC_NONE ? r->stored.p : r->raw.p, h.raw_len);
}

/* META and SCHEMA come first: read up to the first DATA frame. */
static void load_head(struct rec_reader *r)
{
	struct rec_item it;

	for (int i = 0; i < 64; i++) {
		if (rec_reader_next(r, &it) != 1)
			break;
		if (it.kind == REC_ITEM_FRAME && it.h.type == REC_FT_DATA)
			break;
	}
	r->pos = r->data_start;
	/* the first DATA frame was read to find where the head ends: its
	 * bytes are not kept, so that files opened together (a merge) do not
	 * each hold one before rec_reader_set_data_max applies */
	if (r->raw.cap > REC_DATA_MAX_MIN)
		buf_free(&r->raw);
	if (r->stored.cap > REC_DATA_MAX_MIN)
		buf_free(&r->stored);
}

/* One seek checkpoint per this much file, from the walk at open: a seek
 * then reads a few headers, not a bisection's 128 KiB windows (a 1 GiB file
 * without trailer: p99 21-39 ms that way). */
#define REC_SCAN_CKPT_BYTES (64u << 10)

static void scan_ckpt(struct rec_reader *r, uint64_t off, uint64_t hwm)
{
	struct wckpt_r *last = r->nsckpt ? &r->sckpt[r->nsckpt - 1] : NULL;

	/* kept sparse, and monotonic for the binary search (a damaged frame
	 * may carry any hwm: skip it) */
	if (last && (off - last->off < REC_SCAN_CKPT_BYTES || hwm < last->hwm))
		return;
	if (r->nsckpt == r->capsckpt) {
		size_t cap = r->capsckpt ? r->capsckpt * 2 : 256;
		struct wckpt_r *n = realloc(r->sckpt, cap * sizeof(*n));

		if (!n)
			return; /* seeks fall back to bisecting */
		r->sckpt = n;
		r->capsckpt = cap;
	}
	r->sckpt[r->nsckpt++] = (struct wckpt_r){off, hwm};
}

/* Without a trailer, a stream that first appears mid-recording has its
 * SCHEMA frame there. Register them all now, by walking the frame headers
 * and reading only SCHEMA payloads, so the stream table is whole before
 * anything plays or selects streams by name. A file that grows later may
 * still add streams as they are read (the table allows that). The walk also
 * leaves seek checkpoints. */
static void scan_schemas(struct rec_reader *r)
{
	struct rec_frame_header h = {0};
	uint64_t off = r->data_start;
	uint8_t b[REC_FRAME_HDR];
	const char *why;
	int rc;

	while (off + REC_FRAME_HDR <= r->size) {
		/* after a big frame, read just the header, not a read-ahead window */
		if (h.stored_len < WINDOW / 4)
			rc = reader_read_header(r, off, &h);
		else if (pread(r->fd, b, sizeof(b), (off_t)off) == (ssize_t)sizeof(b))
			rc = rec_frame_header_decode(b, &h);
		else
			rc = -EAGAIN;
		if (rc == -EBADMSG) {
			off = reader_find_frame(r, off + 1, r->size);
			continue;
		}
		if (rc)
			break;
		scan_ckpt(r, off, h.hwm);
		if (h.type == REC_FT_SCHEMA && off + REC_FRAME_OVERHEAD + h.stored_len <= r->size &&
		    reader_load_payload(r, &h, off, &why) == 0)
			reader_parse_schema(r, h.codec == REC_CODEC_NONE ? r->stored.p : r->raw.p,
					    h.raw_len);
		off += REC_FRAME_OVERHEAD + h.stored_len;
	}
	r->win_len = 0; /* a growing tail is read afresh */
}

static bool looks_like_frames(struct rec_reader *r)
{
	struct rec_frame_header h;

	return r->size >= REC_HEADER_LEN + REC_FRAME_HDR &&
	       reader_read_header(r, REC_HEADER_LEN, &h) == 0;
}

int rec_reader_open(const char *path, struct rec_reader **out, char *msg, size_t msgn, char *warn,
		    size_t warnn)
{
	struct rec_reader *r;
	struct stat st;
	uint8_t hb[REC_HEADER_LEN];
	const char *why = NULL;
	int rc;

	*out = NULL;
	if (warn && warnn)
		*warn = 0;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->tab = stream_table_new())) {
		free(r);
		snprintf(msg, msgn, "out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < STREAM_MAX; i++)
		r->map[i] = -1;
	r->fd = -1;
	/* every frame of a recording may be compressed: without the library
	 * none could be read, so say so once, here, not once a frame */
	if (!(r->zstd = rec_zstd(&why))) {
		rc = -ELIBACC;
		snprintf(msg, msgn, "%s", why);
		goto fail;
	}
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->fd < 0) {
		rc = -errno;
		if (errno == ENOENT)
			snprintf(msg, msgn, "%s: no such file", path);
		else if (errno == EACCES)
			snprintf(msg, msgn, "%s: permission denied (check the file's mode)", path);
		else
			snprintf(msg, msgn, "%s: cannot open: %s", path, strerror(errno));
		goto fail;
	}
	if (fstat(r->fd, &st) < 0) {
		rc = -errno;
		snprintf(msg, msgn, "%s: cannot stat: %s", path, strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = -EISDIR;
		snprintf(msg, msgn, "%s: is a directory, not a recording", path);
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		snprintf(msg, msgn,
			 "%s: not a regular file (a FIFO, socket or device); "
			 "recordings are read from files",
			 path);
		goto fail;
	}
	fcntl(r->fd, F_SETFL, 0);
	r->size = (uint64_t)st.st_size;
	r->data_start = REC_HEADER_LEN;
	r->pos = REC_HEADER_LEN;
	if (r->size == 0) {
		rc = -ENODATA;
		snprintf(msg, msgn, "%s: empty file, no recording in it", path);
		goto fail;
	}
	if (r->size < REC_HEADER_LEN) {
		size_t n = (size_t)r->size;

		rc = reader_pread(r, hb, n, 0);
		if (!rc && !memcmp(hb, REC_MAGIC, n < REC_MAGIC_LEN ? n : REC_MAGIC_LEN)) {
			rc = -ENODATA;
			snprintf(msg, msgn, "%s: cut short inside the file header, no data in it",
				 path);
		} else {
			rc = -EPROTO;
			snprintf(msg, msgn, "%s: not an asys recording (no ASYS header)", path);
		}
		goto fail;
	}
	rc = reader_pread(r, hb, sizeof(hb), 0);
	if (rc) {
		snprintf(msg, msgn, "%s: cannot read: %s", path, strerror(-rc));
		goto fail;
	}
	rc = rec_header_decode(hb, &r->hdr);
	if (rc == -EPROTONOSUPPORT) {
		snprintf(
		    msg, msgn,
		    "%s: written in format %u.%u by a newer asys; this asys reads format %d.x: "
		    "upgrade asys",
		    path, r->hdr.major, r->hdr.minor, REC_MAJOR);
		goto fail;
	}
	if (rc == -EPROTO && !looks_like_frames(r)) {
		snprintf(msg, msgn, "%s: not an asys recording (no ASYS header)", path);
		goto fail;
	}
	if (rc && warn)
		snprintf(warn, warnn, "%s: file header damaged; reading the frames anyway", path);
	load_trailer(r);
	load_head(r);
	if (!r->have_trailer)
		scan_schemas(r);
	*out = r;
	return 0;
fail:
	rec_reader_free(r);
	return rc;
}

void rec_reader_free(struct rec_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	stream_table_free(r->tab);
	buf_free(&r->stored);
	buf_free(&r->raw);
	buf_free(&r->scan);
	buf_free(&r->region);
	free(r->win);
	if (r->zstd)
		r->zstd->free_dctx(r->dctx);
	free(r->ckpt);
	free(r->sckpt);
	free(r->tstreams);
	free(r->tgaps);
	free(r);
}

void rec_reader_set_pos(struct rec_reader *r, uint64_t off)
{
	r->pos = off < r->data_start ? r->data_start : off;
}

uint64_t rec_reader_pos(const struct rec_reader *r)
{
	return r->pos;
}

uint64_t rec_reader_bytes_read(const struct rec_reader *r)
{
	return r->bytes_read;
}

void rec_reader_no_trailer(struct rec_reader *r)
{
	r->use_trailer = false;
}

void rec_reader_set_data_max(struct rec_reader *r, size_t bytes)
{
	r->data_max = bytes < REC_DATA_MAX_MIN ? REC_DATA_MAX_MIN : bytes;
}

const struct rec_meta *rec_reader_meta(const struct rec_reader *r)
{
	return &r->meta;
}

const struct rec_file_header *rec_reader_header(const struct rec_reader *r)
{
	return &r->hdr;
}

const struct stream_table *rec_reader_streams(const struct rec_reader *r)
{
	return r->tab;
}

bool rec_reader_has_trailer(const struct rec_reader *r)
{
	return r->have_trailer;
}

bool rec_reader_span(const struct rec_reader *r, uint64_t *t_min, uint64_t *t_max)
{
	if (!r->have_trailer)
		return false;
	*t_min = r->span[0];
	*t_max = r->span[1];
	return true;
}

void rec_fmt_time(const struct rec_reader *r, uint64_t t_ns, char *buf, size_t n, bool date)
{
	/* the player thread may publish the meta meanwhile (rec_reader.c) */
	bool have = __atomic_load_n(&r->meta.have, __ATOMIC_ACQUIRE);
	int64_t wall;
	time_t s;
	struct tm tm;
	char tmp[32];

	if (!have || !rec_wall_ns(r->meta.clock_origin_ns, t_ns, &wall)) {
		snprintf(buf, n, "+%.3fs", (double)t_ns / 1e9);
		return;
	}
	s = (time_t)(wall / 1000000000);
	localtime_r(&s, &tm);
	strftime(tmp, sizeof(tmp), date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm);
	snprintf(buf, n, "%s.%03d", tmp, (int)(wall % 1000000000 / 1000000));
}

void rec_hole_describe(const struct rec_reader *r, const struct rec_item *it, char *buf, size_t n)
{
	char a[40], b[40];

	if (!it->have_header) {
		snprintf(buf, n, "bytes %llu-%llu: %s%s", (unsigned long long)it->off,
			 (unsigned long long)it->end, it->why,
			 it->end >= r->size ? "" : "; skipped to the next frame");
		return;
	}
	rec_fmt_time(r, it->h.t_min, a, sizeof(a), false);
	rec_fmt_time(r, it->h.t_max, b, sizeof(b), false);
	if (it->h.type == REC_FT_DATA && it->h.stream < STREAM_MAX && r->map[it->h.stream] >= 0) {
		const struct stream_desc *d =
		    stream_table_get(r->tab, (uint32_t)r->map[it->h.stream]);

		snprintf(buf, n,
			 "bytes %llu-%llu: %s frame %llu of %s: %s; data from %s to %s lost",
			 (unsigned long long)it->off, (unsigned long long)it->end,
			 rec_frame_type_name(it->h.type), (unsigned long long)it->h.seq, d->name,
			 it->why, a, b);
		return;
	}
	snprintf(buf, n, "bytes %llu-%llu: %s frame %llu %s (%s to %s)",
		 (unsigned long long)it->off, (unsigned long long)it->end,
		 rec_frame_type_name(it->h.type), (unsigned long long)it->h.seq, it->why, a, b);
}

int rec_reader_time_bounds(struct rec_reader *r, uint64_t *t0, uint64_t *t1)
{
	struct rec_frame_header h;
	uint64_t pos, from;
	bool found = false;

	if (rec_reader_span(r, t0, t1))
		return 0;
	rec_reader_size(r);
	*t0 = UINT64_MAX;
	*t1 = 0;
	/* the first DATA frame starts it (within the first few frames) */
	pos = reader_find_frame(r, r->data_start, r->size);
	for (int i = 0; i < 1024 && pos < r->size; i++) {
		if (reader_read_header(r, pos, &h)) {
			pos = reader_find_frame(r, pos + 1, r->size);
			continue;
		}
		if (h.type == REC_FT_DATA) {
			*t0 = h.t_min;
			found = true;
			break;
		}
		pos += REC_FRAME_OVERHEAD + h.stored_len;
	}
	/* the high-water mark of the last frame ends it: walk the last few MiB */
	from = r->size > (4u << 20) + r->data_start ? r->size - (4u << 20) : r->data_start;
	pos = reader_find_frame(r, from, r->size);
	while (pos < r->size) {
		if (reader_read_header(r, pos, &h)) {
			pos = reader_find_frame(r, pos + 1, r->size);
			continue;
		}
		if (h.type == REC_FT_DATA || h.type == REC_FT_GAP)
			*t1 = h.hwm;
		pos += REC_FRAME_OVERHEAD + h.stored_len;
	}
	if (!found || *t1 < *t0) {
		*t0 = *t1 = 0;
		return -ENODATA;
	}
	return 0;
}
