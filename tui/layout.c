/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <string.h>

#include "layout.h"

static int clamp_min(const struct layout_req *r)
{
	return r->min < 1 ? 1 : r->min;
}

/* The pane short of rows that idle panes make way for: the focused one,
 * else the one with data that lacks the most of its want; -1 for none. */
static int needy_pane(const struct layout_req *req, int n, int focus, const int *out)
{
	int best = -1, gap = 0;

	if (focus >= 0 && req[focus].want > out[focus])
		return focus;
	for (int i = 0; i < n; i++) {
		if (out[i] && !req[i].idle && req[i].want - out[i] > gap) {
			gap = req[i].want - out[i];
			best = i;
		}
	}
	return best;
}

/* While that pane would get less than it wants and less than half the
 * rows, the unfocused panes with only a reason to show give it theirs, from
 * the bottom: on a small screen a table is not cut to a few rows for lines
 * saying there is nothing yet (their keys still bring them back). Returns
 * the rows used. */
static int idle_give_way(const struct layout_req *req, int n, int avail, int focus, int *out,
			 int used)
{
	int b = needy_pane(req, n, focus, out);

	for (int i = n - 1; b >= 0 && i >= 0; i--) {
		int could = out[b] + avail - used + LAYOUT_BOX_ROWS;

		if (could - LAYOUT_BOX_ROWS >= req[b].want || 2 * could >= avail)
			break;
		if (i == focus || i == b || !out[i] || !req[i].idle)
			continue;
		used -= out[i] + LAYOUT_BOX_ROWS;
		out[i] = 0;
	}
	return used;
}

int layout_rows(const struct layout_req *req, int n, int avail, int *out)
{
	int used = 0, focus = -1, spare;

	for (int i = 0; i < n; i++) {
		out[i] = clamp_min(&req[i]);
		used += out[i] + LAYOUT_BOX_ROWS;
		if (req[i].focused && focus < 0)
			focus = i;
	}
	/* drop from the bottom, keeping the focused pane: first the panes with
	 * only a reason to show, then the others */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = n - 1; i >= 0 && used > avail; i--) {
			if (i == focus || !out[i] || (pass == 0 && !req[i].idle))
				continue;
			used -= out[i] + LAYOUT_BOX_ROWS;
			out[i] = 0;
		}
	}
	if (used > avail) {
		/* only the focused pane is left and it does not fit: squeeze it */
		int rows = avail - LAYOUT_BOX_ROWS;

		if (focus >= 0)
			out[focus] = rows >= 1 ? rows : 0;
		used = focus >= 0 && out[focus] ? out[focus] + LAYOUT_BOX_ROWS : 0;
		return used;
	}
	/* a pane dropped to make room for one above it comes back when its
	 * minimum fits in what is left: a row band is not left blank while a
	 * smaller pane below could use it */
	for (int i = 0; i < n; i++) {
		int min = clamp_min(&req[i]);

		if (!out[i] && used + min + LAYOUT_BOX_ROWS <= avail) {
			out[i] = min;
			used += min + LAYOUT_BOX_ROWS;
		}
	}
	used = idle_give_way(req, n, avail, focus, out, used);
	spare = avail - used;
	if (focus >= 0 && req[focus].want > out[focus]) {
		int add = req[focus].want - out[focus];

		add = add < spare ? add : spare;
		out[focus] += add;
		spare -= add;
	}
	for (int i = 0; i < n && spare > 0; i++) {
		int add;

		if (!out[i] || req[i].want <= out[i])
			continue;
		add = req[i].want - out[i];
		add = add < spare ? add : spare;
		out[i] += add;
		spare -= add;
	}
	if (spare > 0) {
		int to = -1;

		/* every want is met: the bottom pane reaches down to the hint
		 * line, so no blank band is left under it */
		for (int i = n - 1; to < 0 && i >= 0; i--)
			if (out[i])
				to = i;
		if (to >= 0) {
			out[to] += spare;
			spare = 0;
		}
	}
	return avail - spare;
}

/* Panes that share a band on a wide screen: the left one, the right one and
 * the left one's share of the width in percent (SCREEN.md's 160x48 screen
 * gives the PPU pane the larger part). A pair is used only when both panes
 * are shown and next to each other; else each keeps a band of its own. */
static const struct layout_pair {
	const char *left, *right;
	int left_pct;
} layout_pairs[] = {
    {"ppu", "nic", 56},
};

static bool is_pair(const char *a, const char *b, int *pct)
{
	for (size_t i = 0; i < sizeof(layout_pairs) / sizeof(layout_pairs[0]); i++) {
		if (a && b && !strcmp(layout_pairs[i].left, a) &&
		    !strcmp(layout_pairs[i].right, b)) {
			*pct = layout_pairs[i].left_pct;
			return true;
		}
	}
	return false;
}

int layout_bands(const char *const *names, int n, int cols, struct layout_box *box)
{
	int bands = 0, pct;

	for (int i = 0; i < n; i++) {
		box[i] = (struct layout_box){.band = bands, .cols = cols};
		if (cols >= LAYOUT_WIDE_COLS && i + 1 < n &&
		    is_pair(names[i], names[i + 1], &pct)) {
			box[i].cols = cols * pct / 100;
			box[i + 1] = (struct layout_box){
			    .band = bands, .x = box[i].cols, .cols = cols - box[i].cols};
			i++;
		}
		bands++;
	}
	return bands;
}

int layout_place(const struct layout_req *req, int n, int avail, struct layout_box *box)
{
	struct layout_req band[LAYOUT_MAX_PANES] = {0};
	int out[LAYOUT_MAX_PANES], nb = 0, used, y = 0;

	if (n > LAYOUT_MAX_PANES)
		n = LAYOUT_MAX_PANES;
	for (int i = 0; i < n; i++) {
		int b = box[i].band;

		if (b < 0 || b >= LAYOUT_MAX_PANES)
			continue;
		if (b >= nb) {
			nb = b + 1;
			band[b] = req[i];
			continue;
		}
		band[b].idle = band[b].idle && req[i].idle;
		if (req[i].min > band[b].min)
			band[b].min = req[i].min;
		if (req[i].want > band[b].want)
			band[b].want = req[i].want;
		band[b].focused = band[b].focused || req[i].focused;
	}
	used = layout_rows(band, nb, avail, out);
	for (int b = 0, i = 0; b < nb; b++) {
		for (; i < n && box[i].band == b; i++) {
			box[i].y = y;
			box[i].rows = out[b] ? out[b] + LAYOUT_BOX_ROWS : 0;
		}
		if (out[b])
			y += out[b] + LAYOUT_BOX_ROWS;
	}
	return used;
}
