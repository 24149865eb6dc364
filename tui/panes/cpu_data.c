/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "cpu_data.h"
#include "store.h"
#include "stream.h"
#include "widget.h"

/* guest and guest_nice are already inside user and nice in /proc/stat */
static const unsigned int state_field[CS_N] = {CPU_CORE_USER,  CPU_CORE_NICE,	 CPU_CORE_SYSTEM,
					       CPU_CORE_IRQ,   CPU_CORE_SOFTIRQ, CPU_CORE_IOWAIT,
					       CPU_CORE_STEAL, CPU_CORE_IDLE};

struct cpu_data *cpu_data_new(void)
{
	return calloc(1, sizeof(struct cpu_data));
}

void cpu_data_free(struct cpu_data *s)
{
	if (!s)
		return;
	free(s->rows);
	free(s->ents);
	free(s->hist);
	free(s);
}

static void shares_from_rates(struct cpu_row *r, const double *rate)
{
	double sum = 0;
	bool any = false;

	for (int i = 0; i < CS_N; i++) {
		if (!isnan(rate[i])) {
			sum += rate[i];
			any = true;
		}
	}
	for (int i = 0; i < CS_N; i++)
		r->share[i] = any && sum > 0 && !isnan(rate[i]) ? rate[i] / sum : NAN;
	if (!any || sum <= 0) {
		r->busy = NAN;
		return;
	}
	r->busy = 1.0;
	if (!isnan(r->share[CS_IDLE]))
		r->busy -= r->share[CS_IDLE];
	if (!isnan(r->share[CS_IOWAIT]))
		r->busy -= r->share[CS_IOWAIT];
	if (r->busy < 0)
		r->busy = 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct cpu_row *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int grow_ents(struct cpu_data *s, size_t need)
{
	if (need > s->ecap) {
		uint64_t *e = realloc(s->ents, need * sizeof(*e));
		struct cpu_row *r = realloc(s->rows, need * sizeof(*r));

		if (e)
			s->ents = e;
		if (r)
			s->rows = r;
		if (!e || !r)
			return -1;
		s->ecap = s->cap = need;
	}
	return 0;
}

static void compute_ipc(struct cpu_data *s, const struct view *v)
{
	int id = stream_table_find(v->streams, catalogue_name(STREAM_CPU_PERF));
	const struct stream_desc *d;
	const char *st;
	double ins = 0, cyc = 0;
	size_t n;
	int fi, fc;

	s->ipc = NAN;
	s->ipc_why[0] = '\0';
	/* no stream, or one with neither data nor a reason (a recording made
	 * without the counters): no IPC to show, not n/a */
	s->ipc_absent = id < 0;
	if (id < 0)
		return;
	st = store_status(v->store, (uint32_t)id, STATUS_STREAM);
	s->ipc_absent = !(st && *st) && !store_entities(v->store, (uint32_t)id, NULL, 0);
	if (st && *st) {
		/* the collector may say "IPC n/a: ..." itself */
		if (!strncmp(st, "IPC n/a: ", 9))
			st += 9;
		snprintf(s->ipc_why, sizeof(s->ipc_why), "IPC n/a: %s", st);
		return;
	}
	d = stream_table_get(v->streams, (uint32_t)id);
	fi = catalogue_field_index(d, STREAM_CPU_PERF, CPU_PERF_INSTRUCTIONS);
	fc = catalogue_field_index(d, STREAM_CPU_PERF, CPU_PERF_CYCLES);
	if (fi < 0 || fc < 0)
		return;
	n = store_entities(v->store, (uint32_t)id, NULL, 0);
	if (grow_ents(s, n + 1) < 0)
		return;
	n = store_entities(v->store, (uint32_t)id, s->ents, s->ecap);
	if (n > s->ecap)
		n = s->ecap;
	for (size_t i = 0; i < n; i++) {
		const struct series *se;
		double a, b;

		if (s->ents[i] == ENTITY_CPU_TOTAL)
			continue;
		se = store_series(v->store, (uint32_t)id, s->ents[i]);
		a = view_value(se, fi, v, true);
		b = view_value(se, fc, v, true);
		if (!isnan(a) && !isnan(b)) {
			ins += a;
			cyc += b;
		}
	}
	if (cyc > 0)
		s->ipc = ins / cyc;
}

/* The rows of n entities of cpu.core: the all-CPU line into total, the
 * others into rows; the sum of the online rows' rates into tot_rate, for a
 * stream without an all-CPU line. True when it had one. */
static bool cpu_data_rows(struct cpu_data *s, const struct view *v, size_t n, double *tot_rate)
{
	const struct stream_desc *d = stream_table_get(v->streams, (uint32_t)s->stream);
	int fidx[CS_N], fonline = catalogue_field_index(d, STREAM_CPU_CORE, CPU_CORE_ONLINE);
	bool have_total = false;

	for (int i = 0; i < CS_N; i++)
		fidx[i] = catalogue_field_index(d, STREAM_CPU_CORE, state_field[i]);
	for (size_t i = 0; i < n; i++) {
		const struct series *se = store_series(v->store, (uint32_t)s->stream, s->ents[i]);
		double rate[CS_N];
		struct cpu_row *r;

		for (int k = 0; k < CS_N; k++)
			rate[k] = view_value(se, fidx[k], v, true);
		if (s->ents[i] == ENTITY_CPU_TOTAL) {
			s->total.id = ENTITY_CPU_TOTAL;
			shares_from_rates(&s->total, rate);
			have_total = true;
			continue;
		}
		r = &s->rows[s->n++];
		r->id = s->ents[i];
		shares_from_rates(r, rate);
		r->offline = fonline >= 0 && series_last(se, (uint32_t)fonline) == 0;
		for (int k = 0; k < CS_N && !r->offline; k++)
			if (!isnan(rate[k]))
				tot_rate[k] = (isnan(tot_rate[k]) ? 0 : tot_rate[k]) + rate[k];
	}
	return have_total;
}

void cpu_data_compute(struct cpu_data *s, const struct view *v)
{
	double tot_rate[CS_N];
	size_t n;

	if (s->have_key && s->key_end == v->end_ns && s->key_records == store_records(v->store))
		return;
	s->have_key = true;
	s->key_end = v->end_ns;
	s->key_records = store_records(v->store);
	s->n = 0;
	s->why = NULL;
	s->stream = stream_table_find(v->streams, catalogue_name(STREAM_CPU_CORE));
	for (int i = 0; i < CS_N; i++)
		tot_rate[i] = NAN;
	shares_from_rates(&s->total, tot_rate);
	if (s->stream < 0) {
		s->why = "no CPU data: the cpu collector is not running";
		compute_ipc(s, v);
		return;
	}
	n = store_entities(v->store, (uint32_t)s->stream, NULL, 0);
	if (grow_ents(s, n + 1) < 0) {
		s->why = "out of memory";
		return;
	}
	n = store_entities(v->store, (uint32_t)s->stream, s->ents, s->ecap);
	if (n > s->ecap)
		n = s->ecap;
	if (!cpu_data_rows(s, v, n, tot_rate))
		shares_from_rates(&s->total, tot_rate);
	if (s->n)
		qsort(s->rows, s->n, sizeof(*s->rows), row_cmp);
	if (!s->n) {
		const char *st = store_status(v->store, (uint32_t)s->stream, STATUS_STREAM);

		s->why = st && *st ? st : "waiting for the first CPU samples";
	}
	compute_ipc(s, v);
}

/* Adds the bucket rates of one series' state fields to acc (CS_N rows of n). */
static void add_history(const struct series *se, const int *fidx, const struct view *v,
			uint64_t step, double *acc, double *tmp, size_t n)
{
	for (int k = 0; k < CS_N; k++) {
		if (fidx[k] < 0)
			continue;
		series_history(se, (uint32_t)fidx[k], v->end_ns, step, tmp, n);
		for (size_t j = 0; j < n; j++)
			if (!isnan(tmp[j]))
				acc[k * n + j] =
				    (isnan(acc[k * n + j]) ? 0 : acc[k * n + j]) + tmp[j];
	}
}

size_t cpu_data_history(struct cpu_data *s, const struct view *v, double *out, size_t n)
{
	uint64_t step = v->window_ns ? v->window_ns : store_bucket_ns(v->store);
	const struct stream_desc *d;
	const struct series *tot;
	int fidx[CS_N];
	double *tmp;

	for (size_t j = 0; j < n; j++)
		out[j] = NAN;
	if (!n || s->stream < 0)
		return n;
	if (n > SIZE_MAX / sizeof(double) / (CS_N + 1))
		return 0;
	if ((CS_N + 1) * n > s->hcap) {
		double *h = realloc(s->hist, (CS_N + 1) * n * sizeof(*h));

		if (!h)
			return 0;
		s->hist = h;
		s->hcap = (CS_N + 1) * n;
	}
	tmp = s->hist + CS_N * n;
	for (size_t j = 0; j < CS_N * n; j++)
		s->hist[j] = NAN;
	d = stream_table_get(v->streams, (uint32_t)s->stream);
	for (int k = 0; k < CS_N; k++)
		fidx[k] = catalogue_field_index(d, STREAM_CPU_CORE, state_field[k]);
	tot = store_series(v->store, (uint32_t)s->stream, ENTITY_CPU_TOTAL);
	if (tot) {
		add_history(tot, fidx, v, step, s->hist, tmp, n);
	} else {
		/* no total row (an old recording): the cores of cpu_data_compute */
		for (size_t i = 0; i < s->n; i++)
			add_history(store_series(v->store, (uint32_t)s->stream, s->rows[i].id),
				    fidx, v, step, s->hist, tmp, n);
	}
	for (size_t j = 0; j < n; j++) {
		struct cpu_row r;
		double rate[CS_N];

		for (int k = 0; k < CS_N; k++)
			rate[k] = s->hist[k * n + j];
		shares_from_rates(&r, rate);
		out[j] = r.busy;
	}
	return n;
}
