/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include "registry.h"

#include "cpu.h"
#include "gpurt_api.h"
#include "hgtx.h"
#include "ktime.h"
#include "mem.h"
#include "nic.h"
#include "ppu.h"

/* One line per collector, in display order. Optional ones sit under the
 * HAVE_ of the library they need. No constructors: they would vanish when
 * linked from a static library. */

const struct collector *const collector_registry[] = {
    /* ppu */ &ppu_collector,
    &ppu_metrics_collector,
/* nic */
#ifdef HAVE_MNL
    &nic_collector,
#endif
    &cpu_collector,
    &mem_collector,
    /* gpurt */
    &gpurt_collector,
    /* hgtx */ &hgtx_collector,
    /* ktime */ &ktime_collector,
    NULL,
};
