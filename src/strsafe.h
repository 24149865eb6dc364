/* Strings from outside (a recording, /proc, argv, the environment) on their
 * way to a terminal: control characters would move the cursor, clear the
 * screen or set the window title, so they are shown escaped instead. */
#ifndef ASYS_STRSAFE_H
#define ASYS_STRSAFE_H

#include <stddef.h>

/* Copies src into dst (n bytes, always NUL-terminated) with every control
 * character (C0, DEL, and C1 as UTF-8) and every byte of malformed UTF-8
 * written as \n, \t, \r or \xNN; valid UTF-8 text passes whole. At most
 * maxlen bytes of output are kept (0: as many as fit), and a cut string ends
 * in "...". Returns dst. */
char *str_escape(char *dst, size_t n, const char *src, size_t maxlen);

/* Length of a valid UTF-8 sequence at s that is no control character, or 0. */
size_t str_utf8_len(const unsigned char *s);

#endif
