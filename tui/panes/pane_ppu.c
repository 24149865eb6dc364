/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "pane.h"
#include "ppu_rows.h"
#include "store.h"
#include "stream.h"
#include "util.h"
#include "widget.h"

/* The PPU pane: one block per device. The first line is the device state
 * (ppu.dev); under it the GPM metrics (ppu.metrics) by group, overlaid (one
 * line per group) or stacked (one line per metric), the processes using the
 * device (ppu.proc), and why anything is missing. When the blocks do not
 * fit, each device shrinks to its first line and the list scrolls. The
 * metric rows are ppu_rows.c's. */

#define PPU_MAX_DEV 64
#define PPU_PROCS_SHOWN 4
#define PPU_STATUS_LINES 3

struct ppu_proc_row {
	uint64_t key;
	double mem;
	const char *label;
};

struct ppu_dev_row {
	uint64_t id;
	const struct series *dev, *met;
	const char *dev_status, *met_status;
	struct ppu_proc_row procs[PPU_PROCS_SHOWN];
	int nprocs, more_procs;
};

struct ppu_priv {
	int s_dev, s_proc, s_met;
	struct ppu_dev_row devs[PPU_MAX_DEV];
	int ndev, sel, top;
	int name_w; /* the longest device name, so the bars line up */
	struct ppu_rows met_rows;
	uint64_t ents[1024];
};

static void *ppu_init(const struct view *v)
{
	(void)v;
	return calloc(1, sizeof(struct ppu_priv));
}

static void ppu_fini(void *priv)
{
	free(priv);
}

static int ppu_find_dev(struct ppu_priv *s, uint64_t id)
{
	for (int i = 0; i < s->ndev; i++)
		if (s->devs[i].id == id)
			return i;
	if (s->ndev >= PPU_MAX_DEV || id >= PPU_MAX_DEV)
		return -1;
	s->devs[s->ndev].id = id;
	return s->ndev++;
}

static int ppu_dev_cmp(const void *a, const void *b)
{
	const struct ppu_dev_row *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Each device's state and metrics series, from ppu.dev and ppu.metrics. */
static void ppu_load_devs(struct ppu_priv *s, const struct view *v)
{
	for (int k = 0; k < 2; k++) {
		int id = k ? s->s_met : s->s_dev;
		size_t n;

		if (id < 0)
			continue;
		n = store_entities(v->store, (uint32_t)id, s->ents, ARRAY_SIZE(s->ents));
		for (size_t i = 0; i < n && i < ARRAY_SIZE(s->ents); i++) {
			int d = ppu_find_dev(s, s->ents[i]);
			const struct series *se = store_series(v->store, (uint32_t)id, s->ents[i]);

			if (d < 0)
				continue;
			if (k)
				s->devs[d].met = se;
			else
				s->devs[d].dev = se;
			*(k ? &s->devs[d].met_status : &s->devs[d].dev_status) =
			    store_status(v->store, (uint32_t)id, s->ents[i]);
		}
	}
}

/* The longest device name, so the bars line up (a silly long one is ignored). */
static int ppu_name_width(const struct ppu_priv *s)
{
	int w = 0;

	for (int i = 0; i < s->ndev; i++) {
		const struct series *se = s->devs[i].dev ? s->devs[i].dev : s->devs[i].met;
		const char *l = series_label(se);
		int len = l ? (int)strlen(l) - 1 : 0;

		if (len > w && len < 48)
			w = len;
	}
	return w;
}

/* Keeps the largest few processes of a device, by device memory, in order. */
static void ppu_proc_add(struct ppu_dev_row *d, struct ppu_proc_row r)
{
	if (d->nprocs < PPU_PROCS_SHOWN) {
		d->procs[d->nprocs++] = r;
	} else {
		d->more_procs++;
		if (r.mem > d->procs[PPU_PROCS_SHOWN - 1].mem)
			d->procs[PPU_PROCS_SHOWN - 1] = r;
	}
	for (int k = d->nprocs - 1; k > 0 && !(d->procs[k].mem <= d->procs[k - 1].mem); k--) {
		struct ppu_proc_row t = d->procs[k];

		d->procs[k] = d->procs[k - 1];
		d->procs[k - 1] = t;
	}
}

/* The processes of ppu.proc under their device (the entity's high 32 bits). */
static void ppu_load_procs(struct ppu_priv *s, const struct view *v)
{
	size_t n = store_entities(v->store, (uint32_t)s->s_proc, s->ents, ARRAY_SIZE(s->ents));

	for (size_t i = 0; i < n && i < ARRAY_SIZE(s->ents); i++) {
		const struct series *se = store_series(v->store, (uint32_t)s->s_proc, s->ents[i]);
		struct ppu_dev_row *d = NULL;
		struct ppu_proc_row r = {s->ents[i], series_last(se, 0), series_label(se)};

		for (int k = 0; k < s->ndev && !d; k++)
			if (s->devs[k].id == s->ents[i] >> 32)
				d = &s->devs[k];
		if (d)
			ppu_proc_add(d, r);
	}
}

/* Gathers what this frame shows from the store (locked by the caller). */
static void ppu_load(struct ppu_priv *s, const struct view *v)
{
	s->s_dev = stream_table_find(v->streams, catalogue_name(STREAM_PPU_DEV));
	s->s_proc = stream_table_find(v->streams, catalogue_name(STREAM_PPU_PROC));
	s->s_met = stream_table_find(v->streams, catalogue_name(STREAM_PPU_METRICS));
	s->ndev = 0;
	memset(s->devs, 0, sizeof(s->devs));
	ppu_rows_load(&s->met_rows,
		      s->s_met >= 0 ? stream_table_get(v->streams, (uint32_t)s->s_met) : NULL);
	ppu_load_devs(s, v);
	qsort(s->devs, (size_t)s->ndev, sizeof(s->devs[0]), ppu_dev_cmp);
	s->name_w = ppu_name_width(s);
	if (s->s_proc >= 0)
		ppu_load_procs(s, v);
	/* the selection stays on a device, with or without a process stream */
	if (s->sel >= s->ndev)
		s->sel = s->ndev ? s->ndev - 1 : 0;
}

static double ppu_dev_value(const struct ppu_priv *s, const struct ppu_dev_row *d,
			    const struct view *v, unsigned int field)
{
	const struct stream_desc *sd = stream_table_get(v->streams, (uint32_t)s->s_dev);

	return view_value(d->dev, catalogue_field_index(sd, STREAM_PPU_DEV, field), v, false);
}

/* Wraps text over at most maxl lines from y, indented; returns lines used. */
static int ppu_wrapped(WINDOW *w, int y, int maxl, int x, int cols, const char *text)
{
	int used = 0, width = cols - x;

	while (*text && used < maxl && width > 8) {
		int len = (int)strlen(text), cut = len;
		char line[512];

		if (len > width) {
			cut = width;
			while (cut > width / 2 && text[cut] != ' ')
				cut--;
			if (text[cut] != ' ')
				cut = width;
		}
		if (used == maxl - 1 && len > width)
			cut = width - 1; /* the last line ends with an ellipsis */
		snprintf(line, sizeof(line), "%.*s%s", cut, text,
			 used == maxl - 1 && len > width ? "~" : "");
		widget_text(w, y + used, x, width, line, false);
		text += cut;
		while (*text == ' ')
			text++;
		used++;
	}
	return used;
}

/* The length of a device label's " NAME BUS_ID" without the UUID the
 * collector puts last (the one word after the bus id, without a colon): the
 * pane has no room for it, the exports carry it. */
static int ppu_label_name_len(const char *s)
{
	const char *last = strrchr(s, ' ');
	size_t n = strlen(s);

	if (last && !strchr(last, ':') && last > s) {
		const char *prev = last;

		while (prev > s && prev[-1] != ' ')
			prev--;
		if (memchr(prev, ':', (size_t)(last - prev)))
			n = (size_t)(last - s);
	}
	return n > 200 ? 200 : (int)n;
}

/* "0 PPU 00000000:10:00.0  93% [bar] 68.0G/96.0G 1410MHz 612/700W 45C 5x16" */
static void ppu_draw_head(WINDOW *w, struct view *v, const struct ppu_priv *s,
			  const struct ppu_dev_row *d, int y, int cols, bool selected)
{
	const char *label = d->dev ? series_label(d->dev) : d->met ? series_label(d->met) : NULL;
	double util = ppu_dev_value(s, d, v, PPU_DEV_UTIL_GPU), frac = util / 100.0;
	double used = ppu_dev_value(s, d, v, PPU_DEV_MEM_USED),
	       total = ppu_dev_value(s, d, v, PPU_DEV_MEM_TOTAL);
	double clk = ppu_dev_value(s, d, v, PPU_DEV_CLOCK_SM),
	       pw = ppu_dev_value(s, d, v, PPU_DEV_POWER);
	double lim = ppu_dev_value(s, d, v, PPU_DEV_POWER_LIMIT),
	       temp = ppu_dev_value(s, d, v, PPU_DEV_TEMP);
	double gen = ppu_dev_value(s, d, v, PPU_DEV_PCIE_GEN),
	       wid = ppu_dev_value(s, d, v, PPU_DEV_PCIE_WIDTH);
	char name[64], pct[16], mu[16], mt[16], tail[96], right[160];
	enum tui_color col = util >= 90 ? TC_GOOD : TC_ACCENT;
	const char *colon = label ? strchr(label, ':') : NULL;
	int bar, x;

	if (colon && colon[1] == ' ')
		snprintf(name, sizeof(name), "%.*s%.*s", (int)(colon - label), label,
			 ppu_label_name_len(colon + 1), colon + 1);
	else
		snprintf(name, sizeof(name), "%llu PPU", (unsigned long long)d->id);
	widget_fmt_pct(pct, sizeof(pct), util);
	util_fmt_bytes(mu, sizeof(mu), used);
	util_fmt_bytes(mt, sizeof(mt), total);
	snprintf(tail, sizeof(tail), "%s", "");
	if (!isnan(clk) && cols >= 70)
		snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail), " %.0fMHz", clk);
	if (!isnan(pw) && cols >= 76)
		snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail),
			 isnan(lim) ? " %.0fW" : " %.0f/%.0fW", pw, lim);
	if (!isnan(temp) && cols >= 86)
		snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail), " %.0fC", temp);
	if (!isnan(gen) && !isnan(wid) && cols >= 96)
		snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail), " g%.0fx%.0f", gen, wid);
	if (d->dev_status && !strncmp(d->dev_status, "lost", 4))
		snprintf(right, sizeof(right), " lost");
	else
		snprintf(right, sizeof(right), " %4s %s/%s%s", pct, mu, mt, tail);
	if (selected)
		widget_attr_on(w, v, TC_SELECT);
	widget_text(w, y, 0, cols, name, false);
	if (selected)
		widget_attr_off(w, v, TC_SELECT);
	x = ((int)strlen(name) > s->name_w ? (int)strlen(name) : s->name_w) + 1;
	bar = cols - x - (int)strlen(right);
	if (d->dev_status && !strncmp(d->dev_status, "lost", 4)) {
		widget_attr_on(w, v, TC_CRIT);
		widget_text(w, y, x, cols - x, "lost", false);
		widget_attr_off(w, v, TC_CRIT);
		return;
	}
	if (bar >= 4) {
		widget_bar(w, v, y, x, bar, &frac, &col, 1);
		x += bar;
	}
	widget_text(w, y, x, cols - x, right, false);
}

static int ppu_draw_procs(WINDOW *w, const struct ppu_dev_row *d, int y, int cols)
{
	char line[512], mem[16];
	size_t off;

	if (!d->nprocs)
		return 0;
	off = (size_t)snprintf(line, sizeof(line), "  procs:");
	for (int i = 0; i < d->nprocs && off < sizeof(line); i++) {
		util_fmt_bytes(mem, sizeof(mem), d->procs[i].mem);
		off += (size_t)snprintf(line + off, sizeof(line) - off, " %s %s%s",
					d->procs[i].label ? d->procs[i].label : "?", mem,
					i + 1 < d->nprocs ? "," : "");
	}
	if (d->more_procs && off < sizeof(line))
		snprintf(line + off, sizeof(line) - off, " +%d more", d->more_procs);
	widget_text(w, y, 0, cols, line, false);
	return 1;
}

/* Lines of a device's whole block (draw = false: only count). */
static int ppu_block(WINDOW *w, struct view *v, const struct ppu_priv *s,
		     const struct ppu_dev_row *d, int y, int maxl, int cols, bool draw, bool sel)
{
	int used = 0;
	bool lost = d->dev_status && !strncmp(d->dev_status, "lost", 4);

	if (maxl <= 0)
		return 0;
	if (draw)
		ppu_draw_head(w, v, s, d, y, cols, sel);
	used++;
	if (lost || (d->dev_status && *d->dev_status)) {
		if (draw) {
			widget_attr_on(w, v, lost ? TC_CRIT : TC_WARN);
			used += ppu_wrapped(w, y + used, maxl - used > 2 ? 2 : maxl - used, 2, cols,
					    d->dev_status);
			widget_attr_off(w, v, lost ? TC_CRIT : TC_WARN);
		} else {
			used += 2;
		}
		if (lost)
			return used < maxl ? used : maxl;
	}
	if (d->met_status && *d->met_status && used < maxl) {
		int l = maxl - used > PPU_STATUS_LINES ? PPU_STATUS_LINES : maxl - used;

		if (draw) {
			widget_attr_on(w, v, TC_WARN);
			used += ppu_wrapped(w, y + used, l, 2, cols, d->met_status);
			widget_attr_off(w, v, TC_WARN);
		} else {
			used += l;
		}
	}
	used += ppu_rows_draw(w, v, &s->met_rows, d->met, y + used, maxl - used, cols, !draw);
	if (used < maxl && d->nprocs)
		used += draw ? ppu_draw_procs(w, d, y + used, cols) : 1;
	return used < maxl ? used : maxl;
}

static bool ppu_visible(const struct pane *p, const struct view *v)
{
	return stream_table_find(v->streams, catalogue_name(STREAM_PPU_DEV)) >= 0 ||
	       stream_table_find(v->streams, catalogue_name(STREAM_PPU_METRICS)) >= 0;
}

/* The stream-wide reason there is nothing (no library, a bad device ID). */
static const char *ppu_stream_status(const struct ppu_priv *s, const struct view *v, bool met)
{
	int id = met ? s->s_met : s->s_dev;

	return id >= 0 ? store_status(v->store, (uint32_t)id, STATUS_STREAM) : NULL;
}

/* No device: why, in the words of the status's headline (what to do), on
 * as few lines as they take; the details (the paths searched) are whole in
 * the message log, and the line says so. */
#define PPU_WHY_LINES 4

static void ppu_why(struct ppu_priv *s, const struct view *v, char *buf, size_t n)
{
	const char *st = ppu_stream_status(s, v, false);
	size_t len;

	if (!st || !*st) {
		buf[0] = '\0';
		return;
	}
	if (widget_headline(buf, n, st) && (len = strlen(buf)) + 1 < n)
		snprintf(buf + len, n - len, "  (details: L)");
}

static int ppu_why_lines(struct ppu_priv *s, const struct view *v, int cols)
{
	char why[512];
	int n;

	ppu_why(s, v, why, sizeof(why));
	n = *why ? widget_wrap(NULL, 0, 0, cols, PPU_WHY_LINES, 0, why) : 1;
	return n > 0 ? n : 1;
}

static int ppu_want(struct ppu_priv *s, const struct view *v, int cols, bool full)
{
	int n = ppu_stream_status(s, v, true) ? 1 : 0;

	if (!s->ndev)
		return ppu_why_lines(s, v, cols);
	for (int i = 0; i < s->ndev; i++)
		n += full ? ppu_block(NULL, (struct view *)v, s, &s->devs[i], 0, 1000, cols, false,
				      false)
			  : 1;
	return n;
}

static int ppu_min_rows(const struct pane *p, const struct view *v, int cols)
{
	struct ppu_priv *s = p->priv;

	if (!s)
		return 1;
	ppu_load(s, v);
	/* without a device only a message is drawn: one line of it is enough
	 * when rows are short, as the status line then carries the whole text */
	(void)cols;
	return s->ndev > 2 ? 3 : s->ndev ? s->ndev : 1;
}

static int ppu_want_rows(const struct pane *p, const struct view *v, int cols)
{
	struct ppu_priv *s = p->priv;

	if (!s)
		return 1;
	ppu_load(s, v);
	return ppu_want(s, v, cols, true);
}

/* No device yet: why (warned) or that none has reported (dimmed). */
static void ppu_draw_none(WINDOW *w, struct view *v, struct ppu_priv *s)
{
	int rows = getmaxy(w), cols = getmaxx(w), need;
	char why[512];
	const char *text;

	ppu_why(s, v, why, sizeof(why));
	text = *why ? why : "no PPU device has reported yet";
	need = widget_wrap(NULL, 0, 0, cols, rows + 1, 0, text);
	widget_attr_on(w, v, *why ? TC_WARN : TC_DIM);
	widget_wrap(w, 0, 0, cols, rows, 0, text);
	widget_attr_off(w, v, *why ? TC_WARN : TC_DIM);
	if (*why) {
		util_strlcpy(v->status, why, sizeof(v->status));
		v->status_shown = need <= rows;
	}
}

/* Compact: one line per device from row y, the selection kept in view. */
static void ppu_draw_compact(WINDOW *w, struct view *v, struct ppu_priv *s, int y, bool focused)
{
	int rows = getmaxy(w), cols = getmaxx(w);
	int avail = rows - y, shown = s->ndev <= avail ? s->ndev : avail > 1 ? avail - 1 : 1;
	char more[96];

	if (s->sel < s->top)
		s->top = s->sel;
	if (s->sel >= s->top + shown)
		s->top = s->sel - shown + 1;
	if (s->top > s->ndev - shown)
		s->top = s->ndev - shown;
	if (s->top < 0)
		s->top = 0;
	for (int i = s->top; i < s->top + shown && y < rows; i++)
		ppu_draw_head(w, v, s, &s->devs[i], y++, cols, focused && i == s->sel);
	if (shown < s->ndev && y < rows) {
		snprintf(more, sizeof(more), "  %d more PPUs: %d above, %d below (up/down)",
			 s->ndev - shown, s->top, s->ndev - s->top - shown);
		widget_attr_on(w, v, TC_DIM);
		widget_text(w, y, 0, cols, more, false);
		widget_attr_off(w, v, TC_DIM);
	}
}

static void ppu_draw(struct pane *p, WINDOW *w, struct view *v)
{
	struct ppu_priv *s = p->priv;
	int rows = getmaxy(w), cols = getmaxx(w), y = 0, per;
	const char *why;
	bool full;

	if (!s)
		return;
	ppu_load(s, v);
	if (!s->ndev) {
		ppu_draw_none(w, v, s);
		return;
	}
	why = ppu_stream_status(s, v, true);
	if (why && y < rows) {
		widget_attr_on(w, v, TC_WARN);
		y += ppu_wrapped(w, y, 1, 0, cols, why);
		widget_attr_off(w, v, TC_WARN);
	}
	full = ppu_want(s, v, cols, true) <= rows - y;
	per = full ? rows : (rows - y) / s->ndev;
	if (per >= 2) {
		/* every block, cut to an equal share of the rows when they do not all
		 * fit; the rows the shares leave go to the selected device's block,
		 * not to blank lines under the last */
		int extra = full ? 0 : rows - y - per * s->ndev;

		s->top = 0;
		for (int i = 0; i < s->ndev && y < rows; i++) {
			int l = per + (i == s->sel ? extra : 0);

			y += ppu_block(w, v, s, &s->devs[i], y, l < rows - y ? l : rows - y, cols,
				       true, p->focused && i == s->sel);
		}
	} else {
		ppu_draw_compact(w, v, s, y, p->focused);
	}
	if (s->sel < s->ndev) {
		const struct ppu_dev_row *d = &s->devs[s->sel];
		const char *st = d->dev_status && *d->dev_status ? d->dev_status : d->met_status;

		if (st && *st)
			util_strlcpy(v->status, st, sizeof(v->status));
	}
}

static bool ppu_key(struct pane *p, int ch, struct view *v)
{
	struct ppu_priv *s = p->priv;
	int sel;

	if (!s)
		return false;
	switch (ch) {
	case KEY_UP:
		sel = s->sel - 1;
		break;
	case KEY_DOWN:
		sel = s->sel + 1;
		break;
	case KEY_PPAGE:
		sel = s->sel - p->rows;
		break;
	case KEY_NPAGE:
		sel = s->sel + p->rows;
		break;
	case KEY_HOME:
		sel = 0;
		break;
	case KEY_END:
		sel = s->ndev;
		break;
	default:
		return false;
	}
	s->sel = sel >= s->ndev ? s->ndev - 1 : sel;
	if (s->sel < 0)
		s->sel = 0;
	return true;
}

static void ppu_title_extra(const struct pane *p, const struct view *v, char *buf, int n)
{
	const struct ppu_priv *s = p->priv;
	double sum = 0;
	int k = 0;

	if (!s || !s->ndev) {
		snprintf(buf, (size_t)n, "%s", "");
		return;
	}
	for (int i = 0; i < s->ndev; i++) {
		double u = ppu_dev_value(s, &s->devs[i], v, PPU_DEV_UTIL_GPU);

		if (!isnan(u)) {
			sum += u;
			k++;
		}
	}
	if (k)
		snprintf(buf, (size_t)n, "%d devices  avg util %.0f%%", s->ndev, sum / k);
	else
		snprintf(buf, (size_t)n, "%d devices", s->ndev);
}

static void ppu_footer(const struct pane *p, const struct view *v, char *buf, int n)
{
	const struct ppu_priv *s = p->priv;
	const struct stream_desc *d =
	    s && s->s_met >= 0 ? stream_table_get(v->streams, (uint32_t)s->s_met) : NULL;

	bool sampled = false;

	for (int i = 0; s && i < s->ndev; i++)
		sampled = sampled || s->devs[i].met;
	/* the metrics a device samples; nothing while none does (no library,
	 * no device): --ppu-metrics-device would not help then */
	buf[0] = '\0';
	if (d && sampled)
		snprintf(buf, (size_t)n, "[o]verlay/[s]tacked  %u metrics", d->nfields);
	else if (!d && s && s->ndev)
		snprintf(buf, (size_t)n, "metrics: --ppu-metrics-device");
}

static unsigned ppu_keys(const struct pane *p, const struct view *v)
{
	const struct ppu_priv *s = p->priv;
	unsigned k = 0;

	(void)v;
	if (!s)
		return 0;
	if (s->ndev > 1)
		k |= PANE_KEY_SELECT;
	/* o/s and u act on the metric rows */
	for (int i = 0; i < s->ndev; i++)
		if (s->devs[i].met)
			k |= PANE_KEY_OVERLAY | PANE_KEY_UNITS;
	return k;
}

static const char *const ppu_help[] = {
    "up/down  select a PPU (the list scrolls when the blocks do not fit)",
    NULL,
};

const struct pane_class ppu_pane = {
    .name = "ppu",
    .title = "PPU",
    .hotkey = '1',
    .init = ppu_init,
    .fini = ppu_fini,
    .visible = ppu_visible,
    .min_rows = ppu_min_rows,
    .want_rows = ppu_want_rows,
    .title_extra = ppu_title_extra,
    .footer = ppu_footer,
    .draw = ppu_draw,
    .key = ppu_key,
    .keys = ppu_keys,
    .help = ppu_help,
};
