/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>

#include "store.h"
#include "store_int.h"

/* The bucket idx of one field: a closed fine bucket, the open one, or, for
 * times older than the fine ring, the coarse bucket that covers it. */
static int bucket_at(const struct series *se, uint32_t f, int64_t idx, struct bucket *out)
{
	size_t slot;

	uint16_t h;

	if (idx < 0)
		return 0;
	if (idx == se->open_idx) {
		*out = store_acc_close(&se->open[f], se->fields[f].kind);
		return !isnan(out->avg);
	}
	h = se->hidx[f];
	if (h == STORE_NO_HIST) {
		/* an attribute: its latest value, over the series' life */
		if (idx < se->first_idx || idx > se->open_idx || isnan(se->last[f]))
			return 0;
		*out = (struct bucket){(float)se->last[f], (float)se->last[f], (float)se->last[f]};
		return 1;
	}
	if (se->flat)
		return store_flat_at(se, h, idx, out);
	if (!se->fine)
		return 0; /* no history yet, or no room for it */
	slot = (size_t)(idx % se->fine_cap);
	if (se->fine_tag[slot] == idx) {
		*out = se->fine[slot * se->hnf + h];
		return !isnan(out->avg);
	}
	if (se->open_idx - idx >= (int64_t)se->fine_max) {
		int64_t c = idx / STORE_COARSE_FACTOR;

		slot = (size_t)(c % se->coarse_cap);
		if (se->coarse_tag[slot] == c) {
			*out = se->coarse[slot * se->hnf + h];
			return !isnan(out->avg);
		}
	}
	return 0;
}

static void stats_fold(struct field_stats *out, const struct bucket *b, double *sum)
{
	*sum += b->avg;
	if (!isnan(b->max) && (isnan(out->max) || b->max > out->max))
		out->max = b->max;
	if (!isnan(b->min) && (isnan(out->min) || b->min < out->min))
		out->min = b->min;
	out->n++;
}

int series_window(const struct series *se, uint32_t field, uint64_t end_ns, uint64_t window_ns,
		  struct field_stats *out)
{
	int64_t last, k;
	struct bucket b;
	double sum = 0;

	*out = (struct field_stats){NAN, NAN, NAN, 0};
	if (!se || field >= se->nf)
		return -1;
	/* whole buckets only: the one holding end_ns is still filling */
	last = (int64_t)(end_ns / se->bucket_ns) - 1;
	k = (int64_t)(window_ns / se->bucket_ns);
	if (k < 1)
		k = 1;
	if (k > STORE_FINE_BUCKETS)
		k = STORE_FINE_BUCKETS;
	for (int64_t i = last - k + 1; i <= last; i++)
		if (bucket_at(se, field, i, &b))
			stats_fold(out, &b, &sum);
	/* nothing complete yet (start-up, or a first sample): the partial bucket */
	if (!out->n && bucket_at(se, field, last + 1, &b))
		stats_fold(out, &b, &sum);
	if (!out->n)
		return -1;
	out->avg = sum / (double)out->n;
	/* The window asked for is itself a window of at least the period: its
	 * mean rate is one of the rates the peak is the highest of (and the
	 * lowest the least of), so a row never shows a mean above its peak. */
	if (se->fields[field].kind == FIELD_COUNTER &&
	    (uint64_t)k * se->bucket_ns >= se->period_ns) {
		if (isnan(out->max) || out->avg > out->max)
			out->max = out->avg;
		if (isnan(out->min) || out->avg < out->min)
			out->min = out->avg;
	}
	return 0;
}

size_t series_history(const struct series *se, uint32_t field, uint64_t end_ns, uint64_t step_ns,
		      double *out, size_t n)
{
	int64_t last, k;

	for (size_t i = 0; i < n; i++)
		out[i] = NAN;
	if (!se || field >= se->nf || !n)
		return n;
	last = (int64_t)(end_ns / se->bucket_ns) - 1;
	k = (int64_t)(step_ns / se->bucket_ns);
	if (k < 1)
		k = 1;
	for (size_t j = 0; j < n; j++) {
		int64_t hi = last - (int64_t)(n - 1 - j) * k, lo = hi - k + 1;
		double acc = 0;
		int cnt = 0;
		struct bucket b;

		if (hi < 0)
			continue;
		for (int64_t i = lo; i <= hi; i++) {
			if (!bucket_at(se, field, i, &b))
				continue;
			acc += b.avg;
			cnt++;
		}
		if (cnt)
			out[j] = acc / cnt;
	}
	return n;
}

/* ---- what a reader asks of the store and of one series ---- */

uint64_t store_bucket_ns(const struct store *s)
{
	return s->bucket_ns;
}

uint64_t store_latest_ns(const struct store *s)
{
	return s->latest_ns;
}

uint64_t store_records(const struct store *s)
{
	return s->records;
}

uint64_t store_dropped(const struct store *s)
{
	return s->dropped;
}

size_t store_entities(const struct store *s, uint32_t stream, uint64_t *out, size_t n)
{
	const struct stream_slot *slot;

	if (stream >= STREAM_MAX)
		return 0;
	slot = &s->streams[stream];
	for (size_t i = 0; i < slot->n && i < n; i++)
		out[i] = slot->list[i]->entity;
	return slot->n;
}

const struct series *store_series(const struct store *s, uint32_t stream, uint64_t entity)
{
	return stream < STREAM_MAX ? store_lookup(s, stream, entity) : NULL;
}

const struct msglog *store_msglog(const struct store *s)
{
	return s->log;
}

void store_note(struct store *s, uint64_t ts_ns, const char *text)
{
	pthread_mutex_lock(&s->lock);
	msglog_add(s->log, ts_ns ? ts_ns : s->latest_ns, MSGLOG_NOTE, 0, text);
	pthread_mutex_unlock(&s->lock);
}

const char *store_status(const struct store *s, uint32_t stream, uint64_t entity)
{
	const struct series *se;

	if (stream >= STREAM_MAX)
		return NULL;
	if (entity == STATUS_STREAM)
		return s->streams[stream].status;
	se = store_lookup(s, stream, entity);
	return se ? se->status : NULL;
}

const char *series_label(const struct series *se)
{
	return se ? se->label : NULL;
}

uint64_t series_last_ns(const struct series *se)
{
	return se ? se->last_ns : 0;
}

double series_last(const struct series *se, uint32_t field)
{
	return se && field < se->nf ? se->last[field] : NAN;
}

double series_rate(const struct series *se, uint32_t field)
{
	return se && field < se->nf ? se->rate[field] : NAN;
}

uint64_t series_resets(const struct series *se)
{
	return se ? se->resets : 0;
}

uint64_t series_peak_window_ns(const struct series *se)
{
	return se ? se->period_ns : 0;
}
