/* Row layout of the stacked panes, kept apart from ncurses so it can be
 * tested: who is shown, and how many inner rows each gets. */
#ifndef ASYS_LAYOUT_H
#define ASYS_LAYOUT_H

#include <stdbool.h>

#define LAYOUT_BOX_ROWS 2 /* top and bottom border of a pane */

struct layout_req {
	int min;  /* inner rows below which the pane says nothing useful */
	int want; /* inner rows it would fill */
	bool focused;
};

/* Gives each of n panes (in display order) its inner rows in out[] from avail
 * screen rows, borders included. Every pane first gets its minimum; when they
 * do not all fit, panes are dropped from the bottom, the focused one last
 * (out[i] = 0). Then the focused pane grows to its want, then the others in
 * order; rows still left go to the bottom pane. Returns the rows used. */
int layout_rows(const struct layout_req *req, int n, int avail, int *out);

#endif
