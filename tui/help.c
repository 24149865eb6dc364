/* SPDX-License-Identifier: GPL-2.0-only */
/* The help screen (h, ?, F1): the keys that apply to the panes shown, the
 * driver's hint and each visible pane's own help, scrolled by its keys. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <curses.h>

#include "tui_int.h"
#include "util.h"
#include "widget.h"

struct help_entry {
	const char *text;
	unsigned need; /* enum pane_keys: listed only when a pane shown has one */
};

static const struct help_entry global_help[] = {
    {"q, F10        quit", 0},
    {"h, ?, F1      this help; any key closes it", 0},
    {"F2            setup: panes, columns, refresh, units, theme, sort (asysrc(5))", 0},
    {"L             the message log: every status in full, with its time", 0},
    {"Tab, S-Tab    focus the next / previous pane", 0},
    {NULL, 0}, /* the pane numbers: made from the panes */
    {"Up, Down      move the selection in the focused pane", PANE_KEY_SELECT},
    {"PgUp, PgDn    scroll the focused pane by a page", PANE_KEY_SELECT},
    {"Home, End     go to the first / last row", PANE_KEY_SELECT},
    {"<, >          sort by the previous / next column", PANE_KEY_SORT},
    {"I             invert the sort order", PANE_KEY_SORT},
    {"P, M, T       sort processes by CPU%, RSS, TIME+", PANE_KEY_PROC},
    {"/, F4         filter processes by command or user (Enter keeps, Esc clears)", PANE_KEY_PROC},
    {"F3, n, N      search: jump to the next / previous match", PANE_KEY_PROC},
    {"t, F5         process tree; + and - expand and collapse the selected branch", PANE_KEY_PROC},
    {"c             only the selected process and its children (again: all)", PANE_KEY_PROC},
    {"G             group processes by container or job, summed", PANE_KEY_PROC},
    {"F             follow the selected process as rows move", PANE_KEY_PROC},
    {"Enter         process details: command line, cgroup, PPUs, history", PANE_KEY_PROC},
    {"k, F9         send a signal (a list, then a confirmation)", PANE_KEY_PROC_LIVE},
    {"F7, F8        nice - / + (more or less CPU)", PANE_KEY_PROC_LIVE},
    {"e             the process's environment", PANE_KEY_PROC_LIVE},
    {"K             kernel threads shown / hidden", PANE_KEY_PROC_CPU},
    {"H             a row per thread", PANE_KEY_PROC_THREADS},
    {"space         pause the view (sampling goes on)", 0},
    {"u             rates in bit/s or B/s", PANE_KEY_UNITS},
    {"o, s          PPU metric groups overlaid / stacked", PANE_KEY_OVERLAY},
    {"Ctrl-L        redraw the screen", 0},
};

/* "1 .. 6        focus the pane with that number", from the hotkeys. */
static void help_numbers(const struct tui *t, char *buf, size_t n)
{
	char lo = 0, hi = 0;

	for (int i = 0; i < t->npanes; i++) {
		char k = t->panes[i].cls->hotkey;

		if (!k)
			continue;
		if (!lo || k < lo)
			lo = k;
		if (k > hi)
			hi = k;
	}
	if (lo && lo != hi)
		snprintf(buf, n, "%c .. %c        focus the pane with that number", lo, hi);
	else if (lo)
		snprintf(buf, n, "%c             focus the pane with that number", lo);
	else
		buf[0] = '\0';
}

/* The column where the description of "KEY<blanks>description" starts (the
 * lines of an entry wrapped to the width go under it), else 2. A key may
 * be a glyph of several bytes and one column. */
static int help_indent(const char *s)
{
	const char *gap = strstr(s, "  ");
	const char *desc = gap;
	int col = 0;

	while (desc && *desc == ' ')
		desc++;
	if (!gap || !*desc)
		return 2;
	for (const char *p = s; p < desc; p++)
		col += ((unsigned char)*p & 0xc0) != 0x80;
	return col <= 16 ? col : 2;
}

/* One help entry from the help's row n, wrapped to the width with its
 * further lines under its description, as many lines as it takes: none is
 * cut at the screen's edge. w is the help's body (the rows under its
 * title), NULL to count; rows above the window are not drawn, as curses
 * refuses them. */
static void help_line(WINDOW *w, const struct tui *t, int *n, const char *s, bool title)
{
	int x = title ? 1 : 3, cols = w ? getmaxx(w) : COLS, used;

	if (!*s) {
		(*n)++;
		return;
	}
	if (title && w)
		widget_attr_on(w, &t->v, TC_TITLE);
	used = widget_wrap(w, *n - t->help_top, x, cols - x - 1, 20, title ? 2 : help_indent(s), s);
	if (title && w)
		widget_attr_off(w, &t->v, TC_TITLE);
	*n += used > 0 ? used : 1;
}

/* The global keys, the driver's hint, then each visible pane's help; counts
 * its lines for scrolling. */
void tui_help_draw(struct tui *t, WINDOW *w)
{
	const struct tui_driver *d = t->ctx->driver;
	char nums[80], head[128];
	WINDOW *body = getmaxy(w) > 2 ? derwin(w, getmaxy(w) - 2, getmaxx(w), 2, 0) : NULL;
	int n = 0;

	snprintf(head, sizeof(head), "%s help  (any key closes it; Up/Down/PgUp/PgDn scroll)",
		 d && d->name ? d->name : "asys top");
	widget_attr_on(w, &t->v, TC_TITLE);
	widget_text(w, 0, 1, getmaxx(w) - 2, head, false);
	widget_attr_off(w, &t->v, TC_TITLE);
	help_line(body, t, &n, "Keys", true);
	help_numbers(t, nums, sizeof(nums));
	for (size_t i = 0; i < ARRAY_SIZE(global_help); i++) {
		const struct help_entry *e = &global_help[i];

		if (!e->need || (t->keys_any & e->need))
			help_line(body, t, &n, e->text ? e->text : nums, false);
	}
	if (d && d->hint && *d->hint) {
		help_line(body, t, &n, "", false);
		help_line(body, t, &n, d->hint_title ? d->hint_title : "", true);
		help_line(body, t, &n, d->hint, false);
	}
	for (int i = 0; i < t->npanes; i++) {
		const struct pane_class *c = t->panes[i].cls;
		char title[96];

		if (!c->help || !c->help[0] || !tui_pane_visible(t, i))
			continue;
		help_line(body, t, &n, "", false);
		snprintf(title, sizeof(title), "%c %s pane", c->hotkey ? c->hotkey : ' ', c->title);
		help_line(body, t, &n, title, true);
		for (int k = 0; c->help[k]; k++)
			help_line(body, t, &n, c->help[k], false);
	}
	t->help_lines = n;
	if (body)
		delwin(body);
}

/* Scrolls by line, page or to an end; any other key but F10 closes the help. */
bool tui_help_key(struct tui *t, int ch)
{
	int page = LINES - 4; /* the help body: below the header and its title */

	if (widget_scroll_key(&t->help_top, t->help_lines, page, ch, false))
		return true;
	if (ch == KEY_F(10))
		return false; /* quits */
	/* any other key closes the help screen, as in htop */
	t->help = false;
	return true;
}
