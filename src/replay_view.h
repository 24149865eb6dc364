/* SPDX-License-Identifier: GPL-2.0-only */
/* The replay view: a recording in the panes of asys top, played by the
 * player, with the replay keys. asys replay and asys demo both run it. */
#ifndef ASYS_REPLAY_VIEW_H
#define ASYS_REPLAY_VIEW_H

#include <stdbool.h>

#include "options.h"
#include "tui.h"

/* The options of the commands that play a recording (replay, demo) or
 * write it out (export): which part, and how fast. */
struct play_opts {
	double speed;	   /* --speed 1/64..64 */
	const char *begin; /* --begin TIME */
	const char *end;   /* --end TIME */
	bool info;	   /* replay --info */
	bool once;	   /* demo --once */
};

struct replay_view {
	const char *prog;   /* "asys replay": the first words of every message */
	const char *no_tty; /* the rest of the sentence when there is no terminal */
	const char *path;   /* one recording (asys demo) */
	char *const *paths; /* or several, one host each (npaths > 0: these) */
	int npaths;
	const char *begin; /* a time expression, or NULL for the start */
	/* -d, --speed, --no-color, --nic-all, as the command line set them */
	const struct asys_options *opts;
	const struct play_opts *play;
	const struct tui_opts *view;
	/* at the end, go back to where the replay began and play on */
	bool loop;
	/* asysrc's messages, '\n' between, shown for a while; NULL: none */
	const char *notes;
};

/* Runs until q; returns the exit status: 0, 1 when the file or the
 * terminal cannot be used, 2 for a bad begin time. */
int replay_view_run(const struct replay_view *a);

#endif
