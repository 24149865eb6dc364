/* SPDX-License-Identifier: GPL-2.0-only */
/* gpurt's public header: what the rest of the tree uses of the runtime
 * probes. gpurt.h is the one the BPF programs share, so this one has
 * another name. The kernel time collector reads gpurt's options (the
 * probe file) and demangles kernel names as gpurt does; procrun's eBPF
 * program logs through libbpf as quietly as gpurt's. */
#ifndef ASYS_GPURT_API_H
#define ASYS_GPURT_API_H

#include "collector.h"
#include "demangle.h"
#include "gpurt_scan.h"

extern const struct collector gpurt_collector; /* gpurt_none.c without eBPF */

/* libbpf prints nothing to the terminal: its last message is kept for the
 * error a user reads */
void gpurt_libbpf_quiet(void);

#endif
