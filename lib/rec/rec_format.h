/* SPDX-License-Identifier: GPL-2.0-only */
/* The .asys recording format: file header, self-checking frames, footer,
 * CRC32C, and the payload codecs (doc/asys-file-format.md is the spec).
 * Everything here is pure: no I/O, no threads. */
#ifndef ASYS_REC_FORMAT_H
#define ASYS_REC_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "record.h"
#include "stream.h"

#define REC_MAGIC                                                                                  \
	"\x89"                                                                                     \
	"ASYS\r\n\x1a\n"
#define REC_MAGIC_LEN 9
#define REC_MAJOR 1
/* 1: fields carry display metadata (group, label, display, show); 2: streams
 * carry their nominal rate (rate_hz), fields may be attributes */
#define REC_MINOR 2
#define REC_HEADER_LEN 64
#define REC_FRAME_HDR 64
#define REC_FRAME_TAIL 8
#define REC_FRAME_OVERHEAD (REC_FRAME_HDR + REC_FRAME_TAIL)
#define REC_SYNC 0xC3A5F17Eu
#define REC_FOOTER_LEN 24
#define REC_FOOTER_MAGIC "ASYS-END"
/* Caps a reader enforces before allocating anything. */
#define REC_MAX_PAYLOAD (64u << 20)
#define REC_MAX_DEPTH 16
#define REC_NO_STREAM 0xFFFFFFFFu
/* Longest field label and group, display name, unit and stream help kept
 * from a file (longer ones are cut); names are STREAM_NAME_MAX. */
#define REC_FIELD_LABEL_MAX 32
#define REC_FIELD_DISPLAY_MAX 64
#define REC_FIELD_UNIT_MAX 32
#define REC_STREAM_HELP_MAX 512

enum rec_frame_type {
	REC_FT_META = 1,
	REC_FT_SCHEMA = 2,
	REC_FT_DATA = 3,
	REC_FT_INDEX = 4,
	REC_FT_GAP = 5,
	REC_FT_TRAILER = 6,
};

enum rec_codec {
	REC_CODEC_NONE = 0,
	REC_CODEC_ZSTD = 1,
};

struct rec_file_header {
	uint16_t major, minor;
	uint32_t header_len;
	uint32_t flags;
	uint32_t segment; /* 0 for the first file of a recording */
	uint8_t uuid[16];
	uint64_t created_ns; /* CLOCK_REALTIME */
};

struct rec_frame_header {
	uint8_t type;
	uint8_t codec;
	uint16_t flags;
	uint64_t seq;
	uint64_t t_min, t_max; /* CLOCK_MONOTONIC ns of the records inside */
	uint64_t hwm;	       /* max t_max of this and every earlier frame */
	uint32_t stored_len, raw_len;
	uint32_t stream; /* DATA: the stream id; else REC_NO_STREAM */
	uint32_t payload_crc;
};

struct rec_footer {
	uint64_t trailer_off;
	uint32_t trailer_len; /* whole frame */
};

uint32_t rec_crc32c(uint32_t crc, const void *buf, size_t n);

void rec_header_encode(uint8_t out[REC_HEADER_LEN], const struct rec_file_header *h);
/* 0; -EPROTO (not our magic); -EBADMSG (CRC); -EPROTONOSUPPORT (major) */
int rec_header_decode(const uint8_t in[REC_HEADER_LEN], struct rec_file_header *h);

void rec_frame_header_encode(uint8_t out[REC_FRAME_HDR], const struct rec_frame_header *h);
/* 0, or -EBADMSG when the sync word, CRC or lengths are wrong. */
int rec_frame_header_decode(const uint8_t in[REC_FRAME_HDR], struct rec_frame_header *h);
void rec_frame_tail_encode(uint8_t out[REC_FRAME_TAIL], uint32_t frame_len);

void rec_footer_encode(uint8_t out[REC_FOOTER_LEN], const struct rec_footer *f);
int rec_footer_decode(const uint8_t in[REC_FOOTER_LEN], struct rec_footer *f);

const char *rec_frame_type_name(unsigned type);

/* ---- msgpack-c's write target: the core's buffer ---- */
/* msgpack_packer write callback; data = struct buf * */
int rec_buf_msgpack_write(void *data, const char *buf, size_t len);

/* ---- a bounded msgpack reader: every length is checked against what is
 * left before it is used, nesting is capped at REC_MAX_DEPTH. ---- */
struct mp_cur {
	const uint8_t *p, *end;
	bool err;
};
bool mp_array(struct mp_cur *c, uint32_t *n);
bool mp_map(struct mp_cur *c, uint32_t *n);
/* An array whose every element takes at least min_bytes: a count the bytes
 * left cannot hold is refused before anything is allocated for it. */
bool mp_array_min(struct mp_cur *c, uint32_t *n, unsigned min_bytes);
bool mp_uint(struct mp_cur *c, uint64_t *v);
bool mp_int(struct mp_cur *c, int64_t *v);
bool mp_double(struct mp_cur *c, double *v);
bool mp_str(struct mp_cur *c, const char **s, uint32_t *n); /* str or bin */
bool mp_skip(struct mp_cur *c);				    /* one object, whatever it is */
/* Copies a str into a new NUL-terminated string (at most max bytes). */
char *mp_strdup(struct mp_cur *c, uint32_t max);
bool mp_key_is(const char *s, uint32_t n, const char *key);

/* ---- payloads ---- */

/* DATA: the records of one stream, columnar. recs is a byte run of struct
 * rec (each r->len long). Returns 0 or -ENOMEM. */
int rec_data_encode(struct buf *out, uint32_t stream, const uint8_t *recs, size_t len,
		    uint32_t nrecs);
/* Calls cb for each record in order (built in a scratch buffer valid only
 * during the call). 0, or -EBADMSG for a malformed payload. */
typedef void (*rec_data_cb)(void *ctx, const struct rec *r);
int rec_data_decode(const uint8_t *p, size_t n, uint32_t *stream, rec_data_cb cb, void *ctx);
/* The same a few records at a time, so one frame that declares millions of
 * records is played in bounded batches: begin checks the header (0 or
 * -EBADMSG); next calls cb for up to max records and returns 1 while some
 * are left, 0 at the end, -EBADMSG. The payload must stay put meanwhile. */
struct rec_data_cur {
	struct mp_cur c;
	uint32_t stream;
	uint64_t count, nsamples, nf, i, si, prev_ts, prev_ent;
	const char *kinds, *vals;
	const uint8_t *pt, *et, *pe, *ee, *pn, *en;
	uint64_t prev[STREAM_MAX_FIELDS]; /* last: begin clears up to here */
};
int rec_data_begin(struct rec_data_cur *d, const uint8_t *p, size_t n);
int rec_data_next(struct rec_data_cur *d, size_t max, rec_data_cb cb, void *ctx);

/* SCHEMA / TRAILER schema list. */
struct msgpack_packer;
int rec_schema_encode_one(struct msgpack_packer *pk, uint32_t id, const struct stream_desc *d);
/* 0, or -ENAMETOOLONG and a sentence in msg when d holds a string that a
 * reader would not keep whole: a name of STREAM_NAME_MAX bytes or more, or a
 * unit, group, label, display or help past its cap above. The writer refuses
 * such a stream rather than record a cut name. */
int rec_schema_check(const struct stream_desc *d, char *msg, size_t n);
/* Decodes one stream entry into d (strings malloc'd; free with
 * rec_schema_desc_free). -ENAMETOOLONG, with the cursor past the entry, for
 * a stream or field name of STREAM_NAME_MAX bytes or more: the stream is
 * refused, not renamed. */
int rec_schema_decode_one(struct mp_cur *c, uint32_t *id, struct stream_desc *d);
void rec_schema_desc_free(struct stream_desc *d);

#endif
