/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "env.h"
#include "rec_format.h"
#include "strsafe.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "rec_format.c stores integers and doubles little-endian by memcpy; port the loads"
#endif

/* ---- CRC32C (Castagnoli): SSE4.2 when the CPU has it, else slice-by-8 ---- */

static uint32_t crc_tab[8][256];
static int crc_hw = -1;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		crc_tab[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_tab[t][i] =
			    (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 0xff];
#if defined(__x86_64__)
	__builtin_cpu_init();
	crc_hw = __builtin_cpu_supports("sse4.2") && !env_get("ASYS_CRC_SOFT");
#else
	crc_hw = 0;
#endif
}

static uint32_t crc_soft(uint32_t c, const uint8_t *p, size_t n)
{
	while (n >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		w ^= c;
		c = crc_tab[7][w & 0xff] ^ crc_tab[6][(w >> 8) & 0xff] ^
		    crc_tab[5][(w >> 16) & 0xff] ^ crc_tab[4][(w >> 24) & 0xff] ^
		    crc_tab[3][(w >> 32) & 0xff] ^ crc_tab[2][(w >> 40) & 0xff] ^
		    crc_tab[1][(w >> 48) & 0xff] ^ crc_tab[0][w >> 56];
		p += 8;
		n -= 8;
	}
	while (n--)
		c = crc_tab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_sse(uint32_t c, const uint8_t *p, size_t n)
{
	uint64_t c64 = c;

	while (n >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		c64 = __builtin_ia32_crc32di(c64, w);
		p += 8;
		n -= 8;
	}
	c = (uint32_t)c64;
	while (n--)
		c = __builtin_ia32_crc32qi(c, *p++);
	return c;
}
#endif

uint32_t rec_crc32c(uint32_t crc, const void *buf, size_t n)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	uint32_t c = ~crc;

	pthread_once(&once, crc_init);
#if defined(__x86_64__)
	if (crc_hw)
		return ~crc_sse(c, buf, n);
#endif
	return ~crc_soft(c, buf, n);
}

/* ---- little-endian helpers ---- */

static void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}
static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}
static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}
static uint16_t get16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}
static uint32_t get32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}
static uint64_t get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

void rec_header_encode(uint8_t out[REC_HEADER_LEN], const struct rec_file_header *h)
{
	memset(out, 0, REC_HEADER_LEN);
	memcpy(out, REC_MAGIC, REC_MAGIC_LEN);
	put16(out + 10, h->major);
	put16(out + 12, h->minor);
	put32(out + 16, REC_HEADER_LEN);
	put32(out + 20, h->flags);
	memcpy(out + 24, h->uuid, 16);
	put64(out + 40, h->created_ns);
	put32(out + 48, h->segment);
	put32(out + 60, rec_crc32c(0, out, 60));
}

int rec_header_decode(const uint8_t in[REC_HEADER_LEN], struct rec_file_header *h)
{
	if (memcmp(in, REC_MAGIC, REC_MAGIC_LEN))
		return -EPROTO;
	h->major = get16(in + 10);
	h->minor = get16(in + 12);
	h->header_len = get32(in + 16);
	h->flags = get32(in + 20);
	memcpy(h->uuid, in + 24, 16);
	h->created_ns = get64(in + 40);
	h->segment = get32(in + 48);
	if (get32(in + 60) != rec_crc32c(0, in, 60))
		return -EBADMSG;
	if (h->major != REC_MAJOR)
		return -EPROTONOSUPPORT;
	if (h->header_len != REC_HEADER_LEN)
		return -EBADMSG;
	return 0;
}

void rec_frame_header_encode(uint8_t out[REC_FRAME_HDR], const struct rec_frame_header *h)
{
	memset(out, 0, REC_FRAME_HDR);
	put32(out, REC_SYNC);
	out[4] = h->type;
	out[5] = h->codec;
	put16(out + 6, h->flags);
	put64(out + 8, h->seq);
	put64(out + 16, h->t_min);
	put64(out + 24, h->t_max);
	put64(out + 32, h->hwm);
	put32(out + 40, h->stored_len);
	put32(out + 44, h->raw_len);
	put32(out + 48, h->stream);
	put32(out + 56, h->payload_crc);
	put32(out + 60, rec_crc32c(0, out, 60));
}

int rec_frame_header_decode(const uint8_t in[REC_FRAME_HDR], struct rec_frame_header *h)
{
	if (get32(in) != REC_SYNC || get32(in + 60) != rec_crc32c(0, in, 60))
		return -EBADMSG;
	h->type = in[4];
	h->codec = in[5];
	h->flags = get16(in + 6);
	h->seq = get64(in + 8);
	h->t_min = get64(in + 16);
	h->t_max = get64(in + 24);
	h->hwm = get64(in + 32);
	h->stored_len = get32(in + 40);
	h->raw_len = get32(in + 44);
	h->stream = get32(in + 48);
	h->payload_crc = get32(in + 56);
	if (h->stored_len > REC_MAX_PAYLOAD || h->raw_len > REC_MAX_PAYLOAD ||
	    (h->codec == REC_CODEC_NONE && h->raw_len != h->stored_len) ||
	    h->codec > REC_CODEC_ZSTD || h->t_min > h->t_max || h->t_max > h->hwm)
		return -EBADMSG;
	return 0;
}

void rec_frame_tail_encode(uint8_t out[REC_FRAME_TAIL], uint32_t frame_len)
{
	put32(out, frame_len);
	put32(out + 4, ~REC_SYNC);
}

void rec_footer_encode(uint8_t out[REC_FOOTER_LEN], const struct rec_footer *f)
{
	put64(out, f->trailer_off);
	put32(out + 8, f->trailer_len);
	put32(out + 12, rec_crc32c(0, out, 12));
	memcpy(out + 16, REC_FOOTER_MAGIC, 8);
}

int rec_footer_decode(const uint8_t in[REC_FOOTER_LEN], struct rec_footer *f)
{
	if (memcmp(in + 16, REC_FOOTER_MAGIC, 8) || get32(in + 12) != rec_crc32c(0, in, 12))
		return -EBADMSG;
	f->trailer_off = get64(in);
	f->trailer_len = get32(in + 8);
	return 0;
}

const char *rec_frame_type_name(unsigned type)
{
	static const char *const names[] = {"?",     "META", "SCHEMA", "DATA",
					    "INDEX", "GAP",  "TRAILER"};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "unknown";
}

/* ---- byte buffer ---- */

int rec_buf_msgpack_write(void *data, const char *buf, size_t len)
{
	struct buf *b = data;

	buf_put(b, buf, len);
	return b->failed ? -1 : 0;
}

/* ---- schema ---- */

static void pack_cstr(msgpack_packer *pk, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, s ? s : "", n);
}

/* The display part of a field, as a map of the keys it has; a field with
 * none is written [name, unit, kind] as before. */
static void pack_field_meta(msgpack_packer *pk, const struct field_desc *f)
{
	const char *show = field_show_name(f->show);
	bool attr = f->kind == FIELD_ATTR;
	uint32_t n = !!f->group + !!f->label + !!f->display + !!show + attr;

	msgpack_pack_map(pk, n);
	if (attr) {
		pack_cstr(pk, "kind");
		pack_cstr(pk, "attribute");
	}
	if (f->group) {
		pack_cstr(pk, "group");
		pack_cstr(pk, f->group);
	}
	if (f->label) {
		pack_cstr(pk, "label");
		pack_cstr(pk, f->label);
	}
	if (f->display) {
		pack_cstr(pk, "display");
		pack_cstr(pk, f->display);
	}
	if (show) {
		pack_cstr(pk, "show");
		pack_cstr(pk, show);
	}
}

/* An attribute is written as a gauge with "kind": "attribute" in the map, so
 * that a reader of 1.1, which refuses a kind it does not know, reads it as
 * the gauge it was before. */
static void pack_field(msgpack_packer *pk, const struct field_desc *f)
{
	bool meta =
	    f->group || f->label || f->display || field_show_name(f->show) || f->kind == FIELD_ATTR;

	msgpack_pack_array(pk, meta ? 4 : 3);
	pack_cstr(pk, f->name);
	pack_cstr(pk, f->unit);
	msgpack_pack_uint8(pk, (uint8_t)(f->kind == FIELD_ATTR ? FIELD_GAUGE : f->kind));
	if (meta)
		pack_field_meta(pk, f);
}

int rec_schema_encode_one(struct msgpack_packer *pk, uint32_t id, const struct stream_desc *d)
{
	bool rate = d->rate_hz > 0 && isfinite(d->rate_hz);

	msgpack_pack_map(pk, rate ? 7 : 6);
	if (rate) {
		pack_cstr(pk, "rate_hz");
		msgpack_pack_double(pk, d->rate_hz);
	}
	pack_cstr(pk, "id");
	msgpack_pack_uint32(pk, id);
	pack_cstr(pk, "name");
	pack_cstr(pk, d->name);
	pack_cstr(pk, "version");
	msgpack_pack_uint16(pk, d->version);
	pack_cstr(pk, "entity");
	msgpack_pack_uint32(pk, (uint32_t)d->entity);
	pack_cstr(pk, "help");
	pack_cstr(pk, d->help);
	pack_cstr(pk, "fields");
	msgpack_pack_array(pk, d->nfields);
	for (uint32_t i = 0; i < d->nfields; i++)
		pack_field(pk, &d->fields[i]);
	return 0;
}

static bool check_str(const char *what, const char *s, size_t cap, const struct stream_desc *d,
		      const char *field, char *msg, size_t n)
{
	char sn[64], fn[64];

	if (!s || strlen(s) < cap)
		return true;
	snprintf(msg, n, "stream %s%s%s: the %s is %zu bytes; a recording keeps at most %zu",
		 str_escape(sn, sizeof(sn), d->name, 40), field ? ", field " : "",
		 field ? str_escape(fn, sizeof(fn), field, 40) : "", what, strlen(s), cap - 1);
	return false;
}

int rec_schema_check(const struct stream_desc *d, char *msg, size_t n)
{
	if (!check_str("name", d->name, STREAM_NAME_MAX, d, NULL, msg, n) ||
	    !check_str("help", d->help, REC_STREAM_HELP_MAX + 1, d, NULL, msg, n))
		return -ENAMETOOLONG;
	for (uint32_t i = 0; i < d->nfields; i++) {
		const struct field_desc *f = &d->fields[i];

		if (!check_str("name", f->name, STREAM_NAME_MAX, d, f->name, msg, n) ||
		    !check_str("unit", f->unit, REC_FIELD_UNIT_MAX + 1, d, f->name, msg, n) ||
		    !check_str("group", f->group, REC_FIELD_LABEL_MAX + 1, d, f->name, msg, n) ||
		    !check_str("label", f->label, REC_FIELD_LABEL_MAX + 1, d, f->name, msg, n) ||
		    !check_str("display name", f->display, REC_FIELD_DISPLAY_MAX + 1, d, f->name,
			       msg, n))
			return -ENAMETOOLONG;
	}
	return 0;
}

void rec_schema_desc_free(struct stream_desc *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; d->fields && i < d->nfields; i++) {
		free((char *)d->fields[i].name);
		free((char *)d->fields[i].unit);
		free((char *)d->fields[i].group);
		free((char *)d->fields[i].label);
		free((char *)d->fields[i].display);
	}
	free((void *)d->fields);
	free((char *)d->name);
	free((char *)d->help);
	memset(d, 0, sizeof(*d));
}

/* Keeps the first of a key met twice; a key or a "show" this build does not
 * know is skipped, and the field is drawn as its unit says. */
static int schema_field_meta(struct mp_cur *c, struct field_desc *f)
{
	uint32_t n, kl, sl;
	const char *key, *s;

	if (!mp_map(c, &n))
		return -EBADMSG;
	for (uint32_t i = 0; i < n; i++) {
		const char **dst = NULL;

		if (!mp_str(c, &key, &kl))
			return -EBADMSG;
		if (mp_key_is(key, kl, "group"))
			dst = &f->group;
		else if (mp_key_is(key, kl, "label"))
			dst = &f->label;
		else if (mp_key_is(key, kl, "display"))
			dst = &f->display;
		if (dst && !*dst) {
			*dst = mp_strdup(c, dst == &f->display ? REC_FIELD_DISPLAY_MAX
							       : REC_FIELD_LABEL_MAX);
			if (!*dst)
				return -EBADMSG;
		} else if (mp_key_is(key, kl, "show") && f->show == FIELD_SHOW_AUTO) {
			if (!mp_str(c, &s, &sl))
				return -EBADMSG;
			f->show = field_show_parse(s, sl);
		} else if (mp_key_is(key, kl, "kind")) {
			if (!mp_str(c, &s, &sl))
				return -EBADMSG;
			/* only a gauge can be an attribute; another word is skipped */
			if (f->kind == FIELD_GAUGE && mp_key_is(s, sl, "attribute"))
				f->kind = FIELD_ATTR;
		} else if (!mp_skip(c)) {
			return -EBADMSG;
		}
	}
	return 0;
}

/* A name is kept whole or not at all: one of STREAM_NAME_MAX bytes or more
 * sets *too_long (and is read bounded, so the rest of the entry still reads). */
static char *schema_name(struct mp_cur *c, bool *too_long)
{
	struct mp_cur peek = *c;
	const char *s;
	uint32_t n;

	if (mp_str(&peek, &s, &n) && n >= STREAM_NAME_MAX)
		*too_long = true;
	return mp_strdup(c, STREAM_NAME_MAX - 1);
}

static int schema_fields(struct mp_cur *c, struct stream_desc *d, bool *too_long)
{
	uint32_t n, k;
	struct field_desc *f;
	uint64_t kind;

	if (!mp_array(c, &n) || n > STREAM_MAX_FIELDS)
		return -EBADMSG;
	f = calloc(n ? n : 1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	d->fields = f;
	d->nfields = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!mp_array(c, &k) || k < 3)
			return -EBADMSG;
		f[i].name = schema_name(c, too_long);
		d->nfields = i + 1;
		f[i].unit = mp_strdup(c, REC_FIELD_UNIT_MAX);
		if (!f[i].name || !f[i].unit || !mp_uint(c, &kind) || kind > FIELD_KIND_MAX)
			return -EBADMSG;
		f[i].kind = (enum field_kind)kind;
		if (k > 3 && schema_field_meta(c, &f[i]))
			return -EBADMSG;
		for (uint32_t j = 4; j < k; j++)
			if (!mp_skip(c))
				return -EBADMSG;
	}
	return 0;
}

/* A stream's nominal rate: a number; one that no sampler runs at (not
 * positive, not finite, above 10 MHz) reads as unknown, 0. */
static bool mp_rate(struct mp_cur *c, double *hz)
{
	if (!mp_double(c, hz))
		return false;
	if (!(*hz > 0 && *hz <= 1e7))
		*hz = 0;
	return true;
}

int rec_schema_decode_one(struct mp_cur *c, uint32_t *id, struct stream_desc *d)
{
	uint32_t n, kl;
	const char *key;
	uint64_t v;
	int rc = -EBADMSG;
	bool have_id = false, too_long = false;

	memset(d, 0, sizeof(*d));
	if (!mp_map(c, &n))
		return -EBADMSG;
	for (uint32_t i = 0; i < n; i++) {
		if (!mp_str(c, &key, &kl))
			goto fail;
		if (mp_key_is(key, kl, "id")) {
			if (!mp_uint(c, &v) || v >= STREAM_MAX)
				goto fail;
			*id = (uint32_t)v;
			have_id = true;
		} else if (mp_key_is(key, kl, "name")) {
			free((char *)d->name);
			d->name = schema_name(c, &too_long);
		} else if (mp_key_is(key, kl, "version")) {
			if (!mp_uint(c, &v) || v > UINT16_MAX)
				goto fail;
			d->version = (uint16_t)v;
		} else if (mp_key_is(key, kl, "entity")) {
			if (!mp_uint(c, &v) || v > ENTITY_KEY)
				goto fail;
			d->entity = (enum entity_kind)v;
		} else if (mp_key_is(key, kl, "help")) {
			free((char *)d->help);
			d->help = mp_strdup(c, REC_STREAM_HELP_MAX);
		} else if (mp_key_is(key, kl, "rate_hz")) {
			if (!mp_rate(c, &d->rate_hz))
				goto fail;
		} else if (mp_key_is(key, kl, "fields")) {
			if (d->fields)
				goto fail;
			rc = schema_fields(c, d, &too_long);
			if (rc)
				goto fail;
			rc = -EBADMSG;
		} else if (!mp_skip(c)) {
			goto fail;
		}
		if (c->err)
			goto fail;
	}
	if (!have_id || !d->name || !*d->name)
		goto fail;
	if (too_long) {
		rc = -ENAMETOOLONG;
		goto fail;
	}
	return 0;
fail:
	rec_schema_desc_free(d);
	return rc;
}
