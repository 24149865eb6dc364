#include "config.h"

#include <ctype.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proc.h"
#include "store.h"
#include "stream.h"
#include "util.h"

/* The process table's columns. A column is a table entry naming the stream
 * and field it shows; a column whose stream or field is not registered is
 * not shown. Narrow panes drop the columns of the highest `drop` first:
 * FAIL, ALLOC/s, PINNED, THR, HWM, NI, S, CONTAINER, MEM%, USER, TIME+,
 * DEVICE, PPU%; PID, CPU%, RSS and COMMAND stay. */
const struct proc_col proc_cols[PC_N] = {
    [PC_PID] = {{"PID", 7, true}, NULL, NULL, CK_PID, 0},
    [PC_USER] = {{"USER", 8, false}, "mem.proc", "uid", CK_USER, 9},
    [PC_STATE] = {{"S", 1, false}, "proc.cpu", "state", CK_STATE, 12},
    [PC_NICE] = {{"NI", 3, true}, "proc.cpu", "nice", CK_NICE, 13},
    [PC_CPU] = {{"CPU%", 5, true}, "proc.cpu", "utime", CK_CPU, 0},
    [PC_TIME] = {{"TIME+", 9, true}, "proc.cpu", "utime", CK_TIME, 8},
    [PC_RSS] = {{"RSS", 6, true}, "mem.proc", "rss", CK_BYTES, 0},
    [PC_HWM] = {{"HWM", 6, true}, "mem.proc", "hwm", CK_BYTES, 14},
    [PC_MEMPCT] = {{"MEM%", 5, true}, "mem.sys", "total", CK_MEMPCT, 10},
    [PC_THR] = {{"THR", 4, true}, "mem.proc", "threads", CK_COUNT, 15},
    [PC_PPU] = {{"PPU%", 5, true}, "ppu.proc_util", "sm", CK_PPU, 6},
    /* gpurt: runtime probes (shown only once some process used the runtime) */
    [PC_DEVICE] = {{"DEVICE", 7, true}, "gpurt.mem", "device_bytes", CK_BYTES, 7},
    [PC_PINNED] = {{"PINNED", 7, true}, "gpurt.mem", "pinned_bytes", CK_BYTES, 16},
    [PC_ALLOC] = {{"ALLOC/s", 7, true}, "gpurt.mem", "allocs", CK_COUNT, 17},
    [PC_FAIL] = {{"FAIL", 15, true}, "gpurt.mem", "fails", CK_FAIL, 18},
    [PC_CONTAINER] = {{"CONTAINER", 20, false}, "proc.cpu", "utime", CK_CONTAINER, 11},
    [PC_COMMAND] = {{"COMMAND", 0, false}, NULL, NULL, CK_LABEL, 0},
};

#define COMMAND_MIN 12

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

static bool field_known(const struct view *v, const char *stream, const char *field)
{
	int id = stream_table_find(v->streams, stream);

	return id >= 0 &&
	       stream_field_index(stream_table_get(v->streams, (uint32_t)id), field) >= 0;
}

/* Whether column ci has something to show: a recording may lack a stream or
 * a field, and a column of n/a says nothing. */
bool proc_col_present(const struct proc_pane *s, const struct view *v, int ci)
{
	const struct proc_col *c = &proc_cols[ci];

	if (!c->stream)
		return true;
	if (!field_known(v, c->stream, c->field))
		return false;
	switch (c->kind) {
	case CK_CPU:
	case CK_TIME:
		return field_known(v, c->stream, "stime");
	case CK_MEMPCT:
		return field_known(v, "mem.proc", "rss");
	case CK_CONTAINER:
		return s->any_container;
	default:
		break;
	}
	/* gpurt: the runtime columns only once some process has used the
	 * runtime, not four columns of n/a */
	if (!strcmp(c->stream, "gpurt.mem"))
		return store_entities(v->store, (uint32_t)stream_table_find(v->streams, c->stream),
				      NULL, 0) > 0;
	return true;
}

/* Which columns fit: drop the optional ones, highest first, until COMMAND
 * keeps COMMAND_MIN columns. */
void proc_choose_columns(struct proc_pane *s, const struct view *v, int cols)
{
	bool on[PC_N];
	int used = 0;

	for (int i = 0; i < PC_N; i++) {
		on[i] = proc_col_present(s, v, i);
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
	for (int i = 0; i < PC_N; i++) {
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

/* utime + stime of a proc.cpu or proc.thread series: per second over the
 * view's window (rate), or so far. */
static double cpu_sum(const struct view *v, const struct series *se, const struct stream_desc *d,
		      bool rate)
{
	int fu = stream_field_index(d, "utime"), fs = stream_field_index(d, "stime");

	if (!se || fu < 0 || fs < 0)
		return NAN;
	if (rate)
		return (view_value(se, fu, v, true) + view_value(se, fs, v, true)) * 100.0;
	return last_value(v, se, fu) + last_value(v, se, fs);
}

/* A field of stream `stream` for entity pid. */
static double stream_value(const struct view *v, const char *stream, const char *field,
			   uint64_t pid, int how)
{
	int id = stream_table_find(v->streams, stream);
	const struct stream_desc *d;
	const struct series *se;

	if (id < 0)
		return NAN;
	d = stream_table_get(v->streams, (uint32_t)id);
	se = store_series(v->store, (uint32_t)id, pid);
	if (how == CK_CPU || how == CK_TIME)
		return cpu_sum(v, se, d, how == CK_CPU);
	if (how == CK_STATE || how == CK_NICE)
		return last_value(v, se, stream_field_index(d, field));
	return view_value(se, stream_field_index(d, field), v, true);
}

/* Column ci of process pid; proc is its mem.proc series when known. PPU%
 * and the thread rows are filled by proc_rows.c, which sees all of them. */
double proc_col_value(const struct view *v, int ci, uint64_t pid, const struct series *proc)
{
	const struct proc_col *c = &proc_cols[ci];
	const struct stream_desc *d;
	int id;

	switch (c->kind) {
	case CK_PID:
		return (double)pid;
	case CK_LABEL:
	case CK_USER:
	case CK_PPU:
	case CK_CONTAINER:
		return NAN;
	case CK_CPU:
	case CK_TIME:
	case CK_STATE:
	case CK_NICE:
		return stream_value(v, c->stream, c->field, pid, (int)c->kind);
	case CK_MEMPCT: {
		double total = stream_value(v, "mem.sys", "total", 0, CK_BYTES);
		double rss = proc_col_value(v, PC_RSS, pid, proc);

		return total > 0 ? rss / total * 100.0 : NAN;
	}
	default:
		break;
	}
	id = stream_table_find(v->streams, c->stream);
	if (id < 0)
		return NAN;
	if (strcmp(c->stream, "mem.proc") || !proc)
		proc = store_series(v->store, (uint32_t)id, pid);
	d = stream_table_get(v->streams, (uint32_t)id);
	if (c->kind == CK_FAIL) /* gpurt: a total, not a rate */
		return last_value(v, proc, stream_field_index(d, c->field));
	return view_value(proc, stream_field_index(d, c->field), v, true);
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

/* A group row: what a sum says, blank where a sum says nothing. */
static bool group_blank(int ci)
{
	return ci == PC_USER || ci == PC_STATE || ci == PC_NICE || ci == PC_HWM;
}

void proc_fmt_cell(char *buf, size_t n, const struct proc_row *r, int ci)
{
	double x = r->val[ci];

	buf[0] = '\0';
	if ((r->flags & PR_GROUP) && group_blank(ci))
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
