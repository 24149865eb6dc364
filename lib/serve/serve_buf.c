#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve_int.h"
#include "strsafe.h"

static bool serve_buf_room(struct serve_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 16384;
	char *p;

	if (b->failed)
		return false;
	if (b->len + n + 1 <= b->cap)
		return true;
	while (cap < b->len + n + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->failed = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

void serve_buf_put(struct serve_buf *b, const char *s, size_t n)
{
	if (!serve_buf_room(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void serve_buf_printf(struct serve_buf *b, const char *fmt, ...)
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
		serve_buf_put(b, small, (size_t)n);
		return;
	}
	if (!serve_buf_room(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void serve_buf_label_value(struct serve_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n;
		uint32_t cp;

		if (*p == '\\' || *p == '"') {
			char e[2] = {'\\', (char)*p};

			serve_buf_put(b, e, 2);
		} else if (*p == '\n') {
			serve_buf_put(b, "\\n", 2);
		} else if (str_class((const char *)p, &n, &cp) == STR_PLAIN) {
			/* C0, C1, bidi controls and bad UTF-8: the core's verdict */
			serve_buf_put(b, (const char *)p, n);
			p += n - 1;
		} else {
			serve_buf_put(b, "?", 1);
			p += n - 1;
		}
		p++;
	}
}

void serve_buf_value(struct serve_buf *b, double v)
{
	if (isinf(v))
		serve_buf_put(b, v > 0 ? "+Inf" : "-Inf", 4);
	else if (v == floor(v) && fabs(v) < 1e17)
		serve_buf_printf(b, "%.0f", v);
	else
		serve_buf_printf(b, "%.15g", v);
}
