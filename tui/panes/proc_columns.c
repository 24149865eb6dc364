/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalogue.h"
#include "proc.h"
#include "proc_cols.h"
#include "store.h"
#include "stream.h"
#include "util.h"

/* The process table's columns. A column is a table entry naming the stream
 * and field it shows; a column whose stream or field is not registered is
 * not shown. Narrow panes drop the columns of the highest `drop` first:
 * FAIL, ALLOC/s, PINNED, CONTAINER (wide: it alone makes room for several),
 * THR, HWM, NI, S, MEM%, USER, TIME+, DEVICE, PPU%; PID, CPU%, RSS and
 * COMMAND stay. */
const struct proc_col proc_cols[PC_N] = {
    [PC_PID] = {{"PID", 7, true}, -1, -1, CK_PID, 0},
    [PC_USER] = {{"USER", 8, false}, STREAM_MEM_PROC, MEM_PROC_UID, CK_USER, 9},
    [PC_STATE] = {{"S", 1, false}, STREAM_PROC_CPU, PROC_CPU_STATE, CK_STATE, 11},
    [PC_NICE] = {{"NI", 3, true}, STREAM_PROC_CPU, PROC_CPU_NICE, CK_NICE, 12},
    [PC_CPU] = {{"CPU%", 5, true}, STREAM_PROC_CPU, PROC_CPU_UTIME, CK_CPU, 0},
    [PC_TIME] = {{"TIME+", 9, true}, STREAM_PROC_CPU, PROC_CPU_UTIME, CK_TIME, 8},
    [PC_RSS] = {{"RSS", 6, true}, STREAM_MEM_PROC, MEM_PROC_RSS, CK_BYTES, 0},
    [PC_HWM] = {{"HWM", 6, true}, STREAM_MEM_PROC, MEM_PROC_HWM, CK_BYTES, 13},
    [PC_MEMPCT] = {{"MEM%", 5, true}, STREAM_MEM_SYS, MEM_SYS_TOTAL, CK_MEMPCT, 10},
    [PC_THR] = {{"THR", 4, true}, STREAM_MEM_PROC, MEM_PROC_THREADS, CK_COUNT, 14},
    [PC_PPU] = {{"PPU%", 5, true}, STREAM_PPU_PROC_UTIL, PPU_PROC_UTIL_SM, CK_PPU, 6},
    /* gpurt: runtime probes (shown only once some process used the runtime) */
    [PC_DEVICE] = {{"DEVICE", 7, true}, STREAM_GPURT_MEM, GPURT_MEM_DEVICE_BYTES, CK_BYTES, 7},
    [PC_PINNED] = {{"PINNED", 7, true}, STREAM_GPURT_MEM, GPURT_MEM_PINNED_BYTES, CK_BYTES, 16},
    [PC_ALLOC] = {{"ALLOC/s", 7, true}, STREAM_GPURT_MEM, GPURT_MEM_ALLOCS, CK_COUNT, 17},
    [PC_FAIL] = {{"FAIL", 15, true}, STREAM_GPURT_MEM, GPURT_MEM_FAILS, CK_FAIL, 18},
    [PC_CONTAINER] = {{"CONTAINER", 20, false}, STREAM_PROC_CPU, PROC_CPU_UTIME, CK_CONTAINER, 15},
    [PC_COMMAND] = {{"COMMAND", 0, false}, -1, -1, CK_LABEL, 0},
};

#define COMMAND_MIN 24

/* getpwuid can go over the network (NSS): ask once per uid. */
const char *proc_user_name(struct proc_pane *s, double uid)
{
	struct proc_uid *u;
	struct passwd *pw;

	if (isnan(uid) || uid < 0)
		return "?";
	for (int i = 0; i < s->nuids; i++)
		if (s->uids[i].uid == uid)
			return s->uids[i].name;
	if (s->nuids < PROC_UID_CACHE) {
		u = &s->uids[s->nuids++];
	} else {
		u = &s->uids[s->uid_next];
		s->uid_next = (s->uid_next + 1) % PROC_UID_CACHE;
	}
	u->uid = uid;
	pw = getpwuid((uid_t)uid);
	if (pw && pw->pw_name)
		util_strlcpy(u->name, pw->pw_name, sizeof(u->name));
	else
		snprintf(u->name, sizeof(u->name), "%.0f", uid);
	return u->name;
}

static bool field_known(const struct view *v, enum stream_id stream, int field)
{
	int id = stream_table_find(v->streams, catalogue_name(stream));

	return id >= 0 && catalogue_field_index(stream_table_get(v->streams, (uint32_t)id), stream,
						(unsigned int)field) >= 0;
}

/* Whether column ci has something to show: a recording may lack a stream or
 * a field, and a column of n/a says nothing. */
bool proc_col_present(const struct proc_pane *s, const struct view *v, int ci)
{
	const struct proc_col *c = &proc_cols[ci];

	if (c->stream < 0)
		return true;
	if (!field_known(v, c->stream, c->field))
		return false;
	switch (c->kind) {
	case CK_CPU:
	case CK_TIME:
		return field_known(v, STREAM_PROC_CPU, PROC_CPU_STIME);
	case CK_MEMPCT:
		return field_known(v, STREAM_MEM_PROC, MEM_PROC_RSS);
	case CK_CONTAINER:
		return s->any_container;
	default:
		break;
	}
	/* gpurt: the runtime columns only once some process has used the
	 * runtime, not four columns of n/a; PPU% once some process has used a
	 * PPU, not a column of dashes on a host without one */
	if (c->stream == STREAM_GPURT_MEM || c->kind == CK_PPU)
		return store_entities(
			   v->store,
			   (uint32_t)stream_table_find(v->streams, catalogue_name(c->stream)), NULL,
			   0) > 0;
	return true;
}

/* Which columns fit: drop the optional ones, highest first, until COMMAND
 * keeps COMMAND_MIN columns. */
_Static_assert(PC_N <= PROC_COLS_MAX, "proc_cols.h has room for every column");
_Static_assert(PC_N <= SET_LIST_MAX, "a settings list can name every column");

void proc_choose_columns(struct proc_pane *s, const struct view *v, int cols)
{
	bool on[PC_N], shown[PC_N];
	int used = 0, order[PC_N];

	/* asysrc(5) and F2 order the columns and hide some */
	proc_cols_order(v->opts ? &v->opts->ui.columns : NULL, order, shown);
	for (int i = 0; i < PC_N; i++) {
		on[i] = proc_col_present(s, v, i) && shown[i];
		if (on[i] && proc_cols[i].col.width)
			used += proc_cols[i].col.width + 1;
	}
	while (cols - used < COMMAND_MIN) {
		int worst = -1;

		for (int i = 0; i < PC_N; i++)
			if (on[i] && proc_cols[i].drop &&
			    (worst < 0 || proc_cols[i].drop > proc_cols[worst].drop))
				worst = i;
		if (worst < 0)
			break;
		on[worst] = false;
		used -= proc_cols[worst].col.width + 1;
	}
	s->nvis = 0;
	s->table.sort_col = 0;
	for (int k = 0; k < PC_N; k++) {
		int i = order[k];

		if (!on[i])
			continue;
		if (i == s->sort_id)
			s->table.sort_col = s->nvis;
		s->vis[s->nvis] = i;
		s->vis_cols[s->nvis++] = proc_cols[i].col;
	}
	s->table.cols = s->vis_cols;
	s->table.ncols = s->nvis;
	s->table.sort_desc = s->sort_desc;
}

/* The latest value, unless it is newer than a paused or replayed view. */
static double last_value(const struct view *v, const struct series *se, int f)
{
	if (!se || f < 0 || (v->end_ns && series_last_ns(se) > v->end_ns))
		return NAN;
	return series_last(se, (uint32_t)f);
}

/* Where the catalogue's field f of stream s is in the session's stream id. */
static int field_of(const struct view *v, int id, enum stream_id s, int f)
{
	return id >= 0 ? catalogue_field_index(stream_table_get(v->streams, (uint32_t)id), s,
					       (unsigned int)f)
		       : -1;
}

/* Stream ids and field indices, once a frame rather than once a cell. */
void proc_ids_resolve(struct proc_ids *x, const struct view *v)
{
	static const enum stream_id ids[PS_N] = {STREAM_MEM_PROC,      STREAM_PROC_CPU,
						 STREAM_MEM_SYS,       STREAM_GPURT_MEM,
						 STREAM_PPU_PROC_UTIL, STREAM_PROC_THREAD};

	for (int i = 0; i < PS_N; i++)
		x->id[i] = stream_table_find(v->streams, catalogue_name(ids[i]));
	for (int c = 0; c < PC_N; c++) {
		const struct proc_col *pc = &proc_cols[c];

		x->f[c] =
		    pc->stream >= 0
			? field_of(v, stream_table_find(v->streams, catalogue_name(pc->stream)),
				   pc->stream, pc->field)
			: -1;
	}
	x->uid = field_of(v, x->id[PS_MEM], STREAM_MEM_PROC, MEM_PROC_UID);
	x->ppid = field_of(v, x->id[PS_MEM], STREAM_MEM_PROC, MEM_PROC_PPID);
	x->stime = field_of(v, x->id[PS_CPU], STREAM_PROC_CPU, PROC_CPU_STIME);
	x->kthread = field_of(v, x->id[PS_CPU], STREAM_PROC_CPU, PROC_CPU_KTHREAD);
	x->start = field_of(v, x->id[PS_CPU], STREAM_PROC_CPU, PROC_CPU_START);
	x->total = x->id[PS_SYS] < 0
		       ? NAN
		       : view_value(store_series(v->store, (uint32_t)x->id[PS_SYS], 0),
				    x->f[PC_MEMPCT], v, true);
	x->gpurt_any = x->id[PS_GPURT] >= 0 &&
		       store_entities(v->store, (uint32_t)x->id[PS_GPURT], NULL, 0) > 0;
}

/* A CPU% (per second x100) or TIME+ (so far) from a series with utime and
 * stime at fields fu and fs. */
double proc_cpu_value(const struct view *v, const struct series *se, int fu, int fs, bool rate)
{
	if (!se || fu < 0 || fs < 0)
		return NAN;
	if (rate)
		return (view_value(se, fu, v, true) + view_value(se, fs, v, true)) * 100.0;
	return last_value(v, se, fu) + last_value(v, se, fs);
}

/* Every column of row r from its series: proc of mem.proc, cpu of
 * proc.cpu, either NULL. PPU% and the thread rows are filled by
 * proc_rows.c, which sees all of them. */
void proc_row_values(const struct proc_ids *x, const struct view *v, struct proc_row *r,
		     const struct series *proc, const struct series *cpu)
{
	const struct series *gp =
	    x->gpurt_any ? store_series(v->store, (uint32_t)x->id[PS_GPURT], r->pid) : NULL;

	for (int c = 0; c < PC_N; c++)
		r->val[c] = NAN;
	r->val[PC_PID] = (double)r->pid;
	r->val[PC_STATE] = last_value(v, cpu, x->f[PC_STATE]);
	r->val[PC_NICE] = last_value(v, cpu, x->f[PC_NICE]);
	r->val[PC_CPU] = proc_cpu_value(v, cpu, x->f[PC_CPU], x->stime, true);
	r->val[PC_TIME] = proc_cpu_value(v, cpu, x->f[PC_TIME], x->stime, false);
	r->val[PC_RSS] = view_value(proc, x->f[PC_RSS], v, true);
	r->val[PC_HWM] = view_value(proc, x->f[PC_HWM], v, true);
	r->val[PC_THR] = view_value(proc, x->f[PC_THR], v, true);
	r->val[PC_MEMPCT] = x->total > 0 ? r->val[PC_RSS] / x->total * 100.0 : NAN;
	r->val[PC_DEVICE] = view_value(gp, x->f[PC_DEVICE], v, true);
	r->val[PC_PINNED] = view_value(gp, x->f[PC_PINNED], v, true);
	r->val[PC_ALLOC] = view_value(gp, x->f[PC_ALLOC], v, true);
	/* gpurt: a total, not a rate */
	r->val[PC_FAIL] = last_value(v, gp, x->f[PC_FAIL]);
}

/* htop's TIME+: "0:01.23" under an hour, "1h02:03" under 100 hours, "123h". */
void proc_fmt_time(char *buf, size_t n, double seconds)
{
	unsigned long long cs, s;

	if (isnan(seconds) || seconds < 0) {
		snprintf(buf, n, "n/a");
		return;
	}
	cs = (unsigned long long)(seconds * 100.0 + 0.5);
	s = cs / 100;
	if (s < 3600)
		snprintf(buf, n, "%llu:%02llu.%02llu", s / 60, s % 60, cs % 100);
	else if (s < 100 * 3600)
		snprintf(buf, n, "%lluh%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, n, "%lluh", s / 3600);
}

static void fmt_pct(char *buf, size_t n, double pct)
{
	if (isnan(pct))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.1f", pct);
}

/* A group row: what a sum says, blank where a sum says nothing; a thread
 * row: only what is the thread's own, its process's row has the rest. */
static bool cell_blank(const struct proc_row *r, int ci)
{
	if (r->flags & PR_GROUP)
		return ci == PC_USER || ci == PC_STATE || ci == PC_NICE || ci == PC_HWM;
	if (r->flags & PR_THREAD)
		return ci != PC_PID && ci != PC_USER && ci != PC_STATE && ci != PC_CPU &&
		       ci != PC_TIME && ci != PC_CONTAINER && ci != PC_COMMAND;
	return false;
}

void proc_fmt_cell(char *buf, size_t n, const struct proc_row *r, int ci)
{
	double x = r->val[ci];

	buf[0] = '\0';
	if (cell_blank(r, ci))
		return;
	switch (proc_cols[ci].kind) {
	case CK_PID:
		if (r->flags & PR_GROUP)
			snprintf(buf, n, "%u", r->nproc);
		else
			snprintf(buf, n, "%llu", (unsigned long long)r->pid);
		break;
	case CK_LABEL:
		snprintf(buf, n, "%s", r->label && *r->label ? r->label : "?");
		break;
	case CK_USER:
		snprintf(buf, n, "%s", r->user ? r->user : "?");
		break;
	case CK_CONTAINER:
		snprintf(buf, n, "%s", r->container ? r->container : "-");
		break;
	case CK_PPU: /* not among the PPU's processes: it uses none */
		snprintf(buf, n, "%s", isnan(x) ? "-" : "");
		if (!isnan(x))
			fmt_pct(buf, n, x);
		break;
	case CK_STATE:
		snprintf(buf, n, "%c", x >= 'A' && x <= 'z' && isalpha((int)x) ? (char)x : '?');
		break;
	case CK_NICE:
		snprintf(buf, n, isnan(x) ? "n/a" : "%.0f", x);
		break;
	case CK_CPU:
	case CK_MEMPCT:
		fmt_pct(buf, n, x);
		break;
	case CK_TIME:
		proc_fmt_time(buf, n, x);
		break;
	case CK_BYTES:
		util_fmt_bytes(buf, n, x);
		break;
	case CK_COUNT:
	case CK_FAIL:
		widget_fmt_count(buf, n, x);
		break;
	}
}

static const char *row_text(const struct proc_row *r, enum col_kind k)
{
	const char *t = k == CK_LABEL ? r->label : k == CK_USER ? r->user : r->container;

	return t ? t : "";
}

static int row_cmp(const void *a, const void *b, void *ctx)
{
	const struct proc_row *x = a, *y = b;
	const struct proc_pane *s = ctx;
	int id = s->sort_id, r = 0;
	enum col_kind k = proc_cols[id].kind;

	if (k == CK_LABEL || k == CK_USER || k == CK_CONTAINER) {
		r = strcasecmp(row_text(x, k), row_text(y, k));
	} else {
		double p = x->val[id], q = y->val[id];

		/* unknown sorts last whichever way */
		if (isnan(p) != isnan(q))
			return isnan(p) ? 1 : -1;
		r = isnan(p) ? 0 : p < q ? -1 : p > q;
	}
	if (s->sort_desc)
		r = -r;
	if (!r)
		r = x->pid < y->pid ? -1 : x->pid > y->pid;
	return r;
}

void proc_sort(struct proc_pane *s, struct proc_row *rows, size_t n)
{
	if (n > 1)
		qsort_r(rows, n, sizeof(*rows), row_cmp, s);
}
