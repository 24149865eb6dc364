#include "config.h"

#include "layout.h"

static int clamp_min(const struct layout_req *r)
{
	return r->min < 1 ? 1 : r->min;
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
	/* drop from the bottom, keeping the focused pane */
	for (int i = n - 1; i >= 0 && used > avail; i--) {
		if (i == focus)
			continue;
		used -= out[i] + LAYOUT_BOX_ROWS;
		out[i] = 0;
	}
	if (used > avail) {
		/* only the focused pane is left and it does not fit: squeeze it */
		int rows = avail - LAYOUT_BOX_ROWS;

		if (focus >= 0)
			out[focus] = rows >= 1 ? rows : 0;
		used = focus >= 0 && out[focus] ? out[focus] + LAYOUT_BOX_ROWS : 0;
		return used;
	}
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
