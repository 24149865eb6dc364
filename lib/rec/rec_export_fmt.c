/* SPDX-License-Identifier: GPL-2.0-only */
/* Export's text: the time column, CSV and JSON rows. */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "rec_export_int.h"
#include "strsafe.h"

static const char *fmt_wall(struct rec_export *x, uint64_t t_ns)
{
	const struct rec_meta *m = rec_reader_meta(x->r);
	int64_t wall;
	time_t s;

	/* a clock origin that puts the time past 2262 has no date: keep t_ns */
	if (!rec_wall_ns(m->have ? m->clock_origin_ns : 0, t_ns, &wall)) {
		snprintf(x->tcache, sizeof(x->tcache), "+%llu.%09llus",
			 (unsigned long long)(t_ns / 1000000000),
			 (unsigned long long)(t_ns % 1000000000));
		return x->tcache;
	}
	s = (time_t)(wall / 1000000000);
	if (s != x->tcache_s || !x->tprefix[0]) {
		struct tm tm;
		long off;

		/* local time with its offset (ISO 8601): the zone is on every row,
		 * and a change of offset (DST) mid-file shows where it happens */
		localtime_r(&s, &tm);
		strftime(x->tprefix, sizeof(x->tprefix), "%Y-%m-%dT%H:%M:%S", &tm);
		off = tm.tm_gmtoff < 0 ? -tm.tm_gmtoff : tm.tm_gmtoff;
		snprintf(x->tzone, sizeof(x->tzone), "%c%02ld:%02ld", tm.tm_gmtoff < 0 ? '-' : '+',
			 off / 3600 % 100, off / 60 % 60);
		x->tcache_s = s;
	}
	snprintf(x->tcache, sizeof(x->tcache), "%s.%09d%s", x->tprefix, (int)(wall % 1000000000),
		 x->tzone);
	return x->tcache;
}

static void csv_quoted(FILE *f, const char *s, bool quote)
{
	if (!quote) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* RFC 4180, and a space at either end quoted too (readers strip it). A
 * CSV is read in a terminal too: a name with a control character (C0, C1,
 * bidi) or a byte that is not UTF-8 is written as str_escape shows it
 * (\e, \n, \xNN, \u202E, a backslash doubled); others as they are. */
static void csv_str(FILE *f, const char *s)
{
	size_t n;

	if (!s)
		return;
	n = strlen(s);
	if (str_needs_escape(s)) {
		bool quote = strpbrk(s, ",\"") || s[0] == ' ' || s[n - 1] == ' ';
		char *e = malloc(4 * n + 1);

		if (!e) {
			fputs("\"?\"", f);
			return;
		}
		str_escape(e, 4 * n + 1, s, 0);
		csv_quoted(f, e, quote);
		free(e);
		return;
	}
	csv_quoted(f, s, strpbrk(s, ",\"\n\r") || (n && (s[0] == ' ' || s[n - 1] == ' ')));
}

/* Controls (C0, DEL, C1, bidi) as \uXXXX; a byte that is not UTF-8 as
 * U+FFFD, so the line stays valid JSON and inert in a terminal whatever
 * the file holds. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	while (s && *s) {
		size_t len;
		uint32_t cp;
		enum str_class c = str_class(s, &len, &cp);

		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (c == STR_CONTROL)
			fprintf(f, "\\u%04x", (unsigned)cp);
		else if (c == STR_BAD)
			fputs("\\ufffd", f);
		else
			fwrite(s, 1, len, f);
		s += len;
	}
	fputc('"', f);
}

/* A label "PID<TAB>NAME" (gpurt.kernels) is written as its two parts:
 * true with them, false for any other label (kept whole). */
static bool label_split(const char *label, unsigned long *pid, const char **name)
{
	const char *p = label;
	unsigned long v = 0;

	if (!p || *p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > UINT32_MAX)
			return false;
	}
	if (*p != '\t')
		return false;
	*pid = v;
	*name = p + 1;
	return true;
}

/* One row per value; se is NULL past the series cap (no label). The label
 * column, or pid and name for a split label. */
void rec_export_csv_row(struct rec_export *x, const struct stream_desc *d,
			const struct series_ent *se, const struct rec *r)
{
	const char *t = fmt_wall(x, r->ts_ns), *label = se ? se->label : NULL, *name = NULL;
	const double *v = rec_values(r);
	unsigned long pid = 0;
	bool split = label_split(label, &pid, &name);

	for (uint32_t f = 0; f < r->nvals && f < d->nfields; f++) {
		fprintf(x->out, "%llu,%s,", (unsigned long long)r->ts_ns, t);
		csv_str(x->out, d->name);
		fprintf(x->out, ",%llu,", (unsigned long long)r->entity);
		csv_str(x->out, split ? NULL : label);
		fputc(',', x->out);
		csv_str(x->out, d->fields[f].name);
		fputc(',', x->out);
		csv_str(x->out, d->fields[f].unit);
		fprintf(x->out, ",%.17g,", v[f]);
		if (split) {
			fprintf(x->out, "%lu,", pid);
			csv_str(x->out, name);
		} else {
			fputc(',', x->out);
		}
		fputc(',', x->out);
		csv_str(x->out, x->host);
		fputc('\n', x->out);
	}
	x->rows++;
}

/* A double holds integers up to 2^53 exactly: an id above that (the all-CPU
 * total, a kernel hash), and every opaque key, is a string of its digits,
 * so that jq and JavaScript keep them whole. */
static void json_entity(FILE *f, const struct stream_desc *d, uint64_t e)
{
	if (d->entity == ENTITY_KEY || e > (1ull << 53))
		fprintf(f, "\"%llu\"", (unsigned long long)e);
	else
		fprintf(f, "%llu", (unsigned long long)e);
}

void rec_export_json_row(struct rec_export *x, const struct stream_desc *d,
			 const struct series_ent *se, const struct rec *r)
{
	const double *v = rec_values(r);
	const char *name = NULL;
	unsigned long pid = 0;

	fprintf(x->out, "{\"t_ns\":%llu,\"time\":\"%s\",\"host\":", (unsigned long long)r->ts_ns,
		fmt_wall(x, r->ts_ns));
	json_str(x->out, x->host);
	fputs(",\"stream\":", x->out);
	json_str(x->out, d->name);
	fputs(",\"entity\":", x->out);
	json_entity(x->out, d, r->entity);
	if (se && label_split(se->label, &pid, &name)) {
		fprintf(x->out, ",\"pid\":%lu,\"name\":", pid);
		json_str(x->out, name);
	} else {
		fputs(",\"label\":", x->out);
		if (se && se->label)
			json_str(x->out, se->label);
		else
			fputs("null", x->out);
	}
	fputs(",\"values\":{", x->out);
	for (uint32_t f = 0; f < r->nvals && f < d->nfields; f++) {
		if (f)
			fputc(',', x->out);
		json_str(x->out, d->fields[f].name);
		if (isfinite(v[f]))
			fprintf(x->out, ":%.17g", v[f]);
		else
			fputs(":null", x->out);
	}
	fputs("}}\n", x->out);
	x->rows++;
}
