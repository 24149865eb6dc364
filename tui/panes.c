/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <stddef.h>

#include "pane.h"

/* One line per pane, in display order; a pane's hotkey is its place. A pane
 * depends on its streams, not on the library of the collector that makes
 * them: every pane is built in every configuration, so a recording replays
 * whole on a build without that library. A pane whose streams are absent
 * is not shown, unless it has no .visible (kernels, ranges): then its key
 * always leads to it, and it says why it is empty. */

extern const struct pane_class ppu_pane;
extern const struct pane_class nic_pane;

extern const struct pane_class cpu_pane;
extern const struct pane_class mem_pane;

/* kernels */
extern const struct pane_class kernels_pane;
/* ranges */
extern const struct pane_class ranges_pane;

const struct pane_class *const pane_registry[] = {
    &ppu_pane, /* '1' */

    &nic_pane, /* '2' */

    &cpu_pane, /* '3' */
    &mem_pane, /* '4' */

    &kernels_pane, /* '5' */

    &ranges_pane, /* '6' */

    NULL,
};
