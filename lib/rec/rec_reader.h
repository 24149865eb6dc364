/* SPDX-License-Identifier: GPL-2.0-only */
/* The .asys reader. The file is untrusted: every length is checked against
 * the file size before anything is allocated, CRCs are checked before any
 * parsing, msgpack is read with caps, a bad stretch becomes a reported hole
 * and reading resyncs on the next sync word. A file that ends inside a frame
 * is "more to come" (-EAGAIN), so a file still being written can be
 * followed. Memory stays bounded by the largest frame (64 MiB cap). */
#ifndef ASYS_REC_READER_H
#define ASYS_REC_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rec_format.h"
#include "record.h"
#include "stream.h"

struct rec_reader;

struct rec_meta {
	bool have;
	char host[256];
	char kernel[128];
	char version[64];
	char command[1024];
	int64_t clock_origin_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC at the start */
	uint64_t start_ns;
	uint32_t segment;
};

enum rec_item_kind {
	REC_ITEM_FRAME = 1,
	REC_ITEM_HOLE = 2,
};

struct rec_item {
	enum rec_item_kind kind;
	uint64_t off, end;	   /* bytes [off, end) */
	struct rec_frame_header h; /* FRAME; HOLE too when have_header */
	bool have_header;
	const char *why;	/* HOLE: what was wrong */
	const uint8_t *payload; /* FRAME: decoded payload, valid until the next call */
	size_t len;
};

struct rec_trailer_stream {
	uint32_t stream; /* table id */
	uint64_t records, samples, t_min, t_max;
};

/* Bounds on what a file can make the reader keep (doc/asys-file-format.md,
 * "Reader's bounds"): the trailer's gap list is kept up to this many
 * entries, its per-stream list up to one per stream; every other count is
 * refused when the payload is too short to hold it. */
#define REC_READER_GAPS_MAX 1024

struct rec_gap_info {
	uint64_t t_min, t_max;
	char why[96];
};

/* 0, or -errno with msg set to one line ("not an asys recording", ...).
 * warn (may be NULL) gets a non-fatal note such as a damaged header. */
int rec_reader_open(const char *path, struct rec_reader **out, char *msg, size_t msgn, char *warn,
		    size_t warnn);
void rec_reader_free(struct rec_reader *r);

/* 1 with an item; 0 at a clean end; -EAGAIN when the file ends inside a
 * frame (cut, or still being written: call again later); -ENOMEM. */
int rec_reader_next(struct rec_reader *r, struct rec_item *it);
/* Decodes a DATA frame's records, stream ids mapped to the reader's table;
 * records of streams without a schema are skipped. 0 or -EBADMSG. */
int rec_reader_data(struct rec_reader *r, const struct rec_item *it,
		    void (*cb)(void *ctx, const struct rec *rec), void *ctx);
/* The same in batches of at most max records (rec_data_next): the frame's
 * payload stays valid until the next rec_reader_next. */
int rec_reader_data_begin(struct rec_reader *r, const struct rec_item *it,
			  struct rec_data_cur *cur);
int rec_reader_data_more(struct rec_reader *r, struct rec_data_cur *cur, size_t max,
			 void (*cb)(void *ctx, const struct rec *rec), void *ctx);

/* Offset of the first frame whose t_max >= t (file size if none), through
 * the trailer's checkpoints or by bisecting on sync words. */
uint64_t rec_reader_seek_time(struct rec_reader *r, uint64_t t_ns);
void rec_reader_set_pos(struct rec_reader *r, uint64_t off);
uint64_t rec_reader_pos(const struct rec_reader *r);
uint64_t rec_reader_size(struct rec_reader *r); /* refreshed */
/* Bytes read from the file so far (for tests of the seek cost). */
uint64_t rec_reader_bytes_read(const struct rec_reader *r);
void rec_reader_no_trailer(struct rec_reader *r); /* tests: force bisecting */
/* The largest DATA frame this reader unpacks (the format allows 64 MiB):
 * readers open together (a merge) share one frame's memory. A larger frame
 * is refused as damaged. bytes is raised to REC_DATA_MAX_MIN, above what
 * asys writes (chunks close at 1 MiB). */
#define REC_DATA_MAX_MIN (2u << 20)
void rec_reader_set_data_max(struct rec_reader *r, size_t bytes);

const struct rec_meta *rec_reader_meta(const struct rec_reader *r);
/* The file header as decoded (uuid, segment): a damaged one may hold anything. */
const struct rec_file_header *rec_reader_header(const struct rec_reader *r);
const struct stream_table *rec_reader_streams(const struct rec_reader *r);
/* The trailer, when the file has a whole one. */
bool rec_reader_has_trailer(const struct rec_reader *r);
bool rec_reader_span(const struct rec_reader *r, uint64_t *t_min, uint64_t *t_max);

/* First and last sample times: the trailer's, or the first DATA frame and
 * the last frames' high-water mark (a growing file: call again later).
 * 0 or -ENODATA. */
int rec_reader_time_bounds(struct rec_reader *r, uint64_t *t0, uint64_t *t1);

/* One line about a hole: "bytes 100-300 damaged (DATA frame 12 of cpu.core,
 * 14:03:10.200-14:03:10.450 lost): checksum mismatch". */
void rec_hole_describe(const struct rec_reader *r, const struct rec_item *it, char *buf, size_t n);
/* "2026-11-29 14:03:10.200" in local time, from a monotonic stamp. */
void rec_fmt_time(const struct rec_reader *r, uint64_t t_ns, char *buf, size_t n, bool date);

#endif
