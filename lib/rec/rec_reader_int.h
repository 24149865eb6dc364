/* SPDX-License-Identifier: GPL-2.0-only */
/* Internal to the reader (rec_reader.c, rec_reader_open.c). */
#ifndef ASYS_REC_READER_INT_H
#define ASYS_REC_READER_INT_H

#include "rec_reader.h"

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
	struct buf stored, raw, scan;
	struct buf region;    /* a seek's bytes past its checkpoint */
	uint64_t trailer_end; /* just after a TRAILER frame read by next() */
	uint8_t *win;	      /* read-ahead window: [win_off, win_off + win_len) */
	uint64_t win_off;
	size_t win_len;
	const struct rec_zstd_api *zstd; /* loaded at open */
	void *dctx;
	/* trailer */
	bool have_trailer, use_trailer;
	uint64_t trailer_off;
	struct wckpt_r {
		uint64_t off, hwm;
	} * ckpt;
	size_t nckpt;
	/* without a trailer: checkpoints taken while scan_schemas walked the
	 * frames at open, one per REC_SCAN_CKPT_BYTES */
	struct wckpt_r *sckpt;
	size_t nsckpt, capsckpt;
	uint64_t span[2];
	struct rec_trailer_stream *tstreams;
	size_t ntstreams;
	struct rec_gap_info *tgaps;
	size_t ntgaps;
	uint64_t ntgaps_declared; /* the trailer's count; at most REC_READER_GAPS_MAX kept */
	size_t data_max;	  /* rec_reader_set_data_max; 0: REC_MAX_PAYLOAD */
};

int reader_pread(struct rec_reader *r, void *buf, size_t n, uint64_t off);
/* Up to n bytes at off in one go, past the read-ahead window: *got may be
 * short at the end of the file. 0 or -errno. */
int reader_pread_some(struct rec_reader *r, void *buf, size_t n, uint64_t off, size_t *got);
/* 0, -EAGAIN (not all there yet), -EBADMSG (not a frame) */
int reader_read_header(struct rec_reader *r, uint64_t off, struct rec_frame_header *h);
/* The first offset >= from and < limit where a valid frame header starts. */
uint64_t reader_find_frame(struct rec_reader *r, uint64_t from, uint64_t limit);
/* Room for the schemas of STREAM_MAX streams of STREAM_MAX_FIELDS fields. */
#define RR_RAW_BASE (8u << 20)
/* Only DATA frames may unpack to the format's 64 MiB: the others describe
 * the frames before them (schemas, checkpoints, gaps) and take fewer bytes
 * than those; a larger one is a lie, a few KB of zstd that unpack to 64 MiB. */
static inline bool reader_raw_too_big(const struct rec_frame_header *h, uint64_t off)
{
	return h->type != REC_FT_DATA && h->raw_len > RR_RAW_BASE + 2 * off;
}
int reader_load_payload(struct rec_reader *r, const struct rec_frame_header *h, uint64_t off,
			const char **why);
void reader_add_schemas(struct rec_reader *r, struct mp_cur *c);
/* A SCHEMA frame's payload: registers the streams not known yet. */
void reader_parse_schema(struct rec_reader *r, const uint8_t *p, size_t n);
void reader_copy_str(struct mp_cur *c, char *dst, size_t n);

#endif
