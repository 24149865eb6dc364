/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_data.h"
#include "pane.h"
#include "util.h"
#include "widget.h"

/* The CPU pane: a bar per core split by state, in as many columns as it
 * takes; when even that does not fit, one cell per core whose colour is the
 * dominant state and whose glyph is the busy share. Above the cores, a
 * sparkline of the total busy share over the last refreshes. The figures
 * come from cpu_data.c. */

/* Bar segments, in drawing order. */
#define SEG_N 6
static const enum tui_color seg_color[SEG_N] = {TC_USER, TC_NICE,   TC_SYSTEM,
						TC_IRQ,	 TC_IOWAIT, TC_STEAL};

#define CELL_GAP 2
#define BAR_MIN 4 /* narrowest bar worth drawing */
#define PCT_W 4	  /* "100%" */
#define WANT_UNFOCUSED_MAX 8
#define STRIP_HEIGHT_MAX 6
#define HIST_ROWS 1   /* the history line above the cores */
#define HIST_MAX 1024 /* history values drawn at most (2 per braille cell) */

static void *cpu_init(const struct view *v)
{
	(void)v;
	return cpu_data_new();
}

static void cpu_fini(void *priv)
{
	cpu_data_free(priv);
}

static int label_width(const struct cpu_data *s)
{
	char buf[24];
	uint64_t max = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->rows[i].id > max)
			max = s->rows[i].id;
	return snprintf(buf, sizeof(buf), "%llu", (unsigned long long)max);
}

/* How the cores are laid out in rows x cols. */
struct cpu_plan {
	bool strip;
	int ncol;    /* bar mode: columns of cells */
	int cellw;   /* bar mode: cell width */
	int per_row; /* strip mode: cores per row */
	int height;  /* strip mode: screen rows per strip row */
	int rows;    /* rows needed (strip rows in strip mode) */
};

/* Cores per strip row after the label: a multiple of 8 when there is room,
 * so rows start at round core numbers. */
static int strip_per_row(int cols, int lw)
{
	int n = cols - lw - 1;

	if (n >= 16)
		n -= n % 8;
	return n > 0 ? n : 1;
}

static int div_up(int a, int b)
{
	return b > 0 ? (a + b - 1) / b : a;
}

static void plan_layout(const struct cpu_data *s, int rows, int cols, struct cpu_plan *p)
{
	int n = (int)s->n, lw = label_width(s);

	memset(p, 0, sizeof(*p));
	if (n == 0 || rows < 1) {
		p->rows = 1;
		return;
	}
	for (int ncol = 1; ncol <= n; ncol++) {
		int cellw = (cols - (ncol - 1) * CELL_GAP) / ncol;

		if (cellw < lw + 1 + BAR_MIN)
			break;
		if (div_up(n, ncol) <= rows) {
			p->ncol = ncol;
			p->cellw = cellw;
			p->rows = div_up(n, ncol);
			return;
		}
	}
	p->strip = true;
	p->per_row = strip_per_row(cols, lw);
	p->rows = div_up(n, p->per_row);
	/* spare rows make each strip row taller: a column graph per core */
	p->height = rows / p->rows;
	if (p->height > STRIP_HEIGHT_MAX)
		p->height = STRIP_HEIGHT_MAX;
	if (p->height < 1)
		p->height = 1;
}

static int cpu_min_rows(const struct pane *p, const struct view *v, int cols)
{
	struct cpu_data *s = p->priv;
	int per_row;

	if (!s)
		return 1;
	cpu_data_compute(s, v);
	if (s->n == 0)
		return 1;
	/* the history line, then the strip: one cell per core after the label */
	per_row = strip_per_row(cols, label_width(s));
	return HIST_ROWS + div_up((int)s->n, per_row);
}

static int cpu_want_rows(const struct pane *p, const struct view *v, int cols)
{
	struct cpu_data *s = p->priv;
	int ncol, want;

	if (!s)
		return 1;
	cpu_data_compute(s, v);
	if (s->n == 0)
		return 1;
	/* cells about 32 wide read well: label, a bar, a percentage */
	ncol = (cols + CELL_GAP) / (32 + CELL_GAP);
	if (ncol < 1)
		ncol = 1;
	want = div_up((int)s->n, ncol);
	if (!p->focused && want > WANT_UNFOCUSED_MAX)
		want = WANT_UNFOCUSED_MAX;
	return HIST_ROWS + want;
}

static double pct_of(double share)
{
	return isnan(share) ? NAN : share * 100;
}

/* A state the kernel does not report counts as none in a sum. */
static double pct_nz(double share)
{
	return isnan(share) ? 0 : share * 100;
}

static void cpu_title(const struct pane *p, const struct view *v, char *buf, int n)
{
	struct cpu_data *s = p->priv;
	const struct cpu_row *t;
	size_t online = 0;
	char avg[16], ipc[24], cores[48];

	buf[0] = '\0';
	if (!s)
		return;
	cpu_data_compute(s, v);
	if (!s->n)
		return;
	for (size_t i = 0; i < s->n; i++)
		online += !s->rows[i].offline;
	t = &s->total;
	widget_fmt_pct(avg, sizeof(avg), pct_of(t->busy));
	if (s->ipc_absent)
		ipc[0] = '\0';
	else if (isnan(s->ipc))
		snprintf(ipc, sizeof(ipc), "  IPC n/a");
	else
		snprintf(ipc, sizeof(ipc), "  IPC %.2f", s->ipc);
	if (online == s->n)
		snprintf(cores, sizeof(cores), "%zu cores", s->n);
	else
		snprintf(cores, sizeof(cores), "%zu/%zu cores online", online, s->n);
	if (isnan(t->busy))
		snprintf(buf, (size_t)n, "%s  avg n/a%s", cores, ipc);
	else
		/* sar's and top's split: nice apart from user, interrupts in sy */
		snprintf(buf, (size_t)n, "%s  avg %s  us %.0f ni %.0f sy %.0f wa %.0f st %.0f%s",
			 cores, avg, pct_nz(t->share[CS_USER]), pct_nz(t->share[CS_NICE]),
			 pct_nz(t->share[CS_SYSTEM]) + pct_nz(t->share[CS_IRQ]) +
			     pct_nz(t->share[CS_SOFTIRQ]),
			 pct_nz(t->share[CS_IOWAIT]), pct_nz(t->share[CS_STEAL]), ipc);
}

static void row_segments(const struct cpu_row *r, double *seg)
{
	seg[0] = r->share[CS_USER];
	seg[1] = r->share[CS_NICE];
	seg[2] = r->share[CS_SYSTEM];
	seg[3] = isnan(r->share[CS_IRQ])       ? r->share[CS_SOFTIRQ]
		 : isnan(r->share[CS_SOFTIRQ]) ? r->share[CS_IRQ]
					       : r->share[CS_IRQ] + r->share[CS_SOFTIRQ];
	seg[4] = r->share[CS_IOWAIT];
	seg[5] = r->share[CS_STEAL];
}

static void draw_cell(WINDOW *w, const struct view *v, int y, int x, int width, int lw,
		      const struct cpu_row *r)
{
	char label[24], pct[16];
	double seg[SEG_N];
	bool show_pct = width >= lw + 1 + BAR_MIN + 2 + 1 + PCT_W;
	int bw = width - lw - 1 - (show_pct ? PCT_W + 1 : 0);
	const char *lb = v->utf8 ? "" : "[";
	int brackets = v->utf8 ? 0 : 2;

	snprintf(label, sizeof(label), "%*llu", lw, (unsigned long long)r->id);
	widget_attr_on(w, v, TC_DIM);
	widget_text(w, y, x, lw, label, true);
	widget_attr_off(w, v, TC_DIM);
	if (r->offline) {
		widget_attr_on(w, v, TC_DIM);
		widget_text(w, y, x + lw + 1, width - lw - 1, "offline", false);
		widget_attr_off(w, v, TC_DIM);
		return;
	}
	if (brackets && bw > brackets + 1) {
		widget_text(w, y, x + lw + 1, 1, lb, false);
		widget_text(w, y, x + lw + bw, 1, "]", false);
		x += 1;
		bw -= brackets;
	}
	row_segments(r, seg);
	widget_bar(w, v, y, x + lw + 1, bw, seg, seg_color, SEG_N);
	if (show_pct) {
		widget_fmt_pct(pct, sizeof(pct), pct_of(r->busy));
		widget_text(w, y, x + width - PCT_W - (brackets ? 1 : 0), PCT_W, pct, true);
	}
}

/* Colour of the state that takes most of a core's busy time. */
static enum tui_color dominant(const struct cpu_row *r)
{
	double seg[SEG_N], best = -1;
	enum tui_color c = TC_DIM;

	row_segments(r, seg);
	for (int i = 0; i < SEG_N; i++) {
		if (!isnan(seg[i]) && seg[i] > best) {
			best = seg[i];
			c = seg_color[i];
		}
	}
	return best > 0.005 ? c : TC_DIM;
}

/* The glyph for screen row j (0 = bottom) of a column h rows high filled to
 * level (0..1); a one-row column is the level glyph itself. */
static const char *column_glyph(const struct view *v, double level, int j, int h)
{
	double fill;

	if (isnan(level))
		return " ";
	if (h <= 1)
		return widget_level_glyph(v, level);
	fill = level * h - j;
	if (fill >= 1)
		return v->utf8 ? "\u2588" : "#";
	if (fill <= 0)
		return j == 0 ? widget_level_glyph(v, 0) : " ";
	return widget_level_glyph(v, fill);
}

static void draw_strip(WINDOW *w, const struct cpu_data *s, const struct view *v,
		       const struct cpu_plan *plan, int rows)
{
	int lw = label_width(s), h = plan->height;

	for (int row = 0; (row + 1) * h <= rows; row++) {
		size_t first = (size_t)row * (size_t)plan->per_row;
		int base = (row + 1) * h - 1; /* the bottom screen row of this strip row */
		char label[24];

		if (first >= s->n)
			break;
		snprintf(label, sizeof(label), "%*llu", lw, (unsigned long long)s->rows[first].id);
		widget_attr_on(w, v, TC_DIM);
		widget_text(w, base, 0, lw, label, true);
		widget_attr_off(w, v, TC_DIM);
		for (int k = 0; k < plan->per_row && first + (size_t)k < s->n; k++) {
			const struct cpu_row *r = &s->rows[first + (size_t)k];
			enum tui_color c = r->offline ? TC_DIM : dominant(r);
			double level = r->offline ? 0 : r->busy;

			/* an idle core is still a visible cell */
			if (!v->utf8 && !isnan(level) && level < 1.0 / 9 && h == 1)
				level = 1.0 / 9;
			widget_attr_on(w, v, c);
			for (int j = 0; j < h; j++)
				widget_text(w, base - j, lw + 1 + k, 1,
					    r->offline ? (j ? " " : "x")
						       : column_glyph(v, level, j, h),
					    false);
			widget_attr_off(w, v, c);
		}
	}
}

/* "all ⣀⣤⣶⣿⣿ 41%": the total busy share, one value per refresh, newest on
 * the right, 0..100 % from the bottom of the cell to its top. */
static void draw_history(WINDOW *w, struct cpu_data *s, const struct view *v, int cols)
{
	double hist[HIST_MAX];
	char label[24], pct[16];
	int lw = label_width(s) > 3 ? label_width(s) : 3;
	int sw = cols - lw - 1 - 1 - PCT_W;
	size_t n;

	if (sw < 4)
		return;
	n = (size_t)sw * (v->utf8 ? 2 : 1);
	if (n > HIST_MAX)
		n = HIST_MAX;
	n = cpu_data_history(s, v, hist, n);
	/* a known idle refresh is the lowest mark, no data a blank */
	for (size_t j = 0; j < n; j++)
		if (!isnan(hist[j]) && hist[j] < 1e-3)
			hist[j] = 1e-3;
	snprintf(label, sizeof(label), "%*s", lw, "all");
	widget_attr_on(w, v, TC_DIM);
	widget_text(w, 0, 0, lw, label, true);
	widget_attr_off(w, v, TC_DIM);
	widget_spark(w, v, 0, lw + 1, sw, hist, (int)n, 1.0, TC_ACCENT);
	widget_fmt_pct(pct, sizeof(pct), pct_of(s->total.busy));
	widget_text(w, 0, cols - PCT_W, PCT_W, pct, true);
}

static void cpu_draw(struct pane *p, WINDOW *w, struct view *v)
{
	struct cpu_data *s = p->priv;
	struct cpu_plan plan;
	int rows = getmaxy(w), cols = getmaxx(w);
	WINDOW *cores = NULL;
	int lw;

	if (!s)
		return;
	cpu_data_compute(s, v);
	if (s->ipc_why[0])
		util_strlcpy(v->status, s->ipc_why, sizeof(v->status));
	if (!s->n) {
		widget_attr_on(w, v, TC_DIM);
		widget_text(w, 0, 1, cols - 1, s->why ? s->why : "no data", false);
		widget_attr_off(w, v, TC_DIM);
		return;
	}
	/* squeezed to one row, the cores come before their history */
	if (rows > HIST_ROWS) {
		draw_history(w, s, v, cols);
		cores = derwin(w, rows - HIST_ROWS, cols, HIST_ROWS, 0);
		if (!cores)
			return;
		w = cores;
		rows -= HIST_ROWS;
	}
	plan_layout(s, rows, cols, &plan);
	if (plan.strip) {
		draw_strip(w, s, v, &plan, rows);
	} else {
		lw = label_width(s);
		/* cores run down each column, as in htop */
		for (size_t i = 0; i < s->n; i++) {
			int col = (int)i / plan.rows, row = (int)i % plan.rows;

			draw_cell(w, v, row, col * (plan.cellw + CELL_GAP), plan.cellw, lw,
				  &s->rows[i]);
		}
	}
	if (cores)
		delwin(cores);
}

static void cpu_footer(const struct pane *p, const struct view *v, char *buf, int n)
{
	struct cpu_data *s = p->priv;
	struct cpu_plan plan;
	int rows;

	buf[0] = '\0';
	if (!s || !s->n)
		return;
	rows = p->rows > HIST_ROWS ? p->rows - HIST_ROWS : p->rows;
	plan_layout(s, rows, p->cols, &plan);
	if (plan.strip) {
		int hidden = (int)s->n - rows / plan.height * plan.per_row;

		if (hidden > 0)
			snprintf(buf, (size_t)n, "%d cores not shown (focus: 3)", hidden);
		else
			snprintf(buf, (size_t)n, "one cell per core, colour = dominant state");
	} else if (v->color) {
		snprintf(buf, (size_t)n, "user nice system irq iowait steal");
	} else {
		snprintf(buf, (size_t)n,
			 v->utf8 ? "\u2588user \u2593nice \u2592system \u2591irq"
				 : "#user =nice +system :irq ~iowait %%steal");
	}
}

static const char *const cpu_help[] = {
    "bars          green user, cyan nice, red system, yellow irq,",
    "              blue iowait, magenta steal; the % is busy time",
    "all           total busy share, one mark per refresh, newest right",
    "many cores    one cell per core: colour = main state, height = busy",
    "IPC           instructions per cycle, all cores (n/a: see bottom line)",
    NULL,
};

const struct pane_class cpu_pane = {
    .name = "cpu",
    .title = "CPU",
    .hotkey = '3',
    .init = cpu_init,
    .fini = cpu_fini,
    .min_rows = cpu_min_rows,
    .want_rows = cpu_want_rows,
    .title_extra = cpu_title,
    .footer = cpu_footer,
    .draw = cpu_draw,
    .help = cpu_help,
};
