#include "config.h"

#include <math.h>

#include "store.h"
#include "store_int.h"

/* The bucket idx of one field: a closed fine bucket, the open one, or, for
 * times older than the fine ring, the coarse bucket that covers it. */
static int bucket_at(const struct series *se, uint32_t f, int64_t idx, struct bucket *out)
{
	size_t slot;

	if (idx < 0)
		return 0;
	if (idx == se->open_idx) {
		*out = store_acc_close(&se->open[f], se->fields[f].kind);
		return !isnan(out->avg);
	}
	if (!se->fine)
		return 0; /* no history yet, or no room for it */
	slot = (size_t)(idx % STORE_FINE_BUCKETS);
	if (se->fine_tag[slot] == idx) {
		*out = se->fine[slot * se->nf + f];
		return !isnan(out->avg);
	}
	if (se->open_idx - idx >= STORE_FINE_BUCKETS) {
		int64_t c = idx / STORE_COARSE_FACTOR;

		slot = (size_t)(c % STORE_COARSE_BUCKETS);
		if (se->coarse_tag[slot] == c) {
			*out = se->coarse[slot * se->nf + f];
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
