/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve_int.h"
#include "strsafe.h"

void serve_buf_label_value(struct buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n;
		uint32_t cp;

		if (*p == '\\' || *p == '"') {
			char e[2] = {'\\', (char)*p};

			buf_put(b, e, 2);
		} else if (*p == '\n') {
			buf_put(b, "\\n", 2);
		} else if (str_class((const char *)p, &n, &cp) == STR_PLAIN) {
			/* C0, C1, bidi controls and bad UTF-8: the core's verdict */
			buf_put(b, (const char *)p, n);
			p += n - 1;
		} else {
			buf_put(b, "?", 1);
			p += n - 1;
		}
		p++;
	}
}

void serve_buf_value(struct buf *b, double v)
{
	if (isinf(v))
		buf_put(b, v > 0 ? "+Inf" : "-Inf", 4);
	else if (v == floor(v) && fabs(v) < 1e17)
		buf_printf(b, "%.0f", v);
	else
		buf_printf(b, "%.15g", v);
}
