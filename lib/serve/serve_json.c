/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve_int.h"
#include "util.h"

/* A JSON string: quotes, backslashes and newlines escaped, other control
 * bytes and bytes that are not UTF-8 as '?', so the document always
 * parses. */
static void serve_json_str(FILE *f, const char *s)
{
	struct buf b = {0};

	serve_buf_label_value(&b, s ? s : "");
	/* its escapes (\\ \" \n) are JSON's too */
	fputc('"', f);
	if (b.p)
		fwrite(b.p, 1, b.len, f);
	fputc('"', f);
	free(b.p);
}

static void serve_json_num(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("null", f);
	else if (v == floor(v) && fabs(v) < 1e17)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.15g", v);
}

static const char *serve_entity_kind(enum entity_kind k)
{
	static const char *const names[] = {"none", "cpu", "pid", "device", "nic", "key"};

	return (size_t)k < ARRAY_SIZE(names) ? names[k] : "key";
}

static void serve_json_row(FILE *f, const struct serve_snap *s, const struct serve_stream *st,
			   const struct serve_row *r)
{
	const struct stream_desc *d = st->d;

	fputs("{\"id\":", f);
	if (d->entity == ENTITY_CPU && r->entity == ENTITY_CPU_TOTAL)
		fputs("\"total\"", f);
	else
		fprintf(f, "\"%llu\"", (unsigned long long)r->entity);
	fputs(",\"label\":", f);
	if (r->has_label)
		serve_json_str(f, r->label);
	else
		fputs("null", f);
	fputs(",\"values\":{", f);
	for (uint32_t k = 0; k < d->nfields; k++) {
		fputs(k ? "," : "", f);
		serve_json_str(f, d->fields[k].name);
		fputc(':', f);
		serve_json_num(f, s->vals[r->val + k]);
	}
	fputs("},\"rates\":{", f);
	for (uint32_t k = 0, n = 0; st->set_rate && k < d->nfields; k++) {
		if (d->fields[k].kind != FIELD_COUNTER)
			continue;
		fputs(n++ ? "," : "", f);
		serve_json_str(f, d->fields[k].name);
		fputc(':', f);
		serve_json_num(f, s->vals[r->val + (size_t)st->set_rate * d->nfields + k]);
	}
	fputs("}}", f);
}

static void serve_json_stream(FILE *f, const struct serve_snap *s, const struct serve_stream *st)
{
	const struct stream_desc *d = st->d;

	fputs("{\"name\":", f);
	serve_json_str(f, d->name);
	fprintf(f, ",\"version\":%u,\"entity\":\"%s\",\"help\":", d->version,
		serve_entity_kind(d->entity));
	serve_json_str(f, d->help);
	fputs(",\"status\":", f);
	if (st->has_status)
		serve_json_str(f, st->status);
	else
		fputs("null", f);
	fputs(",\"fields\":[", f);
	for (uint32_t k = 0; k < d->nfields; k++) {
		const struct field_desc *fd = &d->fields[k];

		fputs(k ? ",{\"name\":" : "{\"name\":", f);
		serve_json_str(f, fd->name);
		fputs(",\"unit\":", f);
		serve_json_str(f, fd->unit);
		fprintf(f, ",\"kind\":\"%s\"}",
			fd->kind == FIELD_COUNTER ? "counter"
			: fd->kind == FIELD_ATTR  ? "attr"
						  : "gauge");
	}
	fputs("],\"entities\":[", f);
	for (size_t k = 0; k < st->nrows; k++) {
		fputs(k ? "," : "", f);
		serve_json_row(f, s, st, &st->rows[k]);
	}
	fputs("]}", f);
}

int serve_write_json(const struct serve_snap *s, const struct serve_collector *c, size_t nc,
		     const char *host, double interval_s, FILE *f)
{
	time_t now = time(NULL);
	struct tm tm;
	char when[32];

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(f, "{\"schema\":\"asys-snapshot\",\"version\":%d,\"asys_version\":",
		SERVE_JSON_VERSION);
	serve_json_str(f, PACKAGE_VERSION);
	fputs(",\"host\":", f);
	serve_json_str(f, host);
	fprintf(f, ",\"time\":\"%s\",\"interval_s\":", when);
	serve_json_num(f, interval_s);
	fputs(",\"collectors\":[", f);
	for (size_t i = 0; i < nc; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		serve_json_str(f, c[i].name);
		fprintf(f, ",\"up\":%s,\"rate_hz\":", c[i].up ? "true" : "false");
		serve_json_num(f, c[i].rate_hz);
		fputc('}', f);
	}
	fputs("],\"streams\":[", f);
	for (size_t i = 0; i < s->nstreams; i++) {
		fputs(i ? "," : "", f);
		serve_json_stream(f, s, &s->streams[i]);
	}
	fputs("]}\n", f);
	return ferror(f) ? -EIO : 0;
}

/* One line per known value: stream, entity, field, value, and the entity's
 * name where it has one, last, as it may hold spaces (escaped like a label
 * value, so one line stays one line). */
static void serve_text_row(FILE *f, const struct serve_snap *s, const struct serve_stream *st,
			   const struct serve_row *r)
{
	struct buf b = {0};

	if (r->has_label)
		serve_buf_label_value(&b, r->label);
	for (uint32_t fi = 0; fi < st->d->nfields; fi++) {
		double v = s->vals[r->val + fi];

		if (isnan(v))
			continue;
		if (st->d->entity == ENTITY_CPU && r->entity == ENTITY_CPU_TOTAL)
			fprintf(f, "%s total", st->d->name);
		else
			fprintf(f, "%s %llu", st->d->name, (unsigned long long)r->entity);
		fprintf(f, " %s %.15g", st->d->fields[fi].name, v);
		if (b.p && b.len)
			fprintf(f, " %s", buf_str(&b));
		fputc('\n', f);
	}
	free(b.p);
}

int serve_write_text(const struct serve_snap *s, FILE *f)
{
	for (size_t i = 0; i < s->nstreams; i++) {
		const struct serve_stream *st = &s->streams[i];

		if (st->has_status && !st->nrows) {
			struct buf b = {0};

			serve_buf_label_value(&b, st->status);
			fprintf(f, "%s - status %s\n", st->d->name, buf_str(&b));
			free(b.p);
		}
		for (size_t k = 0; k < st->nrows; k++)
			serve_text_row(f, s, st, &st->rows[k]);
	}
	return ferror(f) ? -EIO : 0;
}
