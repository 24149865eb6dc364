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

struct tui {
	const struct tui_ctx *ctx;
	struct view v;
	struct pane panes[TUI_MAX_PANES];
	int npanes;
	int focus;		   /* index in panes[] */
	bool shown[TUI_MAX_PANES]; /* drawn in the last frame */
	bool paused;
	bool help;	/* the help screen is up */
	int help_top;	/* its first line shown */
	int help_lines; /* its length, from the last frame */
	char host[64];
	char kernel[64];
	char status[256]; /* the focused pane's status line of the last frame */
	uint64_t frames;
};

/* Composes one frame with wnoutrefresh everywhere, then one doupdate(). */
void tui_frame(struct tui *t);
bool tui_pane_visible(struct tui *t, int i);

#endif
