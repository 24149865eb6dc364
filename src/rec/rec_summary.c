/* Export's numbers: --summary (min, avg, max, p99 per field) and the
 * --info report of one file. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rec_export_int.h"
#include "strsafe.h"
#include "util.h"

#define RESERVOIR 65536
/* Names and texts from the file are shown escaped and cut to these bytes. */
#define SHOWN_NAME_MAX 64
#define SHOWN_TEXT_MAX 160

/* Room for one more value: the reservoir doubles (from 16) up to RESERVOIR
 * while the budget of all fields together allows, so memory follows the
 * values seen, never the fields declared. */
static bool res_room(struct exp *x, struct field_acc *a)
{
	uint32_t cap = a->capres ? a->capres * 2 : 16;
	size_t more = (size_t)(cap - a->capres) * sizeof(double);
	double *n;

	if (a->nres < a->capres)
		return true;
	if (a->capres >= RESERVOIR || x->res_bytes + more > REC_EXPORT_RESERVOIR_BYTES)
		return false;
	n = realloc(a->res, (size_t)cap * sizeof(double));
	if (!n)
		return false;
	a->res = n;
	a->capres = cap;
	x->res_bytes += more;
	return true;
}

static void acc_add(struct exp *x, uint32_t stream, uint32_t f, double v)
{
	struct field_acc *a;

	if (isnan(v) || f >= x->nacc[stream])
		return;
	a = &x->acc[stream][f];
	if (!a->n || v < a->min)
		a->min = v;
	if (!a->n || v > a->max)
		a->max = v;
	a->n++;
	a->sum += v;
	if (res_room(x, a)) {
		a->res[a->nres++] = v;
	} else if (a->capres) {
		/* uniform reservoir: p99 is exact while all values fit, sampled beyond */
		x->rng = x->rng * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t k = (x->rng >> 11) % a->n;

		if (k < a->capres)
			a->res[k] = v;
	}
}

/* --summary: gauges as read, counters as rates between a series' samples
 * (none for a series past the export's series cap: se is NULL). */
void rec_exp_sum_add(struct exp *x, const struct stream_desc *d, struct series_ent *se,
		     const struct rec *r)
{
	const double *v = rec_values(r);

	if (!x->acc[r->stream]) {
		x->acc[r->stream] = calloc(d->nfields ? d->nfields : 1, sizeof(struct field_acc));
		x->nacc[r->stream] = x->acc[r->stream] ? d->nfields : 0;
	}
	if (se && !se->prev && d->nfields)
		se->prev = calloc(d->nfields, sizeof(double));
	for (uint32_t f = 0; f < r->nvals && f < d->nfields; f++) {
		if (d->fields[f].kind == FIELD_GAUGE) {
			acc_add(x, r->stream, f, v[f]);
		} else if (se && se->prev && se->have_prev && r->ts_ns > se->prev_ts &&
			   v[f] >= se->prev[f]) {
			acc_add(x, r->stream, f,
				(v[f] - se->prev[f]) * 1e9 / (double)(r->ts_ns - se->prev_ts));
		}
		if (se && se->prev)
			se->prev[f] = v[f];
	}
	if (!se)
		return;
	se->prev_ts = r->ts_ns;
	se->have_prev = se->prev != NULL;
}

static double p99(struct field_acc *a)
{
	uint32_t n = a->nres, k;
	double *v = a->res;

	if (!n)
		return NAN;
	k = (uint32_t)ceil(0.99 * n) - 1;
	/* quickselect */
	for (uint32_t lo = 0, hi = n - 1; lo < hi;) {
		double piv = v[lo + (hi - lo) / 2];
		uint32_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < piv)
				i++;
			while (v[j] > piv)
				j--;
			if (i <= j) {
				double t = v[i];

				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return v[k];
}

void rec_exp_print_summary(struct exp *x)
{
	fprintf(x->out, "%-20s %-22s %-8s %7s %10s %12s %12s %12s %12s\n", "stream", "field",
		"unit", "series", "values", "min", "avg", "max", "p99");
	for (uint32_t s = 0; s < stream_table_count(x->tab) && s < STREAM_MAX; s++) {
		const struct stream_desc *d = stream_table_get(x->tab, s);
		char sn[SHOWN_NAME_MAX + 1], fn[SHOWN_NAME_MAX + 1];

		if (!x->acc[s])
			continue;
		for (uint32_t f = 0; f < x->nacc[s]; f++) {
			struct field_acc *a = &x->acc[s][f];
			char unit[40];

			str_escape(unit, sizeof(unit) - 2, d->fields[f].unit, 32);
			if (d->fields[f].kind == FIELD_COUNTER)
				strcat(unit, "/s");
			fprintf(x->out,
				"%-20s %-22s %-8s %7llu %10llu %12.6g %12.6g %12.6g %12.6g\n",
				str_escape(sn, sizeof(sn), d->name, SHOWN_NAME_MAX),
				str_escape(fn, sizeof(fn), d->fields[f].name, SHOWN_NAME_MAX), unit,
				(unsigned long long)x->entities[s], (unsigned long long)a->n,
				a->n ? a->min : NAN, a->n ? a->sum / (double)a->n : NAN,
				a->n ? a->max : NAN, p99(a));
		}
	}
}

static void fmt_dur(char *buf, size_t n, uint64_t ns)
{
	uint64_t s = ns / 1000000000ull;

	snprintf(buf, n, "%02llu:%02llu:%02llu", (unsigned long long)(s / 3600),
		 (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
}

static void print_meta(struct exp *x, const struct rec_meta *m)
{
	char h[SHOWN_NAME_MAX * 2 + 1], k[SHOWN_NAME_MAX + 1], v[SHOWN_NAME_MAX + 1];
	char cmd[SHOWN_TEXT_MAX + 1];

	if (!m->have) {
		fprintf(x->out, "host:      unknown (the META frame is missing or damaged)\n");
		return;
	}
	fprintf(x->out, "host:      %s (Linux %s)\n",
		str_escape(h, sizeof(h), m->host, sizeof(h) - 1),
		str_escape(k, sizeof(k), m->kernel, SHOWN_NAME_MAX));
	fprintf(x->out, "recorder:  asys %s%s%s\n",
		str_escape(v, sizeof(v), m->version, SHOWN_NAME_MAX), *m->command ? ": " : "",
		str_escape(cmd, sizeof(cmd), m->command, SHOWN_TEXT_MAX));
	if (m->segment)
		fprintf(x->out, "segment:   %u\n", m->segment);
}

void rec_exp_print_info(struct exp *x)
{
	const struct rec_meta *m = rec_reader_meta(x->r);
	uint64_t t0 = UINT64_MAX, t1 = 0, total = 0, size = rec_reader_size(x->r);
	char a[48], b[48], dur[32], sz[32], why[SHOWN_NAME_MAX * 2 + 1];

	for (uint32_t s = 0; s < STREAM_MAX; s++) {
		if (!x->samples[s])
			continue;
		total += x->samples[s];
		if (x->smin[s] < t0)
			t0 = x->smin[s];
		if (x->smax[s] > t1)
			t1 = x->smax[s];
	}
	util_fmt_bytes(sz, sizeof(sz), (double)size);
	fprintf(x->out, "file:      %s (%s, %s)\n", x->path, sz,
		rec_reader_has_trailer(x->r) ? "complete"
		: x->cut		     ? "no trailer: cut short or still being written"
					     : "no trailer: the recorder did not finish it");
	print_meta(x, m);
	if (total) {
		rec_fmt_time(x->r, t0, a, sizeof(a), true);
		rec_fmt_time(x->r, t1, b, sizeof(b), true);
		fmt_dur(dur, sizeof(dur), t1 - t0);
		fprintf(x->out, "recorded:  %s to %s (%s)\n", a, b + (strncmp(a, b, 10) ? 0 : 11),
			dur);
	} else {
		fprintf(x->out, "recorded:  no samples\n");
	}
	fprintf(x->out, "samples:   %llu in %llu frames\n", (unsigned long long)total,
		(unsigned long long)x->frames);
	fprintf(x->out, "streams:   %u\n", stream_table_count(x->tab));
	for (uint32_t s = 0; s < stream_table_count(x->tab) && s < STREAM_MAX; s++) {
		const struct stream_desc *d = stream_table_get(x->tab, s);
		char sn[SHOWN_NAME_MAX + 1], help[SHOWN_TEXT_MAX + 1];

		fprintf(x->out, "  %-20s v%-3u %3u fields %6llu series %10llu samples  %s\n",
			str_escape(sn, sizeof(sn), d->name, SHOWN_NAME_MAX), d->version, d->nfields,
			(unsigned long long)x->entities[s], (unsigned long long)x->samples[s],
			str_escape(help, sizeof(help), d->help, SHOWN_TEXT_MAX));
	}
	fprintf(x->out, "gaps:      %llu\n", (unsigned long long)x->gaps_n);
	for (uint64_t g = 0; g < x->gaps_n; g++) {
		rec_fmt_time(x->r, x->gaps[g].t_min, a, sizeof(a), false);
		rec_fmt_time(x->r, x->gaps[g].t_max, b, sizeof(b), false);
		fprintf(x->out, "  %s to %s: %s\n", a, b,
			str_escape(why, sizeof(why), x->gaps[g].why, SHOWN_NAME_MAX * 2));
	}
	fprintf(x->out, "damage:    %s%llu hole%s\n", x->holes ? "" : "none, ",
		(unsigned long long)x->holes, x->holes == 1 ? "" : "s");
}

void rec_exp_acc_free(struct exp *x)
{
	for (int s = 0; s < STREAM_MAX; s++) {
		for (uint32_t f = 0; x->acc[s] && f < x->nacc[s]; f++)
			free(x->acc[s][f].res);
		free(x->acc[s]);
		x->acc[s] = NULL;
		x->nacc[s] = 0;
	}
	x->res_bytes = 0;
}
