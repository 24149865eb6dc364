/* SPDX-License-Identifier: GPL-2.0-only */
/* The process table's columns as asysrc(5) and the setup screen name them:
 * by title, in the table's built-in order. The pane that draws the table
 * provides them; the last column takes the rest of the width, so it stays
 * last and shown whatever the settings say. */
#ifndef ASYS_PROC_COLS_H
#define ASYS_PROC_COLS_H

#include <stdbool.h>

#include "settings.h"

/* Title of column i ("RSS"), NULL past the last. */
const char *proc_col_title(int i);
/* The index of the column titled title (any case), or -1. */
int proc_col_find(const char *title);
/* The default sort column's title. */
const char *proc_col_default_sort(void);

#define PROC_COLS_MAX 32

/* The columns in the order and visibility l asks for (order[], shown[] by
 * built-in index), the last one kept last and shown. Returns how many. */
int proc_cols_order(const struct set_list *l, int *order, bool *shown);

#endif
