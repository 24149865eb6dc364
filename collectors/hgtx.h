/* The hgtx collector: HGTX/NVTX ranges of a workload started after --,
 * from the region libasys-inject.so writes (collectors/inject_host.h). */
#ifndef ASYS_HGTX_H
#define ASYS_HGTX_H

#include <stdbool.h>
#include <stdint.h>

#include "options.h"

/* Whether process pid's NVTX calls reach libasys-inject.so and the region
 * (the library gave it a process slot): its ranges are counted there, and
 * another producer of hgtx.ranges (the NVTX v2 probes) leaves them out. */
bool hgtx_region_serves(uint32_t pid);

#endif
