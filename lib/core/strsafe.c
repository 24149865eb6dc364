/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "strsafe.h"

/* Overlong forms, surrogates and code points past U+10FFFF are not valid. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t cp;

	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

size_t str_utf8_len(const char *s)
{
	return utf8_len((const unsigned char *)s);
}

static bool is_bidi(uint32_t cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

static uint32_t code_point(const unsigned char *s, size_t len)
{
	static const unsigned char lead_mask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
	uint32_t cp = s[0] & lead_mask[len];

	for (size_t i = 1; i < len; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	return cp;
}

enum str_class str_class(const char *str, size_t *len, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;

	*len = 1;
	*cp = s[0];
	if (s[0] < 0x80)
		return s[0] < 0x20 || s[0] == 0x7f ? STR_CONTROL : STR_PLAIN;
	*len = utf8_len(s);
	if (!*len) {
		*len = 1;
		return STR_BAD;
	}
	*cp = code_point(s, *len);
	return (*cp >= 0x80 && *cp < 0xa0) || is_bidi(*cp) ? STR_CONTROL : STR_PLAIN;
}

bool str_needs_escape(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
		size_t len;
		uint32_t cp;

		/* plain ASCII, the common case, without a call */
		if (*p >= 0x20 && *p < 0x7f) {
			p++;
			continue;
		}
		if (str_class((const char *)p, &len, &cp) != STR_PLAIN)
			return true;
		p += len;
	}
	return false;
}

/* The display form of the character at s into out (at most 8 bytes);
 * *used gets how many bytes of s it covers. */
static size_t escape_one(const unsigned char *s, char *out, size_t *used)
{
	static const char named[] = {'\n', 'n', '\r', 'r', '\t', 't', '\x1b', 'e', '\\', '\\'};
	enum str_class c;
	uint32_t cp;

	for (size_t i = 0; i < sizeof(named); i += 2) {
		if (s[0] == (unsigned char)named[i]) {
			*used = 1;
			out[0] = '\\';
			out[1] = named[i + 1];
			return 2;
		}
	}
	c = str_class((const char *)s, used, &cp);
	if (c == STR_PLAIN) {
		memcpy(out, s, *used);
		return *used;
	}
	if (c == STR_BAD || *used == 1)
		return (size_t)snprintf(out, 5, "\\x%02X", s[0]);
	if (cp < 0xa0)
		return (size_t)snprintf(out, 9, "\\xC2\\x%02X", s[1]);
	return (size_t)snprintf(out, 9, "\\u%04X", cp);
}

char *str_escape(char *dst, size_t n, const char *src, size_t maxlen)
{
	const unsigned char *s = (const unsigned char *)(src ? src : "");
	size_t cap = n - 1, o = 0, mark = 0;
	bool cut = false;

	if (maxlen && maxlen < cap)
		cap = maxlen;
	while (*s) {
		char one[9];
		size_t used, k = escape_one(s, one, &used);

		if (o + k > cap) {
			cut = true;
			break;
		}
		/* where "..." would start if what follows does not fit */
		if (o + k + 3 <= cap)
			mark = o + k;
		memcpy(dst + o, one, k);
		o += k;
		s += used;
	}
	/* too short for "...": what fits whole */
	if (cut && cap >= 3) {
		memcpy(dst + mark, "...", 3);
		o = mark + 3;
	}
	dst[o] = 0;
	return dst;
}
