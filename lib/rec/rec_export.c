/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rec_export_int.h"
#include "strsafe.h"
#include "util.h"

/* NULL past REC_EXPORT_SERIES_MAX live series (noted once on stderr): the
 * rows are still written, without a label. */
static struct series_ent *ser_get(struct rec_export *x, uint32_t stream, uint64_t entity)
{
	struct series_ent *se;
	int r;

	if (!x->ser.esz)
		ktab_init(&x->ser, sizeof(struct series_ent), 1024, KTAB_PAIR);
	x->ser.max = rec_export_bound(x, REC_EXPORT_SERIES_MAX);
	r = ktab_get(&x->ser, stream, entity, (void **)&se);
	if (r == -ENOSPC) {
		if (!x->ser_capped++)
			fprintf(x->err,
				"asys export: %s: more than %zu live series; the labels and "
				"counter rates of the others are not kept\n",
				x->path, x->ser.max);
		return NULL;
	}
	if (r == 1 && stream < STREAM_MAX)
		x->entities[stream]++;
	return se;
}

/* An entity that ended frees its slot. */
static void ser_remove(struct rec_export *x, uint32_t stream, uint64_t entity)
{
	struct series_ent *se = ktab_find(&x->ser, stream, entity);

	if (!se)
		return;
	x->label_bytes -= se->label ? strlen(se->label) + 1 : 0;
	free(se->label);
	ktab_remove(&x->ser, se);
}

static void ser_label(struct rec_export *x, struct series_ent *se, const char *text)
{
	size_t n = strlen(text) + 1;

	x->label_bytes -= se->label ? strlen(se->label) + 1 : 0;
	free(se->label);
	se->label = NULL;
	if (x->label_bytes + n > rec_export_bound(x, REC_EXPORT_LABEL_BYTES)) {
		if (!x->labels_capped++)
			fprintf(x->err,
				"asys export: %s: labels pass %zu KiB; further labels are "
				"not kept\n",
				x->path, rec_export_bound(x, REC_EXPORT_LABEL_BYTES) >> 10);
		return;
	}
	se->label = util_strdup(text);
	if (se->label)
		x->label_bytes += n;
}

static void ser_release(struct rec_export *x)
{
	struct series_ent *se;

	for (size_t i = 0; (se = ktab_next(&x->ser, &i));)
		free(se->label);
	ktab_fini(&x->ser);
	x->label_bytes = 0;
	x->ser_capped = x->labels_capped = 0;
}

void rec_export_on_rec(void *ctx, const struct rec *r)
{
	struct rec_export *x = ctx;
	const struct stream_desc *d;
	struct series_ent *se;

	if (x->o->format == REC_EXPORT_SUMMARY && r->kind == REC_LABEL &&
	    (d = stream_table_get(x->tab, r->stream)))
		rec_export_sum_label(x, d, r);
	if (r->stream >= STREAM_MAX || (!x->all && !x->sel[r->stream]))
		return;
	if (r->ts_ns < x->tb || r->ts_ns > x->te)
		return;
	d = stream_table_get(x->tab, r->stream);
	if (!d)
		return;
	x->recs[r->stream]++;
	if (r->kind == REC_GONE) {
		ser_remove(x, r->stream, r->entity);
		return;
	}
	if (r->kind != REC_SAMPLE && r->kind != REC_LABEL)
		return;
	se = ser_get(x, r->stream, r->entity);
	if (r->kind == REC_LABEL) {
		if (se)
			ser_label(x, se, rec_text(r));
		return;
	}
	if (!x->samples[r->stream] || r->ts_ns < x->smin[r->stream])
		x->smin[r->stream] = r->ts_ns;
	if (r->ts_ns > x->smax[r->stream])
		x->smax[r->stream] = r->ts_ns;
	x->samples[r->stream]++;
	if (x->o->format == REC_EXPORT_CSV)
		rec_export_csv_row(x, d, se, r);
	else if (x->o->format == REC_EXPORT_JSON)
		rec_export_json_row(x, d, se, r);
	else if (x->o->format == REC_EXPORT_SUMMARY)
		rec_export_sum_add(x, d, se, r);
}

/* ---- the file loop ---- */

int rec_export_select(struct rec_export *x)
{
	const char *p = x->o->streams;

	memset(x->sel, 0, sizeof(x->sel));
	x->all = !p || !*p;
	while (p && *p) {
		const char *c = strchr(p, ',');
		size_t n = c ? (size_t)(c - p) : strlen(p);
		char name[STREAM_NAME_MAX];
		int id;

		if (n && n < sizeof(name)) {
			memcpy(name, p, n);
			name[n] = 0;
			id = stream_table_find(x->tab, name);
			if (id < 0) {
				char shown[STREAM_NAME_MAX * 4];

				fprintf(x->err,
					"asys export: %s: no stream '%s' in this recording; it has",
					x->path, str_escape(shown, sizeof(shown), name, 0));
				for (uint32_t i = 0; i < stream_table_count(x->tab); i++)
					fprintf(x->err, "%s %s", i ? "," : "",
						str_escape(shown, sizeof(shown),
							   stream_table_get(x->tab, i)->name, 0));
				fputc('\n', x->err);
				return -EINVAL;
			}
			x->sel[id] = true;
		}
		p = c ? c + 1 : NULL;
	}
	return 0;
}

/* The time span from the trailer, or by walking the frame headers. */
static void file_span(struct rec_export *x, uint64_t *t0, uint64_t *t1)
{
	struct rec_item it;
	uint64_t pos = rec_reader_pos(x->r);

	if (rec_reader_span(x->r, t0, t1))
		return;
	*t0 = UINT64_MAX;
	*t1 = 0;
	while (rec_reader_next(x->r, &it) == 1) {
		if (it.kind != REC_ITEM_FRAME || it.h.type != REC_FT_DATA)
			continue;
		if (it.h.t_min < *t0)
			*t0 = it.h.t_min;
		if (it.h.t_max > *t1)
			*t1 = it.h.t_max;
	}
	if (*t0 > *t1)
		*t0 = *t1 = 0;
	rec_reader_set_pos(x->r, pos);
}

static int window_bound(struct rec_export *x, const char *opt, const char *val, uint64_t t0,
			uint64_t t1, uint64_t *out)
{
	const struct rec_meta *m = rec_reader_meta(x->r);
	char range[160], shown[256];
	int rc = rec_parse_time(val, m->have ? m->clock_origin_ns : 0, t0, t1, t0, t1, out);

	val = str_escape(shown, sizeof(shown), val, 80);
	if (rc == -ERANGE) {
		rec_time_range(range, sizeof(range));
		fprintf(x->err, "asys export: --%s '%s' is out of range: asys takes %s\n", opt, val,
			range);
	} else if (rc) {
		fprintf(x->err,
			"asys export: bad value '%s' for --%s: expected HH:MM:SS, "
			"'YYYY-MM-DD HH:MM:SS', +DURATION, -DURATION or NN%%\n",
			val, opt);
	}
	return rc;
}

/* A window that misses the recording is no error: no rows, and a note. */
static void window_note(struct rec_export *x, uint64_t t0, uint64_t t1)
{
	char a[48], b[48];
	const char *what = NULL;

	if (x->tb > x->te)
		what = "--begin is after --end";
	else if (x->tb > t1)
		what = "--begin is after the recording's end";
	else if (x->te < t0)
		what = "--end is before the recording's start";
	if (!what)
		return;
	rec_fmt_time(x->r, t0, a, sizeof(a), true);
	rec_fmt_time(x->r, t1, b, sizeof(b), true);
	fprintf(x->err, "asys export: %s: %s (it runs from %s to %s); no rows from it\n", x->path,
		what, a, b);
	x->empty_window = true;
}

/* The --begin/--end window of the open file; note: say when it misses. */
int rec_export_window(struct rec_export *x, bool note)
{
	uint64_t t0 = 0, t1 = UINT64_MAX;

	x->tb = 0;
	x->te = UINT64_MAX;
	x->empty_window = false;
	if (!x->o->begin && !x->o->end)
		return 0;
	file_span(x, &t0, &t1);
	if (x->o->begin && window_bound(x, "begin", x->o->begin, t0, t1, &x->tb))
		return -EINVAL;
	if (x->o->end && window_bound(x, "end", x->o->end, t0, t1, &x->te))
		return -EINVAL;
	if (note)
		window_note(x, t0, t1);
	return 0;
}

/* One item of the walk: a hole or a gap is counted and reported (gaps
 * when report_gaps); true for a DATA frame whose records the window wants. */
bool rec_export_item(struct rec_export *x, const struct rec_item *it, const char *who,
		     bool report_gaps)
{
	char line[512], shown[1024];

	if (it->kind == REC_ITEM_HOLE) {
		x->holes++;
		rec_hole_describe(x->r, it, line, sizeof(line));
		fprintf(x->err, "asys %s: %s: %s\n", who, x->path,
			str_escape(shown, sizeof(shown), line, 0));
		return false;
	}
	x->frames++;
	if (it->h.type == REC_FT_GAP && x->gaps_n < ARRAY_SIZE(x->gaps)) {
		struct rec_gap_info *g = &x->gaps[x->gaps_n++];
		struct mp_cur c = {it->payload, it->payload + it->len, false};
		uint32_t n, kl;
		const char *k, *v;

		g->t_min = it->h.t_min;
		g->t_max = it->h.t_max;
		util_strlcpy(g->why, "unknown", sizeof(g->why));
		if (mp_map(&c, &n) && n && mp_str(&c, &k, &kl) && mp_key_is(k, kl, "why") &&
		    mp_str(&c, &v, &kl)) {
			if (kl >= sizeof(g->why))
				kl = sizeof(g->why) - 1;
			memcpy(g->why, v, kl);
			g->why[kl] = 0;
		}
	}
	if (it->h.type == REC_FT_GAP && report_gaps) {
		char a[40], b[40];

		rec_fmt_time(x->r, it->h.t_min, a, sizeof(a), false);
		rec_fmt_time(x->r, it->h.t_max, b, sizeof(b), false);
		fprintf(x->err, "asys %s: %s: gap from %s to %s\n", who, x->path, a, b);
	}
	return it->h.type == REC_FT_DATA && it->h.t_max >= x->tb && it->h.t_min <= x->te &&
	       !x->empty_window;
}

void rec_export_malformed(struct rec_export *x, const struct rec_item *it, const char *who)
{
	fprintf(x->err, "asys %s: %s: bytes %llu-%llu: DATA frame malformed inside; skipped\n", who,
		x->path, (unsigned long long)it->off, (unsigned long long)it->end);
}

void rec_export_end(struct rec_export *x, int rc, const char *who)
{
	x->cut = rc == -EAGAIN;
	if (rc == -EAGAIN)
		fprintf(x->err,
			"asys %s: %s: ends inside a frame at byte %llu (cut short, or "
			"still being written)\n",
			who, x->path, (unsigned long long)rec_reader_pos(x->r));
}

/* Reads one open file to the end; reports holes, gaps and a cut end. */
static void walk(struct rec_export *x, const char *who, bool report_gaps)
{
	struct rec_item it;
	int rc;

	while ((rc = rec_reader_next(x->r, &it)) == 1) {
		if (rec_export_item(x, &it, who, report_gaps) &&
		    rec_reader_data(x->r, &it, rec_export_on_rec, x))
			rec_export_malformed(x, &it, who);
	}
	rec_export_end(x, rc, who);
}

void rec_export_reset(struct rec_export *x)
{
	ser_release(x);
	rec_export_acc_free(x);
	memset(x->entities, 0, sizeof(x->entities));
	memset(x->samples, 0, sizeof(x->samples));
	memset(x->recs, 0, sizeof(x->recs));
	x->holes = x->frames = x->gaps_n = 0;
	x->cut = false;
}

/* Opens path as x->r; its damage is reported unless quiet (a first look). */
int rec_export_open(struct rec_export *x, const char *path, const char *who, bool quiet)
{
	char msg[512], warn[512], shown[1024];
	int rc;

	/* every message names the file: shown with its control characters escaped */
	x->path = str_escape(x->path_shown, sizeof(x->path_shown), path, 0);
	rc = rec_reader_open(path, &x->r, msg, sizeof(msg), warn, sizeof(warn));
	if (rc) {
		fprintf(x->err, "asys %s: %s\n", who, str_escape(shown, sizeof(shown), msg, 0));
		return rc;
	}
	if (*warn && !quiet)
		fprintf(x->err, "asys %s: %s\n", who, str_escape(shown, sizeof(shown), warn, 0));
	x->tab = rec_reader_streams(x->r);
	x->host = rec_export_host(x);
	return 0;
}

const char *rec_export_host(const struct rec_export *x)
{
	const struct rec_meta *m = rec_reader_meta(x->r);

	return m->have && m->host[0] ? m->host : "unknown";
}

int rec_info_files(char *const *files, int nfiles, FILE *out, FILE *err)
{
	struct rec_export_opts o = {.format = REC_EXPORT_SUMMARY};
	struct rec_export x = {.o = &o, .out = out, .err = err, .rng = 42};
	int ok = 0;

	x.all = true;
	x.te = UINT64_MAX;
	for (int i = 0; i < nfiles; i++) {
		if (rec_export_open(&x, files[i], "replay", false))
			continue;
		/* count, without keeping values for percentiles */
		o.format = REC_EXPORT_INFO_ONLY;
		walk(&x, "replay", false);
		if (ok)
			fputc('\n', out);
		rec_export_print_info(&x);
		ok++;
		rec_reader_free(x.r);
		x.r = NULL;
		rec_export_reset(&x);
	}
	fflush(out);
	return ok ? 0 : 1;
}

int rec_export_check(const struct rec_export_opts *o, char *const *files, int nfiles, FILE *err)
{
	struct rec_export x = {.o = o, .err = err};
	int ret = nfiles > 0 ? 0 : 1;

	if (nfiles > REC_EXPORT_FILES_MAX) {
		fprintf(err, "asys export: %d files; at most %d are read at once\n", nfiles,
			REC_EXPORT_FILES_MAX);
		return 2;
	}

	/* every file that cannot be read is named; a bad option once */
	for (int i = 0; i < nfiles && ret != 2; i++) {
		if (rec_export_open(&x, files[i], "export", true)) {
			ret = 1;
			continue;
		}
		if (rec_export_select(&x) || rec_export_window(&x, false))
			ret = 2;
		rec_reader_free(x.r);
		x.r = NULL;
	}
	return ret;
}

int rec_export_files(const struct rec_export_opts *o, char *const *files, int nfiles, FILE *out,
		     FILE *err)
{
	struct rec_export x = {.o = o, .out = out, .err = err, .rng = 42};
	int ok = 0, ret = rec_export_check(o, files, nfiles, err);

	if (ret)
		return ret;
	ret = 1;
	if (o->format == REC_EXPORT_CSV)
		fputs(REC_EXPORT_CSV_HEADER, out);
	if (nfiles > 1) {
		ret = rec_export_merge(o, files, nfiles, out, err);
		goto cleanup;
	}
	for (int i = 0; i < nfiles; i++) {
		if (rec_export_open(&x, files[i], "export", false))
			continue;
		if (rec_export_select(&x) || rec_export_window(&x, true)) {
			ret = 2;
			goto cleanup;
		}
		walk(&x, "export", false);
		ok++;
		if (o->format == REC_EXPORT_SUMMARY) {
			if (i)
				fputc('\n', out);
			rec_export_print_info(&x);
			fputc('\n', out);
			rec_export_print_summary(&x);
		}
		rec_reader_free(x.r);
		x.r = NULL;
		rec_export_reset(&x);
	}
	ret = ok ? 0 : 1;
cleanup:
	rec_reader_free(x.r);
	rec_export_reset(&x);
	/* a full disk or a closed pipe: the rows were not all written */
	errno = 0;
	if ((fflush(out) != 0 || ferror(out)) && ret != 2) {
		fprintf(err, "asys export: cannot write the output: %s\n",
			strerror(errno ? errno : EIO));
		ret = 1;
	}
	return ret;
}
