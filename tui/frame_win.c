/* SPDX-License-Identifier: GPL-2.0-only */
/* The windows a frame keeps from one frame to the next (struct tui_wins).
 * They are derived from stdscr and share its cells: a window of its own
 * would hold a copy of its part of the screen (28 bytes a cell with wide
 * characters), and the panes, the header and the message lines together
 * cover the whole screen, about 130 KiB at 120x40 for nothing. Each is
 * erased before it is drawn and copied to the screen once it is, so the
 * cells they share never mix; stdscr itself is never refreshed with them,
 * and they go before curses resizes it (tui.c). */
#include "config.h"

#include "tui_int.h"

/* Whether w is there, with that size at that place. */
static bool win_at(const WINDOW *w, int rows, int cols, int y, int x)
{
	return w && getmaxy(w) == rows && getmaxx(w) == cols && getbegy(w) == y && getbegx(w) == x;
}

WINDOW *tui_win_keep(WINDOW **kept, int rows, int cols, int y, int x)
{
	WINDOW *w = *kept;

	if (!win_at(w, rows, cols, y, x)) {
		if (w)
			delwin(w);
		/* over cells the last frame drew: blank only once erased */
		w = *kept = derwin(stdscr, rows, cols, y, x);
		if (!w)
			return NULL;
	}
	wattrset(w, A_NORMAL);
	werase(w);
	return w;
}

void tui_wins_free(struct tui *t)
{
	struct tui_wins *k = &t->win;
	WINDOW **all[] = {&k->head, &k->bottom, &k->msg, &k->body};

	for (int i = 0; i < TUI_MAX_PANES; i++) {
		if (k->inner[i])
			delwin(k->inner[i]);
		if (k->box[i])
			delwin(k->box[i]);
		k->inner[i] = k->box[i] = NULL;
	}
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (*all[i])
			delwin(*all[i]);
		*all[i] = NULL;
	}
}

WINDOW *tui_pane_win(struct tui *t, int i, int rows, int cols, int y, int x, WINDOW **inner)
{
	WINDOW **box = &t->win.box[i], **in = &t->win.inner[i];

	/* a window with a subwindow cannot be deleted: the inner one goes
	 * first when the box is made again */
	if (*in && !win_at(*box, rows, cols, y, x)) {
		delwin(*in);
		*in = NULL;
	}
	if (!tui_win_keep(box, rows, cols, y, x))
		return NULL;
	if (*in) {
		wattrset(*in, A_NORMAL);
		wmove(*in, 0, 0);
	} else {
		*in = derwin(*box, rows - 2, cols - 2, 1, 1);
	}
	*inner = *in;
	return *box;
}
