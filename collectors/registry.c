#include "config.h"

#include "registry.h"

/* One line per collector, in display order. Optional ones sit under the
 * HAVE_ of the library they need. No constructors: they would vanish when
 * linked from a static library. */
extern const struct collector ppu_collector;
extern const struct collector ppu_metrics_collector;
extern const struct collector cpu_collector;
extern const struct collector mem_collector;
#ifdef HAVE_MNL
extern const struct collector nic_collector;
#endif
extern const struct collector gpurt_collector; /* gpurt_none.c without eBPF */
extern const struct collector hgtx_collector;
extern const struct collector gpurt_ktime_collector;

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
    /* gpurt_ktime */ &gpurt_ktime_collector,
    NULL,
};
