/* The stream hgtx.ranges: HGTX (NVTX) ranges per (pid, domain, name), one
 * schema whoever produces it (the hgtx collector, from the injection
 * library's region; the gpurt collector, from the NVTX v2 uprobes): the
 * stream table gives identical schemas one stream, and refuses a second
 * schema under the name. */
#ifndef ASYS_HGTX_STREAM_H
#define ASYS_HGTX_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "stream.h"

/* Fields, in order: pid, depth (nesting when last seen, 0 = outermost) and
 * color (0xRRGGBB, NaN when none) attributes; count, total_ns and self_ns
 * (less the time in children) counters; min_ns and max_ns, gauges of the
 * ranges that ended since the last sample (NaN when none). */
enum {
	HGTX_PID,
	HGTX_DEPTH,
	HGTX_COLOR,
	HGTX_COUNT,
	HGTX_TOTAL_NS,
	HGTX_SELF_NS,
	HGTX_MIN_NS,
	HGTX_MAX_NS,
	HGTX_NFIELDS,
};

extern const struct stream_desc hgtx_ranges_stream;

/* HGTX_STREAM_PART bytes at most of the domain and of the name, each */
#define HGTX_STREAM_PART 120
#define HGTX_STREAM_LABEL_MAX (2 * HGTX_STREAM_PART + 2)

/* The entity label: DOMAIN "\x1f" NAME (DOMAIN "" for the default domain),
 * each cut at HGTX_STREAM_PART bytes and any control character replaced by
 * '?'. buf holds HGTX_STREAM_LABEL_MAX bytes. */
void hgtx_stream_label(char *buf, const char *domain, const char *name);

#endif
