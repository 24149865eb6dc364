/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "serve_int.h"

struct serve_fmt {
	const struct serve_snap *s;
	bool om;
	struct buf out;
	struct buf lb; /* one row's labels */
};

/* HELP text: Prometheus 0.0.4 escapes \ and newline, OpenMetrics the
 * double quote too. */
static void serve_help_text(struct serve_fmt *x, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			buf_put(&x->out, "\\\\", 2);
		else if (*s == '\n')
			buf_put(&x->out, "\\n", 2);
		else if (*s == '"' && x->om)
			buf_put(&x->out, "\\\"", 2);
		else
			buf_put(&x->out, s, 1);
	}
}

/* The metadata of a family; family is the name without _total. */
static void serve_header(struct serve_fmt *x, const char *family, bool counter, const char *unit,
			 const char *help)
{
	const char *tail = counter && !x->om ? "_total" : "";

	buf_printf(&x->out, "# HELP %s%s ", family, tail);
	serve_help_text(x, help);
	buf_printf(&x->out, "\n# TYPE %s%s %s\n", family, tail, counter ? "counter" : "gauge");
	if (x->om && unit && *unit)
		buf_printf(&x->out, "# UNIT %s %s\n", family, unit);
}

/* One sample: NAME{LABELS,extra="v"} VALUE, NaN left out. */
static void serve_sample(struct serve_fmt *x, const char *family, bool counter, const char *extra,
			 const char *extra_value, double v)
{
	if (isnan(v))
		return;
	buf_printf(&x->out, "%s%s", family, counter ? "_total" : "");
	if (x->lb.len || extra) {
		buf_put(&x->out, "{", 1);
		if (x->lb.len)
			buf_put(&x->out, x->lb.p, x->lb.len);
		if (extra) {
			buf_printf(&x->out, "%s%s=\"", x->lb.len ? "," : "", extra);
			serve_buf_label_value(&x->out, extra_value);
			buf_put(&x->out, "\"", 1);
		}
		buf_put(&x->out, "}", 1);
	}
	buf_put(&x->out, " ", 1);
	serve_buf_value(&x->out, v);
	buf_put(&x->out, "\n", 1);
}

/* false: the row is not exported */
static bool serve_labels_of(struct serve_fmt *x, const struct serve_stream *st,
			    const struct serve_row *r)
{
	x->lb.len = 0;
	if (x->lb.p)
		x->lb.p[0] = '\0';
	return serve_row_labels(x->s, st, r, &x->lb);
}

/* which: 0 the last value, 1 the window's mean, 2 its max */
static double serve_val(const struct serve_snap *s, const struct serve_stream *st,
			const struct serve_row *r, uint32_t f, int which)
{
	uint32_t set = which == 0 ? 0 : which == 1 ? st->set_avg : st->set_max;

	if (which && !set)
		return NAN;
	return s->vals[r->val + (size_t)set * st->d->nfields + f];
}

/* A plain stream: one family per field. */
static void serve_fields(struct serve_fmt *x, const struct serve_stream *st)
{
	char family[SERVE_NAME_MAX], help[512];
	char prefix[SERVE_NAME_MAX] = "";

	if (!st->rule->prefix)
		for (size_t i = 0; st->d->name[i] && i + 1 < sizeof(prefix); i++)
			prefix[i] = st->d->name[i] == '.' ? '_' : st->d->name[i];
	for (uint32_t f = 0; f < st->d->nfields; f++) {
		const struct field_desc *fd = &st->d->fields[f];
		struct serve_unit u = serve_unit_of(fd->unit);
		bool counter = fd->kind == FIELD_COUNTER;

		if (!strcmp(fd->name, "pid"))
			continue; /* a label already */
		serve_family_name(st->rule, st->rule->prefix ? NULL : prefix, fd, family,
				  sizeof(family));
		serve_field_help(st->d, fd, help, sizeof(help));
		serve_header(x, family, counter, u.suffix, help);
		for (size_t k = 0; k < st->nrows; k++) {
			if (serve_labels_of(x, st, &st->rows[k]))
				serve_sample(x, family, counter, NULL, NULL,
					     serve_val(x->s, st, &st->rows[k], f, 0) * u.scale);
		}
	}
}

/* ppu.metrics: a family per unit and kind, the field in the metric label,
 * and for gauges the mean and max over the peak window. */
static void serve_by_metric(struct serve_fmt *x, const struct serve_stream *st)
{
	static const char *const whats[] = {"", "the mean over the peak window of ",
					    "the highest sample in the peak window of "};

	for (uint32_t f = 0; f < st->d->nfields; f++) {
		const struct field_desc *fd = &st->d->fields[f];
		struct serve_unit u = serve_unit_of(fd->unit);
		bool counter = fd->kind == FIELD_COUNTER, seen = false;

		for (uint32_t g = 0; g < f && !seen; g++)
			seen = st->d->fields[g].kind == fd->kind &&
			       !strcmp(serve_unit_of(st->d->fields[g].unit).suffix, u.suffix);
		if (seen)
			continue;
		for (int w = 0; w < (counter ? 1 : 3); w++) {
			char family[SERVE_NAME_MAX], help[512];
			struct serve_rule r = *st->rule;

			if (w)
				r.prefix = w == 1 ? "ppu_metric_mean" : "ppu_metric_max";
			serve_family_name(&r, NULL, fd, family, sizeof(family));
			snprintf(help, sizeof(help), "%s%s, in %s; the metric label names it",
				 whats[w], st->d->help ? st->d->help : st->d->name,
				 *u.suffix ? u.suffix : "counts");
			serve_header(x, family, counter, u.suffix, help);
			for (uint32_t g = f; g < st->d->nfields; g++) {
				const struct field_desc *gd = &st->d->fields[g];

				if (gd->kind != fd->kind ||
				    strcmp(serve_unit_of(gd->unit).suffix, u.suffix))
					continue;
				for (size_t k = 0; k < st->nrows; k++) {
					if (serve_labels_of(x, st, &st->rows[k]))
						serve_sample(
						    x, family, counter, "metric", gd->name,
						    serve_val(x->s, st, &st->rows[k], g, w) *
							u.scale);
				}
			}
		}
	}
}

/* The highest rate of a byte counter in the peak window. */
static void serve_peak(struct serve_fmt *x, const struct serve_stream *st, unsigned int field,
		       const char *dir)
{
	int f = serve_rule_field(st->rule, st->d, field);
	char family[SERVE_NAME_MAX], help[256];

	if (f < 0 || st->d->fields[f].kind != FIELD_COUNTER)
		return;
	snprintf(family, sizeof(family), "asys_%s_%s_peak_bytes_per_second", st->rule->peak_prefix,
		 dir);
	snprintf(help, sizeof(help),
		 "highest %s rate over windows of at least the sampling period in the peak "
		 "window before the scrape (%s %s)",
		 dir, st->d->name, st->d->fields[f].name);
	serve_header(x, family, false, "bytes_per_second", help);
	for (size_t k = 0; k < st->nrows; k++) {
		if (serve_labels_of(x, st, &st->rows[k]))
			serve_sample(x, family, false, NULL, NULL,
				     serve_val(x->s, st, &st->rows[k], (uint32_t)f, 2));
	}
}

static void serve_own(struct serve_fmt *x, const struct serve_collector *c, size_t nc,
		      const char *version)
{
	x->lb.len = 0;
	serve_header(x, "asys_build_info", false, NULL, "asys's version, always 1");
	serve_sample(x, "asys_build_info", false, "version", version, 1);
	serve_header(x, "asys_collector_up", false, NULL,
		     "1 when the collector samples, 0 when it is off or its source is missing");
	for (size_t i = 0; i < nc; i++)
		serve_sample(x, "asys_collector_up", false, "collector", c[i].name, c[i].up);
	serve_header(x, "asys_collector_rate_hz", false, NULL,
		     "ticks per second the collector's sampling thread achieved over the last "
		     "second");
	for (size_t i = 0; i < nc; i++)
		if (c[i].up)
			serve_sample(x, "asys_collector_rate_hz", false, "collector", c[i].name,
				     c[i].rate_hz);
}

char *serve_format(const struct serve_snap *s, enum serve_format f, const struct serve_collector *c,
		   size_t nc, const char *version, size_t *len)
{
	struct serve_fmt x = {.s = s, .om = f == SERVE_OPENMETRICS};

	serve_own(&x, c, nc, version);
	for (size_t i = 0; i < s->nstreams; i++) {
		const struct serve_stream *st = &s->streams[i];

		if (!st->nrows)
			continue;
		if (st->rule->by_metric) {
			serve_by_metric(&x, st);
			continue;
		}
		serve_fields(&x, st);
		if (st->rule->peaks) {
			serve_peak(&x, st, NIC_LINK_RX_BYTES, "receive");
			serve_peak(&x, st, NIC_LINK_TX_BYTES, "transmit");
		}
	}
	if (x.om)
		buf_put(&x.out, "# EOF\n", 6);
	buf_free(&x.lb);
	*len = x.out.len;
	return buf_take(&x.out);
}

const char *serve_content_type(enum serve_format f)
{
	return f == SERVE_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
				      : "text/plain; version=0.0.4; charset=utf-8";
}

enum serve_format serve_negotiate(const char *accept)
{
	return accept && strcasestr(accept, "application/openmetrics-text") ? SERVE_OPENMETRICS
									    : SERVE_PROMETHEUS;
}
