#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pane.h"
#include "store.h"
#include "stream.h"
#include "util.h"
#include "widget.h"

/* The top kernels pane: kernels by launch rate from gpurt.kernels (label
 * "PID<TAB>name"). Sortable, filterable with '/', and 'p' groups the rows
 * by process (the process's command from mem.proc when that runs). */

enum kcol { KC_PID, KC_RATE, KC_TOTAL, KC_SHARE, KC_NAME, KC_N };

static const struct tui_col kcols[KC_N] = {
    [KC_PID] = {"PID", 7, true},      [KC_RATE] = {"LAUNCH/s", 9, true},
    [KC_TOTAL] = {"TOTAL", 8, true},  [KC_SHARE] = {"SHARE", 6, true},
    [KC_NAME] = {"KERNEL", 0, false},
};
static const struct tui_col kcols_grouped[KC_N] = {
    [KC_PID] = {"PID", 7, true},
    [KC_RATE] = {"LAUNCH/s", 9, true},
    [KC_TOTAL] = {"TOTAL", 8, true},
    [KC_SHARE] = {"SHARE", 6, true},
    [KC_NAME] = {"(KERNELS) PROCESS", 0, false},
};

struct krow {
	uint64_t pid;
	double rate, total, share;
	char name[200];
	int nkernels; /* grouped rows */
};

struct kpriv {
	struct tui_table table;
	struct krow *rows;
	size_t nrows, cap;
	uint64_t *ents;
	size_t ecap;
	double rate_sum;
	bool grouped;
	bool editing; /* typing a filter */
	char filter[64];
};

static void *kern_init(const struct view *v)
{
	struct kpriv *s = calloc(1, sizeof(*s));
	(void)v;
	if (!s)
		return NULL;
	s->table.cols = kcols;
	s->table.ncols = KC_N;
	s->table.sort_col = KC_RATE;
	s->table.sort_desc = true;
	return s;
}

static void kern_fini(void *priv)
{
	struct kpriv *s = priv;
	if (!s)
		return;
	free(s->rows);
	free(s->ents);
	free(s);
}

/* Shown once some kernel was launched, or when the probes cannot run (the
 * status says why): not as an empty box on a machine without PPU jobs, nor
 * in a build or a recording without the stream. */
static bool kern_visible(const struct pane *p, const struct view *v)
{
	int id = stream_table_find(v->streams, "gpurt.kernels");
	const char *st;
	(void)p;
	if (id < 0)
		return false;
	if (store_entities(v->store, (uint32_t)id, NULL, 0) > 0)
		return true;
	st = store_status(v->store, (uint32_t)id, STATUS_STREAM);
	return st && *st;
}

static int grow(struct kpriv *s, size_t n)
{
	if (n <= s->cap)
		return 0;
	struct krow *r = realloc(s->rows, n * sizeof(*r));
	if (r)
		s->rows = r;
	uint64_t *e = realloc(s->ents, n * sizeof(*e));
	if (e)
		s->ents = e;
	if (!r || !e)
		return -1;
	s->cap = s->ecap = n;
	return 0;
}

static bool matches(const struct kpriv *s, const char *name)
{
	return !s->filter[0] || strcasestr(name, s->filter);
}

/* The command line from mem.proc, else from gpurt.mem's label. */
static const char *proc_name(const struct view *v, uint64_t pid)
{
	static const char *const streams[] = {"mem.proc", "gpurt.mem"};
	for (size_t i = 0; i < sizeof(streams) / sizeof(*streams); i++) {
		int id = stream_table_find(v->streams, streams[i]);
		const struct series *se =
		    id >= 0 ? store_series(v->store, (uint32_t)id, pid) : NULL;
		const char *l = se ? series_label(se) : NULL;
		if (l && *l)
			return l;
	}
	return NULL;
}

static int row_cmp(const void *a, const void *b, void *ctx)
{
	const struct krow *x = a, *y = b;
	const struct kpriv *s = ctx;
	int c = s->table.sort_col, r;
	if (c == KC_NAME) {
		r = strcasecmp(x->name, y->name);
	} else {
		double p = c == KC_PID	   ? (double)x->pid
			   : c == KC_RATE  ? x->rate
			   : c == KC_TOTAL ? x->total
					   : x->share;
		double q = c == KC_PID	   ? (double)y->pid
			   : c == KC_RATE  ? y->rate
			   : c == KC_TOTAL ? y->total
					   : y->share;
		if (isnan(p) || isnan(q)) /* unknown last, either way */
			return isnan(p) && isnan(q) ? 0 : isnan(p) ? 1 : -1;
		r = p < q ? -1 : p > q;
	}
	if (s->table.sort_desc)
		r = -r;
	return r ? r : strcmp(x->name, y->name);
}

static void add_grouped(struct kpriv *s, const struct view *v, const struct krow *k)
{
	for (size_t i = 0; i < s->nrows; i++) {
		struct krow *g = &s->rows[i];
		if (g->pid != k->pid)
			continue;
		if (!isnan(k->rate))
			g->rate = isnan(g->rate) ? k->rate : g->rate + k->rate;
		if (!isnan(k->total))
			g->total = isnan(g->total) ? k->total : g->total + k->total;
		g->nkernels++;
		return;
	}
	struct krow *g = &s->rows[s->nrows++];
	*g = *k;
	g->nkernels = 1;
	const char *pn = proc_name(v, k->pid);
	snprintf(g->name, sizeof(g->name), "%s", pn ? pn : "?");
}

static void load_rows(struct kpriv *s, const struct view *v)
{
	int id = stream_table_find(v->streams, "gpurt.kernels");
	s->nrows = 0;
	s->rate_sum = 0;
	if (id < 0)
		return;
	const struct stream_desc *d = stream_table_get(v->streams, (uint32_t)id);
	int fl = stream_field_index(d, "launches"), fp = stream_field_index(d, "pid");
	size_t n = store_entities(v->store, (uint32_t)id, NULL, 0);
	if (fl < 0 || grow(s, n + 1))
		return;
	n = store_entities(v->store, (uint32_t)id, s->ents, s->ecap);
	if (n > s->ecap)
		n = s->ecap;
	for (size_t i = 0; i < n; i++) {
		const struct series *se = store_series(v->store, (uint32_t)id, s->ents[i]);
		if (!se)
			continue;
		const char *label = series_label(se), *tab = label ? strchr(label, '\t') : NULL;
		struct krow k = {.rate = series_rate(se, (uint32_t)fl),
				 .total = series_last(se, (uint32_t)fl)};
		double pid = fp >= 0 ? series_last(se, (uint32_t)fp) : NAN;
		k.pid = isnan(pid) && label ? strtoull(label, NULL, 10) : (uint64_t)pid;
		snprintf(k.name, sizeof(k.name), "%s", tab ? tab + 1 : label ? label : "?");
		if (!isnan(k.rate))
			s->rate_sum += k.rate;
		/* the filter matches kernel names, also when grouped */
		if (!matches(s, k.name))
			continue;
		if (s->grouped)
			add_grouped(s, v, &k);
		else
			s->rows[s->nrows++] = k;
	}
	for (size_t i = 0; i < s->nrows; i++)
		s->rows[i].share = s->rate_sum > 0 && !isnan(s->rows[i].rate)
				       ? 100.0 * s->rows[i].rate / s->rate_sum
				       : NAN;
	qsort_r(s->rows, s->nrows, sizeof(*s->rows), row_cmp, s);
}

static const char *empty_reason(const struct view *v);

/* Lines for why there are no kernels (a privilege hint runs to two or three). */
#define KERN_WHY_LINES 6

static int kern_why_lines(const struct pane *p, const struct view *v, int cols)
{
	const struct kpriv *s = p->priv;
	const char *why = s && s->filter[0] ? "no kernel matches the filter" : empty_reason(v);
	int n = widget_wrap(NULL, 0, 1, cols - 1, KERN_WHY_LINES, 2, why);

	return n > 0 ? n : 1;
}

static size_t kern_count(const struct view *v)
{
	int id = stream_table_find(v->streams, "gpurt.kernels");

	return id >= 0 ? store_entities(v->store, (uint32_t)id, NULL, 0) : 0;
}

static int kern_min_rows(const struct pane *p, const struct view *v, int cols)
{
	if (!kern_count(v))
		return kern_why_lines(p, v, cols);
	/* unfocused, its essential line is the top kernel, without the header */
	return p->focused ? 2 : 1;
}

static int kern_want_rows(const struct pane *p, const struct view *v, int cols)
{
	size_t n = kern_count(v);

	if (!n)
		return kern_why_lines(p, v, cols);
	return 1 + (int)(n > 200 ? 200 : n);
}

static void kern_title(const struct pane *p, const struct view *v, char *buf, int n)
{
	const struct kpriv *s = p->priv;
	char r[16];
	buf[0] = '\0';
	if (!s || !kern_visible(p, v))
		return;
	widget_fmt_count(r, sizeof(r), s->rate_sum);
	snprintf(buf, (size_t)n, "%s launches/s%s", r, s->grouped ? "  by process" : "");
}

static void kern_footer(const struct pane *p, const struct view *v, char *buf, int n)
{
	const struct kpriv *s = p->priv;
	buf[0] = '\0';
	if (!s)
		return;
	const char *arrow =
	    v->utf8 ? (s->table.sort_desc ? "\u25bc" : "\u25b2") : (s->table.sort_desc ? "v" : "^");
	if (s->editing || s->filter[0])
		snprintf(buf, (size_t)n, "filter: %s%s  sort: %s %s", s->filter,
			 s->editing ? "_" : "", s->table.cols[s->table.sort_col].title, arrow);
	else
		snprintf(buf, (size_t)n, "%zu %s  sort: %s %s", s->nrows,
			 s->grouped ? "procs" : "kernels", s->table.cols[s->table.sort_col].title,
			 arrow);
}

/* Why there are no rows: the collector's status (no permission, no runtime
 * library yet) or plain waiting. */
static const char *empty_reason(const struct view *v)
{
	int id = stream_table_find(v->streams, "gpurt.kernels");
	const char *st = id >= 0 ? store_status(v->store, (uint32_t)id, STATUS_STREAM) : NULL;
	if (st && *st)
		return st;
	if (id < 0)
		return "kernel launches are not counted in this run (-t none, -s none, or no eBPF)";
	return "no kernel launches seen yet";
}

/* No rows: the reason, wrapped whole; one that needs sudo is the status too. */
static void draw_empty(WINDOW *w, struct view *v, const struct kpriv *s)
{
	int rows = getmaxy(w), cols = getmaxx(w);
	const char *why = s->filter[0] ? "no kernel matches the filter" : empty_reason(v);
	int need = widget_wrap(NULL, 0, 1, cols - 1, rows + 1, 2, why);

	/* no header over no rows */
	wmove(w, 0, 0);
	wclrtoeol(w);
	widget_attr_on(w, v, TC_DIM);
	widget_wrap(w, 0, 1, cols - 1, rows, 2, why);
	widget_attr_off(w, v, TC_DIM);
	if (!s->filter[0] && strstr(why, "sudo")) {
		snprintf(v->status, sizeof(v->status), "%s", why);
		v->status_shown = need <= rows;
	}
}

/* One kernel (or process group) at row y, its columns at xs. */
static void draw_row(WINDOW *w, struct view *v, const struct kpriv *s, const struct krow *r, int y,
		     bool sel, const int *xs)
{
	int cols = getmaxx(w);
	char c[KC_N][240];

	snprintf(c[KC_PID], sizeof(c[KC_PID]), "%llu", (unsigned long long)r->pid);
	widget_fmt_count(c[KC_RATE], sizeof(c[KC_RATE]), r->rate);
	widget_fmt_count(c[KC_TOTAL], sizeof(c[KC_TOTAL]), r->total);
	widget_fmt_pct(c[KC_SHARE], sizeof(c[KC_SHARE]), r->share);
	if (s->grouped)
		snprintf(c[KC_NAME], sizeof(c[KC_NAME]), "(%d) %.200s", r->nkernels, r->name);
	else
		snprintf(c[KC_NAME], sizeof(c[KC_NAME]), "%s", r->name);
	if (sel) {
		widget_attr_on(w, v, TC_SELECT);
		mvwhline(w, y, 0, ' ', cols);
	}
	for (int i = 0; i < KC_N; i++) {
		int cw = s->table.cols[i].width ? s->table.cols[i].width : cols - xs[i];

		if (i == KC_RATE && !sel)
			widget_attr_on(w, v, TC_ACCENT);
		widget_text(w, y, xs[i], cw, c[i], s->table.cols[i].right);
		if (i == KC_RATE && !sel)
			widget_attr_off(w, v, TC_ACCENT);
	}
	if (sel)
		widget_attr_off(w, v, TC_SELECT);
}

static void kern_draw(struct pane *p, WINDOW *w, struct view *v)
{
	struct kpriv *s = p->priv;
	int rows = getmaxy(w), xs[KC_N];
	int y0 = rows >= 2 ? 1 : 0; /* one row: no header, just the top kernel */
	if (!s)
		return;
	s->table.cols = s->grouped ? kcols_grouped : kcols;
	load_rows(s, v);
	s->table.nrows = (int)s->nrows;
	widget_table_clamp(&s->table, rows - y0 > 0 ? rows - y0 : 1);
	widget_table_header(w, v, 0, &s->table, xs);
	if (!y0) {
		/* the header only lent its column positions: the row is the kernel's */
		wmove(w, 0, 0);
		wclrtoeol(w);
	}
	if (!s->nrows) {
		draw_empty(w, v, s);
		return;
	}
	for (int k = 0; k + y0 < rows && s->table.top + k < (int)s->nrows; k++) {
		int ri = s->table.top + k;

		draw_row(w, v, s, &s->rows[ri], y0 + k, p->focused && ri == s->table.selected, xs);
	}
}

static bool kern_key(struct pane *p, int ch, struct view *v)
{
	struct kpriv *s = p->priv;
	(void)v;
	if (!s)
		return false;
	if (s->editing) {
		size_t n = strlen(s->filter);
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
			s->editing = false;
		else if (ch == 27) /* Esc drops the filter */
			s->editing = false, s->filter[0] = '\0';
		else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n)
			s->filter[n - 1] = '\0';
		else if (ch >= 32 && ch < 127 && n + 1 < sizeof(s->filter))
			s->filter[n] = (char)ch, s->filter[n + 1] = '\0';
		return true; /* typing takes every key */
	}
	if (ch == '/') {
		s->editing = true;
		return true;
	}
	if (ch == 'p') { /* not g: replay jumps with it */
		s->grouped = !s->grouped;
		s->table.top = s->table.selected = 0;
		return true;
	}
	s->table.nrows = (int)s->nrows;
	return widget_table_key(&s->table, ch, p->rows - 1 > 0 ? p->rows - 1 : 1);
}

static unsigned kern_keys(const struct pane *p, const struct view *v)
{
	const struct kpriv *s = p->priv;

	(void)v;
	return s && s->nrows ? PANE_KEY_SORT | PANE_KEY_SELECT : 0;
}

static const char *const kern_help[] = {
    "/             filter kernels by name (Enter keeps it, Esc clears it)",
    "p             group the kernels by process, or not",
    "<, >          sort by PID, LAUNCH/s, TOTAL, SHARE or KERNEL; I inverts",
    "SHARE         this row's part of all launches per second",
    NULL,
};

const struct pane_class kernels_pane = {
    .name = "kernels",
    .title = "Top kernels",
    .hotkey = '5',
    .init = kern_init,
    .fini = kern_fini,
    .visible = kern_visible,
    .min_rows = kern_min_rows,
    .want_rows = kern_want_rows,
    .title_extra = kern_title,
    .footer = kern_footer,
    .draw = kern_draw,
    .key = kern_key,
    .keys = kern_keys,
    .help = kern_help,
};
