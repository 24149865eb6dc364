/* SPDX-License-Identifier: GPL-2.0-only */
/* Panes: one file per pane (tui/panes/pane_NAME.c) exporting one const struct
 * pane_class; tui/panes.c lists them in display order. A pane draws inside
 * its box from the store, as of v->end_ns, and never calls a collector. */
#ifndef ASYS_PANE_H
#define ASYS_PANE_H

#include <curses.h>
#include <stdbool.h>
#include <stdint.h>

#include "tui.h"

struct store;
struct stream_table;

/* What every pane sees for one frame. The store is locked while panes draw. */
struct view {
	struct store *store;
	const struct stream_table *streams;
	const struct tui_opts *opts;
	uint64_t end_ns;    /* the instant shown (frozen while paused) */
	uint64_t window_ns; /* one refresh: averages and peaks are over this */
	bool utf8;	    /* braille and block glyphs, else ASCII # = . */
	bool color;
	bool bits;	   /* rates in bit/s instead of B/s ('u' toggles) */
	bool overlay;	   /* PPU metric groups overlaid ('o') or stacked ('s') */
	char status[1024]; /* a pane may set the status line (n/a reasons) */
	bool status_shown; /* the pane drew that status whole itself */
	bool recorded;	   /* a recording: no action on this machine's processes */
};

/* Keys that apply to a pane now, for the bottom line's hints and the help:
 * only what a key would do here is offered. */
enum pane_keys {
	PANE_KEY_SORT = 1u << 0,    /* < > I: the pane has a sortable table */
	PANE_KEY_UNITS = 1u << 1,   /* u: the pane shows rates in bit/s or B/s */
	PANE_KEY_OVERLAY = 1u << 2, /* o s: the pane has PPU metric groups */
	PANE_KEY_SELECT = 1u << 3,  /* Up Down PgUp PgDn Home End move a selection */
	/* a process table: t / F3 F4 F5 F P M T c G + - Enter */
	PANE_KEY_PROC = 1u << 4,
	PANE_KEY_PROC_LIVE = 1u << 5,	 /* ...of this machine: k F9 F7 F8 e */
	PANE_KEY_PROC_CPU = 1u << 6,	 /* ...with proc.cpu: K */
	PANE_KEY_PROC_THREADS = 1u << 7, /* ...with proc.thread: H */
};
/* The keys that act on the focused pane only: hinted only while it is. */
#define PANE_KEYS_FOCUSED                                                                          \
	(PANE_KEY_SORT | PANE_KEY_PROC | PANE_KEY_PROC_LIVE | PANE_KEY_PROC_CPU |                  \
	 PANE_KEY_PROC_THREADS)

struct pane {
	const struct pane_class *cls;
	void *priv; /* the pane's own state, from cls->init */
	bool focused;
	int rows, cols; /* inner size of the last layout */
};

struct pane_class {
	const char *name;		     /* "cpu" */
	const char *title;		     /* "CPU" */
	char hotkey;			     /* '3': jumps focus here */
	void *(*init)(const struct view *v); /* may return NULL when no state */
	void (*fini)(void *priv);
	/* Whether to show the pane at all (e.g. no PPU stream and none expected). */
	bool (*visible)(const struct pane *p, const struct view *v);
	/* Inner rows: the least that still says something useful, and what it
	 * would fill given room. The focused pane takes the spare rows. */
	int (*min_rows)(const struct pane *p, const struct view *v, int cols);
	int (*want_rows)(const struct pane *p, const struct view *v, int cols);
	/* True while the pane has only a reason to show and no data: when rows
	 * are short it is left out before panes with data. NULL: never. */
	bool (*idle)(const struct pane *p, const struct view *v);
	/* Title text beside the name in the top border ("192 cores avg 41%"). */
	void (*title_extra)(const struct pane *p, const struct view *v, char *buf, int n);
	/* Text in the bottom border, right-aligned ("sort: RSS ▼"). */
	void (*footer)(const struct pane *p, const struct view *v, char *buf, int n);
	/* Draw into w, which is exactly the inner area (rows x cols). */
	void (*draw)(struct pane *p, WINDOW *w, struct view *v);
	/* A key while focused; true if used. The focused pane sees every key
	 * before the screen's own (so a filter can take letters), except F1,
	 * F10, Tab and Shift-Tab; return false for keys it does not use. */
	bool (*key)(struct pane *p, int ch, struct view *v);
	/* Which of enum pane_keys apply now; NULL: none. */
	unsigned (*keys)(const struct pane *p, const struct view *v);
	/* Extra help lines for this pane's keys ("/  filter kernels"); NULL-ended. */
	const char *const *help;
};

/* NULL-terminated, in display order (tui/panes.c). */
extern const struct pane_class *const pane_registry[];

#endif
