#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "strsafe.h"

size_t str_utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t len;
	unsigned cp;

	if (c < 0x20 || c == 0x7f)
		return 0;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, past U+10FFFF, and the C1 controls (a
	 * terminal in UTF-8 mode takes U+009B as CSI) */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return len;
}

/* The escaped form of the byte at s: "\n" or "\xNN". */
static size_t str_escape_byte(char out[5], unsigned char c)
{
	switch (c) {
	case '\n':
		return (size_t)snprintf(out, 5, "\\n");
	case '\t':
		return (size_t)snprintf(out, 5, "\\t");
	case '\r':
		return (size_t)snprintf(out, 5, "\\r");
	default:
		return (size_t)snprintf(out, 5, "\\x%02x", c);
	}
}

char *str_escape(char *dst, size_t n, const char *src, size_t maxlen)
{
	const unsigned char *s = (const unsigned char *)(src ? src : "");
	size_t used = 0, cap;
	bool cut = false;

	if (!n)
		return dst;
	cap = n - 1;
	if (maxlen && maxlen < cap)
		cap = maxlen;
	while (*s) {
		char esc[5];
		size_t k = str_utf8_len(s);
		const char *piece = (const char *)s;

		if (!k) {
			k = 1;
			piece = esc;
		}
		size_t w = piece == esc ? str_escape_byte(esc, *s) : k;

		if (used + w > cap) {
			cut = true;
			break;
		}
		memcpy(dst + used, piece, w);
		used += w;
		s += k;
	}
	if (cut) {
		/* room for the mark, without splitting a UTF-8 sequence */
		while (used > 0 && used + 3 > n - 1)
			while (used > 0 && ((unsigned char)dst[--used] & 0xc0) == 0x80)
				;
		if (used + 3 <= n - 1) {
			memcpy(dst + used, "...", 3);
			used += 3;
		}
	}
	dst[used] = '\0';
	return dst;
}
