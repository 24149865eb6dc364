/* SPDX-License-Identifier: GPL-2.0-only */
/* The DATA payload: the records of one stream, columnar.
 *
 *   [stream, count, nsamples, nfields, kinds:bin, ts:bin, ent:bin,
 *    nvals:bin, values:bin, texts:[str...]]
 *
 * ts and ent are zigzag deltas from the previous record as LEB128 varints;
 * values are field-major doubles, each XORed with the one before it in its
 * column, so slowly moving series leave runs of zero bytes for zstd. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "rec_format.h"

static void put_uvarint(struct buf *b, uint64_t v)
{
	uint8_t tmp[10];
	int n = 0;

	while (v >= 0x80) {
		tmp[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (uint8_t)v;
	buf_put(b, tmp, (size_t)n);
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static bool get_uvarint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t x = 0;

	for (int shift = 0; shift < 70 && p < end; shift += 7) {
		uint8_t b = *p++;

		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pp = p;
			*v = x;
			return true;
		}
	}
	return false;
}

static void pack_bin(msgpack_packer *pk, const struct buf *b)
{
	msgpack_pack_bin(pk, b->len);
	msgpack_pack_bin_body(pk, b->p, b->len);
}

int rec_data_encode(struct buf *out, uint32_t stream, const uint8_t *recs, size_t len,
		    uint32_t nrecs)
{
	struct buf kinds = {0}, ts = {0}, ent = {0}, nv = {0}, vals = {0};
	msgpack_packer pk;
	uint32_t nsamples = 0, nf = 0, ntext = 0, count = 0;
	uint64_t prev_ts = 0, prev_ent = 0;
	int rc = -ENOMEM;
	size_t off;

	for (off = 0; off + sizeof(struct rec) <= len && count < nrecs;) {
		const struct rec *r = (const struct rec *)(const void *)(recs + off);

		if (r->kind == REC_SAMPLE) {
			nsamples++;
			if (r->nvals > nf)
				nf = r->nvals;
		} else {
			ntext++;
		}
		count++;
		off += r->len;
	}
	if (buf_reserve(&vals, (size_t)nsamples * nf * 8 + 8))
		goto cleanup;
	vals.len = (size_t)nsamples * nf * 8;
	{
		uint64_t *col = (uint64_t *)(void *)vals.p;
		uint64_t prev[STREAM_MAX_FIELDS] = {0};
		uint32_t si = 0;
		const double nan = NAN;
		uint64_t nanbits;

		memcpy(&nanbits, &nan, 8);
		off = 0;
		for (uint32_t i = 0; i < count; i++) {
			const struct rec *r = (const struct rec *)(const void *)(recs + off);

			buf_put(&kinds, &r->kind, 1);
			put_uvarint(&ts, zigzag((int64_t)(r->ts_ns - prev_ts)));
			put_uvarint(&ent, zigzag((int64_t)(r->entity - prev_ent)));
			prev_ts = r->ts_ns;
			prev_ent = r->entity;
			if (r->kind == REC_SAMPLE) {
				const double *v = rec_values(r);

				put_uvarint(&nv, r->nvals);
				for (uint32_t f = 0; f < nf; f++) {
					uint64_t u = nanbits;

					if (f < r->nvals)
						memcpy(&u, &v[f], 8);
					col[(size_t)f * nsamples + si] = u ^ prev[f];
					prev[f] = u;
				}
				si++;
			}
			off += r->len;
		}
	}
	if (kinds.failed || ts.failed || ent.failed || nv.failed)
		goto cleanup;
	msgpack_packer_init(&pk, out, rec_buf_msgpack_write);
	msgpack_pack_array(&pk, 10);
	msgpack_pack_uint32(&pk, stream);
	msgpack_pack_uint32(&pk, count);
	msgpack_pack_uint32(&pk, nsamples);
	msgpack_pack_uint32(&pk, nf);
	pack_bin(&pk, &kinds);
	pack_bin(&pk, &ts);
	pack_bin(&pk, &ent);
	pack_bin(&pk, &nv);
	pack_bin(&pk, &vals);
	msgpack_pack_array(&pk, ntext);
	off = 0;
	for (uint32_t i = 0; i < count; i++) {
		const struct rec *r = (const struct rec *)(const void *)(recs + off);

		if (r->kind != REC_SAMPLE) {
			size_t tl = strnlen(rec_text(r), r->len - sizeof(*r));

			msgpack_pack_str(&pk, tl);
			msgpack_pack_str_body(&pk, rec_text(r), tl);
		}
		off += r->len;
	}
	rc = out->failed ? -ENOMEM : 0;
cleanup:
	buf_free(&kinds);
	buf_free(&ts);
	buf_free(&ent);
	buf_free(&nv);
	buf_free(&vals);
	return rc;
}

int rec_data_begin(struct rec_data_cur *d, const uint8_t *p, size_t n)
{
	uint32_t na, nt, lk, lt, le, lnv, lv;
	const char *ts, *ent, *nv;
	uint64_t sid;

	memset(d, 0, offsetof(struct rec_data_cur, prev));
	memset(d->prev, 0, sizeof(d->prev));
	d->c = (struct mp_cur){p, p + n, false};
	if (!mp_array(&d->c, &na) || na < 10 || !mp_uint(&d->c, &sid) ||
	    !mp_uint(&d->c, &d->count) || !mp_uint(&d->c, &d->nsamples) || !mp_uint(&d->c, &d->nf))
		return -EBADMSG;
	if (sid >= STREAM_MAX || d->nf > STREAM_MAX_FIELDS || d->nsamples > d->count)
		return -EBADMSG;
	if (!mp_str(&d->c, &d->kinds, &lk) || !mp_str(&d->c, &ts, &lt) ||
	    !mp_str(&d->c, &ent, &le) || !mp_str(&d->c, &nv, &lnv) || !mp_str(&d->c, &d->vals, &lv))
		return -EBADMSG;
	if (lk != d->count || (uint64_t)lv != d->nsamples * d->nf * 8)
		return -EBADMSG;
	if (!mp_array(&d->c, &nt) || nt != d->count - d->nsamples)
		return -EBADMSG;
	d->stream = (uint32_t)sid;
	d->pt = (const uint8_t *)ts;
	d->et = d->pt + lt;
	d->pe = (const uint8_t *)ent;
	d->ee = d->pe + le;
	d->pn = (const uint8_t *)nv;
	d->en = d->pn + lnv;
	return 0;
}

/* Builds record i into r; -EBADMSG when the payload lies. */
static int data_one(struct rec_data_cur *d, struct rec *r)
{
	uint64_t dts, dent, nvals;
	uint8_t kind = (uint8_t)d->kinds[d->i];

	if (!get_uvarint(&d->pt, d->et, &dts) || !get_uvarint(&d->pe, d->ee, &dent))
		return -EBADMSG;
	d->prev_ts += (uint64_t)unzigzag(dts);
	d->prev_ent += (uint64_t)unzigzag(dent);
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->stream = d->stream;
	r->entity = d->prev_ent;
	r->ts_ns = d->prev_ts;
	if (kind == REC_SAMPLE) {
		double *v = (double *)(void *)(r + 1);

		if (d->si >= d->nsamples || !get_uvarint(&d->pn, d->en, &nvals) || nvals > d->nf)
			return -EBADMSG;
		for (uint32_t f = 0; f < d->nf; f++) {
			uint64_t u;

			memcpy(&u, d->vals + ((size_t)f * d->nsamples + d->si) * 8, 8);
			u ^= d->prev[f];
			d->prev[f] = u;
			if (f < nvals)
				memcpy(&v[f], &u, 8);
		}
		d->si++;
		r->nvals = (uint16_t)nvals;
		r->len = (uint32_t)(sizeof(*r) + nvals * 8);
	} else if (kind == REC_LABEL || kind == REC_STATUS || kind == REC_GONE) {
		const char *txt_p;
		uint32_t tl;

		if (!mp_str(&d->c, &txt_p, &tl))
			return -EBADMSG;
		if (tl > REC_TEXT_MAX - 1)
			tl = REC_TEXT_MAX - 1;
		memset(r + 1, 0, (tl + 8) & ~7u);
		memcpy(r + 1, txt_p, tl);
		r->len = (uint32_t)(sizeof(*r) + ((tl + 1 + 7) & ~7u));
	} else {
		return -EBADMSG;
	}
	return 0;
}

int rec_data_next(struct rec_data_cur *d, size_t max, rec_data_cb cb, void *ctx)
{
	_Alignas(8) uint8_t scratch[sizeof(struct rec) + REC_TEXT_MAX + STREAM_MAX_FIELDS * 8];
	struct rec *r = (struct rec *)(void *)scratch;

	for (size_t k = 0; k < max && d->i < d->count; k++) {
		if (data_one(d, r))
			return -EBADMSG;
		d->i++;
		cb(ctx, r);
	}
	return d->i < d->count;
}

int rec_data_decode(const uint8_t *p, size_t n, uint32_t *stream, rec_data_cb cb, void *ctx)
{
	struct rec_data_cur d;
	int rc = rec_data_begin(&d, p, n);

	if (rc)
		return rc;
	*stream = d.stream;
	rc = rec_data_next(&d, SIZE_MAX, cb, ctx);
	return rc < 0 ? rc : 0;
}
