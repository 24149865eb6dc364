/* SPDX-License-Identifier: GPL-2.0-only */
/* A growable byte buffer, kept NUL-terminated so that a text in it is a C
 * string. A failed growth sets failed, and buf_put and buf_printf then add
 * nothing more (a text with a hole is worse than none); the owner reads
 * failed once at the end. A zeroed struct buf is empty; max, when set,
 * bounds len (-EFBIG). */
#ifndef ASYS_BUF_H
#define ASYS_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf {
	uint8_t *p;
	size_t len, cap;
	size_t max; /* 0: no bound but memory */
	bool failed;
};

/* Room for more bytes past len (and the NUL): 0, -EFBIG past max, or
 * -ENOMEM (failed set). It tries again after a failure. */
int buf_reserve(struct buf *b, size_t more);
/* Appends n bytes (none: nothing, and p may be NULL). */
void buf_put(struct buf *b, const void *p, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Inserts n bytes at off (off == len: appends): 0, -EFBIG or -ENOMEM. */
int buf_insert(struct buf *b, size_t off, const void *p, size_t n);
/* The text, NUL-terminated ("" when empty). */
const char *buf_str(const struct buf *b);
/* The bytes, handed to the caller (free()); the buffer is empty again.
 * NULL when it failed or holds nothing. */
char *buf_take(struct buf *b);
void buf_free(struct buf *b);

#endif
