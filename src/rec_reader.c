#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zstd.h>

#include "rec_reader.h"
#include "util.h"

#define SCAN_BLOCK 4096u
#define BISECT_STOP (256u << 10)
#define WINDOW (128u << 10)

struct rec_reader {
	int fd;
	uint64_t size, pos, data_start, bytes_read;
	struct rec_file_header hdr;
	struct rec_meta meta;
	struct stream_table *tab;
	int map[STREAM_MAX]; /* file stream id -> table id, -1 unknown */
	struct rec_buf stored, raw, scan;
	uint8_t *win; /* read-ahead window: [win_off, win_off + win_len) */
	uint64_t win_off;
	size_t win_len;
	void *dctx;
	/* trailer */
	bool have_trailer, use_trailer;
	uint64_t trailer_off;
	struct wckpt_r {
		uint64_t off, hwm;
	} *ckpt;
	size_t nckpt;
	uint64_t span[2];
	struct rec_trailer_stream *tstreams;
	size_t ntstreams;
	struct rec_gap_info *tgaps;
	size_t ntgaps;
};

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
static int pread_full(struct rec_reader *r, void *buf, size_t n, uint64_t off)
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

	while (got < n) {
		ssize_t k = pread(r->fd, (uint8_t *)buf + got, n - got, (off_t)(off + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EAGAIN;
		got += (size_t)k;
	}
	r->bytes_read += n;
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

static void add_schemas(struct rec_reader *r, struct mp_cur *c)
{
	uint32_t n;

	if (!mp_array(c, &n))
		return;
	for (uint32_t i = 0; i < n; i++) {
		struct stream_desc d;
		uint32_t id = 0;
		int tid;

		if (rec_schema_decode_one(c, &id, &d))
			return;
		if (r->map[id] < 0) {
			tid = stream_table_add(r->tab, &d);
			r->map[id] = tid >= 0 ? tid : -1;
		}
		rec_schema_desc_free(&d);
	}
}

static void parse_schema(struct rec_reader *r, const uint8_t *p, size_t n)
{
	struct mp_cur c = { p, p + n, false };
	uint32_t m, kl;
	const char *k;

	if (!mp_map(&c, &m))
		return;
	for (uint32_t i = 0; i < m && !c.err; i++) {
		if (!mp_str(&c, &k, &kl))
			return;
		if (mp_key_is(k, kl, "streams"))
			add_schemas(r, &c);
		else
			mp_skip(&c);
	}
}

static void copy_str(struct mp_cur *c, char *dst, size_t n)
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
	struct mp_cur c = { p, p + n, false };
	struct rec_meta m = { 0 };
	uint32_t cnt, kl;
	const char *k;
	uint64_t u;

	if (!mp_map(&c, &cnt))
		return;
	for (uint32_t i = 0; i < cnt && !c.err; i++) {
		if (!mp_str(&c, &k, &kl))
			return;
		if (mp_key_is(k, kl, "host"))
			copy_str(&c, m.host, sizeof(m.host));
		else if (mp_key_is(k, kl, "kernel"))
			copy_str(&c, m.kernel, sizeof(m.kernel));
		else if (mp_key_is(k, kl, "version"))
			copy_str(&c, m.version, sizeof(m.version));
		else if (mp_key_is(k, kl, "command"))
			copy_str(&c, m.command, sizeof(m.command));
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
	m.have = true;
	if (!r->meta.have)
		r->meta = m;
}

/* ---- frames ---- */

static int load_payload(struct rec_reader *r, const struct rec_frame_header *h, uint64_t off,
			const char **why)
{
	int rc;

	r->stored.len = 0;
	if (rec_buf_reserve(&r->stored, h->stored_len ? h->stored_len : 1))
		return -ENOMEM;
	rc = pread_full(r, r->stored.p, h->stored_len, off + REC_FRAME_HDR);
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
	if (rec_buf_reserve(&r->raw, h->raw_len ? h->raw_len : 1))
		return -ENOMEM;
	if (!r->dctx && !(r->dctx = ZSTD_createDCtx()))
		return -ENOMEM;
	{
		size_t z = ZSTD_decompressDCtx(r->dctx, r->raw.p, h->raw_len, r->stored.p,
					       h->stored_len);

		if (ZSTD_isError(z) || z != h->raw_len) {
			*why = "cannot be decompressed";
			return -EBADMSG;
		}
	}
	r->raw.len = h->raw_len;
	return 0;
}

/* Reads and checks the frame header at off. 0, -EAGAIN (not all there yet),
 * -EBADMSG (not a frame). */
static int read_header(struct rec_reader *r, uint64_t off, struct rec_frame_header *h)
{
	uint8_t b[REC_FRAME_HDR];
	int rc;

	if (off + REC_FRAME_HDR > r->size && off + REC_FRAME_HDR > rec_reader_size(r))
		return -EAGAIN;
	rc = pread_full(r, b, sizeof(b), off);
	if (rc)
		return rc;
	return rec_frame_header_decode(b, h);
}

/* The first offset >= from (and < limit) holding a frame header that checks
 * out; limit if none. */
static uint64_t find_frame(struct rec_reader *r, uint64_t from, uint64_t limit)
{
	static const uint8_t sync[4] = { REC_SYNC & 0xff, (REC_SYNC >> 8) & 0xff,
					 (REC_SYNC >> 16) & 0xff, REC_SYNC >> 24 };

	if (limit > r->size)
		limit = r->size;
	if (rec_buf_reserve(&r->scan, SCAN_BLOCK))
		return limit;
	while (from + REC_FRAME_HDR <= limit) {
		size_t n = limit - from < SCAN_BLOCK ? (size_t)(limit - from) : SCAN_BLOCK;
		const uint8_t *p = r->scan.p, *hit;
		struct rec_frame_header h;

		if (pread_full(r, r->scan.p, n, from))
			return limit;
		while ((hit = memmem(p, n - (size_t)(p - r->scan.p), sync, 4))) {
			uint64_t at = from + (uint64_t)(hit - r->scan.p);

			if (at + REC_FRAME_HDR > limit)
				return limit;
			if (read_header(r, at, &h) == 0)
				return at;
			p = hit + 1;
		}
		if (n < 4)
			break;
		from += n - 3; /* a sync word may straddle the block edge */
	}
	return limit;
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
	rc = read_header(r, r->pos, &h);
	if (rc == -EAGAIN) {
		r->win_len = 0; /* the tail may change (a writer cutting back): reread it */
		return -EAGAIN;
	}
	if (rc == -EBADMSG) {
		uint64_t next = find_frame(r, r->pos + 1, r->size);

		it->kind = REC_ITEM_HOLE;
		it->end = next;
		it->why = next >= r->size ? "damaged or zero-filled bytes up to the end of the file"
					  : "damaged bytes";
		r->pos = next;
		return 1;
	}
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
	rc = load_payload(r, &h, r->pos, &why);
	if (rc == -EAGAIN) {
		r->win_len = 0;
		return -EAGAIN;
	}
	if (rc == -ENOMEM)
		return rc;
	r->pos = end;
	if (rc) {
		it->kind = REC_ITEM_HOLE;
		it->why = why ? why : "unreadable frame";
		return 1;
	}
	it->kind = REC_ITEM_FRAME;
	it->payload = h.codec == REC_CODEC_NONE ? r->stored.p : r->raw.p;
	it->len = h.raw_len;
	if (h.type == REC_FT_SCHEMA || h.type == REC_FT_TRAILER)
		parse_schema(r, it->payload, it->len);
	/* the footer only points back at the trailer: nothing more to read */
	if (h.type == REC_FT_TRAILER && r->size - r->pos == REC_FOOTER_LEN)
		r->pos = r->size;
	else if (h.type == REC_FT_META)
		parse_meta(r, it->payload, it->len);
	return 1;
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
	struct map_ctx m = { r, cb, ctx };
	uint32_t sid;

	if (it->kind != REC_ITEM_FRAME || it->h.type != REC_FT_DATA)
		return -EINVAL;
	return rec_data_decode(it->payload, it->len, &sid, map_cb, &m);
}

/* ---- trailer ---- */

static void parse_trailer(struct rec_reader *r, const uint8_t *p, size_t n)
{
	struct mp_cur c = { p, p + n, false };
	uint32_t m, kl, cnt;
	const char *k, *bin;

	if (!mp_map(&c, &m))
		return;
	for (uint32_t i = 0; i < m && !c.err; i++) {
		if (!mp_str(&c, &k, &kl))
			return;
		if (mp_key_is(k, kl, "schemas")) {
			add_schemas(r, &c);
		} else if (mp_key_is(k, kl, "checkpoints")) {
			if (!mp_str(&c, &bin, &kl) || kl % 16)
				return;
			free(r->ckpt);
			r->ckpt = malloc(kl ? kl : 1);
			if (!r->ckpt)
				return;
			memcpy(r->ckpt, bin, kl);
			r->nckpt = kl / 16;
		} else if (mp_key_is(k, kl, "span")) {
			if (!mp_array(&c, &cnt) || cnt != 2 || !mp_uint(&c, &r->span[0]) ||
			    !mp_uint(&c, &r->span[1]))
				return;
		} else if (mp_key_is(k, kl, "streams")) {
			if (!mp_array(&c, &cnt))
				return;
			free(r->tstreams);
			r->ntstreams = 0;
			r->tstreams = calloc(cnt ? cnt : 1, sizeof(*r->tstreams));
			if (!r->tstreams)
				return;
			for (uint32_t s = 0; s < cnt; s++) {
				struct rec_trailer_stream *t = &r->tstreams[r->ntstreams];
				uint32_t five;
				uint64_t id;

				if (!mp_array(&c, &five) || five < 5 || !mp_uint(&c, &id) ||
				    !mp_uint(&c, &t->records) || !mp_uint(&c, &t->samples) ||
				    !mp_uint(&c, &t->t_min) || !mp_uint(&c, &t->t_max))
					return;
				for (uint32_t x = 5; x < five; x++)
					mp_skip(&c);
				if (id < STREAM_MAX && r->map[id] >= 0) {
					t->stream = (uint32_t)r->map[id];
					r->ntstreams++;
				}
			}
		} else if (mp_key_is(k, kl, "gaps")) {
			if (!mp_array(&c, &cnt))
				return;
			free(r->tgaps);
			r->ntgaps = 0;
			r->tgaps = calloc(cnt ? cnt : 1, sizeof(*r->tgaps));
			if (!r->tgaps)
				return;
			for (uint32_t g = 0; g < cnt; g++) {
				struct rec_gap_info *gi = &r->tgaps[g];
				uint32_t three;

				if (!mp_array(&c, &three) || three < 3 || !mp_uint(&c, &gi->t_min) ||
				    !mp_uint(&c, &gi->t_max))
					return;
				copy_str(&c, gi->why, sizeof(gi->why));
				for (uint32_t x = 3; x < three; x++)
					mp_skip(&c);
				r->ntgaps++;
			}
		} else {
			mp_skip(&c);
		}
	}
	if (c.err)
		return;
	/* checkpoints must point inside the data and go forward */
	for (size_t i = 0; i < r->nckpt; i++)
		if (r->ckpt[i].off < r->data_start || r->ckpt[i].off >= r->trailer_off ||
		    (i && (r->ckpt[i].off <= r->ckpt[i - 1].off ||
			   r->ckpt[i].hwm < r->ckpt[i - 1].hwm)))
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
	if (pread_full(r, b, sizeof(b), r->size - REC_FOOTER_LEN) || rec_footer_decode(b, &f))
		return;
	if (f.trailer_off < r->data_start || f.trailer_len < REC_FRAME_OVERHEAD ||
	    f.trailer_off + f.trailer_len != r->size - REC_FOOTER_LEN)
		return;
	if (read_header(r, f.trailer_off, &h) || h.type != REC_FT_TRAILER ||
	    REC_FRAME_OVERHEAD + (uint64_t)h.stored_len != f.trailer_len)
		return;
	if (load_payload(r, &h, f.trailer_off, &why))
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
}

static bool looks_like_frames(struct rec_reader *r)
{
	struct rec_frame_header h;

	return r->size >= REC_HEADER_LEN + REC_FRAME_HDR &&
	       read_header(r, REC_HEADER_LEN, &h) == 0;
}

int rec_reader_open(const char *path, struct rec_reader **out, char *msg, size_t msgn,
		    char *warn, size_t warnn)
{
	struct rec_reader *r;
	struct stat st;
	uint8_t hb[REC_HEADER_LEN];
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
		snprintf(msg, msgn, "%s: not a regular file (a FIFO, socket or device); "
			 "recordings are read from files", path);
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

		rc = pread_full(r, hb, n, 0);
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
	rc = pread_full(r, hb, sizeof(hb), 0);
	if (rc) {
		snprintf(msg, msgn, "%s: cannot read: %s", path, strerror(-rc));
		goto fail;
	}
	rc = rec_header_decode(hb, &r->hdr);
	if (rc == -EPROTONOSUPPORT) {
		snprintf(msg, msgn,
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
	rec_buf_free(&r->stored);
	rec_buf_free(&r->raw);
	rec_buf_free(&r->scan);
	free(r->win);
	ZSTD_freeDCtx(r->dctx);
	free(r->ckpt);
	free(r->tstreams);
	free(r->tgaps);
	free(r);
}

/* ---- seeking ---- */

/* From a frame at or after from, walk forward to the first with hwm >= t. */
static uint64_t scan_to(struct rec_reader *r, uint64_t from, uint64_t t)
{
	uint64_t pos = find_frame(r, from, r->size);
	struct rec_frame_header h;

	while (pos < r->size) {
		int rc = read_header(r, pos, &h);

		if (rc == -EAGAIN)
			return r->size;
		if (rc) {
			pos = find_frame(r, pos + 1, r->size);
			continue;
		}
		if (h.hwm >= t)
			return pos;
		pos += REC_FRAME_OVERHEAD + h.stored_len;
	}
	return r->size;
}

uint64_t rec_reader_seek_time(struct rec_reader *r, uint64_t t)
{
	uint64_t lo = r->data_start, hi;
	struct rec_frame_header h;

	rec_reader_size(r);
	if (r->use_trailer && r->nckpt) {
		size_t a = 0, b = r->nckpt; /* first checkpoint with hwm >= t */

		while (a < b) {
			size_t m = a + (b - a) / 2;

			if (r->ckpt[m].hwm < t)
				a = m + 1;
			else
				b = m;
		}
		return scan_to(r, a ? r->ckpt[a - 1].off : r->data_start, t);
	}
	hi = r->size;
	while (hi - lo > BISECT_STOP) {
		uint64_t mid = lo + (hi - lo) / 2, f = find_frame(r, mid, hi);

		if (f >= hi || read_header(r, f, &h)) {
			hi = mid;
			continue;
		}
		if (h.hwm < t)
			lo = f + REC_FRAME_OVERHEAD + h.stored_len;
		else
			hi = mid;
	}
	return scan_to(r, lo, t);
}

void rec_reader_set_pos(struct rec_reader *r, uint64_t off)
{
	r->pos = off < r->data_start ? r->data_start : off;
}

uint64_t rec_reader_pos(const struct rec_reader *r)
{
	return r->pos;
}

uint64_t rec_reader_data_start(const struct rec_reader *r)
{
	return r->data_start;
}

uint64_t rec_reader_bytes_read(const struct rec_reader *r)
{
	return r->bytes_read;
}

void rec_reader_no_trailer(struct rec_reader *r)
{
	r->use_trailer = false;
}

const struct rec_meta *rec_reader_meta(const struct rec_reader *r)
{
	return &r->meta;
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

size_t rec_reader_trailer_streams(const struct rec_reader *r,
				  const struct rec_trailer_stream **out)
{
	*out = r->tstreams;
	return r->ntstreams;
}

size_t rec_reader_trailer_gaps(const struct rec_reader *r, const struct rec_gap_info **out)
{
	*out = r->tgaps;
	return r->ntgaps;
}

void rec_fmt_time(const struct rec_reader *r, uint64_t t_ns, char *buf, size_t n, bool date)
{
	int64_t wall = (int64_t)t_ns + (r->meta.have ? r->meta.clock_origin_ns : 0);
	time_t s = (time_t)(wall / 1000000000);
	struct tm tm;
	char tmp[32];

	if (!r->meta.have || wall < 0) {
		snprintf(buf, n, "+%.3fs", (double)t_ns / 1e9);
		return;
	}
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
		const struct stream_desc *d = stream_table_get(r->tab, (uint32_t)r->map[it->h.stream]);

		snprintf(buf, n, "bytes %llu-%llu: %s frame %llu of %s: %s; data from %s to %s lost",
			 (unsigned long long)it->off, (unsigned long long)it->end,
			 rec_frame_type_name(it->h.type), (unsigned long long)it->h.seq, d->name,
			 it->why, a, b);
		return;
	}
	snprintf(buf, n, "bytes %llu-%llu: %s frame %llu %s (%s to %s)", (unsigned long long)it->off,
		 (unsigned long long)it->end, rec_frame_type_name(it->h.type),
		 (unsigned long long)it->h.seq, it->why, a, b);
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
	pos = find_frame(r, r->data_start, r->size);
	for (int i = 0; i < 1024 && pos < r->size; i++) {
		if (read_header(r, pos, &h)) {
			pos = find_frame(r, pos + 1, r->size);
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
	pos = find_frame(r, from, r->size);
	while (pos < r->size) {
		if (read_header(r, pos, &h)) {
			pos = find_frame(r, pos + 1, r->size);
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
