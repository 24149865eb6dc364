/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curses.h>

#include "proc_cols.h"
#include "setup.h"
#include "store.h"
#include "tui_int.h"
#include "util.h"
#include "widget.h"

enum line_kind {
	LN_HEAD,
	LN_PANE,  /* k: place in the panes' order */
	LN_COL,	  /* k: place in the columns' order */
	LN_DELAY, /* the refresh interval */
	LN_UNITS,
	LN_THEME,
	LN_SORT,
	LN_ORDER, /* the sort's direction */
};

struct setup_line {
	enum line_kind kind;
	int k;
	const char *head;
};

#define SETUP_LINES (TUI_MAX_PANES + PROC_COLS_MAX + 16)

struct setup {
	int sel, top; /* the selected line, the first one shown */
	bool moving;  /* Enter picked the selected item up: Up and Down move it */
	int npanes, pane_order[TUI_MAX_PANES];
	bool pane_shown[TUI_MAX_PANES];
	int ncols, col_order[PROC_COLS_MAX];
	bool col_shown[PROC_COLS_MAX];
	unsigned changed; /* enum set_changed */
	struct setup_line lines[SETUP_LINES];
	int nlines;
};

/* The refresh intervals offered, in seconds. */
static const double setup_delays[] = {0.1, 0.2, 0.25, 0.5, 1, 2, 3, 5, 10, 15, 30, 60};

static const char *pane_name(int i)
{
	return pane_registry[i]->name;
}

bool tui_setup_pane_name(const char *name, char *canon, size_t n)
{
	for (int i = 0; pane_registry[i]; i++) {
		if (!strcasecmp(name, pane_name(i))) {
			util_strlcpy(canon, pane_name(i), n);
			return true;
		}
	}
	return false;
}

bool tui_setup_column_name(const char *name, char *canon, size_t n)
{
	int i = proc_col_find(name);

	if (i >= 0)
		util_strlcpy(canon, proc_col_title(i), n);
	return i >= 0;
}

static void add_line(struct setup *s, enum line_kind kind, int k, const char *head)
{
	if (s->nlines < SETUP_LINES)
		s->lines[s->nlines++] = (struct setup_line){kind, k, head};
}

static void setup_lines(struct setup *s)
{
	s->nlines = 0;
	/* the values first: at 80x24 the lists go below the page */
	add_line(s, LN_HEAD, 0, "Display");
	for (int kind = LN_DELAY; kind <= LN_ORDER; kind++)
		add_line(s, (enum line_kind)kind, 0, NULL);
	add_line(s, LN_HEAD, 0, "Panes");
	for (int k = 0; k < s->npanes; k++)
		add_line(s, LN_PANE, k, NULL);
	add_line(s, LN_HEAD, 0, "Columns of the process table");
	for (int k = 0; k < s->ncols; k++)
		add_line(s, LN_COL, k, NULL);
}

void tui_setup_open(struct tui *t)
{
	struct setup *s;
	const char *names[TUI_MAX_PANES] = {NULL};

	if (t->setup)
		return;
	s = calloc(1, sizeof(*s));
	if (!s)
		return;
	while (s->npanes < TUI_MAX_PANES && pane_registry[s->npanes]) {
		names[s->npanes] = pane_name(s->npanes);
		s->npanes++;
	}
	settings_order(&t->opts.ui.panes, names, s->npanes, s->pane_order, s->pane_shown);
	s->ncols = proc_cols_order(&t->opts.ui.columns, s->col_order, s->col_shown);
	/* u may have changed the units since */
	t->opts.ui.bytes = !t->v.bits;
	setup_lines(s);
	s->sel = 1;
	t->setup = s;
}

/* Writes the lists back into the view's settings. */
static void setup_store_lists(struct tui *t, struct setup *s)
{
	const char *names[PROC_COLS_MAX] = {NULL};

	for (int i = 0; i < s->npanes; i++)
		names[i] = pane_name(i);
	settings_set_order(&t->opts.ui.panes, names, s->pane_order, s->pane_shown, s->npanes);
	for (int i = 0; i < s->ncols; i++)
		names[i] = proc_col_title(i);
	settings_set_order(&t->opts.ui.columns, names, s->col_order, s->col_shown, s->ncols);
}

/* Moves item k of the selected list by dir places; the last column stays. */
static bool setup_move(struct tui *t, struct setup *s, int dir)
{
	struct setup_line *l = &s->lines[s->sel];
	int *order = l->kind == LN_PANE ? s->pane_order : s->col_order;
	int n = l->kind == LN_PANE ? s->npanes : s->ncols - 1, to = l->k + dir, tmp;

	if (l->kind == LN_COL && l->k == s->ncols - 1)
		return false;
	if (to < 0 || to >= n)
		return false;
	tmp = order[l->k];
	order[l->k] = order[to];
	order[to] = tmp;
	s->sel += dir;
	s->changed |= l->kind == LN_PANE ? SET_CH_PANES : SET_CH_COLUMNS;
	setup_store_lists(t, s);
	return true;
}

static void setup_toggle(struct tui *t, struct setup *s)
{
	const struct setup_line *l = &s->lines[s->sel];

	if (l->kind == LN_PANE) {
		bool *sh = &s->pane_shown[s->pane_order[l->k]];
		int shown = 0;

		for (int i = 0; i < s->npanes; i++)
			shown += s->pane_shown[i];
		if (*sh && shown == 1)
			return; /* one pane at least */
		*sh = !*sh;
		s->changed |= SET_CH_PANES;
	} else if (l->kind == LN_COL && l->k < s->ncols - 1) {
		s->col_shown[s->col_order[l->k]] = !s->col_shown[s->col_order[l->k]];
		s->changed |= SET_CH_COLUMNS;
	}
	setup_store_lists(t, s);
}

static void setup_delay(struct tui *t, int dir)
{
	double d = t->delay_s, pick = d;
	int n = (int)ARRAY_SIZE(setup_delays);

	for (int i = 0; i < n; i++) {
		int j = dir > 0 ? i : n - 1 - i;

		if (dir > 0 ? setup_delays[j] > d + 1e-9 : setup_delays[j] < d - 1e-9) {
			pick = setup_delays[j];
			break;
		}
	}
	t->delay_s = pick;
	t->v.window_ns = (uint64_t)(pick * 1e9);
}

static void setup_sort(struct tui *t, int dir)
{
	int n = 0, cur = 0;
	const char *now = t->opts.ui.sort[0] ? t->opts.ui.sort : proc_col_default_sort();

	while (proc_col_title(n))
		n++;
	for (int i = 0; i < n; i++)
		if (!strcasecmp(proc_col_title(i), now))
			cur = i;
	if (n)
		util_strlcpy(t->opts.ui.sort, proc_col_title(((cur + dir) % n + n) % n),
			     sizeof(t->opts.ui.sort));
}

/* Changes the value of the selected line by dir (+1 next, -1 previous). */
static void setup_value(struct tui *t, struct setup *s, int dir)
{
	switch (s->lines[s->sel].kind) {
	case LN_DELAY:
		setup_delay(t, dir);
		s->changed |= SET_CH_DELAY;
		break;
	case LN_UNITS:
		t->opts.ui.bytes = !t->opts.ui.bytes;
		t->v.bits = !t->opts.ui.bytes;
		s->changed |= SET_CH_UNITS;
		break;
	case LN_THEME:
		t->opts.ui.theme = ((t->opts.ui.theme + dir) % SET_THEME_COUNT + SET_THEME_COUNT) %
				   SET_THEME_COUNT;
		tui_apply_theme(t);
		s->changed |= SET_CH_THEME;
		break;
	case LN_SORT:
		setup_sort(t, dir);
		s->changed |= SET_CH_SORT;
		break;
	case LN_ORDER:
		t->opts.ui.sort_asc = !t->opts.ui.sort_asc;
		s->changed |= SET_CH_SORT;
		break;
	default:
		break;
	}
}

static void setup_select(struct setup *s, int dir)
{
	for (int i = s->sel + dir; i >= 0 && i < s->nlines; i += dir) {
		if (s->lines[i].kind != LN_HEAD) {
			s->sel = i;
			return;
		}
	}
}

static bool is_list(const struct setup *s)
{
	return s->lines[s->sel].kind == LN_PANE || s->lines[s->sel].kind == LN_COL;
}

bool tui_setup_key(struct tui *t, int ch)
{
	struct setup *s = t->setup;

	switch (ch) {
	case 27: /* Esc */
	case 'q':
	case KEY_F(2):
	case KEY_F(10):
		tui_setup_close(t);
		break;
	case KEY_UP:
	case KEY_DOWN:
		if (s->moving && setup_move(t, s, ch == KEY_UP ? -1 : 1))
			break;
		setup_select(s, ch == KEY_UP ? -1 : 1);
		break;
	case KEY_HOME:
		s->sel = 0;
		setup_select(s, 1);
		break;
	case KEY_END:
		s->sel = s->nlines - 1;
		break;
	case ' ':
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (!is_list(s))
			setup_value(t, s, 1);
		else if (ch == ' ')
			setup_toggle(t, s);
		else
			s->moving = !s->moving;
		break;
	case KEY_LEFT:
	case KEY_RIGHT:
		if (is_list(s))
			setup_move(t, s, ch == KEY_LEFT ? -1 : 1);
		else
			setup_value(t, s, ch == KEY_LEFT ? -1 : 1);
		break;
	}
	if (t->setup && !is_list(t->setup))
		t->setup->moving = false;
	return true;
}

void tui_setup_close(struct tui *t)
{
	struct setup *s = t->setup;
	const struct tui_driver *d = t->ctx->driver;
	char msg[600] = "";

	if (!s)
		return;
	t->setup = NULL;
	if (s->changed & (SET_CH_PANES | SET_CH_SORT))
		tui_panes_rebuild(t);
	if (s->changed && d && d->save)
		d->save(d->ctx, t->delay_s, &t->opts, s->changed, msg, sizeof(msg));
	else if (s->changed)
		snprintf(msg, sizeof(msg),
			 "settings changed for this view only: a replay saves none");
	/* live notes are stamped now, a replay's with the time it shows */
	if (msg[0])
		store_note(t->v.store, t->src.recorded ? 0 : util_now_ns(CLOCK_MONOTONIC), msg);
	free(s);
}

/* The text of line l, value lines with the value at x 24. */
static void line_text(const struct tui *t, const struct setup *s, const struct setup_line *l,
		      char *buf, size_t n)
{
	const struct asys_settings *u = &t->opts.ui;
	int i;

	switch (l->kind) {
	case LN_HEAD:
		snprintf(buf, n, "%s", l->head);
		break;
	case LN_PANE:
		i = s->pane_order[l->k];
		snprintf(buf, n, "  [%c] %-12s %s", s->pane_shown[i] ? 'x' : ' ',
			 pane_registry[i]->title, pane_name(i));
		break;
	case LN_COL:
		i = s->col_order[l->k];
		snprintf(buf, n, "  [%c] %s%s", s->col_shown[i] ? 'x' : ' ', proc_col_title(i),
			 l->k == s->ncols - 1 ? "  (always shown, last)" : "");
		break;
	case LN_DELAY:
		snprintf(buf, n, "  %-22s%g s", "Refresh interval", t->delay_s);
		break;
	case LN_UNITS:
		snprintf(buf, n, "  %-22s%s", "Rates in", u->bytes ? "B/s" : "bit/s");
		break;
	case LN_THEME:
		/* --no-color, NO_COLOR or the terminal may refuse colour */
		snprintf(
		    buf, n, "  %-22s%s%s", "Colour theme",
		    settings_themes[u->theme >= 0 && u->theme < SET_THEME_COUNT ? u->theme : 0],
		    u->theme != SET_THEME_MONO && !t->v.color ? "  (no colour here now)" : "");
		break;
	case LN_SORT:
		snprintf(buf, n, "  %-22s%s", "Default sort",
			 u->sort[0] ? u->sort : proc_col_default_sort());
		break;
	case LN_ORDER:
		snprintf(buf, n, "  %-22s%s", "Sort order",
			 u->sort_asc ? "ascending" : "descending");
		break;
	}
}

/* The first line shown keeps the selection on the page of rows lines. */
static void setup_scroll(struct setup *s, int rows)
{
	if (rows < 1)
		rows = 1;
	if (s->sel < s->top)
		s->top = s->sel;
	if (s->sel >= s->top + rows)
		s->top = s->sel - rows + 1;
	/* the heading above the first item too, when it fits */
	if (s->top > 0 && s->top == s->sel && s->lines[s->top - 1].kind == LN_HEAD)
		s->top--;
	if (s->top < 0)
		s->top = 0;
}

void tui_setup_draw(struct tui *t, WINDOW *w)
{
	struct setup *s = t->setup;
	const struct tui_driver *d = t->ctx->driver;
	int rows = getmaxy(w), cols = getmaxx(w), page = rows - 4;
	char text[256];

	werase(w);
	if (!s)
		return;
	widget_attr_on(w, &t->v, TC_TITLE);
	widget_text(w, 0, 1, cols - 2, "Setup", false);
	widget_attr_off(w, &t->v, TC_TITLE);
	widget_attr_on(w, &t->v, TC_DIM);
	widget_text(w, 1, 1, cols - 2,
		    d && d->save ? "Changes apply now and are saved on leaving (asysrc(5))"
				 : "A replay saves no settings: changes last while it runs",
		    false);
	widget_attr_off(w, &t->v, TC_DIM);
	setup_scroll(s, page);
	for (int k = 0; k < page && s->top + k < s->nlines; k++) {
		int i = s->top + k;
		const struct setup_line *l = &s->lines[i];
		bool sel = i == s->sel;

		line_text(t, s, l, text, sizeof(text));
		if (sel && s->moving)
			util_strlcpy(text + strlen(text), "  <moving: Up/Down, Enter drops>",
				     sizeof(text) - strlen(text));
		if (l->kind == LN_HEAD)
			widget_attr_on(w, &t->v, TC_TITLE);
		if (sel)
			widget_attr_on(w, &t->v, TC_SELECT);
		widget_text(w, 3 + k, 1, cols - 2, text, false);
		if (sel)
			widget_attr_off(w, &t->v, TC_SELECT);
		if (l->kind == LN_HEAD)
			widget_attr_off(w, &t->v, TC_TITLE);
	}
	widget_attr_on(w, &t->v, TC_DIM);
	widget_text(w, rows - 1, 1, cols - 2,
		    is_list(s)
			? "Up/Down select  Space show/hide  Enter or Left/Right move  Esc leave"
			: "Up/Down select  Left/Right or Enter change  Esc/F2/F10 leave",
		    false);
	widget_attr_off(w, &t->v, TC_DIM);
}
