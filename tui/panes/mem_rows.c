/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "mem_rows.h"
#include "msglog.h"
#include "pane.h"
#include "proc.h"
#include "store.h"
#include "stream.h"
#include "util.h"
#include "widget.h"

/* The kept row of pid, or NULL. */
static const struct proc_row *kept_find(const struct proc_row *rows, size_t n, uint64_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].pid == pid)
			return &rows[i];
	return NULL;
}

/* A process about to go is a zombie first: no memory, its command line
 * gone ("[sh]"). What was known of it before stays. */
static void kept_merge(struct proc_row *r, struct mem_kept_row *t, const struct proc_row *old,
		       const struct mem_kept_row *old_text)
{
	for (int c = 0; c < MEM_NCOLS; c++)
		if (isnan(r->val[c]))
			r->val[c] = old->val[c];
	if (t->label[0] == '[' && old_text->label[0] != '[')
		memcpy(t->label, old_text->label, sizeof(t->label));
}

/* Copies row r (whose text the store may free) into slot i of k. */
static void kept_put(struct mem_kept *k, size_t i, const struct proc_row *r,
		     const struct mem_kept_row *text)
{
	struct mem_kept_row *t = &k->text[i];

	k->rows[i] = *r;
	if (text) {
		*t = *text;
	} else {
		util_strlcpy(t->label, r->label && *r->label ? r->label : "?", sizeof(t->label));
		util_strlcpy(t->user, r->user ? r->user : "?", sizeof(t->user));
		util_strlcpy(t->container, r->container ? r->container : "", sizeof(t->container));
		t->ended[0] = '\0';
	}
}

/* Whether pid is among the n rows. */
static bool rows_have(const struct proc_row *rows, size_t n, uint64_t pid)
{
	return kept_find(rows, n, pid) != NULL;
}

void mem_kept_save(struct mem_kept *k, const struct proc_row *rows, size_t n, uint64_t ns)
{
	struct proc_row *old = NULL;
	struct mem_kept_row *old_text = NULL;
	size_t nold = k->n;

	k->restored = false;
	if (!k->rows) {
		k->rows = calloc(MEM_KEPT_MAX, sizeof(*k->rows));
		k->text = calloc(MEM_KEPT_MAX, sizeof(*k->text));
		nold = 0;
	}
	if (!k->rows || !k->text) {
		k->n = 0;
		return;
	}
	if (nold) {
		old = malloc(nold * sizeof(*old));
		old_text = malloc(nold * sizeof(*old_text));
		if (old && old_text) {
			memcpy(old, k->rows, nold * sizeof(*old));
			memcpy(old_text, k->text, nold * sizeof(*old_text));
		} else {
			nold = 0;
		}
	}
	k->n = n < MEM_KEPT_MAX ? n : MEM_KEPT_MAX;
	k->ns = ns;
	for (size_t i = 0; i < k->n; i++) {
		struct mem_kept_row *t = &k->text[i];
		const struct proc_row *was;

		kept_put(k, i, &rows[i], NULL);
		was = nold ? kept_find(old, nold, rows[i].pid) : NULL;
		if (was)
			kept_merge(&k->rows[i], t, was, &old_text[was - old]);
	}
	/* the processes that left since (a job's children that ended before
	 * it) stay with their last figures, while there is room */
	for (size_t i = 0; i < nold && k->n < MEM_KEPT_MAX && n < MEM_KEPT_MAX; i++)
		if (!rows_have(rows, n, old[i].pid))
			kept_put(k, k->n++, &old[i], &old_text[i]);
	for (size_t i = 0; i < k->n; i++) {
		k->rows[i].label = k->text[i].label;
		k->rows[i].user = k->text[i].user;
		k->rows[i].container = k->text[i].container[0] ? k->text[i].container : NULL;
		k->rows[i].ended = k->text[i].ended[0] ? k->text[i].ended : NULL;
	}
	free(old);
	free(old_text);
}

size_t mem_kept_restore(struct mem_kept *k, struct proc_row *out, uint64_t ns)
{
	if (ns < k->ns)
		k->n = 0;
	k->restored = k->n > 0;
	for (size_t i = 0; i < k->n; i++) {
		out[i] = k->rows[i];
		/* it no longer runs (ps(1)'s X, dead); TIME+ is its total */
		out[i].val[PC_STATE] = 'X';
		out[i].val[PC_CPU] = 0;
	}
	return k->n;
}

/* "exit 3" or "signal 9" from the collector's "NAME (pid N) exited with
 * status 3" or "..., killed by signal 9 (Killed)"; false for other texts. */
static bool ended_of(const char *text, char *out, size_t n)
{
	const char *p;
	int x;

	if ((p = strstr(text, ") exited with status ")) &&
	    sscanf(p, ") exited with status %d", &x) == 1)
		snprintf(out, n, "exit %d", x);
	else if ((p = strstr(text, ") exited, killed by signal ")) &&
		 sscanf(p, ") exited, killed by signal %d", &x) == 1)
		snprintf(out, n, "signal %d", x);
	else
		return false;
	return true;
}

void mem_kept_ended(struct mem_kept *k, const struct view *v)
{
	int id = stream_table_find(v->streams, catalogue_name(STREAM_MEM_PROC));
	const struct msglog *l = store_msglog(v->store);
	size_t n = msglog_count(l);

	for (size_t i = 0; i < k->n && id >= 0; i++) {
		struct mem_kept_row *t = &k->text[i];

		/* the newest word on the pid: a pid may have served before */
		for (size_t j = n; j-- > 0 && !t->ended[0];) {
			const struct msglog_entry *e = msglog_get(l, j);

			if (e && e->stream == (uint32_t)id && e->entity == k->rows[i].pid)
				ended_of(e->text, t->ended, sizeof(t->ended));
		}
		k->rows[i].ended = t->ended[0] ? t->ended : NULL;
	}
}

void mem_kept_free(struct mem_kept *k)
{
	free(k->rows);
	free(k->text);
	memset(k, 0, sizeof(*k));
}

/* gpurt: "3 5.0T 12s ago": failed allocations, the size last asked for and
 * how long ago, from gpurt.mem. */
void mem_fmt_fail(char *buf, size_t n, const struct view *v, uint64_t pid, double fails)
{
	int id = stream_table_find(v->streams, catalogue_name(STREAM_GPURT_MEM));
	const struct stream_desc *d = id >= 0 ? stream_table_get(v->streams, (uint32_t)id) : NULL;
	const struct series *se = d ? store_series(v->store, (uint32_t)id, pid) : NULL;
	int fs = catalogue_field_index(d, STREAM_GPURT_MEM, GPURT_MEM_LAST_FAIL_SIZE);
	int ft = catalogue_field_index(d, STREAM_GPURT_MEM, GPURT_MEM_LAST_FAIL_NS);
	double size = se && fs >= 0 ? series_last(se, (uint32_t)fs) : NAN;
	double at = se && ft >= 0 ? series_last(se, (uint32_t)ft) : NAN;
	char c[16], b[16], a[16];

	widget_fmt_count(c, sizeof(c), fails);
	if (isnan(fails) || fails <= 0 || isnan(size)) {
		snprintf(buf, n, "%s", c);
		return;
	}
	util_fmt_bytes(b, sizeof(b), size);
	double age = isnan(at) || (double)v->end_ns < at ? NAN : ((double)v->end_ns - at) / 1e9;
	if (isnan(age))
		snprintf(a, sizeof(a), "?");
	else if (age < 120)
		snprintf(a, sizeof(a), "%.0fs", age);
	else if (age < 7200)
		snprintf(a, sizeof(a), "%.0fm", age / 60);
	else
		snprintf(a, sizeof(a), "%.0fh", age / 3600);
	snprintf(buf, n, "%s %s %s ago", c, b, a);
}
