/* SPDX-License-Identifier: GPL-2.0-only */
/* The screen's settings that persist (asysrc(5), the F2 setup screen): the
 * panes and the process table's columns, each in order and shown or hidden,
 * the colour theme, the units of rates and the default sort. Plain data with
 * fixed room, so a hostile file cannot make it allocate; which names are
 * valid is for the TUI to say, since the core knows no pane. */
#ifndef ASYS_SETTINGS_H
#define ASYS_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#define SET_LIST_MAX 32 /* names in one list */
#define SET_NAME_MAX 24 /* bytes of one name, NUL included */

struct set_item {
	char name[SET_NAME_MAX];
	bool hidden;
};

/* An ordered list of names. Empty: every item in its built-in order, shown.
 * An item the list does not name comes after the named ones, shown, so a
 * pane or column added later appears in an old file. */
struct set_list {
	struct set_item item[SET_LIST_MAX];
	int n;
};

enum set_theme {
	SET_THEME_DEFAULT = 0,
	SET_THEME_LIGHT,    /* darker colours for a light background */
	SET_THEME_MIDNIGHT, /* light on blue, as Midnight Commander */
	SET_THEME_MONO,	    /* no colour: bold, dim, reverse and underline only */
	SET_THEME_COUNT
};

/* What setup changed, for saving only that (a value from the command line
 * is not written back). */
enum set_changed {
	SET_CH_DELAY = 1u << 0,
	SET_CH_PANES = 1u << 1,
	SET_CH_COLUMNS = 1u << 2,
	SET_CH_THEME = 1u << 3,
	SET_CH_UNITS = 1u << 4,
	SET_CH_SORT = 1u << 5,
};

struct asys_settings {
	struct set_list panes;	 /* by pane_class.name: "ppu", "mem" */
	struct set_list columns; /* the process table's, by title: "RSS" */
	int theme;		 /* enum set_theme */
	bool bytes;		 /* rates in B/s; false: bit/s */
	char sort[SET_NAME_MAX]; /* default sort column's title; "": the table's own */
	bool sort_asc;		 /* default sort ascending; false: descending */
};

/* NULL-terminated, by enum set_theme: "default", "light", "midnight", "mono". */
extern const char *const settings_themes[];

void settings_defaults(struct asys_settings *s);

/* "ppu, nic, -mem kernels": names split at commas and blanks, a leading
 * '-' hides one. Each name must be accepted by valid (case-insensitive
 * match against the known ones; it writes the canonical spelling into
 * canon) when valid is not NULL. 0, or -EINVAL with the sentence in err and
 * out unchanged. */
int settings_parse_list(const char *val, struct set_list *out,
			bool (*valid)(const char *name, char *canon, size_t n), char *err,
			size_t errn);
/* The list as a file holds it: "ppu, nic, -mem". */
void settings_format_list(const struct set_list *l, char *buf, size_t n);

/* The display order of n known items named names[] (in built-in order):
 * order[] gets their indices, those the list names first, in its order;
 * shown[i] says whether item i is shown. Returns n. */
int settings_order(const struct set_list *l, const char *const *names, int n, int *order,
		   bool *shown);
/* The list that puts names[] in the order of order[] with the shown[]
 * flags: what the setup screen writes. */
void settings_set_order(struct set_list *l, const char *const *names, const int *order,
			const bool *shown, int n);

#endif
