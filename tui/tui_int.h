/* SPDX-License-Identifier: GPL-2.0-only */
/* State shared by the TUI's main loop (tui.c) and its frame drawing
 * (frame.c). Not for panes: they see only pane.h and widget.h. */
#ifndef ASYS_TUI_INT_H
#define ASYS_TUI_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "pane.h"
#include "tui.h"

#define TUI_MIN_COLS 80
#define TUI_MIN_ROWS 24
#define TUI_MAX_PANES 16

struct setup;

/* The windows a frame draws into, kept from frame to frame while each stays
 * where it was (tui_win_keep): a pane's box and the inner window derived
 * from it, the header and bottom lines, the message lines and the
 * full-screen views (help, log, setup). */
struct tui_wins {
	WINDOW *box[TUI_MAX_PANES], *inner[TUI_MAX_PANES];
	WINDOW *head, *bottom, *msg, *body;
};

struct tui {
	const struct tui_ctx *ctx;
	struct tui_opts opts; /* the view's: the setup screen changes them */
	double delay_s;	      /* the refresh, which setup changes too */
	struct setup *setup;  /* the setup screen (F2) while it is up */
	struct view v;
	struct pane panes[TUI_MAX_PANES];
	int npanes;
	int focus;		   /* index in panes[] */
	bool shown[TUI_MAX_PANES]; /* drawn in the last frame */
	bool paused;
	bool help;	/* the help screen is up */
	int help_top;	/* its first line shown */
	int help_lines; /* its length, from the last frame */
	bool log;	/* the message log is up */
	int log_top;	/* its first line shown; INT_MAX: follow the end */
	int log_lines;	/* its length, from the last frame */
	struct tui_source src;
	int64_t live_origin; /* CLOCK_REALTIME - CLOCK_MONOTONIC, for a live view */
	char status[1024];   /* the focused pane's status line of the last frame */
	bool status_shown;   /* ...which the pane showed whole itself */
	char workload[256];  /* the driver's workload line of this frame */
	char notes[1024];    /* the driver's notes of this frame, '\n' between */
	unsigned keys_focus; /* enum pane_keys of the focused pane, last frame */
	unsigned keys_any;   /* ...of any pane shown */
	uint64_t frames;
	struct tui_wins win;
};

/* The lines above the keys (tui/messages.c): the workload's fate, the
 * driver's notes and the focused pane's status, each on its own lines. */
int tui_messages_rows(const struct tui *t, const char *status, bool shown);
void tui_messages_draw(struct tui *t, int y, int rows);
/* The help screen, in place of the panes. Its key handler scrolls it, closes
 * it on any other key, and returns false only for F10, left to quit. */
void tui_help_draw(struct tui *t, WINDOW *w);
bool tui_help_key(struct tui *t, int ch);
/* The message log screen: every status kept by the store, timestamped. */
void tui_log_draw(struct tui *t, WINDOW *w);
bool tui_log_key(struct tui *t, int ch);
/* "18:23:05" (or with the date) of a time on the samples' clock. */
void tui_fmt_time(const struct tui *t, uint64_t ts_ns, char *buf, size_t n, bool date);

/* Colours after the theme of t->opts, now or again. */
void tui_apply_theme(struct tui *t);
/* The panes again, in the order and with the visibility of t->opts, the
 * focus kept on its pane where that is still shown. */
void tui_panes_rebuild(struct tui *t);

/* Composes one frame with wnoutrefresh everywhere, then one doupdate(). */
void tui_frame(struct tui *t);
/* *kept when it has this size and place, erased as newwin would leave it;
 * else a new window there, derived from stdscr, whose cells it shares
 * (*kept deleted first, so it must have no subwindow left). NULL when
 * ncurses cannot make it (a place outside stdscr). */
WINDOW *tui_win_keep(WINDOW **kept, int rows, int cols, int y, int x);
/* Pane i's box, rows x cols at (y, x), kept as tui_win_keep keeps a window,
 * with the inner window inside its border in *inner (NULL where the box has
 * no inside), kept with it. A new window costs ncurses an allocation a
 * line, and the walk of the heap for them is about a quarter of a frame's
 * CPU on a VM. */
WINDOW *tui_pane_win(struct tui *t, int i, int rows, int cols, int y, int x, WINDOW **inner);
/* Deletes the kept windows: before the screen goes, and before stdscr is
 * resized (a derived window may not outlive its parent's size). */
void tui_wins_free(struct tui *t);
bool tui_pane_visible(struct tui *t, int i);

#endif
