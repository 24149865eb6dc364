/* SPDX-License-Identifier: GPL-2.0-only */
/* The PPU pane's metric rows (ppu.metrics), drawn from the stream's schema
 * alone: its groups, labels and ways of showing, so that a replay looks as
 * it did live whatever build plays it. The rest of the pane is pane_ppu.c. */
#ifndef ASYS_PPU_ROWS_H
#define ASYS_PPU_ROWS_H

#include <stdbool.h>

#include "pane.h"
#include "stream.h"

struct series;

struct ppu_rows {
	const struct stream_desc *desc; /* ppu.metrics, or NULL */
	/* the groups in the order their first field comes, and each field's */
	const char *groups[STREAM_MAX_FIELDS];
	int ngroups;
	int group_of[STREAM_MAX_FIELDS];
};

void ppu_rows_load(struct ppu_rows *r, const struct stream_desc *desc);
/* Overlay: one line per group with each metric's value and a short spark;
 * stacked: one line per metric with a spark across the line. Returns the
 * lines used of at most maxl; count: only count them (w may be NULL). */
int ppu_rows_draw(WINDOW *w, struct view *v, const struct ppu_rows *r, const struct series *met,
		  int y, int maxl, int cols, bool count);

#endif
