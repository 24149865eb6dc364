/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "khash.h"
#include "store.h"
#include "store_int.h"

/* chained buckets: a series never moves, panes hold its pointer */
static size_t hash_key(uint32_t stream, uint64_t entity, size_t size)
{
	return (size_t)khash_pair(stream, entity) & (size - 1);
}

struct store *store_new(const struct stream_table *t, uint64_t bucket_ns)
{
	struct store *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->hsize = 1024;
	s->hash = calloc(s->hsize, sizeof(*s->hash));
	s->log = msglog_new();
	if (!s->hash || !s->log) {
		free(s->hash);
		msglog_free(s->log);
		free(s);
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->t = t;
	s->bucket_ns = bucket_ns ? bucket_ns : 1000000000ull;
	return s;
}

static void series_free(struct series *se)
{
	if (!se)
		return;
	free(se->label);
	free(se->status);
	free(se->last);
	free(se->rate);
	free(se->pw);
	free(se->open);
	free(se->hidx);
	free(se->fine_tag);
	free(se->fine);
	free(se->copen);
	free(se->coarse_tag);
	free(se->coarse);
	free(se->flat);
	free(se);
}

/* Frees a series and gives its history back to the budget. */
static void series_drop(struct store *s, struct series *se)
{
	if (se)
		store_hist_free(s, se);
	series_free(se);
}

static void store_drop_all(struct store *s)
{
	for (size_t i = 0; i < s->hsize; i++) {
		struct series *se = s->hash[i], *nx;

		for (; se; se = nx) {
			nx = se->hnext;
			series_drop(s, se);
		}
		s->hash[i] = NULL;
	}
	for (size_t i = 0; i < STREAM_MAX; i++) {
		free(s->streams[i].list);
		free(s->streams[i].status);
		memset(&s->streams[i], 0, sizeof(s->streams[i]));
	}
	s->count = 0;
	s->latest_ns = 0;
	s->hist_bytes = 0;
	s->dropped = 0;
}

void store_free(struct store *s)
{
	if (!s)
		return;
	store_drop_all(s);
	free(s->hash);
	msglog_free(s->log);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

void store_clear(struct store *s)
{
	pthread_mutex_lock(&s->lock);
	store_drop_all(s);
	pthread_mutex_unlock(&s->lock);
}

void store_lock(struct store *s)
{
	pthread_mutex_lock(&s->lock);
}

void store_unlock(struct store *s)
{
	pthread_mutex_unlock(&s->lock);
}

/* A new series holds its latest values and open bucket; its history rings
 * come with its first closed bucket that differs from the one before it
 * (store_hist.c), so entities that never get past one refresh (a flood of
 * one-sample entities) or never change (an idle process) cost only this. */
static struct series *series_new(const struct stream_desc *d, uint32_t stream, uint64_t entity)
{
	struct series *se = calloc(1, sizeof(*se));
	uint32_t nf = d->nfields ? d->nfields : 1;

	if (!se)
		return NULL;
	se->stream = stream;
	se->entity = entity;
	se->nf = d->nfields;
	se->fields = d->fields;
	se->open_idx = -1;
	se->first_idx = -1;
	se->coarse_open = -1;
	se->last = malloc(nf * sizeof(double));
	se->rate = malloc(nf * sizeof(double));
	se->open = malloc(nf * sizeof(struct acc));
	se->pw = calloc(nf, sizeof(struct peak_win));
	se->hidx = malloc(nf * sizeof(*se->hidx));
	if (!se->last || !se->rate || !se->open || !se->pw || !se->hidx) {
		series_free(se);
		return NULL;
	}
	/* an attribute (a uid, a PCIe generation) needs no history: a process
	 * table's series are mostly attributes, and every process has them */
	for (uint32_t i = 0; i < nf; i++)
		se->hidx[i] = i < se->nf && se->fields[i].kind == FIELD_ATTR ? STORE_NO_HIST
									     : (uint16_t)se->hnf++;
	for (uint32_t i = 0; i < nf; i++)
		se->last[i] = se->rate[i] = NAN;
	store_acc_reset(se->open, nf);
	se->period_ns = peak_period_ns(d->rate_hz);
	se->period_known = se->period_ns > 0;
	se->fine_max = d->entity == ENTITY_PID ? STORE_PID_FINE_BUCKETS : STORE_FINE_BUCKETS;
	se->coarse_max = d->entity == ENTITY_PID ? STORE_PID_COARSE_BUCKETS : STORE_COARSE_BUCKETS;
	return se;
}

struct series *store_lookup(const struct store *s, uint32_t stream, uint64_t entity)
{
	struct series *se = s->hash[hash_key(stream, entity, s->hsize)];

	while (se && (se->stream != stream || se->entity != entity))
		se = se->hnext;
	return se;
}

static void store_rehash(struct store *s)
{
	size_t nsize = s->hsize * 2;
	struct series **nh = calloc(nsize, sizeof(*nh));

	if (!nh)
		return; /* longer chains, still correct */
	for (size_t i = 0; i < s->hsize; i++) {
		struct series *se = s->hash[i], *nx;

		for (; se; se = nx) {
			size_t k = hash_key(se->stream, se->entity, nsize);

			nx = se->hnext;
			se->hnext = nh[k];
			nh[k] = se;
		}
	}
	free(s->hash);
	s->hash = nh;
	s->hsize = nsize;
}

static struct series *store_get(struct store *s, uint32_t stream, uint64_t entity)
{
	const struct stream_desc *d = stream_table_get(s->t, stream);
	struct stream_slot *slot;
	struct series *se;
	size_t k;

	if (!d || stream >= STREAM_MAX)
		return NULL;
	se = store_lookup(s, stream, entity);
	if (se)
		return se;
	slot = &s->streams[stream];
	if (slot->n >= STORE_ENTITIES_MAX || s->count >= STORE_SERIES_MAX) {
		s->dropped++;
		return NULL;
	}
	if (slot->n == slot->cap) {
		size_t cap = slot->cap ? slot->cap * 2 : 16;
		struct series **nl = realloc(slot->list, cap * sizeof(*nl));

		if (!nl)
			return NULL;
		slot->list = nl;
		slot->cap = cap;
	}
	se = series_new(d, stream, entity);
	if (!se)
		return NULL;
	se->bucket_ns = s->bucket_ns;
	slot->list[slot->n++] = se;
	k = hash_key(stream, entity, s->hsize);
	se->hnext = s->hash[k];
	s->hash[k] = se;
	if (++s->count > s->hsize)
		store_rehash(s);
	return se;
}

static void store_remove(struct store *s, uint32_t stream, uint64_t entity)
{
	struct stream_slot *slot;
	struct series **pp;

	if (stream >= STREAM_MAX)
		return;
	pp = &s->hash[hash_key(stream, entity, s->hsize)];
	while (*pp && ((*pp)->stream != stream || (*pp)->entity != entity))
		pp = &(*pp)->hnext;
	if (!*pp)
		return;
	slot = &s->streams[stream];
	for (size_t i = 0; i < slot->n; i++) {
		if (slot->list[i] == *pp) {
			memmove(&slot->list[i], &slot->list[i + 1],
				(slot->n - i - 1) * sizeof(void *));
			slot->n--;
			break;
		}
	}
	{
		struct series *dead = *pp;

		*pp = dead->hnext;
		series_drop(s, dead);
	}
	s->count--;
}

/* One interval of a counter field: the exact mean goes to the bucket, and
 * the window that ends here (if any) to its min and max. */
static void counter_add(struct series *se, uint32_t f, double x, double prev, uint64_t dt_ns)
{
	struct acc *a = &se->open[f];
	double val;

	se->rate[f] = NAN;
	se->last[f] = x;
	if (!dt_ns && !isnan(prev))
		return; /* two samples at one time: no interval */
	if (isnan(x) || isnan(prev) || x < prev) {
		if (x < prev)
			se->resets++; /* wrap or reset: that interval has no rate */
		peak_win_break(&se->pw[f]);
		return;
	}
	se->rate[f] = (x - prev) * 1e9 / (double)dt_ns;
	a->dsum += x - prev;
	a->dtsum += (double)dt_ns / 1e9;
	a->n++;
	val = peak_win_add(&se->pw[f], x - prev, dt_ns, se->period_ns);
	if (isnan(val))
		return;
	if (val > a->max)
		a->max = val;
	if (val < a->min)
		a->min = val;
}

static void gauge_add(struct series *se, uint32_t f, double x)
{
	struct acc *a = &se->open[f];

	se->last[f] = x;
	se->rate[f] = x;
	if (isnan(x))
		return;
	a->sum += x;
	a->n++;
	if (x > a->max)
		a->max = x;
	if (x < a->min)
		a->min = x;
}

static void series_add(struct store *s, struct series *se, const struct rec *r)
{
	const double *v = rec_values(r);
	uint32_t n = r->nvals < se->nf ? r->nvals : se->nf;
	int64_t idx = (int64_t)(r->ts_ns / s->bucket_ns);
	uint64_t dt_ns;

	if (se->open_idx >= 0 && r->ts_ns < se->last_ns)
		return; /* out of order for this series: the history cannot take it */
	if (idx != se->open_idx) {
		series_close_open(s, se);
		se->open_idx = idx;
		if (se->first_idx < 0)
			se->first_idx = idx;
	}
	dt_ns = se->last_ns ? r->ts_ns - se->last_ns : 0;
	if (!se->period_known && dt_ns)
		se->period_ns = peak_est_add(&se->est, dt_ns);
	for (uint32_t f = 0; f < n; f++) {
		if (se->fields[f].kind == FIELD_COUNTER)
			counter_add(se, f, v[f], se->last[f], dt_ns);
		else
			gauge_add(se, f, v[f]);
	}
	for (uint32_t f = n; f < se->nf; f++) {
		se->last[f] = se->rate[f] = NAN;
		if (se->fields[f].kind == FIELD_COUNTER)
			peak_win_break(&se->pw[f]);
	}
	se->prev_ns = se->last_ns;
	se->last_ns = r->ts_ns;
}

static void set_text(char **dst, const char *text)
{
	free(*dst);
	*dst = (text && *text) ? strdup(text) : NULL;
}

static void store_consume_locked(void *ctx, const struct rec *r)
{
	struct store *s = ctx;
	struct series *se;

	s->records++;
	if (r->stream >= STREAM_MAX || !stream_table_get(s->t, r->stream))
		return;
	switch (r->kind) {
	case REC_SAMPLE:
		se = store_get(s, r->stream, r->entity);
		if (!se)
			return;
		series_add(s, se, r);
		if (r->ts_ns > s->latest_ns)
			s->latest_ns = r->ts_ns;
		break;
	case REC_LABEL:
		se = store_get(s, r->stream, r->entity);
		if (se)
			set_text(&se->label, rec_text(r));
		break;
	case REC_STATUS:
		msglog_add(s->log, r->ts_ns ? r->ts_ns : s->latest_ns, r->stream, r->entity,
			   rec_text(r));
		if (r->entity == STATUS_STREAM) {
			set_text(&s->streams[r->stream].status, rec_text(r));
		} else {
			se = store_get(s, r->stream, r->entity);
			if (se)
				set_text(&se->status, rec_text(r));
		}
		break;
	case REC_GONE:
		store_remove(s, r->stream, r->entity);
		break;
	default:
		break; /* unknown kinds are for newer consumers */
	}
}

static void store_begin(void *ctx)
{
	store_lock(ctx);
}

static void store_end(void *ctx)
{
	store_unlock(ctx);
}

/* A sampling thread's pump: never behind a scrape's or a frame's copy. */
static bool store_try_begin(void *ctx)
{
	return !pthread_mutex_trylock(&((struct store *)ctx)->lock);
}

const struct bus_consumer_ops store_consumer_ops = {
    .begin = store_begin,
    .consume = store_consume_locked,
    .end = store_end,
    .try_begin = store_try_begin,
};

void store_consume(struct store *s, const struct rec *r)
{
	store_lock(s);
	store_consume_locked(s, r);
	store_unlock(s);
}
