/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "store_int.h"

/* The history of a series: a fine ring of one bucket per refresh and a
 * coarse ring of STORE_COARSE_FACTOR of them, both growing to their full
 * sizes as buckets close. Most series of a node's processes never change
 * from one refresh to the next (a kernel thread, an idle daemon: the same
 * RSS, no CPU), and at the full sizes a process's rings take 16 KB. So a
 * series holds a flat run instead: one row of buckets that stands for every
 * closed bucket from flat_first to flat_last, and before it at most one
 * other, its head (the first bucket of a counter holds no rate). It keeps
 * the run until a bucket differs from it or comes after a gap; and a series
 * whose rings have held one row for all they keep goes back to a run.
 * store_flat_at answers from a run exactly what the rings would hold. */

void store_acc_reset(struct acc *a, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		a[i] = (struct acc){0, 0, 0, INFINITY, -INFINITY, 0};
}

static size_t hist_bytes(const struct series *se)
{
	uint32_t nf = se->hnf ? se->hnf : 1;

	return (size_t)(se->fine_max + se->coarse_max) *
		   (sizeof(int64_t) + nf * sizeof(struct bucket)) +
	       nf * sizeof(struct acc);
}

/* The oldest bucket the rings keep once bucket last has closed: the fine
 * ring the last fine_max, and the coarse ring the last coarse_max closed
 * coarse buckets (the one of last is open), each made of all its buckets. */
static int64_t hist_keep_from(const struct series *se, int64_t last)
{
	int64_t fine = last - (int64_t)se->fine_max + 1;
	int64_t coarse =
	    (last / STORE_COARSE_FACTOR - (int64_t)se->coarse_max) * STORE_COARSE_FACTOR;

	return fine < coarse ? fine : coarse;
}

/* Equal to the bit but for NaN's payload: a run stands for the rows it
 * replaces, and a reader sees the sign of a zero. */
static bool value_same(float a, float b)
{
	return isnan(a) ? isnan(b) : a == b && signbit(a) == signbit(b);
}

static bool rows_equal(const struct bucket *a, const struct bucket *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (!value_same(a[i].avg, b[i].avg) || !value_same(a[i].max, b[i].max) ||
		    !value_same(a[i].min, b[i].min))
			return false;
	return true;
}

static void rings_free(struct series *se)
{
	free(se->copen);
	free(se->fine_tag);
	free(se->fine);
	free(se->coarse_tag);
	free(se->coarse);
	se->copen = NULL;
	se->fine = se->coarse = NULL;
	se->fine_tag = se->coarse_tag = NULL;
	se->fine_cap = se->coarse_cap = 0;
	se->coarse_open = -1;
}

void store_hist_free(struct store *s, struct series *se)
{
	if (!se->fine)
		return;
	s->hist_bytes -= hist_bytes(se);
	rings_free(se);
}

/* The history rings, within the store's STORE_HISTORY_BYTES; false when
 * there is no room (the series then shows its latest values only). */
static bool series_hist(struct store *s, struct series *se)
{
	uint32_t nf = se->hnf ? se->hnf : 1;
	size_t need = hist_bytes(se);

	if (se->fine)
		return true;
	if (se->nohist || s->hist_bytes + need > STORE_HISTORY_BYTES) {
		se->nohist = true;
		return false;
	}
	se->copen = malloc(nf * sizeof(struct acc));
	se->fine_cap = STORE_FINE_FIRST < se->fine_max ? STORE_FINE_FIRST : se->fine_max;
	se->fine_tag = malloc(se->fine_cap * sizeof(int64_t));
	se->fine = malloc((size_t)se->fine_cap * nf * sizeof(struct bucket));
	se->coarse_cap = STORE_COARSE_FIRST < se->coarse_max ? STORE_COARSE_FIRST : se->coarse_max;
	se->coarse_tag = malloc(se->coarse_cap * sizeof(int64_t));
	se->coarse = malloc((size_t)se->coarse_cap * nf * sizeof(struct bucket));
	if (!se->copen || !se->fine_tag || !se->fine || !se->coarse_tag || !se->coarse) {
		rings_free(se);
		se->nohist = true;
		return false;
	}
	s->hist_bytes += need;
	store_acc_reset(se->copen, nf);
	for (uint32_t i = 0; i < se->fine_cap; i++)
		se->fine_tag[i] = -1;
	for (uint32_t i = 0; i < se->coarse_cap; i++)
		se->coarse_tag[i] = -1;
	se->coarse_open = -1;
	return true;
}

struct bucket store_acc_close(const struct acc *a, enum field_kind kind)
{
	struct bucket b = {NAN, NAN, NAN};

	if (!a->n)
		return b;
	if (kind == FIELD_COUNTER)
		b.avg = a->dtsum > 0 ? (float)(a->dsum / a->dtsum) : NAN;
	else
		b.avg = (float)(a->sum / (double)a->n);
	/* a counter bucket in which no window ended has no peak */
	b.max = isinf(a->max) ? NAN : (float)a->max;
	b.min = isinf(a->min) ? NAN : (float)a->min;
	return b;
}

/* Twice a history ring's slots (at most max), each bucket moved to its slot
 * in the larger ring; the newer of two that meet there wins (an older one
 * is past the ring's span). Out of memory, the ring keeps its size and its
 * oldest buckets are overwritten. */
static void hist_grow(int64_t **ptag, struct bucket **pb, uint32_t *pcap, uint32_t max, uint32_t nf)
{
	uint32_t cap = *pcap * 2 < max ? *pcap * 2 : max;
	int64_t *tag = malloc(cap * sizeof(*tag));
	struct bucket *b = malloc((size_t)cap * nf * sizeof(*b));

	if (!tag || !b) {
		free(tag);
		free(b);
		return;
	}
	for (uint32_t i = 0; i < cap; i++)
		tag[i] = -1;
	for (uint32_t i = 0; i < *pcap; i++) {
		int64_t t = (*ptag)[i];
		size_t slot = (size_t)(t % cap);

		if (t < 0 || tag[slot] > t)
			continue;
		tag[slot] = t;
		memcpy(&b[slot * nf], &(*pb)[(size_t)i * nf], nf * sizeof(*b));
	}
	free(*ptag);
	free(*pb);
	*ptag = tag;
	*pb = b;
	*pcap = cap;
}

/* The slot of bucket idx in a ring of cap slots (at most max), grown first
 * when the bucket there is still within the full ring's span. */
static size_t hist_slot(int64_t **ptag, struct bucket **pb, uint32_t *pcap, uint32_t max,
			uint32_t nf, int64_t idx)
{
	size_t slot = (size_t)(idx % *pcap);

	if (*pcap < max && (*ptag)[slot] >= 0 && idx - (*ptag)[slot] < (int64_t)max) {
		hist_grow(ptag, pb, pcap, max, nf);
		slot = (size_t)(idx % *pcap);
	}
	return slot;
}

/* A closed fine bucket of one field into a coarse bucket's accumulator. */
static void coarse_fold(struct acc *a, const struct bucket *b)
{
	if (isnan(b->avg))
		return;
	a->sum += b->avg;
	a->n++;
	if (b->max > a->max)
		a->max = b->max;
	if (b->min < a->min)
		a->min = b->min;
}

static struct bucket coarse_close(const struct acc *a)
{
	struct bucket b = {NAN, NAN, NAN};

	if (a->n) {
		b.avg = (float)(a->sum / (double)a->n);
		b.max = isinf(a->max) ? NAN : (float)a->max;
		b.min = isinf(a->min) ? NAN : (float)a->min;
	}
	return b;
}

/* Fold a closed fine bucket into the open coarse bucket, closing that first
 * when the fine one belongs to a later coarse bucket. */
static void coarse_feed(struct series *se, int64_t fine_idx, const struct bucket *fb)
{
	int64_t cidx = fine_idx / STORE_COARSE_FACTOR;
	uint32_t nf = se->hnf;

	if (se->coarse_open >= 0 && cidx != se->coarse_open) {
		size_t slot = hist_slot(&se->coarse_tag, &se->coarse, &se->coarse_cap,
					se->coarse_max, nf ? nf : 1, se->coarse_open);

		for (uint32_t f = 0; f < nf; f++)
			se->coarse[slot * nf + f] = coarse_close(&se->copen[f]);
		se->coarse_tag[slot] = se->coarse_open;
		store_acc_reset(se->copen, nf);
	}
	se->coarse_open = cidx;
	for (uint32_t f = 0; f < nf; f++)
		coarse_fold(&se->copen[f], &fb[f]);
}

/* Closed bucket idx (a row of hnf buckets) into the rings. */
static void hist_put(struct series *se, int64_t idx, const struct bucket *row)
{
	size_t slot =
	    hist_slot(&se->fine_tag, &se->fine, &se->fine_cap, se->fine_max, se->hnf, idx);

	memcpy(&se->fine[slot * se->hnf], row, se->hnf * sizeof(*row));
	se->fine_tag[slot] = idx;
	coarse_feed(se, idx, &se->fine[slot * se->hnf]);
}

/* The row of bucket idx of a run: the head's before flat_first. */
static const struct bucket *flat_row(const struct series *se, int64_t idx)
{
	return idx < se->flat_first ? se->flat + se->hnf : se->flat;
}

/* Closed bucket idx extends the run, or starts one, or ends a run of one
 * bucket that becomes the head of a new run; false when the series needs
 * its rings: a third row, a gap, or no memory for the rows. */
static bool flat_take(const struct store *s, struct series *se, int64_t idx,
		      const struct bucket *row)
{
	size_t len = se->hnf * sizeof(*row);

	if (s->no_flat)
		return false;
	if (!se->flat) {
		se->flat = malloc(2 * len);
		if (!se->flat)
			return false;
		memcpy(se->flat, row, len);
		se->flat_head = false;
		se->flat_first = se->flat_last = idx;
		return true;
	}
	if (idx != se->flat_last + 1)
		return false;
	if (rows_equal(se->flat, row, se->hnf)) {
		se->flat_last = idx;
		return true;
	}
	if (se->flat_head || se->flat_first != se->flat_last)
		return false;
	memcpy(se->flat + se->hnf, se->flat, len);
	memcpy(se->flat, row, len);
	se->flat_head = true;
	se->flat_first = se->flat_last = idx;
	return true;
}

/* The run's buckets into the new rings: those the rings keep. */
static void flat_spill(struct series *se)
{
	int64_t i = hist_keep_from(se, se->flat_last);
	int64_t first = se->flat_first - (se->flat_head ? 1 : 0);

	if (i < first)
		i = first;
	for (; i <= se->flat_last; i++)
		hist_put(se, i, flat_row(se, i));
	free(se->flat);
	se->flat = NULL;
}

/* After closed bucket idx went into the rings: when it ends a run of equal
 * rows that covers all the rings keep, the series becomes that run again. */
static void hist_run(struct store *s, struct series *se, int64_t idx, const struct bucket *row)
{
	size_t prev = idx > 0 ? (size_t)((idx - 1) % se->fine_cap) : 0;
	struct bucket *flat;

	if (idx > 0 && se->fine_tag[prev] == idx - 1 &&
	    rows_equal(&se->fine[prev * se->hnf], row, se->hnf))
		se->run++;
	else
		se->run = 1;
	if (s->no_flat || idx - (int64_t)se->run + 1 > hist_keep_from(se, idx))
		return;
	flat = malloc(2 * se->hnf * sizeof(*row));
	if (!flat)
		return;
	memcpy(flat, row, se->hnf * sizeof(*row));
	store_hist_free(s, se);
	se->flat = flat;
	se->flat_head = false;
	se->flat_first = idx - (int64_t)se->run + 1;
	se->flat_last = idx;
	se->run = 0;
}

void series_close_open(struct store *s, struct series *se)
{
	struct bucket row[STREAM_MAX_FIELDS];
	int64_t idx = se->open_idx;

	if (idx < 0)
		return;
	/* only attributes: they read as their latest value, with no history */
	if (se->nohist || !se->hnf) {
		store_acc_reset(se->open, se->nf);
		return;
	}
	for (uint32_t f = 0; f < se->nf; f++)
		if (se->hidx[f] != STORE_NO_HIST)
			row[se->hidx[f]] = store_acc_close(&se->open[f], se->fields[f].kind);
	store_acc_reset(se->open, se->nf);
	if (!se->fine && flat_take(s, se, idx, row))
		return;
	if (!series_hist(s, se)) {
		free(se->flat);
		se->flat = NULL;
		return;
	}
	if (se->flat)
		flat_spill(se);
	hist_put(se, idx, row);
	hist_run(s, se, idx, row);
}

int store_flat_at(const struct series *se, uint16_t h, int64_t idx, struct bucket *out)
{
	int64_t first = se->flat_first - (se->flat_head ? 1 : 0);
	int64_t c = idx / STORE_COARSE_FACTOR, co = se->flat_last / STORE_COARSE_FACTOR;
	struct acc a;

	if (idx < first || idx > se->flat_last)
		return 0;
	if (se->flat_last - idx < (int64_t)se->fine_max) {
		*out = flat_row(se, idx)[h];
		return !isnan(out->avg);
	}
	/* older: the coarse ring's closed buckets, the last coarse_max of them,
	 * each folded as coarse_feed folds it, in order */
	if (c >= co || co - c > (int64_t)se->coarse_max)
		return 0;
	store_acc_reset(&a, 1);
	for (int64_t i = c * STORE_COARSE_FACTOR > first ? c * STORE_COARSE_FACTOR : first;
	     i < (c + 1) * STORE_COARSE_FACTOR; i++)
		coarse_fold(&a, &flat_row(se, i)[h]);
	*out = coarse_close(&a);
	return !isnan(out->avg);
}
