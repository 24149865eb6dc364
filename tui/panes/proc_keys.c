/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "catalogue.h"
#include "proc.h"
#include "stream.h"

/* The process table's keys, htop's where htop has one. A key changes state
 * only; rows are rebuilt from the store at the next frame (a label read now
 * could have been freed since the last one). */

int proc_page(const struct pane *p)
{
	int page = p->rows - (p->rows >= 5 ? 2 : 1) - 1;

	return page > 0 ? page : 1;
}

static const struct proc_row *selected(const struct proc_pane *s)
{
	if (s->exited || s->table.selected < 0 || (size_t)s->table.selected >= s->nrows)
		return NULL;
	return &s->rows[s->table.selected];
}

/* The next row matching the search from the selection (step 2: the
 * selection itself first), wrapping; the selection moves there. */
void proc_search_apply(struct proc_pane *s)
{
	int n = (int)s->nrows, dir = s->search_step < 0 ? -1 : 1;
	int from = s->table.selected + (s->search_step == 2 ? 0 : dir);

	if (!s->search_step || !s->search[0] || !n)
		return;
	s->search_step = 0;
	for (int k = 0; k < n; k++) {
		int i = ((from + dir * k) % n + n) % n;

		if (proc_row_matches(&s->rows[i], s->search)) {
			s->table.selected = i;
			s->sel_pid = s->rows[i].pid;
			return;
		}
	}
	snprintf(s->msg, sizeof(s->msg), "no process matches \"%s\"", s->search);
}

static bool sort_by(struct proc_pane *s, const struct view *v, int col)
{
	if (!proc_col_present(s, v, col)) {
		snprintf(s->msg, sizeof(s->msg), "no %s column here (its stream is not recorded)",
			 proc_cols[col].col.title);
		return true;
	}
	s->sort_id = col;
	s->sort_desc = true;
	s->sort_chosen = true;
	return true;
}

static bool toggle_threads(struct proc_pane *s, const struct view *v)
{
	if (stream_table_find(v->streams, catalogue_name(STREAM_PROC_THREAD)) < 0) {
		snprintf(s->msg, sizeof(s->msg),
			 "H: no thread rows: start asys with --process-threads to sample them");
		return true;
	}
	s->threads = !s->threads;
	return true;
}

/* The keys that act on the selected process. */
static bool act_key(struct proc_pane *s, int ch, struct view *v)
{
	const struct proc_row *r = selected(s);

	switch (ch) {
	case 'k':
	case KEY_F(9):
		proc_signal_open(s, v, r);
		return true;
	case KEY_F(7):
	case KEY_F(8):
		proc_nice(s, v, r, ch == KEY_F(7) ? -1 : 1);
		return true;
	case 'e':
		proc_env_open(s, v, r);
		return true;
	case '\n':
	case '\r':
	case KEY_ENTER:
		proc_detail_open(s, v, r);
		return true;
	case 'F':
		s->follow = r && !s->follow;
		s->sel_pid = r ? r->pid : 0;
		return true;
	case 'c':
		s->subtree = s->subtree || !r || (r->flags & PR_GROUP) ? 0 : r->pid;
		return true;
	case '+':
	case '=':
	case '-':
		if (s->tree && r)
			proc_collapse_set(s, r->pid, ch == '-');
		return true;
	}
	return false;
}

/* The keys that change what the table shows. */
static bool view_key(struct proc_pane *s, int ch, struct view *v)
{
	switch (ch) {
	case '/':
	case KEY_F(4):
		s->filter_edit = true;
		return true;
	case KEY_F(3): /* again: the next match, the text open to change */
		s->search_edit = true;
		s->search_step = s->search[0] ? 1 : 0;
		return true;
	case 'n':
	case 'N':
		s->search_step = ch == 'n' ? 1 : -1;
		return true;
	case 't':
	case KEY_F(5):
		s->tree = !s->tree;
		s->grouped = false;
		return true;
	case 'G':
		s->grouped = !s->grouped;
		s->table.top = s->table.selected = 0;
		return true;
	case 'K':
		s->kthreads = !s->kthreads;
		snprintf(s->msg, sizeof(s->msg), "kernel threads %s",
			 s->kthreads ? "shown" : "hidden");
		return true;
	case 'H':
		return toggle_threads(s, v);
	case 'P':
		return sort_by(s, v, PC_CPU);
	case 'M':
		return sort_by(s, v, PC_RSS);
	case 'T':
		return sort_by(s, v, PC_TIME);
	case 27: /* Esc: the filter, then the subtree, go */
		if (!s->filter[0] && !s->subtree)
			return false;
		if (s->filter[0])
			s->filter[0] = '\0';
		else
			s->subtree = 0;
		return true;
	}
	return false;
}

static bool table_key(struct proc_pane *s, struct pane *p, int ch)
{
	int before = s->table.selected, col = s->sort_id;
	bool desc = s->sort_desc;

	s->table.nrows = (int)s->nrows;
	if (!widget_table_key(&s->table, ch, proc_page(p)))
		return false;
	if (s->nvis)
		s->sort_id = s->vis[s->table.sort_col];
	s->sort_desc = s->table.sort_desc;
	s->sort_chosen |= s->sort_id != col || s->sort_desc != desc;
	if (s->table.selected != before && s->table.selected >= 0 &&
	    s->table.selected < (int)s->nrows)
		s->sel_pid = s->rows[s->table.selected].pid;
	return true;
}

bool proc_key(struct proc_pane *s, struct pane *p, int ch, struct view *v)
{
	s->msg[0] = '\0';
	switch (s->mode) {
	case PM_SIGNAL:
	case PM_CONFIRM:
		return proc_signal_key(s, ch);
	case PM_ENV:
	case PM_DETAIL:
		return proc_text_key(s, ch, p->rows > 2 ? p->rows - 2 : 1);
	case PM_TABLE:
		break;
	}
	if (s->filter_edit) {
		widget_edit_line(s->filter, sizeof(s->filter), ch, &s->filter_edit);
		return true;
	}
	if (s->search_edit) {
		if (ch == KEY_F(3)) {
			s->search_step = 1;
			return true;
		}
		widget_edit_line(s->search, sizeof(s->search), ch, &s->search_edit);
		if (s->search_edit)
			s->search_step = 2; /* incremental: from the selection */
		return true;
	}
	if (view_key(s, ch, v) || act_key(s, ch, v))
		return true;
	return table_key(s, p, ch);
}
