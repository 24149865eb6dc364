#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <curses.h>

#include "layout.h"
#include "store.h"
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

static void draw_header(struct tui *t, WINDOW *w)
{
	const struct tui_driver *d = t->ctx->driver;
	char left[256], eng[512], drv[256] = "";
	struct timespec up;
	time_t now = time(NULL);
	struct tm tm;
	char clock[16];
	bool short_of = false;
	int x, cols = getmaxx(w);

	localtime_r(&now, &tm);
	strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	if (clock_gettime(CLOCK_BOOTTIME, &up) == 0) {
		long s = (long)up.tv_sec;

		snprintf(left, sizeof(left), " asys top  %s  %s  up %ldd %02ld:%02ld  %s", t->host,
			 t->kernel, s / 86400, s / 3600 % 24, s / 60 % 60, clock);
	} else {
		snprintf(left, sizeof(left), " asys top  %s  %s  %s", t->host, t->kernel, clock);
	}
	eng[0] = '\0';
	if (d && d->sampling)
		short_of = d->sampling(d->ctx, eng, sizeof(eng));
	if (d && d->status)
		d->status(d->ctx, drv, sizeof(drv));

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
	bool always; /* kept even when the line is short */
};

static const struct hint hints[] = {
    {"F1", "help", true},      {"Tab", "pane", false}, {"</>", "sort", false},
    {"space", "pause", false}, {"u", "units", false},  {"o/s", "overlay/stacked", false},
    {"q", "quit", true},
};

static int hint_width(const struct hint *h)
{
	return 1 + widget_text_width(h->key) + 1 + widget_text_width(h->what) + 1;
}

/* The bottom line: the workload's fate and the focused pane's status on the
 * left, clipped so that at least "F1 help q quit" stays, then as many key
 * hints as fit, then the driver's own. */
static void draw_bottom(struct tui *t, WINDOW *w)
{
	const struct tui_driver *d = t->ctx->driver;
	char wl[256] = "", left[600] = "";
	int cols = getmaxx(w), x = 0, must = 0, room;

	mvwhline(w, 0, 0, ' ', cols);
	for (size_t i = 0; i < ARRAY_SIZE(hints); i++)
		if (hints[i].always)
			must += hint_width(&hints[i]);
	if (d && d->workload && d->workload(d->ctx, wl, sizeof(wl)) && *wl)
		snprintf(left, sizeof(left), " %s", wl);
	if (*t->status) {
		append(left, sizeof(left), " ");
		append(left, sizeof(left), t->status);
	}
	if (*left) {
		int lw = cols - must - 1;

		widget_attr_on(w, &t->v, TC_WARN);
		widget_text(w, 0, 0, lw, left, false);
		widget_attr_off(w, &t->v, TC_WARN);
		x = widget_text_width(left);
		x = (x < lw ? x : lw) + 1;
	}
	room = cols - x;
	for (size_t i = 0; i < ARRAY_SIZE(hints); i++) {
		const struct hint *h = &hints[i];
		int need = hint_width(h);

		if (!h->always && need > room - must)
			continue;
		if (need > cols - x)
			break;
		widget_attr_on(w, &t->v, TC_SELECT);
		widget_text(w, 0, x + 1, cols - x - 1, h->key, false);
		widget_attr_off(w, &t->v, TC_SELECT);
		widget_text(w, 0, x + 2 + widget_text_width(h->key),
			    cols - x - 2 - widget_text_width(h->key), h->what, false);
		x += need;
		room -= need;
		if (h->always)
			must -= need;
	}
	if (d && d->hint && *d->hint && x + 2 < cols)
		widget_text(w, 0, x + 1, cols - x - 1, d->hint, false);
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
	mvwaddstr(w, 0, 0, g->tl);
	for (int i = 1; i < cols - 1; i++) {
		mvwaddstr(w, 0, i, g->h);
		mvwaddstr(w, rows - 1, i, g->h);
	}
	mvwaddstr(w, 0, cols - 1, g->tr);
	mvwaddstr(w, rows - 1, 0, g->bl);
	mvwaddstr(w, rows - 1, cols - 1, g->br);
	for (int y = 1; y < rows - 1; y++) {
		mvwaddstr(w, y, 0, g->v);
		mvwaddstr(w, y, cols - 1, g->v);
	}
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

static const char *const global_help[] = {
    "q, F10        quit",
    "h, ?, F1      this help; any key closes it",
    "Tab, S-Tab    focus the next / previous pane",
    "1 .. 9        focus the pane with that number",
    "Up, Down      move the selection in the focused pane",
    "PgUp, PgDn    scroll the focused pane by a page",
    "Home, End     go to the first / last row",
    "<, >          sort by the previous / next column",
    "I             invert the sort order",
    "space         pause the view (sampling goes on)",
    "u             rates in bit/s or B/s",
    "o, s          PPU metric groups overlaid / stacked",
    "Ctrl-L        redraw the screen",
    NULL,
};

/* One help line at row y (or only counted when w is NULL). */
static void help_line(WINDOW *w, const struct tui *t, int *n, const char *s, bool title)
{
	int y = *n - t->help_top + 2;

	if (w && y >= 2 && y < getmaxy(w)) {
		if (title)
			widget_attr_on(w, &t->v, TC_TITLE);
		widget_text(w, y, title ? 1 : 3, getmaxx(w) - 4, s, false);
		if (title)
			widget_attr_off(w, &t->v, TC_TITLE);
	}
	(*n)++;
}

static void draw_help(struct tui *t, WINDOW *w)
{
	const struct tui_driver *d = t->ctx->driver;
	int n = 0;

	widget_attr_on(w, &t->v, TC_TITLE);
	widget_text(w, 0, 1, getmaxx(w) - 2,
		    "asys top help  (any key closes it; Up/Down/PgUp/PgDn scroll)", false);
	widget_attr_off(w, &t->v, TC_TITLE);
	help_line(w, t, &n, "Keys", true);
	for (int i = 0; global_help[i]; i++)
		help_line(w, t, &n, global_help[i], false);
	if (d && d->hint && *d->hint) {
		help_line(w, t, &n, "", false);
		help_line(w, t, &n, d->hint_title ? d->hint_title : "", true);
		help_line(w, t, &n, d->hint, false);
	}
	for (int i = 0; i < t->npanes; i++) {
		const struct pane_class *c = t->panes[i].cls;
		char title[96];

		if (!c->help || !c->help[0])
			continue;
		help_line(w, t, &n, "", false);
		snprintf(title, sizeof(title), "%c %s pane", c->hotkey ? c->hotkey : ' ', c->title);
		help_line(w, t, &n, title, true);
		for (int k = 0; c->help[k]; k++)
			help_line(w, t, &n, c->help[k], false);
	}
	t->help_lines = n;
}

static void draw_too_small(struct tui *t, WINDOW *w)
{
	char msg[160];
	int rows = getmaxy(w), cols = getmaxx(w);

	snprintf(msg, sizeof(msg), "asys top needs at least %dx%d; this terminal is %dx%d.",
		 TUI_MIN_COLS, TUI_MIN_ROWS, COLS, LINES);
	widget_attr_on(w, &t->v, TC_WARN);
	widget_text(w, rows / 2 - 1 > 0 ? rows / 2 - 1 : 0, 0, cols, msg, false);
	widget_attr_off(w, &t->v, TC_WARN);
	if (rows > 1)
		widget_text(w, rows / 2 > 0 ? rows / 2 : 1, 0, cols,
			    "Enlarge the window, or press q to quit.", false);
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
	}
	layout_place(req, n, avail, lb);
	for (int k = 0; k < n; k++)
		box[idx[k]] = lb[k];
}

static void draw_panes(struct tui *t)
{
	struct layout_box boxes[TUI_MAX_PANES];
	WINDOW *bg = newwin(LINES - 2, COLS, 1, 0);

	/* rows no pane takes are blank, not left over from the last frame */
	if (bg) {
		wnoutrefresh(bg);
		delwin(bg);
	}

	/* the focused pane may have gone (its source vanished): move on */
	if (t->npanes && !tui_pane_visible(t, t->focus)) {
		for (int k = 1; k < t->npanes; k++) {
			int i = (t->focus + k) % t->npanes;

			if (tui_pane_visible(t, i)) {
				t->focus = i;
				break;
			}
		}
	}
	pane_boxes(t, LINES - 2, boxes);
	t->status[0] = '\0';
	for (int i = 0; i < t->npanes; i++) {
		struct pane *p = &t->panes[i];
		const struct layout_box *b = &boxes[i];
		char extra[256] = "", footer[256] = "";
		WINDOW *box, *inner;

		t->shown[i] = b->rows > 0;
		p->focused = i == t->focus;
		if (!b->rows)
			continue;
		box = newwin(b->rows, b->cols, 1 + b->y, b->x);
		if (!box)
			continue;
		inner = derwin(box, b->rows - 2, b->cols - 2, 1, 1);
		p->rows = b->rows - 2;
		p->cols = b->cols - 2;
		t->v.status[0] = '\0';
		if (p->cls->title_extra)
			p->cls->title_extra(p, &t->v, extra, sizeof(extra));
		if (inner && p->cls->draw)
			p->cls->draw(p, inner, &t->v);
		if (p->cls->footer)
			p->cls->footer(p, &t->v, footer, sizeof(footer));
		if (p->focused)
			util_strlcpy(t->status, t->v.status, sizeof(t->status));
		draw_box(t, box, p, extra, footer);
		touchwin(box);
		wnoutrefresh(box);
		if (inner)
			delwin(inner);
		delwin(box);
	}
}

void tui_frame(struct tui *t)
{
	WINDOW *head = NULL, *bottom = NULL, *body = NULL;

	/* stdscr is only read from; keep it from repainting over the frame */
	if (is_wintouched(stdscr))
		wnoutrefresh(stdscr);
	if (LINES < TUI_MIN_ROWS || COLS < TUI_MIN_COLS) {
		body = newwin(LINES, COLS, 0, 0);
		if (body) {
			draw_too_small(t, body);
			wnoutrefresh(body);
			delwin(body);
		}
		doupdate();
		return;
	}
	head = newwin(1, COLS, 0, 0);
	bottom = newwin(1, COLS, LINES - 1, 0);
	if (!head || !bottom)
		goto out;

	store_lock(t->v.store);
	if (!t->paused) {
		uint64_t latest = store_latest_ns(t->v.store);
		uint64_t bucket = store_bucket_ns(t->v.store);

		if (latest)
			t->v.end_ns = latest;
		if (bucket > t->v.window_ns)
			t->v.window_ns = bucket;
	}
	if (t->help) {
		body = newwin(LINES - 2, COLS, 1, 0);
		if (body) {
			draw_help(t, body);
			wnoutrefresh(body);
		}
	} else {
		draw_panes(t);
	}
	store_unlock(t->v.store);

	draw_header(t, head);
	draw_bottom(t, bottom);
	wnoutrefresh(head);
	wnoutrefresh(bottom);
	doupdate();
	t->frames++;
out:
	if (body)
		delwin(body);
	if (head)
		delwin(head);
	if (bottom)
		delwin(bottom);
}
