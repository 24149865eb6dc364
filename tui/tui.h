/* SPDX-License-Identifier: GPL-2.0-only */
/* The ncurses front end. It reads the store, never a collector or the
 * engine, and what differs between live data and a replay comes through the
 * driver: the same code shows both and cannot tell them apart. */
#ifndef ASYS_TUI_H
#define ASYS_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "settings.h"

struct store;
struct stream_table;

/* The screen's own options (top, replay, demo): colour, the NIC pane's view
 * and the settings of asysrc(5)'s [display], which the setup screen (F2)
 * changes. The engine's (the refresh) come apart, in struct asys_options. */
struct tui_opts {
	bool no_color;		 /* --no-color or NO_COLOR */
	bool nic_show_all;	 /* --nic-all: a view setting of the NIC pane */
	struct asys_settings ui; /* from asysrc(5) and F2 */
};

/* Where the data shown comes from: this machine now, or a recording. */
struct tui_source {
	char host[64];
	char kernel[64];
	/* CLOCK_REALTIME minus the samples' clock, in ns: sample times to
	 * wall-clock times (the header, the message log) */
	int64_t clock_origin_ns;
	bool recorded; /* the header shows the recorded time, not uptime and now */
};

/* One key on the bottom line: "g" "go to". */
struct tui_key_hint {
	const char *key, *what;
};

/* What the caller (live top, or replay) adds to the screen: the right side of
 * the header, its own keys, and how far the view has got. Any callback may
 * be NULL. */
struct tui_driver {
	void *ctx;
	/* The header's sampling part: "sample 10 Hz", and any sampling thread
	 * short of its rate. true when that is a warning. */
	bool (*sampling)(void *ctx, char *buf, size_t n);
	/* Header text after the host line: "● REC run3.asys 412 MB 00:21:13",
	 * "REPLAY run3.asys 14:03:10 / 00:21:13 x4 ▶". May be NULL. */
	void (*status)(void *ctx, char *buf, size_t n);
	/* The same in fewer columns, for a header too narrow for the whole
	 * one: "● REC 412M 21:13". NULL: the whole one, cut. */
	void (*status_short)(void *ctx, char *buf, size_t n);
	/* A key the TUI does not use itself (R, replay keys), and space before
	 * the TUI pauses its drawing (replay pauses its player). true if taken. */
	bool (*key)(void *ctx, int ch);
	/* Workload line ("workload: python x.py (pid 42) exited with 0"), or
	 * false when there is none. */
	bool (*workload)(void *ctx, char *buf, size_t n);
	/* Progress 0..1 for replay, or NaN for live. */
	double (*progress)(void *ctx);
	/* Messages for the lines above the keys, one a line ('\n' between): a
	 * recording that failed or was saved, ignored variables, a bad time.
	 * Each goes to the message log too. Called without the store's lock. */
	void (*notes)(void *ctx, char *buf, size_t n);
	/* Saves what the setup screen (F2) changed, enum set_changed in
	 * changed, from the refresh delay_s and v: 0 or -errno, with what
	 * happened in msg either way. NULL: settings are not saved (a replay). */
	int (*save)(void *ctx, double delay_s, const struct tui_opts *v, unsigned changed,
		    char *msg, size_t n);
	/* The store and streams to draw, asked before each frame: a replay of
	 * several recordings hands over another host's when the user switches
	 * (the panes are then built afresh). NULL: the ctx's, always. */
	void (*data)(void *ctx, struct store **store, const struct stream_table **streams);
	/* A wake for the next frame from the thread that brings its data: once
	 * the store holds what was sampled until at_ns (CLOCK_MONOTONIC), the
	 * fd returned polls readable (the TUI reads it). -1, or NULL: the
	 * TUI's own timer draws each frame. */
	int (*frame_wake)(void *ctx, uint64_t at_ns);
	/* The recording's machine and clock; NULL: this machine, now. */
	void (*source)(void *ctx, struct tui_source *out);
	const char *name;		 /* the header's first words: "asys replay" */
	const struct tui_key_hint *keys; /* the bottom line's, {NULL}-ended; a key
					  * given here replaces the screen's own */
	const char *hint;		 /* the driver's keys, for the help screen */
	const char *hint_title;		 /* their heading there: "Recording", "Replay" */
};

struct tui_ctx {
	const struct asys_options *opts; /* the refresh */
	const struct tui_opts *view;
	struct store *store;
	const struct stream_table *streams;
	const struct tui_driver *driver;
};

/* Runs until q, F10 or a terminating signal; restores the terminal.
 * Returns 0, or -errno when the terminal cannot be used. */
int tui_run(const struct tui_ctx *ctx);

#endif
