/* SPDX-License-Identifier: GPL-2.0-only */
/* Export's numbers: --summary (one row per series and field: min, avg,
 * max, p99) and the --info report of one file. The figures follow the
 * store's rules: a counter's mean is its increase over the time it covers
 * (a reset interval left out, as the store leaves it out), and its min, max
 * and p99 are over windows of at least the stream's sampling period
 * (store_peak.h); an attribute (pid, PCIe generation) is not averaged. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "rec_export_int.h"
#include "store_peak.h"
#include "strsafe.h"
#include "util.h"

#define RESERVOIR 65536
/* Names and texts from the file are shown escaped and cut to these bytes. */
/* a stream or field name is whole (STREAM_NAME_MAX - 1 bytes at most) */
#define SHOWN_NAME_MAX (STREAM_NAME_MAX - 1)
#define SHOWN_TEXT_MAX 160
#define SHOWN_SERIES_MAX 48
#define SHOWN_HOST_MAX 64
/* the commands of processes kept for naming their series (mem.proc's labels) */
#define SHOWN_CMD_MAX 40
#define SUM_CMDS_MAX REC_SUMMARY_SERIES_MAX

struct sum_field {
	uint64_t n;	 /* values (gauge) or intervals with a rate (counter) */
	double min, max; /* gauge: of values; counter: of window rates */
	double sum;	 /* gauge: of values */
	double dsum;	 /* counter: increase over the intervals with a rate */
	uint64_t dt_ns;	 /* and their time */
	double prev;	 /* counter: the last value */
	struct peak_win pw;
	double *res; /* reservoir for p99: grows by doubling within the budget */
	uint32_t nres, capres, nseen;
};

struct sum_series {
	uint32_t stream, nf;
	uint64_t entity;
	char label[SHOWN_SERIES_MAX + 1]; /* escaped */
	uint64_t prev_ts;
	uint64_t period_ns;
	bool period_known;
	struct peak_est est;
	struct sum_field *f;
};

struct sum_list {
	struct sum_series **v;
	size_t n, cap;
};

/* A process's command, from mem.proc's label: proc.cpu's own label names
 * its container, so its rows take the command from here. */
struct sum_cmd {
	struct ktab_key k;	     /* first: the pid */
	char cmd[SHOWN_CMD_MAX + 1]; /* escaped */
};

struct sum_ref {
	struct ktab_key k;
	struct sum_series *se;
};

struct sum_state {
	char host[SHOWN_HOST_MAX + 1];	     /* the host column: one word */
	struct sum_list streams[STREAM_MAX]; /* first-seen order */
	struct peak_est iv[STREAM_MAX];	     /* each stream's first sample intervals */
	struct ktab cmds;		     /* struct sum_cmd */
	struct ktab index;		     /* struct sum_ref: (stream, entity) */
	struct sum_series **all;
	size_t nall, capall;
	uint64_t capped;
};

/* Room for one more value: the reservoir doubles (from 16) up to RESERVOIR
 * while the budget of all fields together allows, so memory follows the
 * values seen, never the fields declared. */
static bool res_room(struct rec_export *x, struct sum_field *a)
{
	uint32_t cap = a->capres ? a->capres * 2 : 16;
	size_t more = (size_t)(cap - a->capres) * sizeof(double);
	double *n;

	if (a->nres < a->capres)
		return true;
	if (a->capres >= RESERVOIR ||
	    x->res_bytes + more > rec_export_bound(x, REC_EXPORT_RESERVOIR_BYTES))
		return false;
	n = realloc(a->res, (size_t)cap * sizeof(double));
	if (!n)
		return false;
	a->res = n;
	a->capres = cap;
	x->res_bytes += more;
	return true;
}

static void minmax_add(struct sum_field *a, double v)
{
	if (!a->nseen || v < a->min)
		a->min = v;
	if (!a->nseen || v > a->max)
		a->max = v;
	a->nseen++;
}

/* A value for min, max and p99 (a gauge's reading, a counter's window). */
static void res_add(struct rec_export *x, struct sum_field *a, double v)
{
	minmax_add(a, v);
	if (res_room(x, a)) {
		a->res[a->nres++] = v;
	} else if (a->capres) {
		/* uniform reservoir: p99 is exact while all values fit, sampled beyond */
		x->rng = x->rng * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t k = (x->rng >> 11) % a->nseen;

		if (k < a->capres)
			a->res[k] = v;
	}
}

/* The summary's state, made at its first use. */
static struct sum_state *sum_state(struct rec_export *x)
{
	struct sum_state *st = x->sum;

	if (st || !(st = x->sum = calloc(1, sizeof(*st))))
		return st;
	ktab_init(&st->cmds, sizeof(struct sum_cmd), 1024, KTAB_U64);
	ktab_init(&st->index, sizeof(struct sum_ref), 1024, KTAB_PAIR);
	return st;
}

static bool list_push(struct sum_series ***v, size_t *n, size_t *cap, struct sum_series *se)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		struct sum_series **nv = realloc(*v, c * sizeof(*nv));

		if (!nv)
			return false;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = se;
	return true;
}

static struct sum_series *sum_new(struct sum_state *st, const struct stream_desc *d,
				  uint32_t stream, uint64_t entity)
{
	struct sum_series *se = calloc(1, sizeof(*se));
	struct sum_list *l = &st->streams[stream];

	if (!se)
		return NULL;
	se->f = calloc(d->nfields ? d->nfields : 1, sizeof(*se->f));
	if (!se->f || !list_push(&st->all, &st->nall, &st->capall, se)) {
		free(se->f);
		free(se);
		return NULL;
	}
	if (!list_push(&l->v, &l->n, &l->cap, se)) {
		st->nall--;
		free(se->f);
		free(se);
		return NULL;
	}
	se->stream = stream;
	se->entity = entity;
	se->nf = d->nfields;
	se->period_ns = peak_period_ns(d->rate_hz);
	se->period_known = se->period_ns > 0;
	for (uint32_t f = 0; f < se->nf; f++)
		se->f[f].prev = NAN;
	return se;
}

/* The row set of (stream, entity); NULL past REC_SUMMARY_SERIES_MAX (noted
 * once on stderr) or without memory. */
static struct sum_series *sum_get(struct rec_export *x, const struct stream_desc *d,
				  uint32_t stream, uint64_t entity)
{
	struct sum_state *st = sum_state(x);
	struct sum_ref *ref;

	if (!st)
		return NULL;
	if ((ref = ktab_find(&st->index, stream, entity)))
		return ref->se;
	if (st->nall >= rec_export_bound(x, REC_SUMMARY_SERIES_MAX)) {
		if (!st->capped++)
			fprintf(x->err,
				"asys export: %s: more than %zu series; the summary leaves out "
				"the others\n",
				x->path, rec_export_bound(x, REC_SUMMARY_SERIES_MAX));
		return NULL;
	}
	if (ktab_get(&st->index, stream, entity, (void **)&ref) < 0)
		return NULL;
	ref->se = sum_new(st, d, stream, entity);
	if (!ref->se) {
		/* its slot may now hold a record moved back into it */
		ktab_remove(&st->index, ref);
		return NULL;
	}
	return ref->se;
}

void rec_export_sum_label(struct rec_export *x, const struct stream_desc *d, const struct rec *r)
{
	struct sum_state *st;
	struct sum_cmd *c;

	if (r->kind != REC_LABEL || d->entity != ENTITY_PID ||
	    strcmp(d->name, catalogue_name(STREAM_MEM_PROC)))
		return;
	if (!(st = sum_state(x)))
		return;
	/* past the cap, a process is named by its pid alone (the bound is
	 * checked where the table would grow, as it always was) */
	if ((st->cmds.n + 1) * 2 > st->cmds.cap && st->cmds.n >= rec_export_bound(x, SUM_CMDS_MAX))
		return;
	if (ktab_get(&st->cmds, 0, r->entity, (void **)&c) < 0)
		return;
	/* the latest: a process that execs is named by what it became */
	str_escape(c->cmd, sizeof(c->cmd), rec_text(r), SHOWN_CMD_MAX);
}

static const char *cmd_find(const struct sum_state *st, uint64_t pid)
{
	const struct sum_cmd *c = ktab_find(&st->cmds, 0, pid);

	return c ? c->cmd : NULL;
}

static void counter_add(struct rec_export *x, struct sum_series *se, struct sum_field *a, double v,
			uint64_t dt_ns)
{
	double prev = a->prev, r;

	a->prev = v;
	if (!dt_ns && !isnan(prev))
		return; /* two samples at one time: no interval, as in the store */
	if (isnan(v) || isnan(prev) || v < prev) {
		peak_win_break(&a->pw); /* unknown, or a reset: no rate, no window */
		return;
	}
	a->dsum += v - prev;
	a->dt_ns += dt_ns;
	a->n++;
	r = peak_win_add(&a->pw, v - prev, dt_ns, se->period_ns);
	if (!isnan(r))
		res_add(x, a, r);
}

/* --summary: one row set per series. The export's own series slot (se) is
 * only read for its label: it is freed when the entity ends, a row is not. */
void rec_export_sum_add(struct rec_export *x, const struct stream_desc *d, struct series_ent *ent,
			const struct rec *r)
{
	const double *v = rec_values(r);
	struct sum_series *se = sum_get(x, d, r->stream, r->entity);
	uint64_t dt_ns;

	if (!se)
		return;
	if (ent && ent->label && !se->label[0])
		str_escape(se->label, sizeof(se->label), ent->label, SHOWN_SERIES_MAX);
	if (se->prev_ts && r->ts_ns < se->prev_ts)
		return; /* out of order: no interval to take */
	dt_ns = se->prev_ts ? r->ts_ns - se->prev_ts : 0;
	if (dt_ns && !se->period_known)
		se->period_ns = peak_est_add(&se->est, dt_ns);
	if (dt_ns)
		peak_est_add(&x->sum->iv[r->stream], dt_ns);
	for (uint32_t f = 0; f < se->nf; f++) {
		struct sum_field *a = &se->f[f];
		double val = f < r->nvals ? v[f] : NAN;

		if (d->fields[f].kind == FIELD_COUNTER) {
			if (se->prev_ts)
				counter_add(x, se, a, val, dt_ns);
			else
				a->prev = val;
		} else if (!isnan(val)) {
			a->n++;
			a->sum += val;
			if (d->fields[f].kind == FIELD_ATTR)
				minmax_add(a, val); /* no p99 of an identity */
			else
				res_add(x, a, val);
		}
	}
	se->prev_ts = r->ts_ns;
}

static double p99(struct sum_field *a)
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

/* The unit column of a row and the scale of its four figures: one prefix
 * for the row, that of its largest figure, so the figures are plain
 * numbers a script can compare ("763.1" with "MiB/s"). Bytes take binary
 * prefixes, other units SI ones from a million up (below, the number is
 * shown whole); "-" for a row with no unit. */
struct shown_unit {
	double div;
	bool whole; /* no prefix and not bytes: 1410, not 1410.0 */
	char text[48];
};

static void unit_pick(struct shown_unit *u, const double *v, int n, const char *unit, bool rate)
{
	static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
	static const char *const si[] = {"", "k", "M", "G", "T", "P", "E"};
	bool bytes = !strcmp(unit, "B") || !strcmp(unit, "byte");
	double a = 0;
	int p = 0;

	for (int i = 0; i < n; i++)
		if (isfinite(v[i]) && fabs(v[i]) > a)
			a = fabs(v[i]);
	u->div = 1;
	if (bytes) {
		for (; a >= 1023.95 && p < 6; p++, u->div *= 1024)
			a /= 1024;
	} else if (a >= 1e6) {
		for (; a >= 999.95 && p < 6; p++, u->div *= 1000)
			a /= 1000;
	}
	u->whole = !bytes && p == 0;
	snprintf(u->text, sizeof(u->text), "%s%s%s", bytes ? bin[p] : si[p], bytes ? "B" : unit,
		 rate ? "/s" : "");
	if (!u->text[0])
		snprintf(u->text, sizeof(u->text), "-");
}

/* A figure in the row's unit, to 4 significant digits and no exponent;
 * "-" for none. */
static void fmt_value(char *buf, size_t n, double v, const struct shown_unit *u)
{
	double a = fabs(v) / u->div;
	int dec = a >= 999.95 ? 0 : a >= 99.995 ? 1 : a >= 9.9995 ? 2 : 3;

	if (isnan(v)) {
		snprintf(buf, n, "-");
		return;
	}
	if (a == 0 || (u->whole && a >= 999.95))
		dec = 0;
	snprintf(buf, n, "%s%.*f", v < 0 ? "-" : "", dec, a);
}

/* The host as one word of the table: escaped, and a space (which no host
 * name has, but a file may claim) as '_', so columns split on blanks. */
static void host_token(char *buf, size_t n, const char *host)
{
	str_escape(buf, n, host ? host : "unknown", n - 1);
	for (char *p = buf; *p; p++)
		if (*p == ' ')
			*p = '_';
}

/* A process's series: "PID COMMAND", the command from mem.proc's label
 * (a thread's: "TID NAME", its own label), and proc.cpu's container or job
 * beside it in parentheses, so that the processes of one container are told
 * apart. */
static void series_pid(char *buf, size_t n, const struct sum_state *st, const struct stream_desc *d,
		       const struct sum_series *se)
{
	bool own = !strcmp(d->name, catalogue_name(STREAM_PROC_THREAD));
	bool group = !strcmp(d->name, catalogue_name(STREAM_PROC_CPU));
	const char *cmd = own ? NULL : cmd_find(st, se->entity);

	if (!cmd && !group)
		cmd = se->label;
	snprintf(buf, n, "%llu%s%s%s%s%s", (unsigned long long)se->entity, cmd && cmd[0] ? " " : "",
		 cmd ? cmd : "", group && se->label[0] ? " (" : "", group ? se->label : "",
		 group && se->label[0] ? ")" : "");
}

/* How a row names its series: a process by pid and command; else the
 * label, else the entity as its kind says. */
static void series_name(char *buf, size_t n, const struct sum_state *st,
			const struct stream_desc *d, const struct sum_series *se)
{
	if (d->entity == ENTITY_PID)
		series_pid(buf, n, st, d, se);
	else if (se->label[0])
		snprintf(buf, n, "%s", se->label);
	else if (d->entity == ENTITY_NONE)
		snprintf(buf, n, "-");
	else if (d->entity == ENTITY_CPU)
		snprintf(buf, n, se->entity == ENTITY_CPU_TOTAL ? "all" : "cpu%llu",
			 (unsigned long long)se->entity);
	else if (d->entity == ENTITY_DEVICE)
		snprintf(buf, n, "ppu%llu", (unsigned long long)se->entity);
	else
		snprintf(buf, n, "%llu", (unsigned long long)se->entity);
}

static void print_row(struct rec_export *x, const struct stream_desc *d,
		      const struct sum_series *se, uint32_t f)
{
	struct sum_field *a = &se->f[f];
	const struct field_desc *fd = &d->fields[f];
	char sn[SHOWN_NAME_MAX + 1], fn[SHOWN_NAME_MAX + 1], unit[40];
	char name[SHOWN_SERIES_MAX + SHOWN_CMD_MAX + 32];
	char mn[48], av[48], mx[48], pc[48];
	struct shown_unit u;
	double fig[4];
	bool ctr = fd->kind == FIELD_COUNTER;
	double avg = NAN, lo = a->nseen ? a->min : NAN, hi = a->nseen ? a->max : NAN;

	str_escape(unit, sizeof(unit), fd->unit, 32);
	if (ctr && a->dt_ns) {
		avg = a->dsum * 1e9 / (double)a->dt_ns;
		/* the whole span is a window too: min <= avg <= max */
		if (a->dt_ns >= se->period_ns) {
			lo = isnan(lo) || avg < lo ? avg : lo;
			hi = isnan(hi) || avg > hi ? avg : hi;
		}
	} else if (fd->kind == FIELD_GAUGE && a->n) {
		avg = a->sum / (double)a->n;
	}
	fig[0] = lo;
	fig[1] = avg;
	fig[2] = hi;
	fig[3] = fd->kind == FIELD_ATTR ? NAN : p99(a);
	unit_pick(&u, fig, 4, unit, ctr);
	fmt_value(mn, sizeof(mn), fig[0], &u);
	fmt_value(av, sizeof(av), fig[1], &u);
	fmt_value(mx, sizeof(mx), fig[2], &u);
	fmt_value(pc, sizeof(pc), fig[3], &u);
	series_name(name, sizeof(name), x->sum, d, se);
	/* the series last: a label may hold spaces, and scripts split on them */
	fprintf(x->out, "%-14s %-22s %8llu %11s %11s %11s %11s %-10s %-12s %s\n",
		str_escape(sn, sizeof(sn), d->name, SHOWN_NAME_MAX),
		str_escape(fn, sizeof(fn), fd->name, SHOWN_NAME_MAX),
		(unsigned long long)(ctr ? a->n : a->nseen), mn, av, mx, pc, u.text, x->sum->host,
		name);
}

/* "1 ms", "250 us", "1 s" */
static void fmt_window(char *buf, size_t n, uint64_t ns)
{
	if (ns >= 1000000000ull)
		snprintf(buf, n, "%.6g s", (double)ns / 1e9);
	else if (ns >= 1000000ull)
		snprintf(buf, n, "%.6g ms", (double)ns / 1e6);
	else
		snprintf(buf, n, "%.6g us", (double)ns / 1e3);
}

/* The window of a stream's peaks, for the note above the table, and the
 * rate the file holds: a stream whose samples are further apart than its
 * collector's rate (processes are scanned once per refresh by a collector
 * that runs faster) says how far apart they are, from the median of its
 * first intervals; its windows are those intervals. */
static void print_window(struct rec_export *x, const struct stream_desc *d,
			 const struct sum_list *l, uint32_t s)
{
	char sn[SHOWN_NAME_MAX + 1], w[32];
	uint64_t ns = l->n ? l->v[0]->period_ns : 0;
	uint64_t med = peak_est_add(&x->sum->iv[s], 0);

	str_escape(sn, sizeof(sn), d->name, SHOWN_NAME_MAX);
	if (d->rate_hz > 0 && med > ns + ns / 2) {
		/* to 2 significant digits: ticks a little late or early */
		double mag = pow(10, floor(log10((double)med)) - 1);

		fmt_window(w, sizeof(w), (uint64_t)(round((double)med / mag) * mag));
		fprintf(x->out, "  %-16s %s (samples %s apart: the median interval)\n", sn, w, w);
		return;
	}
	fmt_window(w, sizeof(w), ns);
	if (d->rate_hz > 0)
		fprintf(x->out, "  %-16s %s (sampled at %.6g Hz)\n", sn, w, d->rate_hz);
	else if (ns)
		fprintf(x->out, "  %-16s %s (no rate recorded: the median sample interval)\n", sn,
			w);
	else
		fprintf(x->out, "  %-16s per sample (no rate recorded)\n", sn);
}

static bool has_counter(const struct stream_desc *d)
{
	for (uint32_t f = 0; f < d->nfields; f++)
		if (d->fields[f].kind == FIELD_COUNTER)
			return true;
	return false;
}

void rec_export_print_summary(struct rec_export *x)
{
	uint32_t ns = stream_table_count(x->tab);

	fprintf(x->out, "Counters are per second: avg = increase / time covered (a reset\n"
			"interval left out); min, max, p99 = over windows of at least the\n"
			"sampling period:\n");
	for (uint32_t s = 0; x->sum && s < ns && s < STREAM_MAX; s++) {
		const struct stream_desc *d = stream_table_get(x->tab, s);

		if (x->sum->streams[s].n && has_counter(d))
			print_window(x, d, &x->sum->streams[s], s);
	}
	fprintf(x->out, "Attributes (pid, uid, ...) are not averaged: min and max only.\n\n");
	fprintf(x->out, "%-14s %-22s %8s %11s %11s %11s %11s %-10s %-12s %s\n", "stream", "field",
		"values", "min", "avg", "max", "p99", "unit", "host", "series");
	if (x->sum)
		host_token(x->sum->host, sizeof(x->sum->host), x->host);
	for (uint32_t s = 0; x->sum && s < ns && s < STREAM_MAX; s++) {
		const struct stream_desc *d = stream_table_get(x->tab, s);
		const struct sum_list *l = &x->sum->streams[s];

		for (size_t i = 0; i < l->n; i++)
			for (uint32_t f = 0; f < l->v[i]->nf && f < d->nfields; f++)
				print_row(x, d, l->v[i], f);
	}
}

static void fmt_dur(char *buf, size_t n, uint64_t ns)
{
	uint64_t s = ns / 1000000000ull;

	snprintf(buf, n, "%02llu:%02llu:%02llu", (unsigned long long)(s / 3600),
		 (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
}

static void print_meta(struct rec_export *x, const struct rec_meta *m)
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

void rec_export_print_info(struct rec_export *x)
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

void rec_export_acc_free(struct rec_export *x)
{
	struct sum_state *st = x->sum;

	x->sum = NULL;
	x->res_bytes = 0;
	if (!st)
		return;
	for (size_t i = 0; i < st->nall; i++) {
		for (uint32_t f = 0; f < st->all[i]->nf; f++)
			free(st->all[i]->f[f].res);
		free(st->all[i]->f);
		free(st->all[i]);
	}
	for (int s = 0; s < STREAM_MAX; s++)
		free(st->streams[s].v);
	ktab_fini(&st->cmds);
	free(st->all);
	ktab_fini(&st->index);
	free(st);
}
