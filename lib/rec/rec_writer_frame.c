/* SPDX-License-Identifier: GPL-2.0-only */
/* The recorder's frames and segments, on the writer thread: one frame per
 * pwrite, META, SCHEMA, GAP, INDEX, the trailer and footer, and opening and
 * closing segment files. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <msgpack.h>

#include "collector.h"
#include "rec_writer_int.h"
#include "rec_zstd.h"
#include "util.h"

void writer_notify(struct rec_writer *w)
{
	/* a full counter already wakes the reader: EAGAIN loses nothing */
	if (w->event_fd >= 0)
		(void)eventfd_write(w->event_fd, 1);
}

void writer_stats_sync(struct rec_writer *w)
{
	pthread_mutex_lock(&w->slock);
	if (w->stats.paused != w->paused)
		writer_notify(w);
	rec_segment_path(w->stats.path, sizeof(w->stats.path), w->path, w->seg);
	w->stats.file_bytes = w->off;
	w->stats.segment = w->seg;
	w->stats.paused = w->paused;
	pthread_mutex_unlock(&w->slock);
}

static void pack_str(msgpack_packer *pk, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, s ? s : "", n);
}

/* Builds one whole frame in w->fbuf, its payload compressed when that makes
 * it smaller: its length, or -errno. */
ssize_t writer_build_frame(struct rec_writer *w, uint8_t type, uint32_t stream, uint64_t t_min,
			   uint64_t t_max, const uint8_t *raw, size_t raw_len, bool compress)
{
	struct rec_frame_header h = {
	    .type = type, .stream = stream, .t_min = t_min, .t_max = t_max};
	const uint8_t *payload = raw;
	size_t stored = raw_len, flen;

	if (raw_len > REC_MAX_PAYLOAD)
		return -E2BIG;
	if (compress && raw_len > 64) {
		size_t bound = w->zstd->compress_bound(raw_len);

		w->zbuf.len = 0;
		if (!buf_reserve(&w->zbuf, bound)) {
			size_t z =
			    w->zstd->compress_cctx(w->zctx, w->zbuf.p, bound, raw, raw_len,
						   w->opts.zstd_level ? w->opts.zstd_level : 1);

			if (!w->zstd->is_error(z) && z < raw_len) {
				payload = w->zbuf.p;
				stored = z;
				h.codec = REC_CODEC_ZSTD;
			}
		}
	}
	h.seq = w->seq;
	h.hwm = t_max > w->hwm ? t_max : w->hwm;
	h.stored_len = (uint32_t)stored;
	h.raw_len = (uint32_t)raw_len;
	h.payload_crc = rec_crc32c(0, payload, stored);
	flen = REC_FRAME_OVERHEAD + stored;
	w->fbuf.len = 0;
	if (buf_reserve(&w->fbuf, flen))
		return -ENOMEM;
	rec_frame_header_encode(w->fbuf.p, &h);
	memcpy(w->fbuf.p + REC_FRAME_HDR, payload, stored);
	rec_frame_tail_encode(w->fbuf.p + REC_FRAME_HDR + stored, (uint32_t)flen);
	w->fbuf_hwm = h.hwm;
	return (ssize_t)flen;
}

/* A checkpoint where the frame at off begins: the segment's first DATA or
 * GAP frame, then the first that begins REC_CKPT_BYTES or more after the
 * previous checkpoint, or REC_CKPT_EVERY frames after it. As dense as the
 * reader's own checkpoints from a walk at open, so a seek through the
 * trailer reads one region of at most that many bytes past a checkpoint. */
static void writer_checkpoint(struct rec_writer *w, uint64_t hwm)
{
	const struct wckpt *last = w->nckpt ? &w->ckpt[w->nckpt - 1] : NULL;

	if (!last || w->off - last->off >= REC_CKPT_BYTES ||
	    w->seg_frames - w->ckpt_frame >= REC_CKPT_EVERY) {
		if (w->nckpt == w->capckpt) {
			size_t cap = w->capckpt ? w->capckpt * 2 : 256;
			struct wckpt *nc = realloc(w->ckpt, cap * sizeof(*nc));

			if (nc) {
				w->ckpt = nc;
				w->capckpt = cap;
			}
		}
		if (w->nckpt < w->capckpt) {
			w->ckpt[w->nckpt++] = (struct wckpt){w->off, hwm};
			w->ckpt_frame = w->seg_frames;
		}
	}
	w->seg_frames++;
}

/* Writes the frame writer_build_frame made, flen bytes, with one pwrite.
 * On a short write or an error the file is cut back to the last whole
 * frame and recording pauses. */
int writer_write_frame(struct rec_writer *w, uint8_t type, size_t flen)
{
	ssize_t n = pwrite(w->fd, w->fbuf.p, flen, (off_t)w->off);
	int err;

	if (n == (ssize_t)flen) {
		if (type == REC_FT_DATA || type == REC_FT_GAP)
			writer_checkpoint(w, w->fbuf_hwm);
		w->off += flen;
		w->seq++;
		w->hwm = w->fbuf_hwm;
		pthread_mutex_lock(&w->slock);
		w->stats.bytes += flen;
		w->stats.frames++;
		w->stats.error = 0;
		pthread_mutex_unlock(&w->slock);
		return 0;
	}
	err = n < 0 ? errno : ENOSPC;
	/* never leave a partial frame behind: a reader would call it a hole */
	if (ftruncate(w->fd, (off_t)w->off) < 0) {
		/* nothing more to do; the reader will see a cut frame at the end */
	}
	pthread_mutex_lock(&w->slock);
	w->stats.error = err;
	pthread_mutex_unlock(&w->slock);
	return -err;
}

int writer_put_frame(struct rec_writer *w, uint8_t type, uint32_t stream, uint64_t t_min,
		     uint64_t t_max, const uint8_t *raw, size_t raw_len, bool compress)
{
	ssize_t flen = writer_build_frame(w, type, stream, t_min, t_max, raw, raw_len, compress);

	return flen < 0 ? (int)flen : writer_write_frame(w, type, (size_t)flen);
}

static int put_packed(struct rec_writer *w, uint8_t type, uint64_t t_min, uint64_t t_max,
		      bool compress)
{
	if (w->enc.failed)
		return -ENOMEM;
	return writer_put_frame(w, type, REC_NO_STREAM, t_min, t_max, w->enc.p, w->enc.len,
				compress);
}

static int put_meta(struct rec_writer *w)
{
	struct utsname u;
	msgpack_packer pk;
	uint64_t now = w->hwm; /* frames without data do not move the high-water mark */

	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	w->enc.len = 0;
	msgpack_packer_init(&pk, &w->enc, rec_buf_msgpack_write);
	msgpack_pack_map(&pk, 8);
	pack_str(&pk, "host");
	pack_str(&pk, u.nodename);
	pack_str(&pk, "kernel");
	pack_str(&pk, u.release);
	pack_str(&pk, "version");
	pack_str(&pk, PACKAGE_VERSION);
	pack_str(&pk, "clock_origin_ns");
	msgpack_pack_int64(&pk, w->clock_origin_ns);
	pack_str(&pk, "start_ns");
	msgpack_pack_uint64(&pk, w->start_ns);
	pack_str(&pk, "segment");
	msgpack_pack_uint32(&pk, w->seg);
	pack_str(&pk, "command");
	pack_str(&pk, w->command);
	pack_str(&pk, "uuid");
	msgpack_pack_bin(&pk, 16);
	msgpack_pack_bin_body(&pk, w->uuid, 16);
	return put_packed(w, REC_FT_META, now, now, false);
}

/* SCHEMA for streams [from, to) of the table. */
int writer_put_schemas(struct rec_writer *w, uint32_t from, uint32_t to)
{
	msgpack_packer pk;
	uint64_t now = w->hwm;
	char why[256];
	int rc;

	if (from >= to)
		return 0;
	/* a stream met mid-recording with a string a reader would cut is not
	 * written, nor its records (rec_writer_new refuses those of the start,
	 * and the table refuses long names) */
	for (uint32_t i = from; i < to; i++)
		if (rec_schema_check(stream_table_get(w->streams, i), why, sizeof(why)))
			to = i;
	if (from >= to)
		return -ENAMETOOLONG;
	w->enc.len = 0;
	msgpack_packer_init(&pk, &w->enc, rec_buf_msgpack_write);
	msgpack_pack_map(&pk, 1);
	pack_str(&pk, "streams");
	msgpack_pack_array(&pk, to - from);
	for (uint32_t i = from; i < to; i++)
		rec_schema_encode_one(&pk, i, stream_table_get(w->streams, i));
	rc = put_packed(w, REC_FT_SCHEMA, now, now, true);
	if (!rc) {
		w->nschemas = to;
		w->schema_bytes += w->enc.len;
	}
	return rc;
}

/* Whether the file open as fd starts with the recording magic: only what
 * asys wrote is a recording (a text file of root's is not, whatever its
 * name). */
static bool writer_is_recording(int fd)
{
	uint8_t magic[REC_MAGIC_LEN];

	return pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
	       !memcmp(magic, REC_MAGIC, REC_MAGIC_LEN);
}

/* Why the file that lstat gave as *st is not a recording asys may
 * replace, or NULL. Opened only when it is a regular file (opening a
 * device can act on it), with O_NOFOLLOW, and checked to be the same file. */
static const char *writer_not_replaceable(const char *path, const struct stat *st)
{
	struct stat fst;
	const char *why = NULL;
	int fd;

	if (S_ISLNK(st->st_mode))
		return "is a symbolic link";
	if (!S_ISREG(st->st_mode))
		return "is not a regular file";
	if (st->st_uid != getuid())
		return "belongs to another user";
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &fst) < 0 || fst.st_dev != st->st_dev || fst.st_ino != st->st_ino)
		why = "changed while it was checked";
	else if (!writer_is_recording(fd))
		why = "is not an asys recording";
	if (fd >= 0)
		close(fd);
	return why;
}

/* --force replaces only a recording: a regular file of the user's own that
 * starts with the asys header. The name is unlinked only while it still
 * names the file that was checked, so a link, a device (as root,
 * -o /dev/full --force would delete it), a FIFO, a directory, another
 * user's file or any file asys did not write is never removed. */
static int writer_may_replace(const char *path, char *msg, size_t msgn)
{
	struct stat st, now;
	const char *why;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	why = writer_not_replaceable(path, &st);
	if (!why && (lstat(path, &now) < 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino))
		why = "changed while it was checked";
	if (why) {
		snprintf(msg, msgn,
			 "%s %s: --force replaces only an asys recording of your own; "
			 "choose another name or remove the file yourself",
			 path, why);
		return -EPERM;
	}
	if (unlink(path) < 0 && errno != ENOENT) {
		snprintf(msg, msgn, "cannot replace %s: %s", path, strerror(errno));
		return -errno;
	}
	return 0;
}

static int writer_create(struct rec_writer *w, const char *path, char *msg, size_t msgn)
{
	int rc;

	if (w->opts.force && (rc = writer_may_replace(path, msg, msgn)) < 0) {
		if (!*msg)
			snprintf(msg, msgn, "cannot replace %s: %s", path, strerror(-rc));
		return rc;
	}
	w->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (w->fd >= 0)
		return 0;
	rc = -errno;
	if (errno == EEXIST)
		snprintf(msg, msgn, "%s already exists: choose another name or add --force", path);
	else
		snprintf(msg, msgn, "cannot create %s: %s", path, strerror(errno));
	return rc;
}

int writer_open_segment(struct rec_writer *w, char *msg, size_t msgn)
{
	char path[4096];
	uint8_t hdr[REC_HEADER_LEN];
	struct rec_file_header h = {.major = REC_MAJOR, .minor = REC_MINOR, .segment = w->seg};
	int rc;

	msg[0] = '\0';
	rec_segment_path(path, sizeof(path), w->path, w->seg);
	rc = writer_create(w, path, msg, msgn);
	if (rc)
		return rc;
	memcpy(h.uuid, w->uuid, 16);
	h.created_ns = util_now_ns(CLOCK_REALTIME);
	rec_header_encode(hdr, &h);
	errno = 0;
	if (pwrite(w->fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr)) {
		rc = errno ? -errno : -ENOSPC;
		goto fail;
	}
	w->off = REC_HEADER_LEN;
	w->hwm = 0;
	w->seg_frames = 0;
	w->ckpt_frame = 0;
	w->nckpt = 0;
	w->ckpt_indexed = 0;
	w->ngaps = 0;
	w->nschemas = 0;
	w->schema_bytes = 0;
	w->seg_start_ns = asys_now_ns();
	w->last_sticky_ns = w->seg_start_ns;
	memset(w->sstat, 0, sizeof(w->sstat));
	rc = put_meta(w);
	if (!rc)
		rc = writer_put_schemas(w, 0, stream_table_count(w->streams));
	if (rc)
		goto fail;
	writer_stats_sync(w);
	return 0;
fail:
	/* a file without its header and schemas is no recording: leave no
	 * empty file behind to make the retry fail with "already exists" */
	snprintf(msg, msgn, "cannot write %s: %s", path, strerror(-rc));
	close(w->fd);
	w->fd = -1;
	unlink(path);
	return rc;
}

/* The segment's totals over the streams that wrote records. */
struct trailer_sum {
	uint64_t t0, t1, recs, samples;
	uint32_t nst;
};

/* The span is the high-water mark when no stream wrote a record. */
static void trailer_sum(const struct rec_writer *w, struct trailer_sum *t)
{
	*t = (struct trailer_sum){.t0 = UINT64_MAX};
	for (uint32_t s = 0; s < STREAM_MAX; s++) {
		if (!w->sstat[s].records)
			continue;
		t->nst++;
		t->recs += w->sstat[s].records;
		t->samples += w->sstat[s].samples;
		if (w->sstat[s].t_min < t->t0)
			t->t0 = w->sstat[s].t_min;
		if (w->sstat[s].t_max > t->t1)
			t->t1 = w->sstat[s].t_max;
	}
	if (t->t0 > t->t1)
		t->t0 = t->t1 = w->hwm;
}

/* "streams": [id, records, samples, t_min, t_max] for each that wrote
 * records; "gaps": [t_min, t_max, why] each. */
static void pack_trailer_lists(msgpack_packer *pk, const struct rec_writer *w, uint32_t nst)
{
	pack_str(pk, "streams");
	msgpack_pack_array(pk, nst);
	for (uint32_t s = 0; s < STREAM_MAX; s++) {
		if (!w->sstat[s].records)
			continue;
		msgpack_pack_array(pk, 5);
		msgpack_pack_uint32(pk, s);
		msgpack_pack_uint64(pk, w->sstat[s].records);
		msgpack_pack_uint64(pk, w->sstat[s].samples);
		msgpack_pack_uint64(pk, w->sstat[s].t_min);
		msgpack_pack_uint64(pk, w->sstat[s].t_max);
	}
	pack_str(pk, "gaps");
	msgpack_pack_array(pk, w->ngaps);
	for (size_t i = 0; i < w->ngaps; i++) {
		msgpack_pack_array(pk, 3);
		msgpack_pack_uint64(pk, w->gaps[i].t_min);
		msgpack_pack_uint64(pk, w->gaps[i].t_max);
		pack_str(pk, w->gaps[i].why);
	}
}

/* The footer after the trailer at toff points back at it. */
static void put_footer(struct rec_writer *w, uint64_t toff)
{
	uint8_t foot[REC_FOOTER_LEN];

	rec_footer_encode(foot, &(struct rec_footer){toff, (uint32_t)(w->off - toff)});
	if (pwrite(w->fd, foot, sizeof(foot), (off_t)w->off) == (ssize_t)sizeof(foot)) {
		w->off += sizeof(foot);
		pthread_mutex_lock(&w->slock);
		w->stats.bytes += sizeof(foot);
		pthread_mutex_unlock(&w->slock);
	} else if (ftruncate(w->fd, (off_t)w->off) < 0) {
		/* a reader falls back to bisecting */
	}
}

static void put_trailer(struct rec_writer *w)
{
	msgpack_packer pk;
	struct trailer_sum t;
	uint64_t toff = w->off;

	trailer_sum(w, &t);
	w->enc.len = 0;
	msgpack_packer_init(&pk, &w->enc, rec_buf_msgpack_write);
	msgpack_pack_map(&pk, 8);
	pack_str(&pk, "schemas");
	msgpack_pack_array(&pk, w->nschemas);
	for (uint32_t i = 0; i < w->nschemas; i++)
		rec_schema_encode_one(&pk, i, stream_table_get(w->streams, i));
	pack_str(&pk, "checkpoints");
	msgpack_pack_bin(&pk, w->nckpt * 16);
	msgpack_pack_bin_body(&pk, w->ckpt, w->nckpt * 16);
	pack_str(&pk, "frames");
	msgpack_pack_uint64(&pk, w->seg_frames);
	pack_str(&pk, "records");
	msgpack_pack_uint64(&pk, t.recs);
	pack_str(&pk, "samples");
	msgpack_pack_uint64(&pk, t.samples);
	pack_str(&pk, "span");
	msgpack_pack_array(&pk, 2);
	msgpack_pack_uint64(&pk, t.t0);
	msgpack_pack_uint64(&pk, t.t1);
	pack_trailer_lists(&pk, w, t.nst);
	if (put_packed(w, REC_FT_TRAILER, t.t0, t.t1 > t.t0 ? t.t1 : t.t0, true))
		return;
	put_footer(w, toff);
}

uint64_t writer_trailer_bound(const struct rec_writer *w)
{
	/* the trailer repeats the schemas and the checkpoints, and has a list
	 * entry per stream (5 integers of at most 9 bytes) and per gap; it is
	 * bounded before compression, which only shrinks it */
	uint64_t b = w->schema_bytes + 16 * (uint64_t)w->nckpt + 64u * w->nschemas;

	for (size_t i = 0; i < w->ngaps; i++)
		b += 32 + strlen(w->gaps[i].why);
	return b + 256 + REC_FRAME_OVERHEAD + REC_FOOTER_LEN;
}

void writer_close_segment(struct rec_writer *w)
{
	if (w->fd < 0)
		return;
	if (!w->paused)
		put_trailer(w);
	fdatasync(w->fd);
	close(w->fd);
	w->fd = -1;
}

static void note_gap(struct rec_writer *w, uint64_t t_min, uint64_t t_max, const char *why)
{
	if (w->ngaps == w->capgaps) {
		size_t cap = w->capgaps ? w->capgaps * 2 : 16;
		struct wgap_note *ng = realloc(w->gaps, cap * sizeof(*ng));

		if (!ng)
			return;
		w->gaps = ng;
		w->capgaps = cap;
	}
	w->gaps[w->ngaps].t_min = t_min;
	w->gaps[w->ngaps].t_max = t_max;
	util_strlcpy(w->gaps[w->ngaps].why, why, sizeof(w->gaps[0].why));
	w->ngaps++;
}

int writer_put_gap(struct rec_writer *w, uint64_t t_min, uint64_t t_max, const char *why)
{
	msgpack_packer pk;
	int rc;

	if (t_min > t_max)
		t_min = t_max;
	w->enc.len = 0;
	msgpack_packer_init(&pk, &w->enc, rec_buf_msgpack_write);
	msgpack_pack_map(&pk, 1);
	pack_str(&pk, "why");
	pack_str(&pk, why);
	rc = put_packed(w, REC_FT_GAP, t_min, t_max, false);
	if (!rc)
		note_gap(w, t_min, t_max, why);
	return rc;
}

void writer_put_index(struct rec_writer *w)
{
	msgpack_packer pk;
	size_t n = w->nckpt - w->ckpt_indexed;

	if (!n)
		return;
	w->enc.len = 0;
	msgpack_packer_init(&pk, &w->enc, rec_buf_msgpack_write);
	msgpack_pack_map(&pk, 1);
	pack_str(&pk, "checkpoints");
	msgpack_pack_bin(&pk, n * 16);
	msgpack_pack_bin_body(&pk, w->ckpt + w->ckpt_indexed, n * 16);
	if (!put_packed(w, REC_FT_INDEX, w->hwm, w->hwm, true))
		w->ckpt_indexed = w->nckpt;
}
