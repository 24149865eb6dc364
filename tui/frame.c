/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <curses.h>

#include "layout.h"
#include "store.h"
#include "setup.h"
#include "tui_int.h"
#include "util.h"
#include "widget.h"

struct glyphs {
	const char *tl, *tr, *bl, *br, *h, *v;
};

static const struct glyphs box_utf8 = {"\u256d", "\u256e", "\u2570", "\u256f", "\u2500", "\u2502"};
static const struct glyphs box_ascii = {"+", "+", "+", "+", "-", "|"};

/* Appends what fits: the header is built piece by piece. */
static void append(char *buf, size_t n, const char *s)
{
	size_t len = strlen(buf);

	if (len < n)
		util_strlcpy(buf + len, s, n - len);
}

/* The header's left part, richest first: a narrow screen drops the kernel,
 * then the uptime (live) or the recorded date (replay), so that the driver's
 * status keeps its room. */
static void header_left(struct tui *t, int level, char *buf, size_t n)
{
	const struct tui_driver *d = t->ctx->driver;
	const char *name = d && d->name ? d->name : "asys top";
	char when[64] = "";

	snprintf(buf, n, " %s  %s", name, t->src.host);
	if (level == 0) {
		append(buf, n, "  ");
		append(buf, n, t->src.kernel);
	}
	if (t->src.recorded) {
		/* the time of day is the driver's (REPLAY ... 14:03:10 / ...) */
		if (level <= 1 && t->v.end_ns) {
			tui_fmt_time(t, t->v.end_ns, when, sizeof(when), true);
			when[10] = '\0';
			append(buf, n, "  recorded ");
			append(buf, n, when);
		}
		return;
	}
	{
		struct timespec up;
		time_t now = time(NULL);
		struct tm tm;

		if (level <= 1 && clock_gettime(CLOCK_BOOTTIME, &up) == 0) {
			long s = (long)up.tv_sec;

			snprintf(when, sizeof(when), "  up %ldd %02ld:%02ld", s / 86400,
				 s / 3600 % 24, s / 60 % 60);
			append(buf, n, when);
		}
		localtime_r(&now, &tm);
		strftime(when, sizeof(when), "  %H:%M:%S", &tm);
		append(buf, n, when);
	}
}

/* The left part and the driver's status that fit cols together: the
 * whole status with the left part at its richest that fits, else the
 * driver's short status, else what is left is cut. */
static void header_fit(struct tui *t, int cols, const char *eng, char *left, size_t ln, char *drv,
		       size_t dn)
{
	const struct tui_driver *d = t->ctx->driver;
	int fixed = 3 + (*eng ? widget_text_width(eng) + 2 : 0) + (t->paused ? 8 : 0);

	drv[0] = '\0';
	if (d && d->status)
		d->status(d->ctx, drv, dn);
	for (int pass = 0; pass < 2; pass++) {
		for (int level = 0; level < 3; level++) {
			header_left(t, level, left, ln);
			if (widget_text_width(left) + fixed + widget_text_width(drv) <= cols)
				return;
		}
		if (pass || !d || !d->status_short)
			return;
		d->status_short(d->ctx, drv, dn);
	}
}

static void draw_header(struct tui *t, WINDOW *w)
{
	const struct tui_driver *d = t->ctx->driver;
	char left[256], eng[512], drv[256];
	bool short_of = false;
	int x, cols = getmaxx(w);

	eng[0] = '\0';
	if (d && d->sampling)
		short_of = d->sampling(d->ctx, eng, sizeof(eng));
	header_fit(t, cols, eng, left, sizeof(left), drv, sizeof(drv));

	mvwhline(w, 0, 0, ' ', cols);
	widget_attr_on(w, &t->v, TC_TITLE);
	widget_text(w, 0, 0, cols, left, false);
	widget_attr_off(w, &t->v, TC_TITLE);
	x = widget_text_width(left) + 3;
	if (*eng && x < cols) {
		widget_attr_on(w, &t->v, short_of ? TC_WARN : TC_DEFAULT);
		widget_text(w, 0, x, cols - x, eng, false);
		widget_attr_off(w, &t->v, short_of ? TC_WARN : TC_DEFAULT);
		x += widget_text_width(eng) + 2;
	}
	if (t->paused && x < cols) {
		widget_attr_on(w, &t->v, TC_WARN);
		widget_text(w, 0, x, cols - x, "PAUSED", false);
		widget_attr_off(w, &t->v, TC_WARN);
		x += 8;
	}
	if (*drv && x < cols) {
		widget_text(w, 0, x, cols - x, drv, false);
		x += widget_text_width(drv) + 1;
	}
	if (d && d->progress) {
		double p = d->progress(d->ctx);

		if (!isnan(p) && x + 4 < cols) {
			enum tui_color c = TC_ACCENT;
			int width = cols - x - 1 < 30 ? cols - x - 1 : 30;

			widget_bar(w, &t->v, 0, x, width, &p, &c, 1);
		}
	}
}

struct hint {
	const char *key, *what;
	unsigned need; /* enum pane_keys: shown only when one applies */
	bool always;   /* kept even when the line is short */
};

/* The screen's own keys; the driver's come after F1 and replace those of
 * the same key (replay's space pauses the player). */
static const struct hint hints_head[] = {{"F1", "help", 0, true}};
static const struct hint hints_tail[] = {
    {"Tab", "pane", 0, false},
    {"</>", "sort", PANE_KEY_SORT, false},
    {"/", "filter", PANE_KEY_PROC, false},
    {"t", "tree", PANE_KEY_PROC, false},
    {"k", "kill", PANE_KEY_PROC_LIVE, false},
    {"space", "pause", 0, false},
    {"u", "units", PANE_KEY_UNITS, false},
    {"o/s", "overlay/stacked", PANE_KEY_OVERLAY, false},
    {"L", "messages", 0, false},
    {"F2", "setup", 0, false}, /* last: where there is room */
    {"q", "quit", 0, true},
};

static int hint_width(const struct hint *h)
{
	return 1 + widget_text_width(h->key) + 1 + widget_text_width(h->what) + 1;
}

/* The hints that apply, in order: the screen's first, the driver's, then
 * the rest of the screen's. Sort is the focused pane's; units and overlay
 * work from any pane, so they show while a pane they act on is shown. */
static int hints_list(const struct tui *t, struct hint *out, int max)
{
	const struct tui_driver *d = t->ctx->driver;
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(hints_head) && n < max; i++)
		out[n++] = hints_head[i];
	for (int i = 0; d && d->keys && d->keys[i].key && n < max; i++)
		out[n++] = (struct hint){d->keys[i].key, d->keys[i].what, 0, false};
	for (size_t i = 0; i < ARRAY_SIZE(hints_tail) && n < max; i++) {
		const struct hint *h = &hints_tail[i];
		unsigned have = h->need & PANE_KEYS_FOCUSED ? t->keys_focus : t->keys_any;
		bool dup = false;

		for (int k = 0; d && d->keys && d->keys[k].key; k++)
			dup |= !strcmp(d->keys[k].key, h->key);
		if (!dup && (!h->need || (have & h->need)))
			out[n++] = *h;
	}
	return n;
}

/* The bottom line: as many key hints as fit, those marked always kept. */
static void draw_bottom(struct tui *t, WINDOW *w)
{
	struct hint hs[32];
	int n = hints_list(t, hs, 32);
	int cols = getmaxx(w), x = 0, must = 0;

	mvwhline(w, 0, 0, ' ', cols);
	for (int i = 0; i < n; i++)
		if (hs[i].always)
			must += hint_width(&hs[i]);
	for (int i = 0; i < n; i++) {
		const struct hint *h = &hs[i];
		int need = hint_width(h);

		if (!h->always && need > cols - x - must)
			continue;
		if (need > cols - x)
			break;
		widget_attr_on(w, &t->v, TC_SELECT);
		widget_text(w, 0, x + 1, cols - x - 1, h->key, false);
		widget_attr_off(w, &t->v, TC_SELECT);
		widget_text(w, 0, x + 2 + widget_text_width(h->key),
			    cols - x - 2 - widget_text_width(h->key), h->what, false);
		x += need;
		if (h->always)
			must -= need;
	}
}

/* Box with "N Title extra" in the top border and the footer right-aligned in
 * the bottom one. */
static void draw_box(struct tui *t, WINDOW *w, struct pane *p, const char *extra,
		     const char *footer)
{
	const struct glyphs *g = t->v.utf8 ? &box_utf8 : &box_ascii;
	enum tui_color bc = p->focused ? TC_ACCENT : TC_DIM;
	int rows = getmaxy(w), cols = getmaxx(w);
	char name[96];
	int x;

	widget_attr_on(w, &t->v, bc);
	if (p->focused)
		wattr_on(w, A_BOLD, NULL);
	widget_run(w, g->tl, 0, 0, 1, true);
	widget_run(w, g->h, 0, 1, cols - 2, true);
	widget_run(w, g->tr, 0, cols - 1, 1, true);
	widget_run(w, g->v, 1, 0, rows - 2, false);
	widget_run(w, g->v, 1, cols - 1, rows - 2, false);
	widget_run(w, g->bl, rows - 1, 0, 1, true);
	widget_run(w, g->h, rows - 1, 1, cols - 2, true);
	widget_run(w, g->br, rows - 1, cols - 1, 1, true);
	if (p->focused)
		wattr_off(w, A_BOLD, NULL);
	widget_attr_off(w, &t->v, bc);

	x = 1;
	if (p->cls->hotkey) {
		char hk[2] = {p->cls->hotkey, '\0'};

		widget_attr_on(w, &t->v, TC_WARN);
		widget_text(w, 0, x, cols - 2 - x, hk, false);
		widget_attr_off(w, &t->v, TC_WARN);
		x++;
	}
	snprintf(name, sizeof(name), " %s", p->cls->title);
	widget_attr_on(w, &t->v, TC_TITLE);
	if (p->focused)
		wattr_on(w, A_REVERSE, NULL);
	widget_text(w, 0, x, cols - 2 - x, name, false);
	if (p->focused)
		wattr_off(w, A_REVERSE, NULL);
	widget_attr_off(w, &t->v, TC_TITLE);
	x += widget_text_width(name);
	if (extra && *extra && x + 2 < cols - 2) {
		char buf[512];

		snprintf(buf, sizeof(buf), "  %s ", extra);
		widget_text(w, 0, x, cols - 2 - x, buf, false);
	}
	if (footer && *footer) {
		char buf[512];

		snprintf(buf, sizeof(buf), " %s ", footer);
		widget_attr_on(w, &t->v, TC_DIM);
		widget_text(w, rows - 1, 2, cols - 4, buf, true);
		widget_attr_off(w, &t->v, TC_DIM);
	}
}

/* The whole screen when it is too small for the panes: the size it needs,
 * on two lines where one does not hold it. */
static void draw_too_small(struct tui *t)
{
	WINDOW *w = derwin(stdscr, LINES, COLS, 0, 0);
	char need[64], have[64], msg[160];
	int rows, cols, y;

	if (!w)
		return;
	werase(w);
	rows = getmaxy(w);
	cols = getmaxx(w);
	snprintf(need, sizeof(need), "asys top needs at least %dx%d;", TUI_MIN_COLS, TUI_MIN_ROWS);
	snprintf(have, sizeof(have), "this terminal is %dx%d.", COLS, LINES);
	snprintf(msg, sizeof(msg), "%s %s", need, have);
	y = rows / 2 - 1 > 0 ? rows / 2 - 1 : 0;
	widget_attr_on(w, &t->v, TC_WARN);
	if ((int)strlen(msg) <= cols || rows < 3) {
		widget_text(w, y, 0, cols, msg, false);
	} else {
		widget_text(w, y - (y > 0), 0, cols, need, false);
		widget_text(w, y + (y == 0), 0, cols, have, false);
		y += y == 0;
	}
	widget_attr_off(w, &t->v, TC_WARN);
	if (y + 1 < rows)
		widget_text(w, y + 1, 0, cols, "Enlarge the window, or press q to quit.", false);
	wnoutrefresh(w);
	delwin(w);
}

_Static_assert(TUI_MAX_PANES <= LAYOUT_MAX_PANES, "layout_place takes every pane");

/* Where each pane's box goes (box[i].rows == 0: not shown). The bands come
 * first, as a pane's rows depend on its width. */
static void pane_boxes(struct tui *t, int avail, struct layout_box *box)
{
	struct layout_req req[TUI_MAX_PANES];
	struct layout_box lb[TUI_MAX_PANES];
	const char *names[TUI_MAX_PANES];
	int idx[TUI_MAX_PANES], n = 0;

	for (int i = 0; i < t->npanes; i++) {
		box[i] = (struct layout_box){0};
		t->panes[i].focused = i == t->focus;
		if (!tui_pane_visible(t, i))
			continue;
		names[n] = t->panes[i].cls->name;
		idx[n++] = i;
	}
	layout_bands(names, n, COLS, lb);
	for (int k = 0; k < n; k++) {
		struct pane *p = &t->panes[idx[k]];
		int cols = lb[k].cols - 2;

		req[k].min = p->cls->min_rows ? p->cls->min_rows(p, &t->v, cols) : 1;
		req[k].want = p->cls->want_rows ? p->cls->want_rows(p, &t->v, cols) : req[k].min;
		req[k].focused = idx[k] == t->focus;
		req[k].idle = p->cls->idle && p->cls->idle(p, &t->v);
	}
	layout_place(req, n, avail, lb);
	for (int k = 0; k < n; k++)
		box[idx[k]] = lb[k];
}

/* The focused pane may have gone (its source vanished): move on to the next. */
static void focus_keep_visible(struct tui *t)
{
	if (!t->npanes || tui_pane_visible(t, t->focus))
		return;
	for (int k = 1; k < t->npanes; k++) {
		int i = (t->focus + k) % t->npanes;

		if (tui_pane_visible(t, i)) {
			t->focus = i;
			break;
		}
	}
}

/* One pane in its box b; the focused one gives the frame its status and keys. */
static void draw_pane(struct tui *t, int i, const struct layout_box *b)
{
	char extra[256] = "", footer[256] = "";
	struct pane *p = &t->panes[i];
	WINDOW *box, *inner;
	unsigned keys;

	box = tui_pane_win(t, i, b->rows, b->cols, 1 + b->y, b->x, &inner);
	if (!box)
		return;
	p->rows = b->rows - 2;
	p->cols = b->cols - 2;
	t->v.status[0] = '\0';
	t->v.status_shown = false;
	if (p->cls->title_extra)
		p->cls->title_extra(p, &t->v, extra, sizeof(extra));
	if (inner && p->cls->draw)
		p->cls->draw(p, inner, &t->v);
	if (p->cls->footer)
		p->cls->footer(p, &t->v, footer, sizeof(footer));
	keys = p->cls->keys ? p->cls->keys(p, &t->v) : 0;
	t->keys_any |= keys;
	if (p->focused) {
		util_strlcpy(t->status, t->v.status, sizeof(t->status));
		t->status_shown = t->v.status_shown;
		t->keys_focus = keys;
	}
	draw_box(t, box, p, extra, footer);
	touchwin(box);
	wnoutrefresh(box);
}

/* The panes in rows 1 .. avail; sets the focused pane's status and the
 * keys that apply. */
static void draw_panes(struct tui *t, int avail)
{
	struct layout_box boxes[TUI_MAX_PANES];
	long covered = 0;

	focus_keep_visible(t);
	pane_boxes(t, avail, boxes);
	for (int i = 0; i < t->npanes; i++)
		covered += (long)boxes[i].rows * boxes[i].cols;
	/* cells no pane takes are blank, not left over from the last frame; the
	 * layout tiles without overlap, so when the boxes' cells add up to the
	 * whole area there are none, and no screen-wide window is copied */
	if (covered < (long)avail * COLS) {
		WINDOW *bg = derwin(stdscr, avail, COLS, 1, 0);

		if (bg) {
			werase(bg);
			wnoutrefresh(bg);
			delwin(bg);
		}
	}
	t->status[0] = '\0';
	t->status_shown = false;
	t->keys_focus = t->keys_any = 0;
	for (int i = 0; i < t->npanes; i++) {
		t->shown[i] = boxes[i].rows > 0;
		t->panes[i].focused = i == t->focus;
		if (boxes[i].rows)
			draw_pane(t, i, &boxes[i]);
	}
}

/* The panes above the message lines, which take what their messages need:
 * the focused pane's status is known once it is drawn, so when that
 * changes the line count the panes are drawn again (nothing is on the
 * terminal before doupdate). A pane given other rows may say another
 * thing: while its status needs more lines than it has, the panes give
 * them up and are drawn once more. The count then only grows, and the
 * message lines are at most a quarter of the screen, so this ends, and no
 * status is cut for want of the lines it needed. */
static void draw_body(struct tui *t)
{
	int avail = LINES - 2, rows = tui_messages_rows(t, t->status, t->status_shown), again;

	draw_panes(t, avail - rows);
	again = tui_messages_rows(t, t->status, t->status_shown);
	if (again != rows) {
		rows = again;
		draw_panes(t, avail - rows);
		while ((again = tui_messages_rows(t, t->status, t->status_shown)) > rows) {
			rows = again;
			draw_panes(t, avail - rows);
		}
	}
	tui_messages_draw(t, LINES - 1 - rows, rows);
}

/* The driver's workload line and notes of this frame; those that changed
 * go to the message log. Called without the store's lock. */
static void driver_messages(struct tui *t)
{
	const struct tui_driver *d = t->ctx->driver;
	char wl[sizeof(t->workload)] = "", notes[sizeof(t->notes)] = "";
	/* live notes are stamped now, a replay's with the time it shows */
	uint64_t ts = t->src.recorded ? 0 : util_now_ns(CLOCK_MONOTONIC);

	if (d && d->workload && !d->workload(d->ctx, wl, sizeof(wl)))
		wl[0] = '\0';
	if (d && d->notes)
		d->notes(d->ctx, notes, sizeof(notes));
	if (strcmp(wl, t->workload))
		store_note(t->v.store, ts, wl);
	if (strcmp(notes, t->notes)) {
		char *save = NULL, copy[sizeof(notes)];

		util_strlcpy(copy, notes, sizeof(copy));
		/* the lines that are new: one that stays is said once */
		for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			if (!strstr(t->notes, l))
				store_note(t->v.store, ts, l);
	}
	util_strlcpy(t->workload, wl, sizeof(t->workload));
	util_strlcpy(t->notes, notes, sizeof(t->notes));
}

/* Unless paused, the view ends at the newest sample and spans at least one
 * of the store's buckets. Called with the store's lock. */
static void view_follow(struct tui *t)
{
	uint64_t latest, bucket;

	if (t->paused)
		return;
	latest = store_latest_ns(t->v.store);
	bucket = store_bucket_ns(t->v.store);
	if (latest)
		t->v.end_ns = latest;
	if (bucket > t->v.window_ns)
		t->v.window_ns = bucket;
}

/* The help screen or the message log, in place of the panes. */
static void draw_full_body(struct tui *t)
{
	WINDOW *body = tui_win_keep(&t->win.body, LINES - 2, COLS, 1, 0);

	if (!body)
		return;
	if (t->setup)
		tui_setup_draw(t, body);
	else if (t->log)
		tui_log_draw(t, body);
	else
		tui_help_draw(t, body);
	wnoutrefresh(body);
}

/* Another store to draw (a replay switched host): the panes start afresh
 * on it, as they started on the first. */
static void frame_data(struct tui *t, const struct tui_driver *d)
{
	struct store *s = t->v.store;
	const struct stream_table *st = t->v.streams;

	d->data(d->ctx, &s, &st);
	if (!s || !st || (s == t->v.store && st == t->v.streams))
		return;
	t->v.store = s;
	t->v.streams = st;
	tui_panes_rebuild(t);
}

void tui_frame(struct tui *t)
{
	WINDOW *head, *bottom;
	const struct tui_driver *d = t->ctx->driver;

	/* stdscr holds the frame's cells but is not refreshed with them: keys
	 * are read from it, and wgetch repaints a window marked changed (a
	 * resize marks it), so the mark goes before the frame draws */
	if (is_wintouched(stdscr))
		wnoutrefresh(stdscr);
	if (LINES < TUI_MIN_ROWS || COLS < TUI_MIN_COLS) {
		draw_too_small(t);
		doupdate();
		return;
	}
	head = tui_win_keep(&t->win.head, 1, COLS, 0, 0);
	bottom = tui_win_keep(&t->win.bottom, 1, COLS, LINES - 1, 0);
	if (!head || !bottom)
		return;

	if (d && d->data)
		frame_data(t, d);
	if (d && d->source)
		d->source(d->ctx, &t->src);
	t->v.recorded = t->src.recorded;
	driver_messages(t);
	store_lock(t->v.store);
	view_follow(t);
	if (t->help || t->log || t->setup)
		draw_full_body(t);
	else
		draw_body(t);
	store_unlock(t->v.store);

	draw_header(t, head);
	draw_bottom(t, bottom);
	wnoutrefresh(head);
	wnoutrefresh(bottom);
	doupdate();
	t->frames++;
}
