/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalogue.h"
#include "pane.h"
#include "pane_copies.h"
#include "store.h"
#include "stream.h"
#include "util.h"
#include "widget.h"

/* The top kernels pane: kernels by launch rate from gpurt.kernels (label
 * "PID<TAB>name"), and, for a workload started by asys under the profiling
 * interface, by GPU time from gpurt.ktime (same label): then SHARE is a
 * share of GPU time and MEAN / MAX give the kernels' durations. Sortable,
 * filterable with '/', and 'p' groups the rows by process (the process's
 * command from mem.proc when that runs). Memory copies per process
 * (gpurt.copy) take a section above them (pane_copies.c). */

enum kcol { KC_PID, KC_RATE, KC_TOTAL, KC_SHARE, KC_MEAN, KC_MAX, KC_NAME, KC_N };

/* The columns shown, by mode: launches only, or with durations. */
static const enum kcol kmap_launch[] = {KC_PID, KC_RATE, KC_TOTAL, KC_SHARE, KC_NAME};
static const enum kcol kmap_time[] = {KC_PID,  KC_RATE, KC_TOTAL, KC_SHARE,
				      KC_MEAN, KC_MAX,	KC_NAME};

static const struct tui_col kcols[] = {
    {"PID", 7, true},	{"LAUNCH/s", 9, true}, {"TOTAL", 8, true},
    {"SHARE", 6, true}, {"KERNEL", 0, false},
};
static const struct tui_col kcols_grouped[] = {
    {"PID", 7, true},	{"LAUNCH/s", 9, true},		 {"TOTAL", 8, true},
    {"SHARE", 6, true}, {"(KERNELS) PROCESS", 0, false},
};
static const struct tui_col kcols_time[] = {
    {"PID", 7, true},  {"LAUNCH/s", 9, true}, {"TOTAL", 8, true},   {"SHARE", 6, true},
    {"MEAN", 7, true}, {"MAX", 7, true},      {"KERNEL", 0, false},
};
static const struct tui_col kcols_time_grouped[] = {
    {"PID", 7, true},
    {"LAUNCH/s", 9, true},
    {"TOTAL", 8, true},
    {"SHARE", 6, true},
    {"MEAN", 7, true},
    {"MAX", 7, true},
    {"(KERNELS) PROCESS", 0, false},
};

struct krow {
	uint64_t pid;
	double rate, total, share;
	double busy;	  /* GPU ns per second, NaN without durations */
	double mean, max; /* ns */
	char name[200];
	int nkernels; /* grouped rows */
};

struct kpriv {
	struct tui_table table;
	struct krow *rows;
	size_t nrows, cap;
	uint64_t *ents;
	size_t ecap;
	double rate_sum, busy_sum;
	bool timed; /* some rows have durations: SHARE is of GPU time */
	const enum kcol *map;
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
	s->map = kmap_launch;
	s->table.ncols = (int)ARRAY_SIZE(kmap_launch);
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

static size_t stream_count(const struct view *v, const char *name)
{
	int id = stream_table_find(v->streams, name);

	return id >= 0 ? store_entities(v->store, (uint32_t)id, NULL, 0) : 0;
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
	static const enum stream_id streams[] = {STREAM_MEM_PROC, STREAM_GPURT_MEM};
	for (size_t i = 0; i < sizeof(streams) / sizeof(*streams); i++) {
		int id = stream_table_find(v->streams, catalogue_name(streams[i]));
		const struct series *se =
		    id >= 0 ? store_series(v->store, (uint32_t)id, pid) : NULL;
		const char *l = se ? series_label(se) : NULL;
		if (l && *l)
			return l;
	}
	return NULL;
}

static double row_key(const struct krow *x, enum kcol c)
{
	switch (c) {
	case KC_PID:
		return (double)x->pid;
	case KC_RATE:
		return x->rate;
	case KC_TOTAL:
		return x->total;
	case KC_MEAN:
		return x->mean;
	case KC_MAX:
		return x->max;
	default:
		return x->share;
	}
}

static int row_cmp(const void *a, const void *b, void *ctx)
{
	const struct krow *x = a, *y = b;
	const struct kpriv *s = ctx;
	enum kcol c = s->map[s->table.sort_col];
	int r;
	if (c == KC_NAME) {
		r = strcasecmp(x->name, y->name);
	} else {
		double p = row_key(x, c), q = row_key(y, c);
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
		if (!isnan(k->busy))
			g->busy = isnan(g->busy) ? k->busy : g->busy + k->busy;
		if (!isnan(k->max))
			g->max = isnan(g->max) || k->max > g->max ? k->max : g->max;
		/* the process's mean: its GPU time over its launches */
		g->mean = g->busy > 0 && g->rate > 0 ? g->busy / g->rate : NAN;
		g->nkernels++;
		return;
	}
	struct krow *g = &s->rows[s->nrows++];
	*g = *k;
	g->nkernels = 1;
	const char *pn = proc_name(v, k->pid);
	snprintf(g->name, sizeof(g->name), "%s", pn ? pn : "?");
}

/* The columns of the mode the rows call for; the sort stays on the same
 * column when the new mode has it, else goes to LAUNCH/s; once durations
 * come, a sort by launches becomes one by GPU time, the figure that
 * matters then. */
static void set_mode(struct kpriv *s)
{
	const enum kcol *map = s->timed ? kmap_time : kmap_launch;
	int n = s->timed ? (int)ARRAY_SIZE(kmap_time) : (int)ARRAY_SIZE(kmap_launch);
	enum kcol sorted = s->map[s->table.sort_col];

	s->table.cols = s->timed ? (s->grouped ? kcols_time_grouped : kcols_time)
				 : (s->grouped ? kcols_grouped : kcols);
	if (map == s->map)
		return;
	if (s->timed && sorted == KC_RATE)
		sorted = KC_SHARE;
	s->table.sort_col = 1; /* LAUNCH/s */
	for (int i = 0; i < n; i++)
		if (map[i] == sorted)
			s->table.sort_col = i;
	s->map = map;
	s->table.ncols = n;
}

static bool pid_timed(const struct kpriv *s, size_t ntimed, uint64_t pid)
{
	for (size_t i = 0; i < ntimed; i++)
		if (s->rows[i].pid == pid)
			return true;
	return false;
}

/* One kernel of gpurt.ktime (timed) or gpurt.kernels. */
static void read_row(const struct series *se, const int *f, bool timed, struct krow *k)
{
	const char *label = series_label(se), *tab = label ? strchr(label, '\t') : NULL;
	double pid = f[1] >= 0 ? series_last(se, (uint32_t)f[1]) : NAN;

	*k = (struct krow){.rate = series_rate(se, (uint32_t)f[0]),
			   .total = series_last(se, (uint32_t)f[0]),
			   .busy = NAN,
			   .mean = NAN,
			   .max = NAN};
	k->pid = isnan(pid) && label ? strtoull(label, NULL, 10) : (uint64_t)pid;
	snprintf(k->name, sizeof(k->name), "%s", tab ? tab + 1 : label ? label : "?");
	if (!timed)
		return;
	k->busy = series_rate(se, (uint32_t)f[2]);
	k->max = f[3] >= 0 ? series_last(se, (uint32_t)f[3]) : NAN;
	/* over the rate window while it runs, else over its life */
	if (k->rate > 0 && !isnan(k->busy))
		k->mean = k->busy / k->rate;
	else if (k->total > 0)
		k->mean = series_last(se, (uint32_t)f[2]) / k->total;
}

/* Appends a stream's kernels to s->rows; for the launch counts, only those
 * of processes without durations (the first ntimed rows have them). */
static void load_stream(struct kpriv *s, const struct view *v, bool timed, size_t ntimed)
{
	int id = stream_table_find(v->streams, timed ? catalogue_name(STREAM_GPURT_KTIME)
						     : catalogue_name(STREAM_GPURT_KERNELS));
	const struct stream_desc *d = id >= 0 ? stream_table_get(v->streams, (uint32_t)id) : NULL;
	int f[4] = {-1, -1, -1, -1};
	size_t n;

	if (!d)
		return;
	if (timed) {
		f[0] = catalogue_field_index(d, STREAM_GPURT_KTIME, GPURT_KTIME_COUNT);
		f[1] = catalogue_field_index(d, STREAM_GPURT_KTIME, GPURT_KTIME_PID);
		f[2] = catalogue_field_index(d, STREAM_GPURT_KTIME, GPURT_KTIME_TOTAL_NS);
		f[3] = catalogue_field_index(d, STREAM_GPURT_KTIME, GPURT_KTIME_MAX_NS);
	} else {
		f[0] = catalogue_field_index(d, STREAM_GPURT_KERNELS, GPURT_KERNELS_LAUNCHES);
		f[1] = catalogue_field_index(d, STREAM_GPURT_KERNELS, GPURT_KERNELS_PID);
	}
	n = store_entities(v->store, (uint32_t)id, NULL, 0);
	if (f[0] < 0 || (timed && f[2] < 0) || grow(s, s->nrows + n + 1))
		return;
	n = store_entities(v->store, (uint32_t)id, s->ents, s->ecap);
	for (size_t i = 0; i < n && i < s->ecap && s->nrows < s->cap; i++) {
		const struct series *se = store_series(v->store, (uint32_t)id, s->ents[i]);
		struct krow k;

		if (!se)
			continue;
		read_row(se, f, timed, &k);
		if (!timed && pid_timed(s, ntimed, k.pid))
			continue;
		s->rows[s->nrows++] = k;
	}
}

static void load_rows(struct kpriv *s, const struct view *v)
{
	size_t n, ntimed;

	s->nrows = 0;
	s->rate_sum = s->busy_sum = 0;
	load_stream(s, v, true, 0);
	ntimed = s->nrows;
	s->timed = ntimed > 0;
	set_mode(s);
	load_stream(s, v, false, ntimed);
	n = s->nrows;
	s->nrows = 0;
	for (size_t i = 0; i < n; i++) {
		struct krow k = s->rows[i];

		if (!isnan(k.rate))
			s->rate_sum += k.rate;
		if (!isnan(k.busy))
			s->busy_sum += k.busy;
		/* the filter matches kernel names, also when grouped; rows are
		 * compacted in place (the write index never passes the read one) */
		if (!matches(s, k.name))
			continue;
		if (s->grouped)
			add_grouped(s, v, &k);
		else
			s->rows[s->nrows++] = k;
	}
	/* a share of GPU time where durations are known, else of launches */
	for (size_t i = 0; i < s->nrows; i++) {
		struct krow *r = &s->rows[i];

		if (s->timed)
			r->share = s->busy_sum > 0 && !isnan(r->busy)
				       ? 100.0 * r->busy / s->busy_sum
				       : NAN;
		else
			r->share = s->rate_sum > 0 && !isnan(r->rate)
				       ? 100.0 * r->rate / s->rate_sum
				       : NAN;
	}
	/* an empty pane has no rows array: qsort_r may not be given NULL */
	if (s->nrows > 1)
		qsort_r(s->rows, s->nrows, sizeof(*s->rows), row_cmp, s);
}

static const char *empty_reason(const struct view *v);

/* Lines for why there are no kernels (a privilege hint runs to two or three). */
#define KERN_WHY_LINES 6

static const char *kern_why(const struct kpriv *s, const struct view *v)
{
	return s && s->filter[0] ? "no kernel matches the filter" : empty_reason(v);
}

/* The privilege hint: the one reason a user can act on at once, so it is
 * kept whole, keeps the pane's place and goes to the status line too. */
static bool kern_why_is_hint(const char *why)
{
	return strstr(why, "sudo") != NULL;
}

static int kern_why_lines(const struct pane *p, const struct view *v, int cols)
{
	int n = widget_wrap(NULL, 0, 1, cols - 1, KERN_WHY_LINES, 2, kern_why(p->priv, v));

	return n > 0 ? n : 1;
}

static size_t kern_count(const struct view *v)
{
	return stream_count(v, catalogue_name(STREAM_GPURT_KERNELS)) +
	       stream_count(v, catalogue_name(STREAM_GPURT_KTIME));
}

static int kern_min_rows(const struct pane *p, const struct view *v, int cols)
{
	/* with no kernels: a hint the user can act on now (sudo) whole; any
	 * other reason in one line when rows are short, whole in the log (L) */
	if (!kern_count(v))
		return kern_why_is_hint(kern_why(p->priv, v)) ? kern_why_lines(p, v, cols) : 1;
	/* unfocused, its essential line is the top kernel, without the header */
	return p->focused ? 2 : 1;
}

/* Only a reason to show, and not one the user can act on at once: the
 * privilege hint keeps its place when rows are short. */
static bool kern_idle(const struct pane *p, const struct view *v)
{
	return !kern_count(v) && !copies_rows(v, 2) && !kern_why_is_hint(kern_why(p->priv, v));
}

static int kern_want_rows(const struct pane *p, const struct view *v, int cols)
{
	size_t n = kern_count(v);
	int copies = copies_rows(v, 9); /* a header and up to 8 processes */
	int table = n ? 1 + (int)(n > 200 ? 200 : n) : kern_why_lines(p, v, cols);

	return table + copies;
}

static void kern_title(const struct pane *p, const struct view *v, char *buf, int n)
{
	const struct kpriv *s = p->priv;
	char r[16];
	buf[0] = '\0';
	if (!s || (!kern_count(v) && !copies_rows(v, 2)))
		return; /* no figure yet: the pane says why */
	char c[32];
	widget_fmt_count(r, sizeof(r), s->rate_sum);
	copies_total(v, c, sizeof(c));
	/* the header says what SHARE is a share of */
	snprintf(buf, (size_t)n, "%s launches/s  SHARE of %s%s%s%s", r,
		 s->timed ? "GPU time" : "launches", *c ? "  copies " : "", c,
		 s->grouped ? "  by process" : "");
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
	else if (kern_count(v))
		snprintf(buf, (size_t)n, "%zu %s  sort: %s %s", s->nrows,
			 s->grouped ? "procs" : "kernels", s->table.cols[s->table.sort_col].title,
			 arrow);
}

/* Why there are no rows, in a line: the collector's status (no permission,
 * a build without eBPF), a run or recording without the probes, or plain
 * waiting for a process to use the runtime. */
static const char *empty_reason(const struct view *v)
{
	int id = stream_table_find(v->streams, catalogue_name(STREAM_GPURT_KERNELS));
	const char *st = id >= 0 ? store_status(v->store, (uint32_t)id, STATUS_STREAM) : NULL;

	if (st && *st)
		return st;
	if (id < 0 && stream_table_find(v->streams, catalogue_name(STREAM_GPURT_KTIME)) < 0)
		return v->recorded
			   ? "no kernel launches: this recording was made without the "
			     "runtime probes"
			   : "kernel launches are not counted in this run (-t none, -s none)";
	if (v->recorded)
		return "no kernel launch recorded so far";
	return "no kernel launch seen yet: none by a process using the PPU runtime";
}

/* No rows: the reason, wrapped whole; one that needs sudo is the status too. */
static void draw_empty(WINDOW *w, struct view *v, const struct kpriv *s)
{
	int rows = getmaxy(w), cols = getmaxx(w);
	const char *why = kern_why(s, v);
	int need = widget_wrap(NULL, 0, 1, cols - 1, rows + 1, 2, why);

	/* no header over no rows */
	wmove(w, 0, 0);
	wclrtoeol(w);
	widget_attr_on(w, v, TC_DIM);
	widget_wrap(w, 0, 1, cols - 1, rows, 2, why);
	widget_attr_off(w, v, TC_DIM);
	if (kern_why_is_hint(why)) {
		snprintf(v->status, sizeof(v->status), "%s", why);
		v->status_shown = need <= rows;
	}
}

/* A duration in ns: "850ns", "12.5us", "3.20ms", "1.50s"; n/a when unknown. */
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
	widget_fmt_ns(c[KC_MEAN], sizeof(c[KC_MEAN]), r->mean);
	widget_fmt_ns(c[KC_MAX], sizeof(c[KC_MAX]), r->max);
	if (s->grouped)
		snprintf(c[KC_NAME], sizeof(c[KC_NAME]), "(%d) %.200s", r->nkernels, r->name);
	else
		snprintf(c[KC_NAME], sizeof(c[KC_NAME]), "%s", r->name);
	if (sel) {
		widget_attr_on(w, v, TC_SELECT);
		mvwhline(w, y, 0, ' ', cols);
	}
	for (int i = 0; i < s->table.ncols; i++) {
		int cw = s->table.cols[i].width ? s->table.cols[i].width : cols - xs[i];
		/* the column that ranks: GPU time when known, else launches */
		bool accent = !sel && s->map[i] == (s->timed ? KC_SHARE : KC_RATE);

		if (accent)
			widget_attr_on(w, v, TC_ACCENT);
		widget_text(w, y, xs[i], cw, c[s->map[i]], s->table.cols[i].right);
		if (accent)
			widget_attr_off(w, v, TC_ACCENT);
	}
	if (sel)
		widget_attr_off(w, v, TC_SELECT);
}

static void kern_draw_table(struct pane *p, WINDOW *w, struct view *v)
{
	struct kpriv *s = p->priv;
	int rows = getmaxy(w), xs[KC_N], y0;

	if (!s)
		return;
	load_rows(s, v);
	/* one row: no header, just the top kernel */
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

/* The copies section, then the kernels in the rows left. */
static void kern_draw(struct pane *p, WINDOW *w, struct view *v)
{
	WINDOW *rest = copies_section(w, v);

	kern_draw_table(p, rest, v);
	if (rest != w)
		delwin(rest);
}

static bool kern_key(struct pane *p, int ch, struct view *v)
{
	struct kpriv *s = p->priv;
	(void)v;
	if (!s)
		return false;
	if (ch == 'p' && !s->editing) { /* not g: replay jumps with it */
		s->grouped = !s->grouped;
		s->table.top = s->table.selected = 0;
		return true;
	}
	return widget_filter_table_key(&s->table, (int)s->nrows, s->filter, sizeof(s->filter),
				       &s->editing, ch, p->rows - 1 > 0 ? p->rows - 1 : 1);
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
    "<, >          sort by a column; I inverts",
    /* one entry a line: the help wraps each to the screen, its further
     * lines under the description */
    "SHARE         this row's part of all GPU time where kernel durations are known (a "
    "workload started as asys top -- CMD), else of all launches/s",
    "MEAN, MAX     kernel duration: mean over the last seconds, max since start",
    "copies        per process, above the kernels: bytes/s by direction and calls/s; on a "
    "screen of 100 columns or more also CALLS and BYTES so far; PINNED: the share of "
    "host-device bytes in pinned host memory",
    NULL,
};

const struct pane_class kernels_pane = {
    .name = "kernels",
    .title = "Top kernels",
    .hotkey = '5',
    .init = kern_init,
    .fini = kern_fini,
    /* no .visible: shown whenever the setup shows it, so that its key
     * always leads somewhere; with nothing to show it says why */
    .min_rows = kern_min_rows,
    .idle = kern_idle,
    .want_rows = kern_want_rows,
    .title_extra = kern_title,
    .footer = kern_footer,
    .draw = kern_draw,
    .key = kern_key,
    .keys = kern_keys,
    .help = kern_help,
};
