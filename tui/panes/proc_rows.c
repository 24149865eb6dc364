/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "proc.h"
#include "store.h"
#include "stream.h"
#include "util.h"

/* The process table's rows for one frame, from the store alone: every
 * process of mem.proc, those only proc.cpu or gpurt.mem know, the threads
 * of proc.thread when asked, with their PPU utilisation summed over the
 * devices of ppu.proc_util; then filtered and ordered. */

int proc_grow(struct proc_pane *s, size_t need)
{
	struct proc_row *r, *t;
	uint64_t *e;

	if (need <= s->cap)
		return 0;
	r = realloc(s->rows, need * sizeof(*r));
	if (r)
		s->rows = r;
	t = realloc(s->tmp, need * sizeof(*t));
	if (t)
		s->tmp = t;
	e = realloc(s->ents, need * sizeof(*e));
	if (e)
		s->ents = e;
	if (!r || !t || !e)
		return -1;
	s->cap = s->ecap = need;
	return 0;
}

static struct proc_row *row_new(struct proc_pane *s, uint64_t pid)
{
	struct proc_row *r = &s->rows[s->nrows++];

	memset(r, 0, sizeof(*r));
	r->pid = pid;
	for (int c = 0; c < PC_N; c++)
		r->val[c] = NAN;
	return r;
}

static int pid_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct proc_row *)a)->pid, y = ((const struct proc_row *)b)->pid;

	return x < y ? -1 : x > y;
}

/* The row of pid among the first n, sorted by pid. */
static struct proc_row *row_find(struct proc_pane *s, size_t n, uint64_t pid)
{
	struct proc_row key = {.pid = pid};

	return n ? bsearch(&key, s->rows, n, sizeof(key), pid_cmp) : NULL;
}

/* The entities of a stream into s->ents, room made for `extra` more rows. */
static size_t entities(struct proc_pane *s, const struct view *v, int id, size_t extra)
{
	size_t n;

	if (id < 0)
		return 0;
	n = store_entities(v->store, (uint32_t)id, NULL, 0);
	if (!n || proc_grow(s, s->nrows + n + extra + 1) < 0)
		return 0;
	n = store_entities(v->store, (uint32_t)id, s->ents, s->ecap);
	return n < s->ecap - s->nrows ? n : s->ecap - s->nrows;
}

static int rate_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct proc_rate *)a)->key, y = ((const struct proc_rate *)b)->key;

	return x < y ? -1 : x > y;
}

/* The next entry of this load's CPU times; NULL when out of memory. Both
 * arrays keep one capacity, so that they can be swapped. */
static struct proc_rate *rate_next(struct proc_pane *s)
{
	if (s->nrate_next == s->rate_cap) {
		size_t cap = s->rate_cap ? s->rate_cap * 2 : 256;
		struct proc_rate *a = realloc(s->rate, cap * sizeof(*a)), *b;

		if (!a)
			return NULL;
		s->rate = a;
		b = realloc(s->rate_next, cap * sizeof(*b));
		if (!b)
			return NULL;
		s->rate_next = b;
		s->rate_cap = cap;
	}
	return &s->rate_next[s->nrate_next++];
}

/* CPU% of the series se (utime and stime at fu and fs) as of its newest
 * sample, the one TIME+ shows: the CPU time it added since the sample the
 * last frame showed, over the time between the two. A row seen for the
 * first time (or after a seek back) takes the change between its last two
 * samples. A view that ends before the newest sample (paused) shows the
 * mean over its window. */
static double rate_cpu(struct proc_pane *s, const struct view *v, uint64_t key,
		       const struct series *se, int fu, int fs)
{
	struct proc_rate want = {.key = key}, *old, *e;
	uint64_t ns;
	double t, last2;

	if (!se || fu < 0 || fs < 0)
		return NAN;
	ns = series_last_ns(se);
	if (v->end_ns && ns > v->end_ns)
		return proc_cpu_value(v, se, fu, fs, true);
	t = series_last(se, (uint32_t)fu) + series_last(se, (uint32_t)fs);
	last2 = (series_rate(se, (uint32_t)fu) + series_rate(se, (uint32_t)fs)) * 100.0;
	if (isnan(t) || !(e = rate_next(s)))
		return isnan(t) ? NAN : last2;
	old = s->nrate ? bsearch(&want, s->rate, s->nrate, sizeof(want), rate_cmp) : NULL;
	*e = (struct proc_rate){.key = key, .ns = ns, .time = t, .pct = last2};
	if (old && old->ns == ns)
		e->pct = old->pct;
	else if (old && old->ns < ns && t >= old->time)
		e->pct = (t - old->time) / ((double)(ns - old->ns) / 1e9) * 100.0;
	return e->pct;
}

/* This load's CPU times become the last frame's. */
static void rate_swap(struct proc_pane *s)
{
	struct proc_rate *tmp = s->rate;

	if (s->nrate_next > 1)
		qsort(s->rate_next, s->nrate_next, sizeof(*s->rate_next), rate_cmp);
	s->rate = s->rate_next;
	s->nrate = s->nrate_next;
	s->rate_next = tmp;
	s->nrate_next = 0;
}

static double attr(const struct series *se, int f)
{
	return se && f >= 0 ? series_last(se, (uint32_t)f) : NAN;
}

static void fill(struct proc_pane *s, const struct view *v, struct proc_row *r,
		 const struct series *proc)
{
	const struct proc_ids *x = &s->ids;
	const struct series *cpu =
	    x->id[PS_CPU] >= 0 ? store_series(v->store, (uint32_t)x->id[PS_CPU], r->pid) : NULL;
	double ppid = attr(proc, x->ppid);

	if (proc) {
		r->label = series_label(proc);
		r->user = proc_user_name(s, attr(proc, x->uid));
	}
	r->ppid = isnan(ppid) || ppid < 0 ? 0 : (uint64_t)ppid;
	r->start = attr(cpu, x->start);
	if (cpu) {
		r->container = series_label(cpu);
		if (r->container && !*r->container)
			r->container = NULL;
		if (attr(cpu, x->kthread) == 1)
			r->flags |= PR_KTHREAD;
		if (!r->label && (r->flags & PR_KTHREAD))
			r->label = "[kthread]";
	}
	if (r->container)
		s->any_container = true;
	/* a kernel thread the table hides is only counted (drop_hidden): most
	 * of a node's processes, their values are not worth a store lookup */
	if ((r->flags & PR_KTHREAD) && !s->kthreads)
		return;
	proc_row_values(x, v, r, proc, cpu);
	if (cpu)
		r->val[PC_CPU] = rate_cpu(s, v, r->pid, cpu, x->f[PC_CPU], x->stime);
}

/* mem.proc's processes, then those only proc.cpu lists, sorted by pid. */
static void load_procs(struct proc_pane *s, const struct view *v)
{
	int mid = s->ids.id[PS_MEM], cid = s->ids.id[PS_CPU], frss = s->ids.f[PC_RSS];
	size_t n = entities(s, v, mid, 0), base;

	for (size_t i = 0; i < n; i++) {
		const struct series *se = store_series(v->store, (uint32_t)mid, s->ents[i]);

		/* a process that started after a paused view's instant */
		if (!se || (v->end_ns && series_last_ns(se) > v->end_ns &&
			    (frss < 0 || isnan(view_value(se, frss, v, true)))))
			continue;
		fill(s, v, row_new(s, s->ents[i]), se);
	}
	qsort(s->rows, s->nrows, sizeof(*s->rows), pid_cmp);
	base = s->nrows;
	n = entities(s, v, cid, 0);
	for (size_t i = 0; i < n; i++) {
		const struct series *se = store_series(v->store, (uint32_t)cid, s->ents[i]);

		if (!se || row_find(s, base, s->ents[i]) ||
		    (v->end_ns && series_last_ns(se) > v->end_ns))
			continue;
		fill(s, v, row_new(s, s->ents[i]), NULL);
	}
	qsort(s->rows, s->nrows, sizeof(*s->rows), pid_cmp);
}

/* gpurt: processes holding runtime memory that no process stream lists
 * get a row too, named by the label gpurt.mem gives them. */
static void load_gpurt(struct proc_pane *s, const struct view *v)
{
	int id = s->ids.id[PS_GPURT];
	size_t base = s->nrows, n = entities(s, v, id, 0);

	for (size_t i = 0; i < n; i++) {
		const struct series *se = store_series(v->store, (uint32_t)id, s->ents[i]);
		struct proc_row *r;

		if (!se || row_find(s, base, s->ents[i]) ||
		    (v->end_ns && series_last_ns(se) > v->end_ns))
			continue;
		r = row_new(s, s->ents[i]);
		r->label = series_label(se);
		r->user = "?";
		proc_row_values(&s->ids, v, r, NULL, NULL);
	}
	qsort(s->rows, s->nrows, sizeof(*s->rows), pid_cmp);
}

/* PPU%: sm summed over the devices of each process (entity = device << 32 | pid). */
static void load_ppu(struct proc_pane *s, const struct view *v)
{
	int id = s->ids.id[PS_PPU], f = s->ids.f[PC_PPU];
	size_t n = f >= 0 ? entities(s, v, id, 0) : 0;

	for (size_t i = 0; i < n; i++) {
		struct proc_row *r = row_find(s, s->nrows, s->ents[i] & 0xffffffffu);
		uint64_t dev = s->ents[i] >> 32;
		double sm;

		if (!r)
			continue;
		sm = view_value(store_series(v->store, (uint32_t)id, s->ents[i]), f, v, true);
		if (dev < 64)
			r->devmask |= 1ull << dev;
		if (!isnan(sm))
			r->val[PC_PPU] = (isnan(r->val[PC_PPU]) ? 0 : r->val[PC_PPU]) + sm;
	}
}

/* H: a row per thread of proc.thread (but the main one, which is the
 * process), under its process in the tree. */
static void load_threads(struct proc_pane *s, const struct view *v)
{
	int id = s->ids.id[PS_THREAD];
	const struct stream_desc *d = id >= 0 ? stream_table_get(v->streams, (uint32_t)id) : NULL;
	int fst = catalogue_field_index(d, STREAM_PROC_THREAD, PROC_THREAD_STATE),
	    ftg = catalogue_field_index(d, STREAM_PROC_THREAD, PROC_THREAD_TGID);
	int fu = catalogue_field_index(d, STREAM_PROC_THREAD, PROC_THREAD_UTIME),
	    fs = catalogue_field_index(d, STREAM_PROC_THREAD, PROC_THREAD_STIME);
	size_t base = s->nrows, n = s->threads ? entities(s, v, id, 0) : 0;

	for (size_t i = 0; i < n; i++) {
		const struct series *se = store_series(v->store, (uint32_t)id, s->ents[i]);
		double tgid = attr(se, ftg);
		const struct proc_row *p;
		struct proc_row *r;

		if (!se || isnan(tgid) || (uint64_t)tgid == s->ents[i] ||
		    (v->end_ns && series_last_ns(se) > v->end_ns))
			continue;
		p = row_find(s, base, (uint64_t)tgid);
		r = row_new(s, s->ents[i]);
		r->flags = PR_THREAD | (p ? p->flags & PR_KTHREAD : 0);
		r->ppid = (uint64_t)tgid;
		r->label = series_label(se);
		r->user = p ? p->user : "?";
		r->container = p ? p->container : NULL;
		r->val[PC_PID] = (double)r->pid;
		r->val[PC_STATE] = attr(se, fst);
		r->val[PC_CPU] = rate_cpu(s, v, s->ents[i] | PROC_RATE_THREAD, se, fu, fs);
		r->val[PC_TIME] = proc_cpu_value(v, se, fu, fs, false);
	}
}

bool proc_row_matches(const struct proc_row *r, const char *text)
{
	if (!text || !*text)
		return true;
	return (r->label && strcasestr(r->label, text)) || (r->user && strcasestr(r->user, text)) ||
	       ((r->flags & PR_GROUP) && r->container && strcasestr(r->container, text));
}

/* Kernel threads unless K, and what the filter does not match. */
static void drop_hidden(struct proc_pane *s)
{
	size_t k = 0;

	s->hidden = 0;
	for (size_t i = 0; i < s->nrows; i++) {
		const struct proc_row *r = &s->rows[i];

		if (((r->flags & PR_KTHREAD) && !s->kthreads) || !proc_row_matches(r, s->filter)) {
			s->hidden++;
			continue;
		}
		s->rows[k++] = *r;
	}
	s->nrows = k;
}

void proc_load(struct proc_pane *s, const struct view *v)
{
	s->nrows = 0;
	s->nrate_next = 0;
	s->any_container = false;
	proc_ids_resolve(&s->ids, v);
	if (proc_grow(s, 64) < 0)
		return;
	load_procs(s, v);
	load_gpurt(s, v);
	load_ppu(s, v);
	load_threads(s, v);
	rate_swap(s);
	drop_hidden(s);
	proc_sort(s, s->rows, s->nrows);
	if (s->subtree)
		proc_subtree_only(s);
	s->nprocs = 0;
	for (size_t i = 0; i < s->nrows; i++)
		s->nprocs += !(s->rows[i].flags & PR_THREAD);
	if (s->grouped)
		proc_group(s);
	else if (s->tree)
		proc_tree_order(s);
}
