/* SPDX-License-Identifier: GPL-2.0-only */
/* A bounded msgpack reader for untrusted payloads: msgpack-c has no size
 * limits (a 4-billion-element header makes it allocate), so the reader
 * checks every count against the bytes left and caps nesting. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "rec_format.h"

static bool mp_need(struct mp_cur *c, size_t n)
{
	if (c->err || (size_t)(c->end - c->p) < n) {
		c->err = true;
		return false;
	}
	return true;
}

static bool mp_be(struct mp_cur *c, int n, uint64_t *v)
{
	uint64_t x = 0;

	if (!mp_need(c, (size_t)n))
		return false;
	for (int i = 0; i < n; i++)
		x = x << 8 | c->p[i];
	c->p += n;
	*v = x;
	return true;
}

static bool mp_fail(struct mp_cur *c)
{
	c->err = true;
	return false;
}

static bool mp_container(struct mp_cur *c, uint32_t *n, uint8_t fix, uint8_t b16, uint8_t b32,
			 unsigned per)
{
	uint64_t v;
	uint8_t t;

	if (!mp_need(c, 1))
		return false;
	t = *c->p;
	if ((t & 0xf0) == fix) {
		c->p++;
		v = t & 0x0f;
	} else if (t == b16 || t == b32) {
		c->p++;
		if (!mp_be(c, t == b16 ? 2 : 4, &v))
			return false;
	} else {
		return mp_fail(c);
	}
	/* every element takes at least one byte: a count beyond what is left is a lie */
	if (v * per > (uint64_t)(c->end - c->p))
		return mp_fail(c);
	*n = (uint32_t)v;
	return true;
}

bool mp_array(struct mp_cur *c, uint32_t *n)
{
	return mp_container(c, n, 0x90, 0xdc, 0xdd, 1);
}

bool mp_array_min(struct mp_cur *c, uint32_t *n, unsigned min_bytes)
{
	return mp_container(c, n, 0x90, 0xdc, 0xdd, min_bytes ? min_bytes : 1);
}

bool mp_map(struct mp_cur *c, uint32_t *n)
{
	return mp_container(c, n, 0x80, 0xde, 0xdf, 2);
}

bool mp_int(struct mp_cur *c, int64_t *v)
{
	uint64_t u;
	uint8_t t;

	if (!mp_need(c, 1))
		return false;
	t = *c->p;
	if (t <= 0x7f || t >= 0xe0) {
		c->p++;
		*v = (int8_t)t;
		if (t <= 0x7f)
			*v = t;
		return true;
	}
	c->p++;
	switch (t) {
	case 0xcc:
	case 0xcd:
	case 0xce:
	case 0xcf:
		if (!mp_be(c, 1 << (t - 0xcc), &u))
			return false;
		if (u > INT64_MAX)
			return mp_fail(c);
		*v = (int64_t)u;
		return true;
	case 0xd0:
		if (!mp_be(c, 1, &u))
			return false;
		*v = (int8_t)u;
		return true;
	case 0xd1:
		if (!mp_be(c, 2, &u))
			return false;
		*v = (int16_t)u;
		return true;
	case 0xd2:
		if (!mp_be(c, 4, &u))
			return false;
		*v = (int32_t)u;
		return true;
	case 0xd3:
		if (!mp_be(c, 8, &u))
			return false;
		*v = (int64_t)u;
		return true;
	default:
		return mp_fail(c);
	}
}

bool mp_uint(struct mp_cur *c, uint64_t *v)
{
	uint8_t t;
	int64_t s;

	if (!mp_need(c, 1))
		return false;
	t = *c->p;
	if (t >= 0xcc && t <= 0xcf) {
		c->p++;
		return mp_be(c, 1 << (t - 0xcc), v);
	}
	if (!mp_int(c, &s))
		return false;
	if (s < 0)
		return mp_fail(c);
	*v = (uint64_t)s;
	return true;
}

bool mp_double(struct mp_cur *c, double *v)
{
	uint64_t u;
	int64_t s;

	if (!mp_need(c, 1))
		return false;
	if (*c->p == 0xcb) {
		c->p++;
		if (!mp_be(c, 8, &u))
			return false;
		memcpy(v, &u, 8);
		return true;
	}
	if (*c->p == 0xca) {
		float f;
		uint32_t w;

		c->p++;
		if (!mp_be(c, 4, &u))
			return false;
		w = (uint32_t)u;
		memcpy(&f, &w, 4);
		*v = f;
		return true;
	}
	if (!mp_int(c, &s))
		return false;
	*v = (double)s;
	return true;
}

bool mp_str(struct mp_cur *c, const char **s, uint32_t *n)
{
	uint64_t len;
	uint8_t t;

	if (!mp_need(c, 1))
		return false;
	t = *c->p++;
	if ((t & 0xe0) == 0xa0)
		len = t & 0x1f;
	else if (t == 0xd9 || t == 0xc4)
		mp_be(c, 1, &len);
	else if (t == 0xda || t == 0xc5)
		mp_be(c, 2, &len);
	else if (t == 0xdb || t == 0xc6)
		mp_be(c, 4, &len);
	else
		return mp_fail(c);
	if (c->err || !mp_need(c, len))
		return false;
	*s = (const char *)c->p;
	*n = (uint32_t)len;
	c->p += len;
	return true;
}

static bool mp_skip_depth(struct mp_cur *c, int depth)
{
	uint8_t t;
	uint32_t n;
	const char *s;
	int64_t i;
	double d;

	if (depth > REC_MAX_DEPTH)
		return mp_fail(c);
	if (!mp_need(c, 1))
		return false;
	t = *c->p;
	if (t <= 0x7f || t >= 0xe0 || (t >= 0xcc && t <= 0xd3))
		return t == 0xcf ? (c->p++, mp_be(c, 8, &(uint64_t){0})) : mp_int(c, &i);
	if (t == 0xca || t == 0xcb)
		return mp_double(c, &d);
	if (t == 0xc0 || t == 0xc2 || t == 0xc3) {
		c->p++;
		return true;
	}
	if ((t & 0xe0) == 0xa0 || t == 0xd9 || t == 0xda || t == 0xdb || t == 0xc4 || t == 0xc5 ||
	    t == 0xc6)
		return mp_str(c, &s, &n);
	if ((t & 0xf0) == 0x90 || t == 0xdc || t == 0xdd) {
		if (!mp_array(c, &n))
			return false;
		while (n--)
			if (!mp_skip_depth(c, depth + 1))
				return false;
		return true;
	}
	if ((t & 0xf0) == 0x80 || t == 0xde || t == 0xdf) {
		if (!mp_map(c, &n))
			return false;
		for (uint64_t k = 0; k < 2ull * n; k++)
			if (!mp_skip_depth(c, depth + 1))
				return false;
		return true;
	}
	return mp_fail(c); /* ext types and 0xc1 are not used by asys */
}

bool mp_skip(struct mp_cur *c)
{
	return mp_skip_depth(c, 0);
}

char *mp_strdup(struct mp_cur *c, uint32_t max)
{
	const char *s;
	uint32_t n;
	char *r;

	if (!mp_str(c, &s, &n))
		return NULL;
	if (n > max)
		n = max;
	r = malloc(n + 1);
	if (!r)
		return NULL;
	memcpy(r, s, n);
	r[n] = 0;
	/* a NUL inside would silently shorten names; keep it visible instead */
	for (uint32_t i = 0; i < n; i++)
		if (!r[i])
			r[i] = '?';
	return r;
}

bool mp_key_is(const char *s, uint32_t n, const char *key)
{
	return strlen(key) == n && !memcmp(s, key, n);
}
