#include "config.h"

#include <string.h>

#include "hgtx_stream.h"
#include "strsafe.h"

#define HGTX_GROUP "ranges"

static const struct field_desc hgtx_fields[HGTX_NFIELDS] = {
    [HGTX_PID] =
	{.name = "pid", .unit = "", .kind = FIELD_ATTR, .group = HGTX_GROUP, .label = "PID"},
    [HGTX_DEPTH] = {.name = "depth",
		    .unit = "",
		    .kind = FIELD_ATTR,
		    .group = HGTX_GROUP,
		    .label = "DEPTH",
		    .display = "Nesting depth (0 = outermost)"},
    [HGTX_COLOR] =
	{.name = "color", .unit = "", .kind = FIELD_ATTR, .group = HGTX_GROUP, .label = "COLOR"},
    [HGTX_COUNT] = {.name = "count",
		    .unit = "ranges",
		    .kind = FIELD_COUNTER,
		    .group = HGTX_GROUP,
		    .label = "COUNT",
		    .display = "Ranges ended",
		    .show = FIELD_SHOW_COUNT},
    [HGTX_TOTAL_NS] = {.name = "total_ns",
		       .unit = "ns",
		       .kind = FIELD_COUNTER,
		       .group = HGTX_GROUP,
		       .label = "TOTAL",
		       .display = "Time in the ranges"},
    [HGTX_SELF_NS] = {.name = "self_ns",
		      .unit = "ns",
		      .kind = FIELD_COUNTER,
		      .group = HGTX_GROUP,
		      .label = "SELF",
		      .display = "Time in the ranges, less their children"},
    [HGTX_MIN_NS] = {.name = "min_ns",
		     .unit = "ns",
		     .kind = FIELD_GAUGE,
		     .group = HGTX_GROUP,
		     .label = "MIN",
		     .display = "Shortest range ended since the last sample"},
    [HGTX_MAX_NS] = {.name = "max_ns",
		     .unit = "ns",
		     .kind = FIELD_GAUGE,
		     .group = HGTX_GROUP,
		     .label = "MAX",
		     .display = "Longest range ended since the last sample"},
};

const struct stream_desc hgtx_ranges_stream = {
    .name = "hgtx.ranges",
    .version = 1,
    .entity = ENTITY_KEY,
    .nfields = HGTX_NFIELDS,
    .fields = hgtx_fields,
    .help = "HGTX/NVTX ranges per (process, domain, name) of a workload started after --, "
	    "or of libnvToolsExt.so.1 through uprobes, labelled DOMAIN<US>NAME",
};

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
