/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernels pane's copies section: memory copies per process and
 * direction from the stream gpurt.copy, above the kernels. */
#ifndef ASYS_PANE_COPIES_H
#define ASYS_PANE_COPIES_H

#include <curses.h>

#include "pane.h"

/* Rows the section wants (a header and a row per process that copied, at
 * most max); 0 without copies. */
int copies_rows(const struct view *v, int max);
/* Draws the section from the top of w in at most max rows; the rows used. */
int copies_draw(WINDOW *w, struct view *v, int max);
/* Draws the section at the top of w, in at most half of it (none in fewer
 * than 4 rows), and returns the window of the rows below for the rest: a
 * subwindow to delwin, or w itself when the section took none. */
WINDOW *copies_section(WINDOW *w, struct view *v);
/* All processes' copied bytes per second ("1.2 GB/s"), or "" without copies. */
void copies_total(const struct view *v, char *buf, size_t n);

#endif
