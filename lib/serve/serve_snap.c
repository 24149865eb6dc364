/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "serve_int.h"
#include "util.h"

/* Room for n more values; false when memory runs out. */
static bool serve_vals_grow(struct serve_snap *s, size_t n)
{
	size_t cap = s->capvals ? s->capvals : 1024;
	double *v;

	if (s->nvals + n <= s->capvals)
		return true;
	while (cap < s->nvals + n)
		cap *= 2;
	v = realloc(s->vals, cap * sizeof(*v));
	if (!v)
		return false;
	s->vals = v;
	s->capvals = cap;
	return true;
}

/* One series' values: the last of each field, then, with a window, the
 * window's mean and max (for counters the rates: the max is the peak over
 * windows of at least the sampling period, store_peak.h). */
static bool serve_copy_row(struct serve_snap *s, struct serve_stream *st, const struct series *se,
			   struct serve_row *r, uint64_t end_ns, uint64_t window_ns, int rank)
{
	uint32_t nf = st->d->nfields;
	const char *label = series_label(se);

	double *v;

	if (!serve_vals_grow(s, (size_t)st->nsets * nf))
		return false;
	r->val = s->nvals;
	v = s->vals + r->val;
	s->nvals += (size_t)st->nsets * nf;
	r->has_label = label != NULL;
	util_strlcpy(r->label, label ? label : "", sizeof(r->label));
	for (uint32_t f = 0; f < nf; f++) {
		struct field_stats fs;

		v[f] = series_last(se, f);
		if (st->set_rate)
			v[(size_t)st->set_rate * nf + f] =
			    st->d->fields[f].kind == FIELD_COUNTER ? series_rate(se, f) : NAN;
		if (!st->window)
			continue;
		series_window(se, f, end_ns, window_ns, &fs);
		v[(size_t)st->set_avg * nf + f] = fs.avg;
		v[(size_t)st->set_max * nf + f] = fs.max;
	}
	r->rank = rank >= 0 ? v[rank] : NAN;
	return true;
}

/* A stream's series; under the lock. */
static bool serve_copy_stream(struct store *store, struct serve_snap *s, struct serve_stream *st,
			      uint64_t *ents, uint64_t end_ns, uint64_t window_ns)
{
	size_t n = store_entities(store, st->id, ents, STORE_ENTITIES_MAX);
	const char *status = store_status(store, st->id, STATUS_STREAM);
	int rank = st->rule->ranked ? serve_rule_field(st->rule, st->d, st->rule->rank) : -1;

	if (status) {
		st->has_status = true;
		util_strlcpy(st->status, status, sizeof(st->status));
	}
	if (n > STORE_ENTITIES_MAX)
		n = STORE_ENTITIES_MAX;
	st->rows = calloc(n ? n : 1, sizeof(*st->rows));
	if (!st->rows)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct series *se = store_series(store, st->id, ents[i]);
		struct serve_row *r = &st->rows[st->nrows];

		if (!se)
			continue;
		r->entity = ents[i];
		if (!serve_copy_row(s, st, se, r, end_ns, window_ns, rank))
			return false;
		st->nrows++;
	}
	return true;
}

static int serve_rank_cmp(const void *a, const void *b)
{
	const struct serve_row *x = a, *y = b;
	double u = isnan(x->rank) ? -1 : x->rank, v = isnan(y->rank) ? -1 : y->rank;

	if (u != v)
		return u > v ? -1 : 1;
	return x->entity < y->entity ? -1 : x->entity > y->entity;
}

/* Per-process streams: none, or the top N by the rule's size column,
 * chosen after the lock is let go. */
static void serve_select(struct serve_stream *st, size_t keep)
{
	if (!st->rule->per_process || keep == SIZE_MAX)
		return;
	if (keep < st->nrows) {
		qsort(st->rows, st->nrows, sizeof(*st->rows), serve_rank_cmp);
		st->nrows = keep;
	}
}

static bool serve_snap_fill(struct serve_snap *s, struct store *store, const struct stream_table *t,
			    const struct serve_snap_opts *o, uint64_t *ents)
{
	uint64_t end_ns = store_latest_ns(store), k;

	s->bucket_ns = store_bucket_ns(store);
	/* whole buckets, at least one, at most what the store keeps fine */
	k = s->bucket_ns ? o->window_ns / s->bucket_ns : 1;
	k = k < 1 ? 1 : k > STORE_FINE_BUCKETS ? STORE_FINE_BUCKETS : k;
	s->window_s = (double)k * (double)s->bucket_ns / 1e9;
	for (size_t i = 0; i < s->nstreams; i++) {
		struct serve_stream *st = &s->streams[i];

		if (st->rule->per_process && !o->processes)
			continue;
		if (!serve_copy_stream(store, s, st, ents, end_ns, (uint64_t)(s->window_s * 1e9)))
			return false;
	}
	return true;
}

struct serve_snap *serve_snap_take(struct store *store, const struct stream_table *t,
				   const struct serve_snap_opts *o)
{
	struct serve_snap *s = calloc(1, sizeof(*s));
	uint64_t *ents = malloc(STORE_ENTITIES_MAX * sizeof(*ents));
	uint32_t n = stream_table_count(t);
	bool ok;

	if (!s || !ents)
		goto fail;
	s->streams = calloc(n ? n : 1, sizeof(*s->streams));
	if (!s->streams)
		goto fail;
	for (uint32_t i = 0; i < n; i++) {
		struct serve_stream *st = &s->streams[s->nstreams];

		st->d = stream_table_get(t, i);
		if (!st->d)
			continue;
		st->id = i;
		st->rule = serve_rule_for(st->d->name);
		st->window = st->rule->window || st->rule->peaks;
		st->nsets = 1;
		if (o->rates)
			st->set_rate = st->nsets++;
		if (st->window) {
			st->set_avg = st->nsets++;
			st->set_max = st->nsets++;
		}
		s->nstreams++;
	}
	store_lock(store);
	ok = serve_snap_fill(s, store, t, o, ents);
	store_unlock(store);
	if (!ok)
		goto fail;
	for (size_t i = 0; i < s->nstreams; i++)
		serve_select(&s->streams[i], o->processes);
	free(ents);
	return s;
fail:
	free(ents);
	serve_snap_free(s);
	return NULL;
}

void serve_snap_free(struct serve_snap *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nstreams; i++)
		free(s->streams[i].rows);
	free(s->streams);
	free(s->vals);
	free(s);
}
