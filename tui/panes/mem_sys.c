/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "catalogue.h"
#include "mem_sys.h"
#include "store.h"
#include "stream.h"
#include "util.h"
#include "widget.h"

void mem_sys_load(struct mem_sys *m, const struct view *v)
{
	int id = stream_table_find(v->streams, catalogue_name(STREAM_MEM_SYS));
	const struct stream_desc *d;
	const struct series *se;

	m->have = false;
	for (int i = 0; i < MEM_SYS_NFIELDS; i++)
		m->v[i] = NAN;
	if (id < 0)
		return;
	d = stream_table_get(v->streams, (uint32_t)id);
	se = store_series(v->store, (uint32_t)id, 0);
	if (!se)
		return;
	for (int i = 0; i < MEM_SYS_NFIELDS; i++) {
		int f = catalogue_field_index(d, STREAM_MEM_SYS, (unsigned int)i);

		if (f >= 0)
			m->v[i] = view_value(se, f, v, true);
	}
	m->have = !isnan(m->v[MEM_SYS_TOTAL]);
}

/* Cached + SReclaimable, the part of free(1)'s buff/cache besides Buffers:
 * the yellow segment of the bar. */
static double sys_cache(const struct mem_sys *m)
{
	double c = m->v[MEM_SYS_CACHED];

	if (isnan(c))
		return NAN;
	if (!isnan(m->v[MEM_SYS_SRECLAIMABLE]))
		c += m->v[MEM_SYS_SRECLAIMABLE];
	return c;
}

/* free(1)'s buff/cache: the recorded figure, or its sum where a recording
 * has no buff_cache field. */
static double sys_buff_cache(const struct mem_sys *m)
{
	double c = sys_cache(m);

	if (!isnan(m->v[MEM_SYS_BUFF_CACHE]))
		return m->v[MEM_SYS_BUFF_CACHE];
	if (!isnan(c) && !isnan(m->v[MEM_SYS_BUFFERS]))
		c += m->v[MEM_SYS_BUFFERS];
	return c;
}

/* free(1)'s used, total - available: what the collector records as used,
 * taken here from total and available so that the title's "(total-avail)"
 * holds for recordings whose used is of another definition (mem.sys
 * version 1) too. Where available is unknown or above the total the
 * recorded figure stands: the collector's fallbacks for those are free's. */
static double sys_used(const struct mem_sys *m)
{
	double t = m->v[MEM_SYS_TOTAL], a = m->v[MEM_SYS_AVAILABLE];

	if (isnan(t) || isnan(a) || a > t)
		return m->v[MEM_SYS_USED];
	return t - a;
}

void mem_sys_title(const struct mem_sys *m, char *buf, int n, int width)
{
	char tot[16], used[16], avail[16], cache[16];

	buf[0] = '\0';
	if (!m->have)
		return;
	util_fmt_bytes(tot, sizeof(tot), m->v[MEM_SYS_TOTAL]);
	util_fmt_bytes(used, sizeof(used), sys_used(m));
	util_fmt_bytes(avail, sizeof(avail), m->v[MEM_SYS_AVAILABLE]);
	util_fmt_bytes(cache, sizeof(cache), sys_buff_cache(m));
	/* the definition of used where it fits: it is free(1)'s, not htop's */
	snprintf(buf, (size_t)n, "host %s: used %s (total-avail) avail %s buff/cache %s", tot, used,
		 avail, cache);
	if (widget_text_width(buf) > width)
		snprintf(buf, (size_t)n, "host %s: used %s avail %s buff/cache %s", tot, used,
			 avail, cache);
}

/* "Mem[bar] 12.3G/31.2G" in width columns. */
static void draw_sys_bar(WINDOW *w, const struct view *v, int y, int x, int width, const char *name,
			 const double *fracs, const enum tui_color *colors, int nseg, double used,
			 double total)
{
	char a[16], b[16], txt[40];
	int tw;

	util_fmt_bytes(a, sizeof(a), used);
	util_fmt_bytes(b, sizeof(b), total);
	snprintf(txt, sizeof(txt), " %s/%s", a, b);
	tw = widget_text_width(txt);
	widget_attr_on(w, v, TC_TITLE);
	widget_text(w, y, x, 4, name, false);
	widget_attr_off(w, v, TC_TITLE);
	if (width - 4 - tw - 2 >= 3) {
		widget_text(w, y, x + 4, 1, "[", false);
		widget_bar(w, v, y, x + 5, width - 4 - tw - 2, fracs, colors, nseg);
		widget_text(w, y, x + width - tw - 1, 1, "]", false);
	}
	widget_text(w, y, x + width - tw, tw, txt, false);
}

const char *mem_why_no_data(const struct view *v, const char *stream, const char *what)
{
	static char buf[300];
	int id = stream_table_find(v->streams, stream);
	const char *st = id >= 0 ? store_status(v->store, (uint32_t)id, STATUS_STREAM) : NULL;

	if (id < 0)
		snprintf(buf, sizeof(buf), "no %s data: the mem collector is not running", what);
	else if (st && *st)
		snprintf(buf, sizeof(buf), "no %s data: %s", what, st);
	else
		snprintf(buf, sizeof(buf), "waiting for the first %s sample", what);
	return buf;
}

void mem_sys_draw(WINDOW *w, const struct mem_sys *m, const struct view *v, int lines)
{
	static const enum tui_color mem_colors[3] = {TC_USER, TC_IOWAIT, TC_IRQ};
	static const enum tui_color swap_colors[1] = {TC_SYSTEM};
	int cols = getmaxx(w);
	double tot = m->v[MEM_SYS_TOTAL], used = sys_used(m);
	double fr[3] = {used / tot, m->v[MEM_SYS_BUFFERS] / tot, sys_cache(m) / tot};
	double st = m->v[MEM_SYS_SWAP_TOTAL];
	double su = st - m->v[MEM_SYS_SWAP_FREE];
	double sf[1] = {st > 0 ? su / st : NAN};
	int mw = lines == 2 ? cols : cols * 2 / 3;

	if (!m->have) {
		widget_attr_on(w, v, TC_DIM);
		widget_text(w, 0, 0, cols,
			    mem_why_no_data(v, catalogue_name(STREAM_MEM_SYS), "system memory"),
			    false);
		widget_attr_off(w, v, TC_DIM);
		return;
	}
	draw_sys_bar(w, v, 0, 0, mw - (lines == 2 ? 0 : 1), "Mem", fr, mem_colors, 3, used, tot);
	if (lines == 2)
		draw_sys_bar(w, v, 1, 0, cols, "Swp", sf, swap_colors, 1, st > 0 ? su : 0,
			     isnan(st) ? NAN : st);
	else
		draw_sys_bar(w, v, 0, mw + 1, cols - mw - 1, "Swp", sf, swap_colors, 1,
			     st > 0 ? su : 0, isnan(st) ? NAN : st);
}
