/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <string.h>

#include "hgtx_stream.h"
#include "strsafe.h"

/* Copies at most HGTX_STREAM_PART bytes of s, control characters as '?'. */
static char *hgtx_part(char *out, const char *s)
{
	size_t i = 0;

	for (; s && s[i] && i < HGTX_STREAM_PART; i++) {
		out[i] = str_ascii_control((unsigned char)s[i]) ? '?' : s[i];
	}
	return out + i;
}

void hgtx_stream_label(char *buf, const char *domain, const char *name)
{
	char *p = hgtx_part(buf, domain);

	*p++ = '\x1f';
	*hgtx_part(p, name) = '\0';
}
