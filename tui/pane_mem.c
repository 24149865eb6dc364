#include "config.h"

#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mem_rows.h"
#include "mem_sys.h"
#include "options.h"
#include "pane.h"
#include "proc_cols.h"
#include "store.h"
#include "stream.h"
#include "util.h"
#include "widget.h"

/* The memory pane: system bars from mem.sys (mem_sys.c), then a table of
 * processes from mem.proc. A column is a table entry naming the stream and field it shows,
 * so the runtime columns (PINNED, DEVICE, ALLOC/s, FAIL from gpurt.mem) are
 * entries too; a column whose stream is not registered is not shown. */

enum col_kind {
	CK_PID,	  /* the entity itself */
	CK_LABEL, /* the entity's label: the command line */
	CK_USER,  /* a uid, shown as a name */
	CK_BYTES, /* series_rate: a gauge's value, a counter's B/s */
	CK_COUNT, /* series_rate, as a scaled count */
	CK_FAIL,  /* gpurt: failed allocations, with the last size and age */
};

struct mem_col {
	struct tui_col col;
	const char *stream; /* NULL: from mem.proc's entity or label */
	const char *field;
	enum col_kind kind;
	int drop; /* narrow panes drop the highest first; 0 = never */
};

static const struct mem_col mem_cols[] = {
    {{"PID", 7, true}, NULL, NULL, CK_PID, 0},
    {{"USER", 9, false}, "mem.proc", "uid", CK_USER, 2},
    {{"RSS", 6, true}, "mem.proc", "rss", CK_BYTES, 0},
    {{"HWM", 6, true}, "mem.proc", "hwm", CK_BYTES, 1},
    {{"THR", 4, true}, "mem.proc", "threads", CK_COUNT, 3},
    /* gpurt: runtime probes (shown only when gpurt.mem is registered) */
    {{"DEVICE", 7, true}, "gpurt.mem", "device_bytes", CK_BYTES, 4},
    {{"PINNED", 7, true}, "gpurt.mem", "pinned_bytes", CK_BYTES, 5},
    {{"ALLOC/s", 7, true}, "gpurt.mem", "allocs", CK_COUNT, 6},
    {{"FAIL", 15, true}, "gpurt.mem", "fails", CK_FAIL, 7},
    {{"COMMAND", 0, false}, NULL, NULL, CK_LABEL, 0},
};

#define NCOLS ((int)ARRAY_SIZE(mem_cols))
#define COL_RSS 2
#define COMMAND_MIN 12
_Static_assert(NCOLS == MEM_NCOLS, "mem_rows.h holds a value per column");
_Static_assert(NCOLS <= PROC_COLS_MAX, "proc_cols.h has room for every column");
_Static_assert(NCOLS <= SET_LIST_MAX, "a settings list can name every column");

#define UID_CACHE 64
struct uid_name {
	double uid;
	char name[33];
};

struct mem_priv {
	struct tui_table table;
	struct tui_col vis_cols[NCOLS];
	int vis[NCOLS]; /* visible column -> mem_cols index */
	int nvis;
	int sort_id; /* mem_cols index of the sort column */
	bool sort_desc;
	uint64_t sel_pid; /* follow this process once the user moved; 0 = none */
	struct proc_row *rows;
	size_t nrows, cap;
	uint64_t *ents;
	size_t ecap;
	struct uid_name uids[UID_CACHE];
	int nuids, uid_next;
	struct mem_sys sys;
	struct mem_kept kept; /* the last rows, for when every process is gone */
	bool exited;	      /* the rows shown are the kept ones */
};

static void *mem_init(const struct view *v)
{
	struct mem_priv *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->sort_id = COL_RSS;
	s->sort_desc = true;
	/* the default sort of asysrc(5) */
	if (v && v->opts && proc_col_find(v->opts->ui.sort) >= 0) {
		s->sort_id = proc_col_find(v->opts->ui.sort);
		s->sort_desc = !v->opts->ui.sort_asc;
	}
	return s;
}

static void mem_fini(void *priv)
{
	struct mem_priv *s = priv;

	if (!s)
		return;
	free(s->rows);
	free(s->ents);
	mem_kept_free(&s->kept);
	free(s);
}

/* getpwuid can go over the network (NSS): ask once per uid. */
static const char *user_name(struct mem_priv *s, double uid)
{
	struct uid_name *u;
	struct passwd *pw;

	if (isnan(uid) || uid < 0)
		return "?";
	for (int i = 0; i < s->nuids; i++)
		if (s->uids[i].uid == uid)
			return s->uids[i].name;
	if (s->nuids < UID_CACHE) {
		u = &s->uids[s->nuids++];
	} else {
		u = &s->uids[s->uid_next];
		s->uid_next = (s->uid_next + 1) % UID_CACHE;
	}
	u->uid = uid;
	pw = getpwuid((uid_t)uid);
	if (pw && pw->pw_name)
		util_strlcpy(u->name, pw->pw_name, sizeof(u->name));
	else
		snprintf(u->name, sizeof(u->name), "%.0f", uid);
	return u->name;
}

/* Which columns fit: drop the optional ones, highest first, until COMMAND
 * keeps COMMAND_MIN columns. */
static void choose_columns(struct mem_priv *s, const struct view *v, int cols)
{
	bool on[NCOLS], shown[NCOLS];
	int used = 0, order[NCOLS];

	proc_cols_order(v->opts ? &v->opts->ui.columns : NULL, order, shown);

	for (int i = 0; i < NCOLS; i++) {
		const struct mem_col *c = &mem_cols[i];

		int id = c->stream ? stream_table_find(v->streams, c->stream) : -1;

		/* a recording may lack a stream or a field: no column of n/a */
		on[i] = !c->stream ||
			(id >= 0 && stream_field_index(stream_table_get(v->streams, (uint32_t)id),
						       c->field) >= 0);
		/* gpurt: the runtime columns only once some process has used the
		 * runtime, not four columns of n/a */
		if (on[i] && c->stream && !strcmp(c->stream, "gpurt.mem"))
			on[i] = store_entities(v->store,
					       (uint32_t)stream_table_find(v->streams, c->stream),
					       NULL, 0) > 0;
		on[i] = on[i] && shown[i];
		if (on[i] && c->col.width)
			used += c->col.width + 1;
	}
	while (cols - used < COMMAND_MIN) {
		int worst = -1;

		for (int i = 0; i < NCOLS; i++)
			if (on[i] && mem_cols[i].drop &&
			    (worst < 0 || mem_cols[i].drop > mem_cols[worst].drop))
				worst = i;
		if (worst < 0)
			break;
		on[worst] = false;
		used -= mem_cols[worst].col.width + 1;
	}
	s->nvis = 0;
	s->table.sort_col = 0;
	for (int k = 0; k < NCOLS; k++) {
		int i = order[k];

		if (!on[i])
			continue;
		if (i == s->sort_id)
			s->table.sort_col = s->nvis;
		s->vis[s->nvis] = i;
		s->vis_cols[s->nvis++] = mem_cols[i].col;
	}
	s->table.cols = s->vis_cols;
	s->table.ncols = s->nvis;
	s->table.sort_desc = s->sort_desc;
}

static int grow(struct mem_priv *s, size_t need)
{
	if (need > s->cap) {
		struct proc_row *r = realloc(s->rows, need * sizeof(*r));
		uint64_t *e = realloc(s->ents, need * sizeof(*e));

		if (r)
			s->rows = r;
		if (e)
			s->ents = e;
		if (!r || !e)
			return -1;
		s->cap = s->ecap = need;
	}
	return 0;
}

static double col_value(const struct view *v, int ci, uint64_t pid, const struct series *proc)
{
	const struct mem_col *c = &mem_cols[ci];
	const struct series *se = proc;
	const struct stream_desc *d;
	int id, f;

	if (c->kind == CK_PID)
		return (double)pid;
	if (!c->stream || !c->field)
		return NAN;
	id = stream_table_find(v->streams, c->stream);
	if (id < 0)
		return NAN;
	if (strcmp(c->stream, "mem.proc"))
		se = store_series(v->store, (uint32_t)id, pid);
	d = stream_table_get(v->streams, (uint32_t)id);
	f = stream_field_index(d, c->field);
	if (!se || f < 0)
		return NAN;
	if (c->kind == CK_FAIL) /* gpurt: a total, not a rate */
		return v->end_ns && series_last_ns(se) > v->end_ns ? NAN
								   : series_last(se, (uint32_t)f);
	return view_value(se, f, v, true);
}

static int row_cmp(const void *a, const void *b, void *ctx)
{
	const struct proc_row *x = a, *y = b;
	const struct mem_priv *s = ctx;
	int id = s->sort_id, r = 0;
	enum col_kind k = mem_cols[id].kind;

	if (k == CK_LABEL || k == CK_USER) {
		const char *p = k == CK_LABEL ? x->label : x->user;
		const char *q = k == CK_LABEL ? y->label : y->user;

		r = strcasecmp(p ? p : "", q ? q : "");
	} else {
		double p = x->val[id], q = y->val[id];

		/* unknown sorts last whichever way */
		if (isnan(p) || isnan(q))
			return isnan(p) && isnan(q) ? 0 : isnan(p) ? 1 : -1;
		r = p < q ? -1 : p > q;
	}
	if (s->sort_desc)
		r = -r;
	if (!r)
		r = x->pid < y->pid ? -1 : x->pid > y->pid;
	return r;
}

/* gpurt: processes holding runtime memory that mem.proc does not list (it
 * keeps the top MEM_TOP_N by RSS system-wide) get a row too, named by the
 * label gpurt.mem gives them. */
static void load_gpurt_rows(struct mem_priv *s, const struct view *v)
{
	int id = stream_table_find(v->streams, "gpurt.mem");
	size_t base = s->nrows, n;

	if (id < 0)
		return;
	n = store_entities(v->store, (uint32_t)id, NULL, 0);
	if (!n || grow(s, base + n + 1) < 0)
		return;
	n = store_entities(v->store, (uint32_t)id, s->ents, s->ecap);
	if (n > s->ecap - base)
		n = s->ecap - base;
	for (size_t i = 0; i < n; i++) {
		const struct series *se = store_series(v->store, (uint32_t)id, s->ents[i]);
		bool listed = false;
		struct proc_row *r;

		for (size_t j = 0; j < base && !listed; j++)
			listed = s->rows[j].pid == s->ents[i];
		if (listed || !se || (v->end_ns && series_last_ns(se) > v->end_ns))
			continue;
		r = &s->rows[s->nrows++];
		r->pid = s->ents[i];
		r->label = series_label(se);
		r->user = "?";
		for (int c = 0; c < NCOLS; c++)
			r->val[c] = col_value(v, c, r->pid, NULL);
	}
}

static void load_rows(struct mem_priv *s, const struct view *v)
{
	int id = stream_table_find(v->streams, "mem.proc");
	const struct stream_desc *d;
	int fuid, frss;
	size_t n;

	s->nrows = 0;
	if (id < 0)
		return;
	d = stream_table_get(v->streams, (uint32_t)id);
	fuid = stream_field_index(d, "uid");
	frss = stream_field_index(d, "rss");
	n = store_entities(v->store, (uint32_t)id, NULL, 0);
	if (grow(s, n + 1) < 0)
		return;
	n = store_entities(v->store, (uint32_t)id, s->ents, s->ecap);
	if (n > s->ecap)
		n = s->ecap;
	for (size_t i = 0; i < n; i++) {
		const struct series *se = store_series(v->store, (uint32_t)id, s->ents[i]);
		struct proc_row *r;

		if (!se)
			continue;
		/* a process that started after a paused view's instant */
		if (v->end_ns && series_last_ns(se) > v->end_ns &&
		    (frss < 0 || isnan(view_value(se, frss, v, true))))
			continue;
		r = &s->rows[s->nrows++];
		r->pid = s->ents[i];
		r->label = series_label(se);
		r->user = user_name(s, fuid >= 0 ? series_last(se, (uint32_t)fuid) : NAN);
		for (int c = 0; c < NCOLS; c++)
			r->val[c] = col_value(v, c, r->pid, se);
	}
	load_gpurt_rows(s, v);
	if (s->nrows)
		qsort_r(s->rows, s->nrows, sizeof(*s->rows), row_cmp, s);
}

static int sys_lines(int rows)
{
	return rows >= 5 ? 2 : 1;
}

/* -s none: no process is followed, so the run has no mem.proc stream and
 * there is no table to draw. */
static bool no_table(const struct view *v)
{
	return stream_table_find(v->streams, "mem.proc") < 0;
}

/* Unfocused, the essential line is the system bars (SCREEN.md: at 80x24
 * each pane shrinks to it); focused, the table header and one process too. */
static int mem_min_rows(const struct pane *p, const struct view *v, int cols)
{
	return no_table(v) || !p->focused ? 1 : 3;
}

static int mem_want_rows(const struct pane *p, const struct view *v, int cols)
{
	int id = stream_table_find(v->streams, "mem.proc");
	size_t n = id >= 0 ? store_entities(v->store, (uint32_t)id, NULL, 0) : 0;

	if (no_table(v))
		return 2;

	if (!n && p->priv)
		n = ((const struct mem_priv *)p->priv)->kept.n; /* the exited rows */
	if (n > 1000)
		n = 1000;
	return 2 + 1 + (int)(n ? n : 1);
}

/* A stream's status (e.g. "3 processes unreadable (run as root to see
 * all)") goes on the status line while the pane is focused. */
static void stream_note(struct view *v, const char *stream)
{
	int id = stream_table_find(v->streams, stream);
	const char *st = id >= 0 ? store_status(v->store, (uint32_t)id, STATUS_STREAM) : NULL;

	if (st && *st && !v->status[0])
		util_strlcpy(v->status, st, sizeof(v->status));
}

static void fmt_cell(char *buf, size_t n, const struct proc_row *r, int ci)
{
	switch (mem_cols[ci].kind) {
	case CK_PID:
		snprintf(buf, n, "%llu", (unsigned long long)r->pid);
		break;
	case CK_LABEL:
		snprintf(buf, n, "%s", r->label && *r->label ? r->label : "?");
		break;
	case CK_USER:
		snprintf(buf, n, "%s", r->user ? r->user : "?");
		break;
	case CK_BYTES:
		util_fmt_bytes(buf, n, r->val[ci]);
		break;
	case CK_COUNT:
	case CK_FAIL:
		widget_fmt_count(buf, n, r->val[ci]);
		break;
	}
}

static void mem_title(const struct pane *p, const struct view *v, char *buf, int n)
{
	struct mem_priv *s = p->priv;

	buf[0] = '\0';
	if (!s)
		return;
	mem_sys_load(&s->sys, v);
	/* the top border holds the corners, "4 Memory" and a space on each side */
	mem_sys_title(&s->sys, buf, n, p->cols - 12);
}

static int table_page(const struct pane *p)
{
	int page = p->rows - sys_lines(p->rows) - 1;

	return page > 0 ? page : 1;
}

/* This frame's rows, or the kept ones once every process is gone; the
 * selection follows its process. */
static void table_load(struct mem_priv *s, const struct view *v, int cols)
{
	choose_columns(s, v, cols);
	load_rows(s, v);
	if (!s->nrows && grow(s, MEM_KEPT_MAX) == 0)
		s->nrows = mem_kept_restore(&s->kept, s->rows, v->end_ns);
	else if (s->nrows)
		mem_kept_save(&s->kept, s->rows, s->nrows, v->end_ns);
	s->exited = s->nrows && s->kept.restored;
	s->table.nrows = (int)s->nrows;
	if (s->sel_pid) {
		for (size_t i = 0; i < s->nrows; i++)
			if (s->rows[i].pid == s->sel_pid)
				s->table.selected = (int)i;
	}
}

/* One process at row y, its columns at xs; a failed allocation marks it. */
static void draw_row(WINDOW *w, struct view *v, const struct mem_priv *s, const struct proc_row *r,
		     int y, bool sel, const int *xs)
{
	int cols = getmaxx(w);

	if (sel) {
		widget_attr_on(w, v, TC_SELECT);
		mvwhline(w, y, 0, ' ', cols);
	} else if (s->exited) {
		widget_attr_on(w, v, TC_DIM);
	}
	for (int c = 0; c < s->nvis; c++) {
		int ci = s->vis[c];
		int cw = s->vis_cols[c].width ? s->vis_cols[c].width : cols - xs[c];
		char cell[512];

		fmt_cell(cell, sizeof(cell), r, ci);
		if (s->exited && mem_cols[ci].kind == CK_LABEL)
			snprintf(cell, sizeof(cell), "(exited) %.400s", r->label);
		if (mem_cols[ci].kind == CK_FAIL && !s->exited) {
			mem_fmt_fail(cell, sizeof(cell), v, r->pid, r->val[ci]);
			if (r->val[ci] > 0 && !sel) /* gpurt: mark the row */
				widget_attr_on(w, v, TC_CRIT);
		}
		widget_text(w, y, xs[c], cw, cell, s->vis_cols[c].right);
		if (mem_cols[ci].kind == CK_FAIL && !s->exited && r->val[ci] > 0 && !sel)
			widget_attr_off(w, v, TC_CRIT);
	}
	if (sel)
		widget_attr_off(w, v, TC_SELECT);
	else if (s->exited)
		widget_attr_off(w, v, TC_DIM);
}

static void mem_draw(struct pane *p, WINDOW *w, struct view *v)
{
	struct mem_priv *s = p->priv;
	int rows = getmaxy(w), cols = getmaxx(w);
	int sl = sys_lines(rows), page = rows - sl - 1;
	int xs[NCOLS];

	if (!s)
		return;
	stream_note(v, "mem.proc");
	stream_note(v, "mem.sys");
	mem_sys_load(&s->sys, v);
	mem_sys_draw(w, &s->sys, v, sl);
	if (page < 1 || no_table(v))
		return;
	table_load(s, v, cols);
	widget_table_clamp(&s->table, page);
	widget_table_header(w, v, sl, &s->table, xs);
	if (!s->nrows) {
		const char *why = mem_why_no_data(v, "mem.proc", "process");

		widget_attr_on(w, v, TC_DIM);
		widget_text(w, sl + 1, 1, cols - 1, why, false);
		widget_attr_off(w, v, TC_DIM);
		return;
	}
	for (int k = 0; k < page && s->table.top + k < (int)s->nrows; k++) {
		int ri = s->table.top + k;

		draw_row(w, v, s, &s->rows[ri], sl + 1 + k, p->focused && ri == s->table.selected,
			 xs);
	}
}

static void mem_footer(const struct pane *p, const struct view *v, char *buf, int n)
{
	const struct mem_priv *s = p->priv;
	size_t nproc;
	bool exited;
	int id;

	buf[0] = '\0';
	if (!s)
		return;
	if (no_table(v)) {
		snprintf(buf, (size_t)n, "no processes followed (-s none, or none recorded)");
		return;
	}
	id = stream_table_find(v->streams, "mem.proc");
	/* the table may not be drawn (a pane shrunk to its bars): ask the store */
	nproc = id >= 0 ? store_entities(v->store, (uint32_t)id, NULL, 0) : 0;
	exited = !nproc && s->exited;
	if (exited)
		nproc = s->kept.n;
	snprintf(buf, (size_t)n, "%zu proc%s%s  sort: %s %s", nproc, nproc == 1 ? "" : "s",
		 exited ? " exited" : "", mem_cols[s->sort_id].col.title,
		 v->utf8 ? (s->sort_desc ? "\u25bc" : "\u25b2") : (s->sort_desc ? "v" : "^"));
}

static bool mem_key(struct pane *p, int ch, struct view *v)
{
	struct mem_priv *s = p->priv;
	int before;

	if (!s || !s->nvis)
		return false;
	before = s->table.selected;
	s->table.nrows = (int)s->nrows;
	if (!widget_table_key(&s->table, ch, table_page(p)))
		return false;
	s->sort_id = s->vis[s->table.sort_col];
	s->sort_desc = s->table.sort_desc;
	if (s->table.selected != before && s->table.selected >= 0 &&
	    s->table.selected < (int)s->nrows)
		s->sel_pid = s->rows[s->table.selected].pid;
	(void)v;
	return true;
}

static unsigned mem_keys(const struct pane *p, const struct view *v)
{
	(void)p;
	return no_table(v) ? 0 : PANE_KEY_SORT | PANE_KEY_SELECT;
}

static const char *const mem_help[] = {
    "<, >          sort by PID, USER, RSS, HWM, THR or COMMAND",
    "I             invert the sort order",
    "Up, Down      select a process (followed when re-sorted)",
    "RSS, HWM      resident memory (VmRSS) and its peak (VmHWM)",
    "Mem, Swp      green used, blue buffers, yellow cache; red swap",
    "used          total - available, as free(1) counts it",
    "buff/cache    buffers + cached + reclaimable slab, as free(1) counts it",
    "DEVICE PINNED runtime-probed device and pinned memory; ALLOC/s their rate",
    "FAIL          failed allocations, the size last asked for and how long ago",
    NULL,
};

/* The process table's columns for the settings (proc_cols.h). */
const char *proc_col_title(int i)
{
	return i >= 0 && i < NCOLS ? mem_cols[i].col.title : NULL;
}

const char *proc_col_default_sort(void)
{
	return mem_cols[COL_RSS].col.title;
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
