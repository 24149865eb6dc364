#include "config.h"

#include <stddef.h>

#include "pane.h"

/* One line per pane, in display order; a pane's hotkey is its place. Panes
 * of optional sources sit under the HAVE_ of what they need, as in
 * collectors/registry.c. */

extern const struct pane_class ppu_pane;

#ifdef HAVE_MNL
extern const struct pane_class nic_pane;
#endif

extern const struct pane_class cpu_pane;
extern const struct pane_class mem_pane;

/* kernels */
extern const struct pane_class kernels_pane;

const struct pane_class *const pane_registry[] = {
    &ppu_pane, /* '1' */

#ifdef HAVE_MNL
    &nic_pane, /* '2' */
#endif

    &cpu_pane, /* '3' */
    &mem_pane, /* '4' */

    &kernels_pane, /* '5' */

    NULL,
};
