/* SPDX-License-Identifier: GPL-2.0-only */
/* Drawing helpers shared by panes: colours that mean something, bars,
 * sparklines, scaled numbers, sortable tables. ASCII when not UTF-8. */
#ifndef ASYS_WIDGET_H
#define ASYS_WIDGET_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

#include "pane.h"

enum tui_color {
	TC_DEFAULT = 0,
	TC_USER,   /* green */
	TC_NICE,   /* blue-ish / cyan */
	TC_SYSTEM, /* red */
	TC_IOWAIT, /* blue */
	TC_IRQ,	   /* yellow */
	TC_STEAL,  /* magenta */
	TC_WARN,   /* yellow */
	TC_CRIT,   /* red, bold */
	TC_GOOD,   /* green */
	TC_DIM,	   /* grey / A_DIM */
	TC_TITLE,  /* pane titles, header */
	TC_SELECT, /* selected table row */
	TC_ACCENT, /* cyan: values, sparklines */
	TC_COUNT
};

/* The colour pairs of a theme (enum set_theme); with color false or the
 * mono theme, attributes only. Again at any time to change the theme. */
void widget_colors_init(bool color, int theme);
void widget_attr_on(WINDOW *w, const struct view *v, enum tui_color c);
void widget_attr_off(WINDOW *w, const struct view *v, enum tui_color c);

/* A horizontal bar of width cells, filled left to right by n segments whose
 * fractions (0..1 of the whole bar) are fracs[i], each in colors[i]. NaN
 * fractions draw nothing. Uses eighth blocks in UTF-8, '#' '=' in ASCII. */
void widget_bar(WINDOW *w, const struct view *v, int y, int x, int width, const double *fracs,
		const enum tui_color *colors, int n);
/* A sparkline of the last `width` values (braille, 2 values per cell, or
 * ASCII "_.-=#"); max <= 0 scales to the largest value. NaN is a gap. */
void widget_spark(WINDOW *w, const struct view *v, int y, int x, int width, const double *vals,
		  int nvals, double max, enum tui_color c);
/* One block glyph (▁..█ or " .:-=+*#%@") for a 0..1 level. */
const char *widget_level_glyph(const struct view *v, double level);

/* Scaled numbers into buf: "92.4 Gb/s" / "11.6 GB/s" by v->bits; "n/a" for NaN. */
struct series;

/* A field as the view shows it: the mean over the view's window (one refresh
 * ending at end_ns); else the latest value, as a per-second rate for a
 * counter when rate is set, unless that is newer than the view (paused, or
 * replay): NaN. f < 0 or no series: NaN. */
double view_value(const struct series *se, int f, const struct view *v, bool rate);
void widget_fmt_rate(char *buf, size_t n, const struct view *v, double bytes_per_s);
void widget_fmt_count(char *buf, size_t n, double v); /* "57.4k" */
void widget_fmt_pct(char *buf, size_t n, double pct); /* "93%" / "n/a" */
/* A duration in ns: "850ns", "1.12ms", "2.50s", "n/a" for NaN or < 0. */
void widget_fmt_ns(char *buf, size_t n, double ns);
/* A line being typed into buf (a filter, a search): Enter keeps it, Esc
 * clears it, both end the editing; Backspace and printable ASCII edit it.
 * Takes every key while editing. */
void widget_edit_line(char *buf, size_t size, int ch, bool *editing);

/* Print s at (y,x) clipped to width; right-aligned if right. Multibyte-safe. */
/* n cells of one glyph (UTF-8 or ASCII) from (y, x), across or down, in the
 * window's attributes, converted once. */
void widget_run(WINDOW *w, const char *glyph, int y, int x, int n, bool across);
void widget_text(WINDOW *w, int y, int x, int width, const char *s, bool right);
/* s over at most maxl lines of width columns from (y,x), broken at spaces
 * (mid-word only for a word wider than a line), lines after the first
 * indented by indent; a last line that cannot hold the rest ends in '~'.
 * Returns the lines used; w NULL only counts them. Escapes control bytes. */
int widget_wrap(WINDOW *w, int y, int x, int width, int maxl, int indent, const char *s);
/* Terminal columns s takes (multibyte-aware). */
int widget_text_width(const char *s);
/* A status's headline into buf: its text up to the first "; ", where a
 * collector puts what to do before the details (paths searched, causes).
 * Returns true when details follow: a pane that shows only the headline
 * says they are in the message log (L). */
bool widget_headline(char *buf, size_t n, const char *s);

/* A sortable, scrollable table whose rows the pane draws itself. */
struct tui_col {
	const char *title;
	int width;  /* 0 = takes the remaining width (last column) */
	bool right; /* right-aligned (numbers) */
};

struct tui_table {
	const struct tui_col *cols;
	int ncols;
	int sort_col;
	bool sort_desc;
	int top;      /* first row shown */
	int selected; /* selected row index */
	int nrows;    /* set by the pane before drawing */
};

/* Header line with the sort column marked; returns the x of each column in xs. */
void widget_table_header(WINDOW *w, const struct view *v, int y, const struct tui_table *t,
			 int *xs);
/* Arrows, PgUp/PgDn, Home/End move the selection; < > change the sort
 * column; 'I' inverts the order. page = rows visible. true if used. */
bool widget_table_key(struct tui_table *t, int ch, int page);
/* Keeps the selection visible given page rows. */
void widget_table_clamp(struct tui_table *t, int page);
/* A table of nrows rows filling w: clamps it to the rows left under the
 * header and draws the header, its column positions into xs. A window of
 * one row has no header (it only lends its positions): that row is the
 * table's first. Returns the window row of the table's first row shown. */
int widget_table_frame(WINDOW *w, const struct view *v, struct tui_table *t, int nrows, int *xs);
/* The keys of a table with a filter line: while the filter is typed, every
 * key goes to it (widget_edit_line); '/' starts it; else widget_table_key
 * over nrows rows. true if used. */
bool widget_filter_table_key(struct tui_table *t, int nrows, char *filter, size_t size,
			     bool *editing, int ch, int page);
/* A text view's scroll keys: arrows by a line, PgUp/PgDn (and space) by a
 * page of page lines, Home and End; *top stays within the lines of the text.
 * follow: End sets *top to INT_MAX, which the drawing reads as "the last
 * page, as the text grows". false for any other key (top untouched). */
bool widget_scroll_key(int *top, int lines, int page, int ch, bool follow);

#endif
