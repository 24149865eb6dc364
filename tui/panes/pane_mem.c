/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "mem_rows.h"
#include "mem_sys.h"
#include "options.h"
#include "pane.h"
#include "proc.h"
#include "proc_cols.h"
#include "store.h"
#include "stream.h"
#include "util.h"
#include "widget.h"

/* The memory pane: system bars from mem.sys (mem_sys.c), then the process
 * table (proc_*.c): every process, from mem.proc, proc.cpu, ppu.proc_util
 * and gpurt.mem, each column a table entry naming its stream and field. */

static void *mem_init(const struct view *v)
{
	struct proc_pane *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->sort_id = PC_RSS;
	s->sort_desc = true;
	/* the default sort of asysrc(5) */
	if (v && v->opts && proc_col_find(v->opts->ui.sort) >= 0) {
		s->sort_id = proc_col_find(v->opts->ui.sort);
		s->sort_desc = !v->opts->ui.sort_asc;
		s->sort_chosen = true;
	}
	return s;
}

static void mem_fini(void *priv)
{
	struct proc_pane *s = priv;

	if (!s)
		return;
	free(s->rows);
	free(s->tmp);
	free(s->ents);
	free(s->text);
	free(s->rate);
	free(s->rate_next);
	proc_act_release(&s->target);
	mem_kept_free(&s->kept);
	free(s);
}

/* The bars' lines: two where the table has room for more than a row, and
 * where it has no room at all (two rows: the bars take the second rather
 * than leave it blank). */
static int sys_lines(int rows)
{
	return rows >= 5 || rows == 2 ? 2 : 1;
}

/* -s none: no process is followed, so the run has no mem.proc stream and
 * there is no table to draw. */
static bool no_table(const struct view *v)
{
	return stream_table_find(v->streams, catalogue_name(STREAM_MEM_PROC)) < 0;
}

/* Unfocused, the essential line is the system bars (SCREEN.md: at 80x24
 * each pane shrinks to it); focused, the table header and one process too. */
static int mem_min_rows(const struct pane *p, const struct view *v, int cols)
{
	(void)cols;
	return no_table(v) || !p->focused ? 1 : 3;
}

static int mem_want_rows(const struct pane *p, const struct view *v, int cols)
{
	int id = stream_table_find(v->streams, catalogue_name(STREAM_MEM_PROC));
	size_t n = id >= 0 ? store_entities(v->store, (uint32_t)id, NULL, 0) : 0;

	(void)cols;
	if (no_table(v))
		return 2;
	if (!n && p->priv)
		n = ((const struct proc_pane *)p->priv)->kept.n; /* the exited rows */
	if (n > 1000)
		n = 1000;
	return 2 + 1 + (int)(n ? n : 1);
}

/* What the status line says while the pane is focused: a prompt being
 * typed, the last key's result, else a stream's status (e.g. "3 processes
 * unreadable (run as root to see all)"). */
static void status_note(struct view *v, const struct proc_pane *s)
{
	static const enum stream_id streams[] = {STREAM_MEM_PROC, STREAM_MEM_SYS, STREAM_PROC_CPU};

	if (v->status[0])
		return;
	if (s->filter_edit)
		snprintf(v->status, sizeof(v->status),
			 "Filter: %s_  (Enter keeps it, Esc clears it)", s->filter);
	else if (s->search_edit)
		snprintf(v->status, sizeof(v->status),
			 "Search: %s_  (F3 next, Enter done, Esc clears)", s->search);
	else if (s->msg[0])
		util_strlcpy(v->status, s->msg, sizeof(v->status));
	for (size_t i = 0; i < ARRAY_SIZE(streams) && !v->status[0]; i++) {
		int id = stream_table_find(v->streams, catalogue_name(streams[i]));
		const char *st =
		    id >= 0 ? store_status(v->store, (uint32_t)id, STATUS_STREAM) : NULL;

		if (st && *st)
			util_strlcpy(v->status, st, sizeof(v->status));
	}
}

static void mem_title(const struct pane *p, const struct view *v, char *buf, int n)
{
	struct proc_pane *s = p->priv;
	int off = 0;

	buf[0] = '\0';
	if (!s)
		return;
	if (s->filter[0] || s->filter_edit)
		off = snprintf(buf, (size_t)n, "filter: %s%s  ", s->filter,
			       s->filter_edit ? "_" : "");
	if (off < 0 || off >= n)
		return;
	mem_sys_load(&s->sys, v);
	/* the top border holds the corners, "4 Memory" and a space on each side */
	mem_sys_title(&s->sys, buf + off, n - off, p->cols - 12 - off);
}

/* The column the table sorts by: by CPU% where it is sampled; a chosen
 * column that a recording lacks falls back too. The footer says it even
 * while the pane is shrunk to its bars and loads no table. */
static int sort_col(const struct proc_pane *s, const struct view *v)
{
	if (s->sort_chosen && proc_col_present(s, v, s->sort_id))
		return s->sort_id;
	return proc_col_present(s, v, PC_CPU) ? PC_CPU : PC_RSS;
}

/* This frame's rows, or the kept ones once every process is gone; the
 * selection stays on its process. */
static void table_load(struct proc_pane *s, const struct view *v, int cols)
{
	s->sort_id = sort_col(s, v);
	proc_load(s, v);
	proc_choose_columns(s, v, cols);
	if (!s->nrows && !s->filter[0] && !s->subtree && proc_grow(s, MEM_KEPT_MAX) == 0) {
		mem_kept_ended(&s->kept, v);
		s->nrows = mem_kept_restore(&s->kept, s->rows, v->end_ns);
		proc_sort(s, s->rows, s->nrows);
	} else if (s->nrows && !s->filter[0] && !s->subtree && !s->grouped)
		mem_kept_save(&s->kept, s->rows, s->nrows, v->end_ns);
	s->exited = s->nrows && s->kept.restored;
	s->table.nrows = (int)s->nrows;
	if (s->sel_pid) {
		bool found = false;

		for (size_t i = 0; i < s->nrows && !found; i++)
			if (s->rows[i].pid == s->sel_pid) {
				s->table.selected = (int)i;
				found = true;
			}
		if (!found && s->follow && !s->exited) {
			snprintf(s->msg, sizeof(s->msg), "process %llu is gone: no longer followed",
				 (unsigned long long)s->sel_pid);
			s->follow = false;
		}
	}
	proc_search_apply(s);
}

/* The COMMAND cell: the tree's branches, then the command line. */
static void command_cell(char *cell, size_t n, const struct view *v, const struct proc_pane *s,
			 const struct proc_row *r)
{
	char pre[160];

	if (s->exited) {
		snprintf(cell, n, "(%s) %.400s", r->ended ? r->ended : "exited", r->label);
		return;
	}
	if (r->flags & PR_GROUP) {
		snprintf(cell, n, "%.200s (%u process%s)", r->label, r->nproc,
			 r->nproc == 1 ? "" : "es");
		return;
	}
	proc_tree_prefix(v, r, pre, sizeof(pre));
	snprintf(cell, n, "%s%.400s", pre, r->label && *r->label ? r->label : "?");
}

/* One process at row y, its columns at xs; a failed allocation marks it. */
static void draw_row(WINDOW *w, struct view *v, const struct proc_pane *s, const struct proc_row *r,
		     int y, bool sel, const int *xs)
{
	int cols = getmaxx(w);
	bool dim = s->exited || (r->flags & (PR_THREAD | PR_KTHREAD));

	if (sel) {
		widget_attr_on(w, v, TC_SELECT);
		mvwhline(w, y, 0, ' ', cols);
	} else if (dim) {
		widget_attr_on(w, v, TC_DIM);
	}
	for (int c = 0; c < s->nvis; c++) {
		int ci = s->vis[c];
		int cw = s->vis_cols[c].width ? s->vis_cols[c].width : cols - xs[c];
		bool crit = ci == PC_FAIL && !s->exited && r->val[ci] > 0 && !sel;
		char cell[600];

		proc_fmt_cell(cell, sizeof(cell), r, ci);
		if (ci == PC_COMMAND)
			command_cell(cell, sizeof(cell), v, s, r);
		if (ci == PC_FAIL && !s->exited && !(r->flags & PR_GROUP))
			mem_fmt_fail(cell, sizeof(cell), v, r->pid, r->val[ci]);
		if (crit) /* gpurt: mark the row */
			widget_attr_on(w, v, TC_CRIT);
		widget_text(w, y, xs[c], cw, cell, s->vis_cols[c].right);
		if (crit)
			widget_attr_off(w, v, TC_CRIT);
	}
	if (sel && s->follow)
		widget_text(w, y, 0, 1, "F", false);
	if (sel)
		widget_attr_off(w, v, TC_SELECT);
	else if (dim)
		widget_attr_off(w, v, TC_DIM);
}

static void draw_rows(struct pane *p, WINDOW *w, struct view *v, int sl, const int *xs)
{
	struct proc_pane *s = p->priv;
	int page = getmaxy(w) - sl - 1;

	if (!s->nrows) {
		const char *why =
		    s->filter[0] || s->subtree
			? "no process matches (Esc clears the filter)"
			: mem_why_no_data(v, catalogue_name(STREAM_MEM_PROC), "process");

		widget_attr_on(w, v, TC_DIM);
		widget_text(w, sl + 1, 1, getmaxx(w) - 1, why, false);
		widget_attr_off(w, v, TC_DIM);
		return;
	}
	for (int k = 0; k < page && s->table.top + k < (int)s->nrows; k++) {
		int ri = s->table.top + k;

		draw_row(w, v, s, &s->rows[ri], sl + 1 + k, p->focused && ri == s->table.selected,
			 xs);
	}
}

static void mem_draw(struct pane *p, WINDOW *w, struct view *v)
{
	struct proc_pane *s = p->priv;
	int rows = getmaxy(w), cols = getmaxx(w);
	int sl = sys_lines(rows), page = rows - sl - 1;
	int xs[PC_N];

	if (!s)
		return;
	if (p->focused)
		status_note(v, s);
	if ((s->mode == PM_ENV || s->mode == PM_DETAIL) && p->focused) {
		proc_text_draw(s, w, v);
		return;
	}
	mem_sys_load(&s->sys, v);
	mem_sys_draw(w, &s->sys, v, sl);
	if (page < 1 || no_table(v))
		return;
	table_load(s, v, cols);
	widget_table_clamp(&s->table, page);
	widget_table_header(w, v, sl, &s->table, xs);
	draw_rows(p, w, v, sl, xs);
	if ((s->mode == PM_SIGNAL || s->mode == PM_CONFIRM) && p->focused) {
		WINDOW *box = derwin(w, rows - sl - 1, cols, sl + 1, 0);

		if (box) {
			proc_signal_draw(s, box, v);
			delwin(box);
		}
	}
}

static void mem_footer(const struct pane *p, const struct view *v, char *buf, int n)
{
	const struct proc_pane *s = p->priv;
	int id = stream_table_find(v->streams, catalogue_name(STREAM_MEM_PROC));
	size_t nproc;
	char what[96] = "";

	buf[0] = '\0';
	if (!s)
		return;
	if (no_table(v)) {
		snprintf(buf, (size_t)n, "no processes followed (-s none, or none recorded)");
		return;
	}
	/* the table may not be drawn (a pane shrunk to its bars): ask the store */
	nproc = id >= 0 ? store_entities(v->store, (uint32_t)id, NULL, 0) : 0;
	if (!nproc && s->exited)
		nproc = s->kept.n;
	if (s->grouped)
		snprintf(what, sizeof(what), "%zu groups  ", s->nrows);
	else if ((s->hidden || s->subtree) && !s->exited)
		snprintf(what, sizeof(what), "%zu of ",
			 s->nprocs); /* filtered, or kernel threads */
	snprintf(buf, (size_t)n, "%s%zu proc%s%s%s%s%s  sort: %s %s", what, nproc,
		 nproc == 1 ? "" : "s", !nproc || !s->exited ? "" : " exited",
		 s->tree && !s->grouped ? "  tree" : "", s->subtree ? "  subtree" : "",
		 s->follow ? "  follow" : "", proc_cols[sort_col(s, v)].col.title,
		 v->utf8 ? (s->sort_desc ? "\u25bc" : "\u25b2") : (s->sort_desc ? "v" : "^"));
}

static bool mem_key(struct pane *p, int ch, struct view *v)
{
	struct proc_pane *s = p->priv;

	if (!s || no_table(v))
		return false;
	/* the rows as of now (a label of the last frame's may be gone), and a
	 * search typed since it applied: a key acts on what the next frame
	 * shows, even when keys come faster than frames */
	if (s->mode == PM_TABLE && !s->filter_edit && !s->search_edit && p->cols > 0)
		table_load(s, v, p->cols);
	return proc_key(s, p, ch, v);
}

static unsigned mem_keys(const struct pane *p, const struct view *v)
{
	unsigned k;

	(void)p;
	if (no_table(v))
		return 0;
	k = PANE_KEY_SORT | PANE_KEY_SELECT | PANE_KEY_PROC;
	if (!v->recorded)
		k |= PANE_KEY_PROC_LIVE;
	if (stream_table_find(v->streams, catalogue_name(STREAM_PROC_CPU)) >= 0)
		k |= PANE_KEY_PROC_CPU;
	if (stream_table_find(v->streams, catalogue_name(STREAM_PROC_THREAD)) >= 0)
		k |= PANE_KEY_PROC_THREADS;
	return k;
}

static const char *const mem_help[] = {
    "PID USER      the process and its owner",
    "S NI          state (R running, S sleeping, D disk, Z zombie, T stopped) and nice",
    "CPU%          utime+stime over the last refresh; 100 = one core",
    "TIME+         CPU time so far: 12:34.56, then 1h02:03, then 123h",
    "RSS, HWM      resident memory (VmRSS) and its peak (VmHWM); MEM% of the host's",
    "THR           threads",
    "PPU%          SM utilisation share, summed over the process's PPUs",
    "DEVICE PINNED runtime-probed device and pinned memory; ALLOC/s their rate",
    "FAIL          failed allocations, the size last asked for and how long ago",
    "CONTAINER     the pod, container, systemd unit or Slurm job it runs in",
    "Mem, Swp      green used, blue buffers, yellow cache; red swap",
    "used          total - available, as free(1) counts it",
    "buff/cache    buffers + cached + reclaimable slab, as free(1) counts it",
    NULL,
};

/* The process table's columns for the settings (proc_cols.h). */
const char *proc_col_title(int i)
{
	return i >= 0 && i < PC_N ? proc_cols[i].col.title : NULL;
}

const char *proc_col_default_sort(void)
{
	return proc_cols[PC_CPU].col.title;
}

const struct pane_class mem_pane = {
    .name = "mem",
    .title = "Memory",
    .hotkey = '4',
    .init = mem_init,
    .fini = mem_fini,
    .min_rows = mem_min_rows,
    .want_rows = mem_want_rows,
    .title_extra = mem_title,
    .footer = mem_footer,
    .draw = mem_draw,
    .key = mem_key,
    .keys = mem_keys,
    .help = mem_help,
};
