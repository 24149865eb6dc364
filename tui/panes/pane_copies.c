/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "pane_copies.h"
#include "store.h"
#include "stream.h"
#include "util.h"
#include "widget.h"

/* The copies section of the kernels pane, from gpurt.copy (one entity per
 * process, calls and bytes per direction): bytes per second by direction,
 * HtoH and copies of unknown direction together as OTHER, all calls per
 * second, from 100 columns the calls and bytes so far, and the pinned share
 * of the host-device bytes. */

enum ccol {
	CC_PID,
	CC_HTOD,
	CC_DTOH,
	CC_DTOD,
	CC_OTHER,
	CC_SET,
	CC_CALLS,
	CC_NCALLS,
	CC_NBYTES,
	CC_PIN,
	CC_N
};

static const struct tui_col ccols[CC_N] = {
    [CC_PID] = {"PID", 7, true},	[CC_HTOD] = {"HtoD/s", 10, true},
    [CC_DTOH] = {"DtoH/s", 10, true},	[CC_DTOD] = {"DtoD/s", 10, true},
    [CC_OTHER] = {"OTHER/s", 10, true}, [CC_SET] = {"SET/s", 10, true},
    [CC_CALLS] = {"COPIES/s", 8, true}, [CC_NCALLS] = {"CALLS", 7, true},
    [CC_NBYTES] = {"BYTES", 7, true},	[CC_PIN] = {"PINNED", 0, false},
};

#define COPIES_WIDE 100 /* columns from which the totals show */

#define COPIES_MAX_ROWS 64

struct crow {
	uint64_t pid;
	double bps[CC_N]; /* by column; CC_CALLS calls/s, CC_PIN percent */
	double sum;	  /* bytes/s, all directions */
	double total;	  /* bytes so far, for the order of idle rows */
	double calls;	  /* calls so far */
};

/* gpurt.copy's fields, by the catalogue's constants; -1: none */
static const int dir_fields[][2] = {
    [CC_HTOD] = {GPURT_COPY_HTOD_BYTES, -1},
    [CC_DTOH] = {GPURT_COPY_DTOH_BYTES, -1},
    [CC_DTOD] = {GPURT_COPY_DTOD_BYTES, -1},
    [CC_OTHER] = {GPURT_COPY_HTOH_BYTES, GPURT_COPY_UNKNOWN_BYTES},
    [CC_SET] = {GPURT_COPY_SET_BYTES, -1},
};
static const int call_fields[] = {GPURT_COPY_HTOD_CALLS,    GPURT_COPY_DTOH_CALLS,
				  GPURT_COPY_DTOD_CALLS,    GPURT_COPY_HTOH_CALLS,
				  GPURT_COPY_UNKNOWN_CALLS, GPURT_COPY_SET_CALLS};

/* The rate of the given fields, summed; NaN when none is known. */
static double rate_of(const struct series *se, const struct stream_desc *d, const struct view *v,
		      const int *fields, size_t n, double *total)
{
	double sum = NAN;

	for (size_t i = 0; i < n; i++) {
		int f = fields[i] >= 0
			    ? catalogue_field_index(d, STREAM_GPURT_COPY, (unsigned int)fields[i])
			    : -1;
		double r = f >= 0 ? view_value(se, f, v, true) : NAN;
		double t = f >= 0 ? series_last(se, (uint32_t)f) : NAN;

		if (!isnan(r))
			sum = isnan(sum) ? r : sum + r;
		if (total && !isnan(t))
			*total += t;
	}
	return sum;
}

static void row_load(struct crow *r, const struct series *se, const struct stream_desc *d,
		     const struct view *v)
{
	static const int pin[] = {GPURT_COPY_PINNED_BYTES}, page[] = {GPURT_COPY_PAGEABLE_BYTES};

	for (int c = CC_HTOD; c <= CC_SET; c++) {
		r->bps[c] = rate_of(se, d, v, dir_fields[c], 2, &r->total);
		if (!isnan(r->bps[c]))
			r->sum = (isnan(r->sum) ? 0 : r->sum) + r->bps[c];
	}
	r->bps[CC_CALLS] = rate_of(se, d, v, call_fields, ARRAY_SIZE(call_fields), &r->calls);
	double p = rate_of(se, d, v, pin, 1, NULL), q = rate_of(se, d, v, page, 1, NULL);
	r->bps[CC_PIN] = p + q > 0 ? 100.0 * p / (p + q) : NAN;
}

static int row_cmp(const void *a, const void *b)
{
	const struct crow *x = a, *y = b;
	double p = isnan(x->sum) ? -1 : x->sum, q = isnan(y->sum) ? -1 : y->sum;

	if (p != q)
		return p < q ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* The processes that copied, busiest first, at most max into rows. */
static size_t load_rows(const struct view *v, struct crow *rows, size_t max)
{
	int id = stream_table_find(v->streams, catalogue_name(STREAM_GPURT_COPY));
	uint64_t ents[COPIES_MAX_ROWS * 4];
	size_t n, k = 0;

	if (id < 0)
		return 0;
	const struct stream_desc *d = stream_table_get(v->streams, (uint32_t)id);
	n = store_entities(v->store, (uint32_t)id, ents, ARRAY_SIZE(ents));
	if (n > ARRAY_SIZE(ents))
		n = ARRAY_SIZE(ents);
	struct crow *all = calloc(n ? n : 1, sizeof(*all));
	if (!all)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct series *se = store_series(v->store, (uint32_t)id, ents[i]);
		struct crow r = {.pid = ents[i], .sum = NAN};

		if (!se || ents[i] == STATUS_STREAM)
			continue;
		row_load(&r, se, d, v);
		if (r.total > 0)
			all[k++] = r;
	}
	qsort(all, k, sizeof(*all), row_cmp);
	if (k > max)
		k = max;
	memcpy(rows, all, k * sizeof(*rows));
	free(all);
	return k;
}

int copies_rows(const struct view *v, int max)
{
	struct crow rows[COPIES_MAX_ROWS];
	size_t n;

	if (max < 2)
		return 0;
	n = load_rows(v, rows, (size_t)(max - 1 < COPIES_MAX_ROWS ? max - 1 : COPIES_MAX_ROWS));
	return n ? 1 + (int)n : 0;
}

void copies_total(const struct view *v, char *buf, size_t n)
{
	struct crow rows[COPIES_MAX_ROWS];
	size_t k = load_rows(v, rows, COPIES_MAX_ROWS);
	double sum = 0;

	buf[0] = '\0';
	if (!k)
		return;
	for (size_t i = 0; i < k; i++)
		sum += isnan(rows[i].sum) ? 0 : rows[i].sum;
	widget_fmt_rate(buf, n, v, sum);
}

/* The columns shown at this width, into cols and idx (the ccol of each). */
static int shown_cols(int width, struct tui_col *cols, int *idx)
{
	int n = 0;

	for (int i = 0; i < CC_N; i++) {
		if ((i == CC_NCALLS || i == CC_NBYTES) && width < COPIES_WIDE)
			continue;
		idx[n] = i;
		cols[n++] = ccols[i];
	}
	return n;
}

static void draw_row(WINDOW *w, struct view *v, const struct crow *r, int y, const int *xs,
		     const int *idx, int ncols)
{
	int cols = getmaxx(w);
	char c[CC_N][32];

	snprintf(c[CC_PID], sizeof(c[CC_PID]), "%llu", (unsigned long long)r->pid);
	for (int i = CC_HTOD; i <= CC_SET; i++)
		widget_fmt_rate(c[i], sizeof(c[i]), v, r->bps[i]);
	widget_fmt_count(c[CC_CALLS], sizeof(c[CC_CALLS]), r->bps[CC_CALLS]);
	widget_fmt_count(c[CC_NCALLS], sizeof(c[CC_NCALLS]), r->calls);
	widget_fmt_count(c[CC_NBYTES], sizeof(c[CC_NBYTES]), r->total);
	if (isnan(r->bps[CC_PIN]))
		snprintf(c[CC_PIN], sizeof(c[CC_PIN]), "-");
	else
		widget_fmt_pct(c[CC_PIN], sizeof(c[CC_PIN]), r->bps[CC_PIN]);
	for (int k = 0; k < ncols; k++) {
		int i = idx[k], cw = ccols[i].width ? ccols[i].width : cols - xs[k];
		bool rate = i >= CC_HTOD && i <= CC_CALLS;

		if (rate)
			widget_attr_on(w, v, TC_ACCENT);
		widget_text(w, y, xs[k], cw, c[i], ccols[i].right);
		if (rate)
			widget_attr_off(w, v, TC_ACCENT);
	}
}

int copies_draw(WINDOW *w, struct view *v, int max)
{
	struct crow rows[COPIES_MAX_ROWS];
	struct tui_col cols[CC_N];
	int xs[CC_N], idx[CC_N], nc = shown_cols(getmaxx(w), cols, idx);
	struct tui_table t = {.cols = cols, .ncols = nc, .sort_col = -1};
	size_t n;

	if (max < 2)
		return 0;
	n = load_rows(v, rows, (size_t)(max - 1 < COPIES_MAX_ROWS ? max - 1 : COPIES_MAX_ROWS));
	if (!n)
		return 0;
	widget_table_header(w, v, 0, &t, xs);
	for (size_t i = 0; i < n; i++) {
		wmove(w, 1 + (int)i, 0);
		wclrtoeol(w);
		draw_row(w, v, &rows[i], 1 + (int)i, xs, idx, nc);
	}
	return 1 + (int)n;
}

WINDOW *copies_section(WINDOW *w, struct view *v)
{
	int rows = getmaxy(w), cols = getmaxx(w);
	int used = copies_draw(w, v, rows >= 4 ? rows / 2 : 0);
	WINDOW *sub = used ? derwin(w, rows - used, cols, used, 0) : NULL;

	return sub ? sub : w;
}
