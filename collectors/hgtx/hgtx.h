/* SPDX-License-Identifier: GPL-2.0-only */
/* The hgtx collector: HGTX/NVTX ranges of a workload started after --,
 * from the region libasys-inject.so writes, and the host's side of that
 * region (inject_host.h), which the kernel time collector and the commands
 * that start a job use too. */
#ifndef ASYS_HGTX_H
#define ASYS_HGTX_H

#include <stdbool.h>
#include <stdint.h>

#include "collector.h"
#include "inject_host.h"
#include "options.h"

extern const struct collector hgtx_collector;

/* Whether process pid's NVTX calls reach libasys-inject.so and the region
 * (the library gave it a process slot): its ranges are counted there, and
 * another producer of hgtx.ranges (the NVTX v2 probes) leaves them out. */
bool hgtx_region_serves(uint32_t pid);

#endif
