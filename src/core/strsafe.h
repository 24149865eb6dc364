/* Strings from files, /proc and argv, made safe to show on a terminal. */
#ifndef ASYS_STRSAFE_H
#define ASYS_STRSAFE_H

#include <stddef.h>

/* Copies src into dst (n bytes, n >= 1) for display: control characters
 * become \n, \r, \t, \e or \xNN, a backslash \\, a byte that is not part of
 * valid UTF-8 \xNN, and the C1 controls (U+0080..U+009F, which some
 * terminals obey) \xC2\xNN. The result holds at most maxlen bytes (0: only n
 * bounds it) and at most n - 1; when src does not fit it ends in "...",
 * never in half an escape or half a character. Always NUL-terminated.
 * Returns dst. */
char *str_escape(char *dst, size_t n, const char *src, size_t maxlen);

/* The length of the valid UTF-8 sequence at s (2..4 bytes), or 0 for a
 * byte that does not start one (ASCII included). */
size_t str_utf8_len(const char *s);

#endif
