/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

int buf_reserve(struct buf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 4096;
	uint8_t *np;

	if (b->max && more > b->max - (b->len < b->max ? b->len : b->max))
		return -EFBIG;
	if (b->len + more + 1 <= b->cap)
		return 0;
	while (cap < b->len + more + 1)
		cap *= 2;
	np = realloc(b->p, cap);
	if (!np) {
		b->failed = true;
		return -ENOMEM;
	}
	b->p = np;
	b->cap = cap;
	return 0;
}

void buf_put(struct buf *b, const void *p, size_t n)
{
	if (!n || b->failed || buf_reserve(b, n))
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void buf_puts(struct buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		buf_put(b, small, (size_t)n);
		return;
	}
	if (b->failed || buf_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf((char *)b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

int buf_insert(struct buf *b, size_t off, const void *p, size_t n)
{
	int r = buf_reserve(b, n);

	if (r)
		return r;
	memmove(b->p + off + n, b->p + off, b->len - off);
	memcpy(b->p + off, p, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

const char *buf_str(const struct buf *b)
{
	return b->p ? (const char *)b->p : "";
}

char *buf_take(struct buf *b)
{
	char *p = b->failed ? NULL : (char *)b->p;

	if (!p)
		free(b->p);
	*b = (struct buf){.max = b->max};
	return p;
}

void buf_free(struct buf *b)
{
	free(b->p);
	*b = (struct buf){.max = b->max};
}
