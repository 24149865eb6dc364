/* SPDX-License-Identifier: GPL-2.0-only */
/* The memory pane's system half: host figures from mem.sys, the Mem and Swp
 * bars and the title text. The process table is in pane_mem.c. */
#ifndef ASYS_MEM_SYS_H
#define ASYS_MEM_SYS_H

#include <curses.h>
#include <stdbool.h>
#include <stdint.h>

#include "catalogue.h"
#include "pane.h"

struct series;

struct mem_sys {
	double v[MEM_SYS_NFIELDS]; /* by the catalogue's mem.sys constants; bytes, NaN unknown */
	bool have;		   /* the total is known */
};

/* Why a stream has nothing to show: the collector's own words if it said
 * any, else whether it runs at all. Points to a static buffer. */
const char *mem_why_no_data(const struct view *v, const char *stream, const char *what);

void mem_sys_load(struct mem_sys *m, const struct view *v);
/* "host 31.2G: used 12.3G (total-avail) avail 17.0G buff/cache 1.9G", without
 * "(total-avail)" when that is wider than width cells; "" when unknown. */
void mem_sys_title(const struct mem_sys *m, char *buf, int n, int width);
/* The bars in the first `lines` (1 or 2) rows of w. */
void mem_sys_draw(WINDOW *w, const struct mem_sys *m, const struct view *v, int lines);

#endif
