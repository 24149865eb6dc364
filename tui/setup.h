/* SPDX-License-Identifier: GPL-2.0-only */
/* The setup screen (F2), in place of the panes: the panes and the process
 * table's columns (each shown or hidden, in order), the refresh interval,
 * units, colour theme and default sort. A change applies to the view at
 * once; on leaving, the driver saves what changed (asysrc(5)), or says
 * that a replay saves nothing. */
#ifndef ASYS_SETUP_H
#define ASYS_SETUP_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

struct tui;

void tui_setup_open(struct tui *t);
/* Every key while the screen is up: it takes them all (Esc, q, F2 and F10
 * close it, and never quit asys), so it returns true. */
bool tui_setup_key(struct tui *t, int ch);
void tui_setup_draw(struct tui *t, WINDOW *w);
/* Leaves the screen: applies and saves what changed. Nothing when it is
 * not up. */
void tui_setup_close(struct tui *t);

/* For asysrc: whether name (any case) is a pane ("mem") or a column of the
 * process table ("RSS"); its spelling there goes into canon. */
bool tui_setup_pane_name(const char *name, char *canon, size_t n);
bool tui_setup_column_name(const char *name, char *canon, size_t n);

#endif
