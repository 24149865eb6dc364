#include "config.h"

#include <string.h>

#include "hgtx.h"

static const struct field_desc hgtx_fields[HGTX_NFIELDS] = {
    [HGTX_PID] = FIELD_DESC("pid", "", FIELD_ATTR),
    [HGTX_DEPTH] = FIELD_DESC("depth", "", FIELD_ATTR),
    [HGTX_COLOR] = FIELD_DESC("color", "", FIELD_ATTR),
    [HGTX_COUNT] = FIELD_DESC("count", "", FIELD_COUNTER),
    [HGTX_TOTAL_NS] = FIELD_DESC("total_ns", "ns", FIELD_COUNTER),
    [HGTX_SELF_NS] = FIELD_DESC("self_ns", "ns", FIELD_COUNTER),
    [HGTX_MIN_NS] = FIELD_DESC("min_ns", "ns", FIELD_GAUGE),
    [HGTX_MAX_NS] = FIELD_DESC("max_ns", "ns", FIELD_GAUGE),
};

const struct stream_desc hgtx_ranges_stream = {
    .name = "hgtx.ranges",
    .version = 1,
    .entity = ENTITY_KEY,
    .nfields = HGTX_NFIELDS,
    .fields = hgtx_fields,
    .help = "HGTX (NVTX) ranges per (process, domain, name); label \"DOMAIN<US>NAME\"; "
	    "min_ns and max_ns of the ranges ended since the last sample",
};

/* Copies at most HGTX_LABEL_PART bytes of s, control characters as '?'. */
static char *hgtx_part(char *out, const char *s)
{
	size_t i = 0;

	for (; s && s[i] && i < HGTX_LABEL_PART; i++) {
		unsigned char c = (unsigned char)s[i];
		out[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	return out + i;
}

void hgtx_label(char *buf, const char *domain, const char *name)
{
	char *p = hgtx_part(buf, domain);

	*p++ = '\x1f';
	*hgtx_part(p, name) = '\0';
}
