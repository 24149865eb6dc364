/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"
#include "util.h"

/* The orders of the process table beyond a sort: a tree by parent (t),
 * one process's subtree (c), and a row per container or job (G). Each
 * works on s->rows, already sorted, through s->tmp. */

static int idx_cmp(const void *a, const void *b, void *ctx)
{
	const struct proc_row *rows = ctx;
	uint64_t x = rows[*(const size_t *)a].pid, y = rows[*(const size_t *)b].pid;

	return x < y ? -1 : x > y;
}

/* parent[i]: the index of row i's parent among the rows, or SIZE_MAX. */
static size_t *parents(const struct proc_row *rows, size_t n)
{
	size_t *byp = malloc(n * sizeof(*byp)), *par = malloc(n * sizeof(*par));

	if (!byp || !par) {
		free(byp);
		free(par);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		byp[i] = i;
	qsort_r(byp, n, sizeof(*byp), idx_cmp, (void *)rows);
	for (size_t i = 0; i < n; i++) {
		size_t lo = 0, hi = n;

		par[i] = SIZE_MAX;
		while (lo < hi && rows[i].ppid && rows[i].ppid != rows[i].pid) {
			size_t mid = (lo + hi) / 2;
			uint64_t p = rows[byp[mid]].pid;

			if (p == rows[i].ppid) {
				par[i] = byp[mid];
				break;
			}
			if (p < rows[i].ppid)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	free(byp);
	return par;
}

bool proc_collapsed(const struct proc_pane *s, uint64_t pid)
{
	for (int i = 0; i < s->ncollapsed; i++)
		if (s->collapsed[i] == pid)
			return true;
	return false;
}

void proc_collapse_set(struct proc_pane *s, uint64_t pid, bool on)
{
	for (int i = 0; i < s->ncollapsed; i++)
		if (s->collapsed[i] == pid) {
			if (!on)
				s->collapsed[i] = s->collapsed[--s->ncollapsed];
			return;
		}
	if (on && s->ncollapsed < PROC_COLLAPSED_MAX)
		s->collapsed[s->ncollapsed++] = pid;
}

struct walk {
	struct proc_pane *s;
	size_t *first, *next, *par, *outidx;
	bool *seen;
	size_t out;
};

/* A folded row's descendants: seen, not shown. */
static void hide_below(struct walk *w, size_t root, size_t *stack)
{
	size_t sp = 0;

	stack[sp++] = root;
	while (sp) {
		size_t i = stack[--sp];

		for (size_t c = w->first[i]; c != SIZE_MAX; c = w->next[c])
			if (!w->seen[c]) {
				w->seen[c] = true;
				stack[sp++] = c;
			}
	}
}

/* Row i and its descendants, depth first, children in the sort's order.
 * An explicit stack: a fixture or a recording may nest deep. */
static void walk_from(struct walk *w, size_t root, size_t *stack)
{
	const struct proc_row *rows = w->s->rows;
	size_t sp = 0;

	stack[sp++] = root;
	while (sp) {
		size_t i = stack[--sp];
		struct proc_row *o;
		size_t p = w->par[i];

		if (w->seen[i]) /* a cycle of parents */
			continue;
		o = &w->s->tmp[w->out++];
		w->seen[i] = true;
		*o = rows[i];
		o->depth = 0;
		o->branches = 0;
		o->flags &= (uint16_t) ~(PR_LAST | PR_KIDS | PR_COLLAPSED);
		w->outidx[i] = w->out - 1;
		if (p != SIZE_MAX && w->seen[p]) {
			/* the parent was written before */
			const struct proc_row *po = &w->s->tmp[w->outidx[p]];

			o->depth = po->depth < UINT16_MAX ? po->depth + 1 : po->depth;
			o->branches = po->branches;
			if (po->depth && po->depth <= 32 && !(po->flags & PR_LAST))
				o->branches |= 1u << (po->depth - 1);
		}
		if (w->next[i] == SIZE_MAX)
			o->flags |= PR_LAST;
		if (w->first[i] != SIZE_MAX)
			o->flags |= PR_KIDS;
		if ((o->flags & PR_KIDS) && proc_collapsed(w->s, o->pid)) {
			o->flags |= PR_COLLAPSED;
			hide_below(w, i, stack + sp);
			continue;
		}
		/* push the children last first, so the first comes out first */
		size_t kids = 0, at;

		for (size_t c = w->first[i]; c != SIZE_MAX; c = w->next[c])
			kids += !w->seen[c];
		sp += kids;
		at = sp;
		for (size_t c = w->first[i]; c != SIZE_MAX; c = w->next[c])
			if (!w->seen[c])
				stack[--at] = c;
	}
}

/* A tree by ppid: roots in the sort's order, each followed by its children. */
void proc_tree_order(struct proc_pane *s)
{
	size_t n = s->nrows;
	struct walk w = {.s = s};
	size_t *stack = malloc((n + 1) * sizeof(*stack));

	w.par = parents(s->rows, n);
	w.first = malloc((n + 1) * sizeof(size_t));
	w.next = malloc((n + 1) * sizeof(size_t));
	w.outidx = malloc((n + 1) * sizeof(size_t));
	w.seen = calloc(n + 1, sizeof(bool));
	if (!stack || !w.par || !w.first || !w.next || !w.outidx || !w.seen)
		goto out;
	for (size_t i = 0; i < n; i++)
		w.first[i] = w.next[i] = SIZE_MAX;
	/* backwards, so each list of children keeps the sort's order */
	for (size_t i = n; i-- > 0;)
		if (w.par[i] != SIZE_MAX) {
			w.next[i] = w.first[w.par[i]];
			w.first[w.par[i]] = i;
		}
	for (size_t i = 0; i < n; i++)
		if (w.par[i] == SIZE_MAX)
			walk_from(&w, i, stack);
	/* a cycle of parents (hostile data) has no root: its rows go last */
	for (size_t i = 0; i < n; i++)
		if (!w.seen[i]) {
			w.par[i] = SIZE_MAX;
			walk_from(&w, i, stack);
		}
	memcpy(s->rows, s->tmp, w.out * sizeof(*s->rows));
	s->nrows = w.out;
out:
	free(stack);
	free(w.par);
	free(w.first);
	free(w.next);
	free(w.outidx);
	free(w.seen);
}

/* c: the chosen process and its descendants, in the current order. */
void proc_subtree_only(struct proc_pane *s)
{
	size_t n = s->nrows, k = 0;
	size_t *par = parents(s->rows, n);

	if (!par)
		return;
	for (size_t i = 0; i < n; i++) {
		size_t j = i;

		/* bounded: a cycle of parents must end */
		for (size_t hop = 0; j != SIZE_MAX && hop <= n; hop++) {
			if (s->rows[j].pid == s->subtree) {
				s->tmp[k++] = s->rows[i];
				break;
			}
			j = par[j];
		}
	}
	memcpy(s->rows, s->tmp, k * sizeof(*s->rows));
	s->nrows = k;
	free(par);
}

static int str_cmp_null(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) : (a != NULL) - (b != NULL);
}

static void add_known(double *sum, double x)
{
	if (!isnan(x))
		*sum = (isnan(*sum) ? 0 : *sum) + x;
}

/* G: a row per CONTAINER label (one for the processes without one), its
 * columns the sums of its processes'; sorted like processes. */
void proc_group(struct proc_pane *s)
{
	size_t ng = 0;

	for (size_t i = 0; i < s->nrows; i++) {
		const struct proc_row *r = &s->rows[i];
		struct proc_row *g = NULL;

		if (r->flags & PR_THREAD) /* its process holds it already */
			continue;
		for (size_t k = 0; k < ng && !g; k++)
			if (!str_cmp_null(s->tmp[k].container, r->container))
				g = &s->tmp[k];
		if (!g) {
			g = &s->tmp[ng++];
			memset(g, 0, sizeof(*g));
			for (int c = 0; c < PC_N; c++)
				g->val[c] = NAN;
			g->flags = PR_GROUP;
			g->container = r->container;
			g->pid = ng; /* a stable key for the selection */
			g->label = r->container ? r->container : "(no container)";
		}
		g->nproc++;
		g->devmask |= r->devmask;
		for (int c = PC_CPU; c < PC_CONTAINER; c++)
			if (c != PC_HWM && c != PC_STATE && c != PC_NICE)
				add_known(&g->val[c], r->val[c]);
	}
	for (size_t k = 0; k < ng; k++)
		s->tmp[k].val[PC_PID] = s->tmp[k].nproc;
	memcpy(s->rows, s->tmp, ng * sizeof(*s->rows));
	s->nrows = ng;
	proc_sort(s, s->rows, s->nrows);
}

/* "│ ├─" for a row at depth 2 whose parent has a sibling below. */
void proc_tree_prefix(const struct view *v, const struct proc_row *r, char *buf, size_t n)
{
	size_t off = 0;
	const char *bar = v->utf8 ? "\u2502  " : "|  ";
	const char *mid = v->utf8 ? "\u251c\u2500" : "|-";
	const char *end = v->utf8 ? "\u2514\u2500" : "`-";

	buf[0] = '\0';
	for (int d = 1; d < r->depth && off + 8 < n; d++)
		off += (size_t)snprintf(buf + off, n - off, "%s",
					d - 1 < 32 && (r->branches >> (d - 1) & 1) ? bar : "   ");
	if (r->depth && off + 8 < n)
		off += (size_t)snprintf(buf + off, n - off, "%s", r->flags & PR_LAST ? end : mid);
	if ((r->flags & PR_COLLAPSED) && off + 3 < n)
		snprintf(buf + off, n - off, "+");
	else if (r->depth && off + 2 < n)
		snprintf(buf + off, n - off, " ");
}
