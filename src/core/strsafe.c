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

/* The display form of the character at s into out (at most 8 bytes);
 * *used gets how many bytes of s it covers. */
static size_t escape_one(const unsigned char *s, char *out, size_t *used)
{
	static const char named[] = {'\n', 'n', '\r', 'r', '\t', 't', '\x1b', 'e', '\\', '\\'};
	size_t len;

	*used = 1;
	for (size_t i = 0; i < sizeof(named); i += 2) {
		if (s[0] == (unsigned char)named[i]) {
			out[0] = '\\';
			out[1] = named[i + 1];
			return 2;
		}
	}
	if (s[0] >= 0x20 && s[0] < 0x7f) {
		out[0] = (char)s[0];
		return 1;
	}
	len = s[0] >= 0x80 ? utf8_len(s) : 0;
	if (len == 2 && s[0] == 0xc2 && s[1] < 0xa0) {
		*used = 2;
		return (size_t)snprintf(out, 9, "\\xC2\\x%02X", s[1]);
	}
	if (len) {
		memcpy(out, s, len);
		*used = len;
		return len;
	}
	return (size_t)snprintf(out, 5, "\\x%02X", s[0]);
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
