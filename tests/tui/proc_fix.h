/* SPDX-License-Identifier: GPL-2.0-only */
/* The fixture of the process-table tests (test_proc.c, test_proc_act.c):
 * the memory pane over a store fed with proc_scene.h's five ticks, drawn in
 * a curses window on /dev/null, and readers of what it drew. */
#ifndef ASYS_TEST_PROC_FIX_H
#define ASYS_TEST_PROC_FIX_H
#include <check.h>
#include <stdbool.h>
#include <stddef.h>

#include "pane.h"
#include "proc.h"
#include "store.h"
#include "stream.h"
#include "widget.h"
#include "proc_scene.h"

extern const struct pane_class mem_pane;

#define ALL ((1u << SC_N) - 1)
#define ROWS 30
#define COLS 160

struct fix {
	struct stream_table *t;
	struct store *st;
	int ids[SC_N];
	struct view v;
	struct pane p;
	SCREEN *scr;
	FILE *out, *in;
	WINDOW *w;
};

/* The scene's five ticks, one a second, viewed just after the last; false
 * (the test then checks nothing) where there is no xterm terminfo. */
bool fix_open(struct fix *f, unsigned want);
void fix_close(struct fix *f);
void draw(struct fix *f);
/* A key the pane must take, then a frame. */
void key(struct fix *f, int ch);
void keys(struct fix *f, const char *s);
/* Screen row y, trailing blanks cut. */
void line(struct fix *f, int y, char *buf);
int row_of(struct fix *f, const char *text);
const char *cell_raw(struct fix *f, int y, int col, bool raw);
const char *cell(struct fix *f, int y, int col);
void commands(struct fix *f, char *buf, size_t n);

/* The actions' cases: replay, a real child, the sysroot, permission
 * (test_proc_act.c). */
TCase *proc_act_tcase(void);
#endif
