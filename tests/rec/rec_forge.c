/* SPDX-License-Identifier: GPL-2.0-only */
/* Writes hostile recordings with valid CRCs, so the reader gets past the
 * framing and meets the lies inside: entity, label and GONE floods, trailer
 * bombs, a schema of 256 streams x 128 fields, extreme clock values and
 * control characters in every name. Deterministic: the same name always
 * gives the same bytes (tests/data/forged holds the outputs).
 * Outside the list, two honest files for the merge of several hosts:
 * host-a and host-b, ten samples a second apart each, whose monotonic
 * clocks differ by 4000 s (one booted earlier) while their wall-clock
 * times interleave, b half a second after a.
 *   rec_forge NAME OUT.asys      rec_forge --list */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>
#include <zstd.h>

#include "rec_format.h"

#define T0 1000000000ull /* the first record's monotonic time */

struct forge {
	FILE *f;
	uint64_t off, seq, hwm;
};

static void put_frame(struct forge *g, uint8_t type, uint32_t stream, uint64_t t_min,
		      uint64_t t_max, const struct buf *raw, bool zstd)
{
	struct rec_frame_header h = {
	    .type = type, .stream = stream, .t_min = t_min, .t_max = t_max};
	uint8_t hb[REC_FRAME_HDR], tb[REC_FRAME_TAIL];
	const void *pay = raw->p;
	size_t n = raw->len;
	void *z = NULL;

	if (zstd) {
		size_t cap = ZSTD_compressBound(raw->len);

		z = malloc(cap);
		if (!z)
			exit(1);
		n = ZSTD_compress(z, cap, raw->p, raw->len, 19);
		if (ZSTD_isError(n))
			exit(1);
		pay = z;
		h.codec = REC_CODEC_ZSTD;
	}
	if (t_max > g->hwm)
		g->hwm = t_max;
	h.seq = g->seq++;
	h.hwm = g->hwm;
	h.stored_len = (uint32_t)n;
	h.raw_len = (uint32_t)raw->len;
	h.payload_crc = rec_crc32c(0, pay, n);
	rec_frame_header_encode(hb, &h);
	rec_frame_tail_encode(tb, (uint32_t)(REC_FRAME_OVERHEAD + n));
	fwrite(hb, 1, sizeof(hb), g->f);
	fwrite(pay, 1, n, g->f);
	fwrite(tb, 1, sizeof(tb), g->f);
	g->off += REC_FRAME_OVERHEAD + n;
	free(z);
}

static void pstr(msgpack_packer *pk, const char *s)
{
	msgpack_pack_str(pk, strlen(s));
	msgpack_pack_str_body(pk, s, strlen(s));
}

static void put_head(struct forge *g, const char *host, int64_t origin)
{
	struct rec_file_header fh = {
	    .major = REC_MAJOR, .minor = REC_MINOR, .header_len = REC_HEADER_LEN, .created_ns = 1};
	uint8_t b[REC_HEADER_LEN];
	struct buf m = {0};
	msgpack_packer pk;

	memcpy(fh.uuid, "forged-recording", 16);
	rec_header_encode(b, &fh);
	fwrite(b, 1, sizeof(b), g->f);
	g->off = REC_HEADER_LEN;
	msgpack_packer_init(&pk, &m, rec_buf_msgpack_write);
	msgpack_pack_map(&pk, 5);
	pstr(&pk, "host");
	pstr(&pk, host);
	pstr(&pk, "kernel");
	pstr(&pk, host);
	pstr(&pk, "version");
	pstr(&pk, "forged");
	pstr(&pk, "command");
	pstr(&pk, host);
	pstr(&pk, "clock_origin_ns");
	msgpack_pack_int64(&pk, origin);
	put_frame(g, REC_FT_META, REC_NO_STREAM, 0, 0, &m, false);
	buf_free(&m);
}

/* nstreams streams of nfields fields each, named from the stems given */
static void put_schema(struct forge *g, uint32_t nstreams, uint32_t nfields, const char *sname,
		       const char *fname, const char *unit)
{
	struct buf m = {0};
	msgpack_packer pk;
	char name[64], fn[64];

	msgpack_packer_init(&pk, &m, rec_buf_msgpack_write);
	msgpack_pack_map(&pk, 1);
	pstr(&pk, "streams");
	msgpack_pack_array(&pk, nstreams);
	for (uint32_t s = 0; s < nstreams; s++) {
		struct field_desc fd[STREAM_MAX_FIELDS];
		struct stream_desc d = {.name = name,
					.version = 1,
					.entity = ENTITY_KEY,
					.nfields = nfields,
					.fields = fd,
					.help = sname};

		snprintf(name, sizeof(name), nstreams > 1 ? "%s%u" : "%s", sname, s);
		for (uint32_t f = 0; f < nfields; f++) {
			snprintf(fn, sizeof(fn), nfields > 1 ? "%s%u" : "%s", fname, f);
			fd[f] = (struct field_desc)FIELD_DESC(strdup(fn), unit, FIELD_GAUGE);
		}
		rec_schema_encode_one(&pk, s, &d);
		for (uint32_t f = 0; f < nfields; f++)
			free((char *)fd[f].name);
	}
	put_frame(g, REC_FT_SCHEMA, REC_NO_STREAM, T0, T0, &m, true);
	buf_free(&m);
}

/* mem.proc as the collector writes it, so the process pane draws the flood */
static void put_schema_mem_proc(struct forge *g)
{
	static const struct field_desc fd[] = {
	    FIELD_DESC("rss", "B", FIELD_GAUGE),    FIELD_DESC("hwm", "B", FIELD_GAUGE),
	    FIELD_DESC("uid", "", FIELD_GAUGE),	    FIELD_DESC("ppid", "", FIELD_GAUGE),
	    FIELD_DESC("threads", "", FIELD_GAUGE),
	};
	struct stream_desc d = {.name = "mem.proc",
				.version = 1,
				.entity = ENTITY_PID,
				.nfields = 5,
				.fields = fd,
				.help = "forged"};
	struct buf m = {0};
	msgpack_packer pk;

	msgpack_packer_init(&pk, &m, rec_buf_msgpack_write);
	msgpack_pack_map(&pk, 1);
	pstr(&pk, "streams");
	msgpack_pack_array(&pk, 1);
	rec_schema_encode_one(&pk, 0, &d);
	put_frame(g, REC_FT_SCHEMA, REC_NO_STREAM, T0, T0, &m, true);
	buf_free(&m);
}

/* n records of one kind for entities 0..n-1, one ns apart, in one DATA frame */
static void put_flood(struct forge *g, uint32_t stream, uint8_t kind, uint32_t n, uint32_t nfields,
		      const char *text)
{
	size_t one = sizeof(struct rec) + (kind == REC_SAMPLE ? nfields * 8 : 64);
	struct buf recs = {0}, out = {0};

	if (buf_reserve(&recs, one * n))
		exit(1);
	for (uint32_t i = 0; i < n; i++) {
		struct rec *r = (struct rec *)(void *)(recs.p + recs.len);

		memset(r, 0, one);
		r->len = (uint32_t)one;
		r->kind = kind;
		r->stream = stream;
		r->entity = i;
		r->ts_ns = T0 + i;
		if (kind == REC_SAMPLE)
			r->nvals = (uint16_t)nfields;
		else
			snprintf((char *)(r + 1), 64, "%s", text);
		recs.len += one;
	}
	if (rec_data_encode(&out, stream, recs.p, recs.len, n))
		exit(1);
	put_frame(g, REC_FT_DATA, stream, T0, T0 + n - 1, &out, true);
	buf_free(&recs);
	buf_free(&out);
}

/* one sample of every field: enough for --summary to keep every field */
static void put_one_sample(struct forge *g, uint32_t stream, uint32_t nfields, uint64_t ts)
{
	_Alignas(8) uint8_t b[sizeof(struct rec) + STREAM_MAX_FIELDS * 8] = {0};
	struct rec *r = (struct rec *)(void *)b;
	struct buf out = {0};
	double *v = (double *)(void *)(r + 1);

	r->len = (uint32_t)(sizeof(*r) + nfields * 8);
	r->kind = REC_SAMPLE;
	r->stream = stream;
	r->nvals = (uint16_t)nfields;
	r->ts_ns = ts;
	for (uint32_t f = 0; f < nfields; f++)
		v[f] = 1.0;
	if (rec_data_encode(&out, stream, b, r->len, 1))
		exit(1);
	put_frame(g, REC_FT_DATA, stream, ts, ts, &out, true);
	buf_free(&out);
}

static void put_label(struct forge *g, uint32_t stream, uint64_t entity, uint64_t ts,
		      const char *text)
{
	_Alignas(8) uint8_t b[sizeof(struct rec) + 256] = {0};
	struct rec *r = (struct rec *)(void *)b;
	struct buf out = {0};
	size_t tl = strlen(text);

	r->len = (uint32_t)(sizeof(*r) + ((tl + 1 + 7) & ~7u));
	r->kind = REC_LABEL;
	r->stream = stream;
	r->entity = entity;
	r->ts_ns = ts;
	memcpy(r + 1, text, tl);
	if (rec_data_encode(&out, stream, b, r->len, 1))
		exit(1);
	put_frame(g, REC_FT_DATA, stream, ts, ts, &out, false);
	buf_free(&out);
}

/* A trailer of n copies of one small msgpack item under key, with a footer. */
static void put_trailer_bomb(struct forge *g, const char *key, uint32_t n, const uint8_t *item,
			     size_t ilen)
{
	struct buf m = {0};
	struct rec_footer ft;
	uint8_t fb[REC_FOOTER_LEN];
	msgpack_packer pk;

	msgpack_packer_init(&pk, &m, rec_buf_msgpack_write);
	msgpack_pack_map(&pk, 3);
	pstr(&pk, "schemas");
	msgpack_pack_array(&pk, 1);
	{
		struct field_desc fd = FIELD_DESC("v", "B", FIELD_GAUGE);
		struct stream_desc d = {.name = "s", .version = 1, .nfields = 1, .fields = &fd};

		rec_schema_encode_one(&pk, 0, &d);
	}
	pstr(&pk, "span");
	msgpack_pack_array(&pk, 2);
	msgpack_pack_uint64(&pk, T0);
	msgpack_pack_uint64(&pk, T0);
	pstr(&pk, key);
	msgpack_pack_array(&pk, n);
	if (buf_reserve(&m, (size_t)n * ilen))
		exit(1);
	for (uint32_t i = 0; i < n; i++)
		buf_put(&m, item, ilen);
	ft.trailer_off = g->off;
	put_frame(g, REC_FT_TRAILER, REC_NO_STREAM, T0, T0, &m, true);
	ft.trailer_len = (uint32_t)(g->off - ft.trailer_off);
	rec_footer_encode(fb, &ft);
	fwrite(fb, 1, sizeof(fb), g->f);
	buf_free(&m);
}

/* C0, then C1 (CSI, OSC), bidi controls and bytes that are not UTF-8 */
#define CTL                                                                                        \
	"\x1b[2J\x1b]0;pwned\x07"                                                                  \
	"\xc2\x9b"                                                                                 \
	"2J\xc2\x9d"                                                                               \
	"0;t\xe2\x80\xae"                                                                          \
	"r\xe2\x81\xa6\xd8\x9c\xe2\x80\x8f\xff\xc3"                                                \
	"z,\"q\"\nx\r "

static int forge_other(const char *name, struct forge *g)
{
	static const uint8_t gap[] = {0x93, 0x00, 0x00, 0xa0};
	static const uint8_t tstream[] = {0x95, 0, 0, 0, 0, 0};

	if (!strncmp(name, "trailer-", 8)) {
		/* 2M gaps or 1.3M streams fit the room a trailer may have; the
		 * 64M one unpacks to the format's cap */
		put_head(g, "forged", 0);
		put_schema(g, 1, 1, "s", "v", "B");
		put_one_sample(g, 0, 1, T0);
		if (!strcmp(name, "trailer-gaps-2M"))
			put_trailer_bomb(g, "gaps", 2000000, gap, sizeof(gap));
		else if (!strcmp(name, "trailer-streams-1M"))
			put_trailer_bomb(g, "streams", 1300000, tstream, sizeof(tstream));
		else if (!strcmp(name, "trailer-64M"))
			put_trailer_bomb(g, "gaps", 16000000, gap, sizeof(gap));
		else
			return -EINVAL;
	} else if (!strcmp(name, "schema-256x128")) {
		put_head(g, "forged", 0);
		put_schema(g, 256, 128, "stream-with-a-long-name-", "field-with-a-long-name-",
			   "unit");
		for (uint32_t s = 0; s < 256; s++)
			put_one_sample(g, s, 128, T0 + s);
	} else if (!strcmp(name, "origin-int64max")) {
		put_head(g, "forged", INT64_MAX);
		put_schema(g, 1, 1, "s", "v", "B");
		put_one_sample(g, 0, 1, T0);
		put_one_sample(g, 0, 1, (uint64_t)INT64_MAX + T0);
	} else if (!strcmp(name, "times-int64max")) {
		/* a replay 10 s from here may not wrap a signed sum */
		put_head(g, "forged", 0);
		put_schema(g, 1, 1, "s", "v", "B");
		put_one_sample(g, 0, 1, (uint64_t)INT64_MAX - 5000000000ull);
		put_one_sample(g, 0, 1, (uint64_t)INT64_MAX - 4000000000ull);
	} else if (!strcmp(name, "origin-int64min")) {
		put_head(g, "forged", INT64_MIN);
		put_schema(g, 1, 1, "s", "v", "B");
		put_one_sample(g, 0, 1, T0);
		put_one_sample(g, 0, 1, UINT64_MAX - 1);
	} else if (!strcmp(name, "host-a") || !strcmp(name, "host-b")) {
		bool b = name[5] == 'b';
		/* wall = origin + mono: a at W + k s, b at W + k s + 0.5 s */
		uint64_t mono = (b ? 5000 : 1000) * 1000000000ull;
		int64_t origin = 1700000000000000000ll + (b ? -4000000000000ll + 500000000ll : 0);

		put_head(g, name, origin);
		put_schema(g, 1, 1, "s", "v", "B");
		for (uint64_t k = 0; k < 10; k++)
			put_one_sample(g, 0, 1, mono + k * 1000000000ull);
	} else if (!strcmp(name, "control-chars")) {
		put_head(g, "host" CTL, 0);
		put_schema(g, 1, 2, "st" CTL, "fi" CTL, "un" CTL);
		put_label(g, 0, 0, T0, "la" CTL);
		put_one_sample(g, 0, 2, T0);
		put_one_sample(g, 0, 2, T0 + 1000000);
	} else {
		return -EINVAL;
	}
	return 0;
}

static int forge(const char *name, struct forge *g)
{
	if (!strcmp(name, "entities-200000") || !strcmp(name, "entities-1000000")) {
		put_head(g, "forged", 0);
		put_schema(g, 1, 1, "flood", "v", "B");
		put_flood(g, 0, REC_SAMPLE, name[9] == '2' ? 200000 : 1000000, 1, NULL);
	} else if (!strcmp(name, "counts-4G")) {
		/* counts of 2^32-1 in a SCHEMA, a DATA and a trailer-less file */
		static const uint8_t schema[] = {0x81, 0xa7, 's',  't',	 'r',  'e',  'a',
						 'm',  's',  0xdd, 0xff, 0xff, 0xff, 0xff};
		static const uint8_t data[] = {0x9a, 0x00, 0xce, 0xff, 0xff, 0xff, 0xff,
					       0xce, 0xff, 0xff, 0xff, 0xff, 0x01, 0xc4,
					       0x00, 0xc4, 0x00, 0xc4, 0x00, 0xc4, 0x00,
					       0xc4, 0x00, 0xdd, 0xff, 0xff, 0xff, 0xff};
		struct buf b = {0};

		put_head(g, "forged", 0);
		put_schema(g, 1, 1, "s", "v", "B");
		buf_put(&b, schema, sizeof(schema));
		put_frame(g, REC_FT_SCHEMA, REC_NO_STREAM, T0, T0, &b, false);
		b.len = 0;
		buf_put(&b, data, sizeof(data));
		put_frame(g, REC_FT_DATA, 0, T0, T0, &b, false);
		buf_free(&b);
		put_one_sample(g, 0, 1, T0 + 1);
	} else if (!strcmp(name, "procs-200000")) {
		put_head(g, "forged", 0);
		put_schema_mem_proc(g);
		put_flood(g, 0, REC_LABEL, 200000, 5, "python train.py --a-long-command-line");
		put_flood(g, 0, REC_SAMPLE, 200000, 5, NULL);
	} else if (!strcmp(name, "labels-100k")) {
		put_head(g, "forged", 0);
		put_schema(g, 1, 1, "flood", "v", "B");
		put_flood(g, 0, REC_LABEL, 100000, 1, "a label that names nothing at all");
	} else if (!strcmp(name, "gone-8M")) {
		put_head(g, "forged", 0);
		put_schema(g, 1, 1, "flood", "v", "B");
		put_one_sample(g, 0, 1, T0 - 1);
		put_flood(g, 0, REC_GONE, 8000000, 1, "");
	} else {
		return forge_other(name, g);
	}
	return 0;
}

static const char *const names[] = {
    "entities-200000",	  "entities-1000000", "labels-100k",	"gone-8M",	 "trailer-gaps-2M",
    "trailer-streams-1M", "trailer-64M",      "procs-200000",	"counts-4G",	 "schema-256x128",
    "origin-int64max",	  "origin-int64min",  "times-int64max", "control-chars",
};

int main(int argc, char **argv)
{
	struct forge g = {0};
	int rc;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			puts(names[i]);
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: rec_forge NAME OUT.asys | rec_forge --list\n");
		return 2;
	}
	g.f = fopen(argv[2], "wb");
	if (!g.f) {
		perror(argv[2]);
		return 1;
	}
	rc = forge(argv[1], &g);
	if (fclose(g.f) || rc) {
		fprintf(stderr, "rec_forge: %s: %s\n", argv[1],
			rc ? "unknown name" : "write failed");
		return 1;
	}
	return 0;
}
