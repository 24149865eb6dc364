/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ppu_rows.h"
#include "store.h"
#include "util.h"
#include "widget.h"

/* A label is short; a bare metric name (a schema without labels) is cut to
 * this on an overlaid line, and whole on a stacked one. */
#define PPU_ROWS_LABEL_MAX 12
#define PPU_ROWS_SPARK 6 /* cells of an overlaid metric's spark */

void ppu_rows_load(struct ppu_rows *r, const struct stream_desc *desc)
{
	r->desc = desc;
	r->ngroups = 0;
	for (uint32_t f = 0; desc && f < desc->nfields && f < STREAM_MAX_FIELDS; f++) {
		const char *g = field_group(&desc->fields[f]);
		int k = 0;

		while (k < r->ngroups && strcmp(r->groups[k], g))
			k++;
		if (k == r->ngroups)
			r->groups[r->ngroups++] = g;
		r->group_of[f] = k;
	}
}

static void ppu_rows_fmt(char *buf, size_t n, double x, enum field_show show, const struct view *v)
{
	if (isnan(x))
		snprintf(buf, n, "n/a");
	else if (show == FIELD_SHOW_PERCENT)
		widget_fmt_pct(buf, n, x);
	else if (show == FIELD_SHOW_BYTE_RATE)
		widget_fmt_rate(buf, n, v, x);
	else if (show == FIELD_SHOW_BYTES)
		util_fmt_bytes(buf, n, x);
	else if (show == FIELD_SHOW_HZ) {
		widget_fmt_count(buf, n, x);
		util_strlcpy(buf + strlen(buf), "Hz", n - strlen(buf));
	} else
		widget_fmt_count(buf, n, x);
}

/* Field f's spark of sw cells at (y, x); a percent is scaled to 100. */
static void ppu_rows_spark(WINDOW *w, struct view *v, const struct series *met, uint32_t f,
			   bool pct, int y, int x, int sw)
{
	int per_cell = v->utf8 ? 2 : 1; /* braille: two values a cell */
	double hist[256];
	size_t n;

	if (sw * per_cell > (int)ARRAY_SIZE(hist))
		sw = (int)ARRAY_SIZE(hist) / per_cell;
	if (sw <= 0)
		return;
	n = series_history(met, f, v->end_ns, store_bucket_ns(v->store), hist,
			   (size_t)(sw * per_cell));
	widget_spark(w, v, y, x, sw, hist, (int)n, pct ? 100 : 0, TC_ACCENT);
}

/* One metric at (y, x): a line of its own when stacked, else a cell of its
 * group's line. Returns the columns taken, or -1 when an overlaid line has
 * no room left for it. */
static int ppu_rows_one(WINDOW *w, struct view *v, const struct ppu_rows *r,
			const struct series *met, uint32_t f, int y, int x, int cols)
{
	const struct field_desc *m = &r->desc->fields[f];
	enum field_show show = field_show_of(m);
	bool pct = show == FIELD_SHOW_PERCENT;
	char val[24], txt[STREAM_NAME_MAX + 40];
	int len, sw;

	ppu_rows_fmt(val, sizeof(val), view_value(met, (int)f, v, false), show, v);
	if (!v->overlay) {
		snprintf(txt, sizeof(txt), "  %-8s %9s ", field_label(m), val);
		if (w) {
			widget_text(w, y, 0, cols, txt, false);
			ppu_rows_spark(w, v, met, f, pct, y, (int)strlen(txt),
				       cols - (int)strlen(txt));
		}
		return cols;
	}
	snprintf(txt, sizeof(txt), "%.*s %s ", PPU_ROWS_LABEL_MAX, field_label(m), val);
	len = (int)strlen(txt);
	if (x + len + 4 > cols)
		return -1; /* the line is full: the stacked view shows all */
	if (!w)
		return len + PPU_ROWS_SPARK + 1;
	widget_text(w, y, x, cols - x, txt, false);
	sw = cols - x - len >= 2 * PPU_ROWS_SPARK ? PPU_ROWS_SPARK : 0;
	if (sw)
		ppu_rows_spark(w, v, met, f, pct, y, x + len, sw);
	return len + sw + (sw ? 1 : 0);
}

int ppu_rows_draw(WINDOW *w, struct view *v, const struct ppu_rows *r, const struct series *met,
		  int y, int maxl, int cols, bool count)
{
	int used = 0;

	/* nothing sampled yet (refused, not supported): the status says why */
	if (!r->desc || !met || !series_last_ns(met))
		return 0;
	for (int g = 0; g < r->ngroups && used < maxl; g++) {
		int x = 2, shown = 0;

		for (uint32_t f = 0; f < r->desc->nfields && used < maxl; f++) {
			int took;

			if (f >= STREAM_MAX_FIELDS || r->group_of[f] != g)
				continue;
			took = ppu_rows_one(count ? NULL : w, v, r, met, f, y + used, x, cols);
			if (!v->overlay) {
				used++;
			} else if (took >= 0) {
				x += took;
				shown++;
			}
		}
		if (v->overlay && shown)
			used++;
	}
	return used;
}
