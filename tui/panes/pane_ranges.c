/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalogue.h"
#include "pane.h"
#include "store.h"
#include "stream.h"
#include "util.h"
#include "widget.h"

/* The top ranges pane: HGTX/NVTX ranges from hgtx.ranges (label
 * "DOMAIN\x1fNAME", one entity per process, domain and name). Sortable,
 * filterable with '/', and 't' shows them as a tree: per process, the
 * outermost first and each depth indented below. The stream carries each
 * range's depth, not its parent, so the tree is one of depths. */

#define RANGES_STREAM catalogue_name(STREAM_HGTX_RANGES)

enum rcol {
	RC_PID,
	RC_COUNT,
	RC_RATE,
	RC_MEAN,
	RC_MAX,
	RC_TOTAL,
	RC_SELF,
	RC_DEPTH,
	RC_DOMAIN,
	RC_NAME,
	RC_N
};

static const struct tui_col rcols[RC_N] = {
    [RC_PID] = {"PID", 6, true},	[RC_COUNT] = {"COUNT", 7, true},
    [RC_RATE] = {"/s", 6, true},	[RC_MEAN] = {"MEAN", 7, true},
    [RC_MAX] = {"MAX", 7, true},	[RC_TOTAL] = {"TOTAL", 6, true},
    [RC_SELF] = {"SELF", 5, true},	[RC_DEPTH] = {"DEPTH", 5, true},
    [RC_DOMAIN] = {"DOMAIN", 8, false}, [RC_NAME] = {"RANGE", 0, false},
};

struct rrow {
	uint64_t pid;
	double count, rate, mean, max, total, self, depth;
	char domain[128];
	char name[128];
};

struct rpriv {
	struct tui_table table;
	struct rrow *rows;
	size_t nrows, cap;
	uint64_t *ents;
	double rate_sum;
	bool tree;
	bool editing;
	char filter[64];
};

static void *ranges_init(const struct view *v)
{
	struct rpriv *s = calloc(1, sizeof(*s));

	(void)v;
	if (!s)
		return NULL;
	s->table.cols = rcols;
	s->table.ncols = RC_N;
	s->table.sort_col = RC_TOTAL;
	s->table.sort_desc = true;
	return s;
}

static void ranges_fini(void *priv)
{
	struct rpriv *s = priv;

	if (!s)
		return;
	free(s->rows);
	free(s->ents);
	free(s);
}

static int ranges_id(const struct view *v)
{
	return stream_table_find(v->streams, RANGES_STREAM);
}

static size_t ranges_count(const struct view *v)
{
	int id = ranges_id(v);

	return id >= 0 ? store_entities(v->store, (uint32_t)id, NULL, 0) : 0;
}

static int grow(struct rpriv *s, size_t n)
{
	struct rrow *r;
	uint64_t *e;

	if (n <= s->cap)
		return 0;
	r = realloc(s->rows, n * sizeof(*r));
	if (r)
		s->rows = r;
	e = realloc(s->ents, n * sizeof(*e));
	if (e)
		s->ents = e;
	if (!r || !e)
		return -1;
	s->cap = n;
	return 0;
}

static double rrow_key(const struct rrow *r, int c)
{
	switch (c) {
	case RC_PID:
		return (double)r->pid;
	case RC_COUNT:
		return r->count;
	case RC_RATE:
		return r->rate;
	case RC_MEAN:
		return r->mean;
	case RC_MAX:
		return r->max;
	case RC_SELF:
		return r->self;
	case RC_DEPTH:
		return r->depth;
	default:
		return r->total;
	}
}

static int row_cmp(const void *a, const void *b, void *ctx)
{
	const struct rrow *x = a, *y = b;
	const struct rpriv *s = ctx;
	int c = s->table.sort_col, r;

	if (s->tree) { /* per process, then by depth: the sort orders each depth */
		if (x->pid != y->pid)
			return x->pid < y->pid ? -1 : 1;
		if (x->depth != y->depth && !isnan(x->depth) && !isnan(y->depth))
			return x->depth < y->depth ? -1 : 1;
	}
	if (c == RC_NAME || c == RC_DOMAIN) {
		r = c == RC_NAME ? strcasecmp(x->name, y->name) : strcasecmp(x->domain, y->domain);
	} else {
		double p = rrow_key(x, c), q = rrow_key(y, c);

		if (isnan(p) || isnan(q)) /* unknown last, either way */
			return isnan(p) && isnan(q) ? 0 : isnan(p) ? 1 : -1;
		r = p < q ? -1 : p > q;
	}
	if (s->table.sort_desc)
		r = -r;
	return r ? r : strcmp(x->name, y->name);
}

static bool matches(const struct rpriv *s, const struct rrow *r)
{
	return !s->filter[0] || strcasestr(r->name, s->filter) || strcasestr(r->domain, s->filter);
}

/* Splits "DOMAIN\x1fNAME" (a label without the separator is a name). */
static void split_label(const char *label, struct rrow *r)
{
	const char *us = label ? strchr(label, '\x1f') : NULL;

	if (!label) {
		snprintf(r->name, sizeof(r->name), "?");
		r->domain[0] = '\0';
	} else if (us) {
		snprintf(r->domain, sizeof(r->domain), "%.*s", (int)(us - label), label);
		snprintf(r->name, sizeof(r->name), "%s", us + 1);
	} else {
		r->domain[0] = '\0';
		snprintf(r->name, sizeof(r->name), "%s", label);
	}
}

struct rfields {
	int pid, depth, count, total, self, max;
};

static void load_row(struct rpriv *s, const struct view *v, const struct series *se,
		     const struct rfields *f)
{
	struct rrow k = {0};
	struct field_stats fs;
	double cnt, tot;

	split_label(series_label(se), &k);
	if (!matches(s, &k))
		return;
	k.pid = (uint64_t)fmax(0, series_last(se, (uint32_t)f->pid));
	k.depth = f->depth >= 0 ? series_last(se, (uint32_t)f->depth) : NAN;
	k.count = series_last(se, (uint32_t)f->count);
	k.rate = view_value(se, f->count, v, true);
	k.total = view_value(se, f->total, v, true) / 1e7; /* ns/s as % of a second */
	k.self = view_value(se, f->self, v, true) / 1e7;
	/* the mean of what ended in the window, else of everything so far */
	cnt = k.rate;
	tot = view_value(se, f->total, v, true);
	if (!(cnt > 0)) {
		cnt = series_last(se, (uint32_t)f->count);
		tot = series_last(se, (uint32_t)f->total);
	}
	k.mean = cnt > 0 ? tot / cnt : NAN;
	k.max = NAN;
	if (f->max >= 0 && v->window_ns &&
	    series_window(se, (uint32_t)f->max, v->end_ns, v->window_ns, &fs) == 0 && fs.n)
		k.max = fs.max;
	if (isnan(k.max) && f->max >= 0)
		k.max = series_last(se, (uint32_t)f->max);
	if (!isnan(k.rate))
		s->rate_sum += k.rate;
	s->rows[s->nrows++] = k;
}

static void load_rows(struct rpriv *s, const struct view *v)
{
	int id = ranges_id(v);
	const struct stream_desc *d;
	struct rfields f;
	size_t n;

	s->nrows = 0;
	s->rate_sum = 0;
	if (id < 0)
		return;
	d = stream_table_get(v->streams, (uint32_t)id);
	f.pid = catalogue_field_index(d, STREAM_HGTX_RANGES, HGTX_PID);
	f.depth = catalogue_field_index(d, STREAM_HGTX_RANGES, HGTX_DEPTH);
	f.count = catalogue_field_index(d, STREAM_HGTX_RANGES, HGTX_COUNT);
	f.total = catalogue_field_index(d, STREAM_HGTX_RANGES, HGTX_TOTAL_NS);
	f.self = catalogue_field_index(d, STREAM_HGTX_RANGES, HGTX_SELF_NS);
	f.max = catalogue_field_index(d, STREAM_HGTX_RANGES, HGTX_MAX_NS);
	n = store_entities(v->store, (uint32_t)id, NULL, 0);
	if (f.pid < 0 || f.count < 0 || f.total < 0 || f.self < 0 || grow(s, n + 1))
		return;
	n = store_entities(v->store, (uint32_t)id, s->ents, s->cap);
	if (n > s->cap)
		n = s->cap;
	for (size_t i = 0; i < n; i++) {
		const struct series *se = store_series(v->store, (uint32_t)id, s->ents[i]);

		if (se)
			load_row(s, v, se, &f);
	}
	if (s->nrows > 1) /* an empty pane may have no rows array */
		qsort_r(s->rows, s->nrows, sizeof(*s->rows), row_cmp, s);
}

/* Why there are no rows: the collector's status (library missing, the
 * variable left as the user set it) or plain waiting. */
static const char *empty_reason(const struct view *v, const struct rpriv *s)
{
	int id = ranges_id(v);
	const char *st = id >= 0 ? store_status(v->store, (uint32_t)id, STATUS_STREAM) : NULL;

	if (s && s->filter[0])
		return "no range matches the filter";
	if (st && *st)
		return st;
	/* the stream exists for a command started after -- (or once the
	 * runtime probes timed an NVTX v2 range) */
	if (id < 0)
		return v->recorded ? "no HGTX/NVTX ranges: this recording has no command started "
				     "after --"
				   : "no HGTX/NVTX ranges: counted only in a command asys starts "
				     "(asys top -- CMD)";
	return v->recorded ? "no HGTX/NVTX range recorded so far"
			   : "no HGTX/NVTX range has ended yet in the command asys started";
}

#define RANGES_WHY_LINES 6

static int ranges_why_lines(const struct pane *p, const struct view *v, int cols)
{
	int n = widget_wrap(NULL, 0, 1, cols - 1, RANGES_WHY_LINES, 2, empty_reason(v, p->priv));

	return n > 0 ? n : 1;
}

static int ranges_min_rows(const struct pane *p, const struct view *v, int cols)
{
	/* with no ranges, one line of why when rows are short, whole in the
	 * log (L) and on the message lines while focused */
	(void)cols;
	if (!ranges_count(v))
		return 1;
	return p->focused ? 2 : 1;
}

static bool ranges_idle(const struct pane *p, const struct view *v)
{
	(void)p;
	return !ranges_count(v);
}

static int ranges_want_rows(const struct pane *p, const struct view *v, int cols)
{
	size_t n = ranges_count(v);

	if (!n)
		return ranges_why_lines(p, v, cols);
	return 1 + (int)(n > 200 ? 200 : n);
}

static void ranges_title(const struct pane *p, const struct view *v, char *buf, int n)
{
	const struct rpriv *s = p->priv;
	char r[16];

	buf[0] = '\0';
	if (!s || !s->nrows)
		return;
	(void)v;
	widget_fmt_count(r, sizeof(r), s->rate_sum);
	snprintf(buf, (size_t)n, "%s ranges/s%s", r, s->tree ? "  tree" : "");
}

static void ranges_footer(const struct pane *p, const struct view *v, char *buf, int n)
{
	const struct rpriv *s = p->priv;
	const char *arrow;

	buf[0] = '\0';
	if (!s)
		return;
	arrow =
	    v->utf8 ? (s->table.sort_desc ? "\u25bc" : "\u25b2") : (s->table.sort_desc ? "v" : "^");
	if (s->editing || s->filter[0])
		snprintf(buf, (size_t)n, "filter: %s%s  sort: %s %s", s->filter,
			 s->editing ? "_" : "", s->table.cols[s->table.sort_col].title, arrow);
	else if (ranges_count(v))
		snprintf(buf, (size_t)n, "%zu ranges  sort: %s %s", s->nrows,
			 s->table.cols[s->table.sort_col].title, arrow);
}

/* A duration in ns, in the unit that keeps it short: "850ns" "12.3us" "1.00ms". */
static void draw_empty(WINDOW *w, struct view *v, const struct rpriv *s)
{
	int rows = getmaxy(w), cols = getmaxx(w);
	const char *why = empty_reason(v, s);
	int need = widget_wrap(NULL, 0, 1, cols - 1, rows + 1, 2, why);

	wmove(w, 0, 0);
	wclrtoeol(w);
	widget_attr_on(w, v, TC_DIM);
	widget_wrap(w, 0, 1, cols - 1, rows, 2, why);
	widget_attr_off(w, v, TC_DIM);
	snprintf(v->status, sizeof(v->status), "%s", why);
	v->status_shown = need <= rows;
}

static void draw_row(WINDOW *w, struct view *v, const struct rpriv *s, const struct rrow *r, int y,
		     bool sel, const int *xs)
{
	int cols = getmaxx(w), ind;
	char c[RC_N][160];

	snprintf(c[RC_PID], sizeof(c[RC_PID]), "%llu", (unsigned long long)r->pid);
	if (isnan(r->count))
		snprintf(c[RC_COUNT], sizeof(c[RC_COUNT]), "n/a");
	else if (r->count < 1e7)
		snprintf(c[RC_COUNT], sizeof(c[RC_COUNT]), "%.0f", r->count);
	else
		widget_fmt_count(c[RC_COUNT], sizeof(c[RC_COUNT]), r->count);
	widget_fmt_count(c[RC_RATE], sizeof(c[RC_RATE]), r->rate);
	widget_fmt_ns(c[RC_MEAN], sizeof(c[RC_MEAN]), r->mean);
	widget_fmt_ns(c[RC_MAX], sizeof(c[RC_MAX]), r->max);
	widget_fmt_pct(c[RC_TOTAL], sizeof(c[RC_TOTAL]), r->total);
	widget_fmt_pct(c[RC_SELF], sizeof(c[RC_SELF]), r->self);
	if (isnan(r->depth))
		snprintf(c[RC_DEPTH], sizeof(c[RC_DEPTH]), "n/a");
	else
		snprintf(c[RC_DEPTH], sizeof(c[RC_DEPTH]), "%.0f", r->depth);
	snprintf(c[RC_DOMAIN], sizeof(c[RC_DOMAIN]), "%s", r->domain[0] ? r->domain : "-");
	/* depth d: 2(d-1) spaces and a corner, so a child's name starts two
	 * cells right of its parent's */
	ind = s->tree && !isnan(r->depth) && r->depth >= 1 ? (int)fmin(r->depth, 16) : 0;
	snprintf(c[RC_NAME], sizeof(c[RC_NAME]), "%*s%s%s", ind ? 2 * (ind - 1) : 0, "",
		 ind ? (v->utf8 ? "\u2514 " : "` ") : "", r->name);
	if (sel) {
		widget_attr_on(w, v, TC_SELECT);
		mvwhline(w, y, 0, ' ', cols);
	}
	for (int i = 0; i < RC_N; i++) {
		int cw = s->table.cols[i].width ? s->table.cols[i].width : cols - xs[i];

		if (i == RC_TOTAL && !sel)
			widget_attr_on(w, v, TC_ACCENT);
		widget_text(w, y, xs[i], cw, c[i], s->table.cols[i].right);
		if (i == RC_TOTAL && !sel)
			widget_attr_off(w, v, TC_ACCENT);
	}
	if (sel)
		widget_attr_off(w, v, TC_SELECT);
}

static void ranges_draw(struct pane *p, WINDOW *w, struct view *v)
{
	struct rpriv *s = p->priv;
	int rows = getmaxy(w), xs[RC_N], y0;

	if (!s)
		return;
	load_rows(s, v);
	y0 = widget_table_frame(w, v, &s->table, (int)s->nrows, xs);
	if (!s->nrows) {
		draw_empty(w, v, s);
		return;
	}
	for (int k = 0; k + y0 < rows && s->table.top + k < (int)s->nrows; k++) {
		int ri = s->table.top + k;

		draw_row(w, v, s, &s->rows[ri], y0 + k, p->focused && ri == s->table.selected, xs);
	}
}

static bool ranges_key(struct pane *p, int ch, struct view *v)
{
	struct rpriv *s = p->priv;

	(void)v;
	if (!s)
		return false;
	if (ch == 't' && !s->editing) {
		s->tree = !s->tree;
		s->table.top = s->table.selected = 0;
		return true;
	}
	return widget_filter_table_key(&s->table, (int)s->nrows, s->filter, sizeof(s->filter),
				       &s->editing, ch, p->rows - 1 > 0 ? p->rows - 1 : 1);
}

static unsigned ranges_keys(const struct pane *p, const struct view *v)
{
	const struct rpriv *s = p->priv;

	(void)v;
	return s && s->nrows ? PANE_KEY_SORT | PANE_KEY_SELECT : 0;
}

static const char *const ranges_help[] = {
    "/             filter ranges by name or domain (Enter keeps it, Esc clears it)",
    "t             tree: per process, each nesting depth below the one above it",
    "<, >          sort by PID, COUNT, /s, MEAN, MAX, TOTAL, SELF, DEPTH, DOMAIN or RANGE",
    "COUNT, /s     ranges ended, in all and per second; MEAN, MAX: their durations",
    "TOTAL, SELF   time in the range (SELF: less its children) as a share of wall time",
    NULL,
};

const struct pane_class ranges_pane = {
    .name = "ranges",
    .title = "Top ranges",
    .hotkey = '6',
    .init = ranges_init,
    .fini = ranges_fini,
    /* no .visible: shown whenever the setup shows it, so that its key
     * always leads somewhere; with nothing to show it says why */
    .min_rows = ranges_min_rows,
    .idle = ranges_idle,
    .want_rows = ranges_want_rows,
    .title_extra = ranges_title,
    .footer = ranges_footer,
    .draw = ranges_draw,
    .key = ranges_key,
    .keys = ranges_keys,
    .help = ranges_help,
};
