/* SPDX-License-Identifier: GPL-2.0-only */
/* Layout of the panes, kept apart from ncurses so it can be tested: which
 * panes share a band of rows (side by side on a wide screen), who is shown,
 * and where each box goes. */
#ifndef ASYS_LAYOUT_H
#define ASYS_LAYOUT_H

#include <stdbool.h>

#define LAYOUT_BOX_ROWS 2 /* top and bottom border of a pane */
#define LAYOUT_MAX_PANES 16

struct layout_req {
	int min;  /* inner rows below which the pane says nothing useful */
	int want; /* inner rows it would fill */
	bool focused;
	bool idle; /* only a reason, no data: dropped first */
};

/* Gives each of n panes (in display order) its inner rows in out[] from avail
 * screen rows, borders included. Every pane first gets its minimum; when they
 * do not all fit, panes are dropped from the bottom, idle ones before the
 * others and never the focused one (out[i] = 0), and a dropped pane whose
 * minimum fits in the rows left comes back. While the focused pane (else
 * the pane with data furthest from its want) would get less than its want
 * and less than half of avail, unfocused idle panes give it their rows, from
 * the bottom. Then the focused pane grows to its want, then the others in
 * order; rows still left go to the bottom pane.
 * Returns the rows used. */
int layout_rows(const struct layout_req *req, int n, int avail, int *out);

/* From this many columns on, the panes that layout.c pairs (PPU and NIC, as
 * SCREEN.md's 160x48 screen has them) sit side by side; below, every pane
 * has a band of its own. */
#define LAYOUT_WIDE_COLS 160

/* Where a box goes: y relative to the first pane row, x and the box's size
 * with its borders. rows == 0: not shown. */
struct layout_box {
	int band; /* panes with the same band share their rows */
	int y, x, rows, cols;
};

/* Splits cols among n shown panes named in display order (pane_class.name):
 * sets each box's band, x and cols. Returns the number of bands. */
int layout_bands(const char *const *names, int n, int cols, struct layout_box *box);
/* Gives the bands of box[] (from layout_bands) their rows from avail screen
 * rows with layout_rows, a band asking for the most that any of its panes
 * asks and being focused when one of them is; every pane of a band gets the
 * band's rows. Sets y and rows (borders included; 0 = not shown). Returns
 * the rows used. */
int layout_place(const struct layout_req *req, int n, int avail, struct layout_box *box);

#endif
