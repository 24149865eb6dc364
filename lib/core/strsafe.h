/* SPDX-License-Identifier: GPL-2.0-only */
/* Strings from files, /proc and argv, made safe to show on a terminal. */
#ifndef ASYS_STRSAFE_H
#define ASYS_STRSAFE_H

#include <stddef.h>

#include <stdbool.h>
#include <stdint.h>

/* What the character at s is to a terminal; every output of text asks this
 * one function (str_escape, CSV, JSON, OpenMetrics, the screen). */
enum str_class {
	STR_PLAIN,   /* shown as it is */
	STR_CONTROL, /* C0, DEL, C1 (U+0080..U+009F: xterm obeys U+009B as CSI) or
		      * a bidirectional control (U+061C, U+200E, U+200F,
		      * U+202A..U+202E, U+2066..U+2069: they reorder what follows) */
	STR_BAD,     /* a byte that does not start valid UTF-8 */
};

/* An ASCII control byte (C0 or DEL): what the byte-wise scrubs of fixed
 * fields (/proc texts, labels built in place, a config line) replace or
 * refuse, where a whole character's class (str_class) is not needed. */
static inline bool str_ascii_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* The class of the character at s (*s != 0); *len gets its bytes (1 for a
 * bad byte) and *cp its code point (the byte for a bad one). */
enum str_class str_class(const char *s, size_t *len, uint32_t *cp);

/* Whether str_escape would change s other than by doubling a backslash:
 * a string without controls or bad bytes can be shown as it is. */
bool str_needs_escape(const char *s);

/* Copies src into dst (n bytes, n >= 1) for display: control characters
 * become \n, \r, \t, \e or \xNN, a backslash \\, a byte that is not part of
 * valid UTF-8 \xNN, the C1 controls (U+0080..U+009F, which some
 * terminals obey) \xC2\xNN and the bidirectional controls \u202E. The result holds at most maxlen
 * bytes (0: only n bounds it) and at most n - 1; when src does not fit it ends in "...", never in
 * half an escape or half a character. Always NUL-terminated. Returns dst. */
char *str_escape(char *dst, size_t n, const char *src, size_t maxlen);

/* The length of the valid UTF-8 sequence at s (2..4 bytes), or 0 for a
 * byte that does not start one (ASCII included). */
size_t str_utf8_len(const char *s);

#endif
