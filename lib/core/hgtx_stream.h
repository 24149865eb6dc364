/* SPDX-License-Identifier: GPL-2.0-only */
/* The stream hgtx.ranges' entity labels. Its schema is the catalogue's
 * (STREAM_HGTX_RANGES), one whoever produces it (the hgtx collector, from the
 * injection library's region; the gpurt collector, from the NVTX v2
 * uprobes): the stream table gives identical schemas one stream, and refuses
 * a second schema under the name. */
#ifndef ASYS_HGTX_STREAM_H
#define ASYS_HGTX_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "catalogue.h"

/* HGTX_STREAM_PART bytes at most of the domain and of the name, each */
#define HGTX_STREAM_PART 120
#define HGTX_STREAM_LABEL_MAX (2 * HGTX_STREAM_PART + 2)

/* The entity label: DOMAIN "\x1f" NAME (DOMAIN "" for the default domain),
 * each cut at HGTX_STREAM_PART bytes and any control character replaced by
 * '?'. buf holds HGTX_STREAM_LABEL_MAX bytes. */
void hgtx_stream_label(char *buf, const char *domain, const char *name);

#endif
