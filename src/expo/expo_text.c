#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expo_int.h"

struct expo_fmt {
	const struct expo_snap *s;
	bool om;
	struct expo_buf out;
	struct expo_buf lb; /* one row's labels */
};

/* HELP text: Prometheus 0.0.4 escapes \ and newline, OpenMetrics the
 * double quote too. */
static void expo_help_text(struct expo_fmt *x, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			expo_buf_put(&x->out, "\\\\", 2);
		else if (*s == '\n')
			expo_buf_put(&x->out, "\\n", 2);
		else if (*s == '"' && x->om)
			expo_buf_put(&x->out, "\\\"", 2);
		else
			expo_buf_put(&x->out, s, 1);
	}
}

/* The metadata of a family; family is the name without _total. */
static void expo_header(struct expo_fmt *x, const char *family, bool counter, const char *unit,
			const char *help)
{
	const char *tail = counter && !x->om ? "_total" : "";

	expo_buf_printf(&x->out, "# HELP %s%s ", family, tail);
	expo_help_text(x, help);
	expo_buf_printf(&x->out, "\n# TYPE %s%s %s\n", family, tail, counter ? "counter" : "gauge");
	if (x->om && unit && *unit)
		expo_buf_printf(&x->out, "# UNIT %s %s\n", family, unit);
}

/* One sample: NAME{LABELS,extra="v"} VALUE, NaN left out. */
static void expo_sample(struct expo_fmt *x, const char *family, bool counter, const char *extra,
			const char *extra_value, double v)
{
	if (isnan(v))
		return;
	expo_buf_printf(&x->out, "%s%s", family, counter ? "_total" : "");
	if (x->lb.len || extra) {
		expo_buf_put(&x->out, "{", 1);
		if (x->lb.len)
			expo_buf_put(&x->out, x->lb.p, x->lb.len);
		if (extra) {
			expo_buf_printf(&x->out, "%s%s=\"", x->lb.len ? "," : "", extra);
			expo_buf_label_value(&x->out, extra_value);
			expo_buf_put(&x->out, "\"", 1);
		}
		expo_buf_put(&x->out, "}", 1);
	}
	expo_buf_put(&x->out, " ", 1);
	expo_buf_value(&x->out, v);
	expo_buf_put(&x->out, "\n", 1);
}

/* false: the row is not exported */
static bool expo_labels_of(struct expo_fmt *x, const struct expo_stream *st,
			   const struct expo_row *r)
{
	x->lb.len = 0;
	if (x->lb.p)
		x->lb.p[0] = '\0';
	return expo_row_labels(x->s, st, r, &x->lb);
}

/* which: 0 the last value, 1 the window's mean, 2 its max */
static double expo_val(const struct expo_snap *s, const struct expo_stream *st,
		       const struct expo_row *r, uint32_t f, int which)
{
	uint32_t set = which == 0 ? 0 : which == 1 ? st->set_avg : st->set_max;

	if (which && !set)
		return NAN;
	return s->vals[r->val + (size_t)set * st->d->nfields + f];
}

/* A plain stream: one family per field. */
static void expo_fields(struct expo_fmt *x, const struct expo_stream *st)
{
	char family[EXPO_NAME_MAX], help[512];
	char prefix[EXPO_NAME_MAX] = "";

	if (!st->rule->prefix)
		for (size_t i = 0; st->d->name[i] && i + 1 < sizeof(prefix); i++)
			prefix[i] = st->d->name[i] == '.' ? '_' : st->d->name[i];
	for (uint32_t f = 0; f < st->d->nfields; f++) {
		const struct field_desc *fd = &st->d->fields[f];
		struct expo_unit u = expo_unit_of(fd->unit);
		bool counter = fd->kind == FIELD_COUNTER;

		if (!strcmp(fd->name, "pid"))
			continue; /* a label already */
		expo_family_name(st->rule, st->rule->prefix ? NULL : prefix, fd, family,
				 sizeof(family));
		expo_field_help(st->d, fd, help, sizeof(help));
		expo_header(x, family, counter, u.suffix, help);
		for (size_t k = 0; k < st->nrows; k++) {
			if (expo_labels_of(x, st, &st->rows[k]))
				expo_sample(x, family, counter, NULL, NULL,
					    expo_val(x->s, st, &st->rows[k], f, 0) * u.scale);
		}
	}
}

/* ppu.metrics: a family per unit and kind, the field in the metric label,
 * and for gauges the mean and max over the peak window. */
static void expo_by_metric(struct expo_fmt *x, const struct expo_stream *st)
{
	static const char *const whats[] = {"", "the mean over the peak window of ",
					    "the highest sample in the peak window of "};

	for (uint32_t f = 0; f < st->d->nfields; f++) {
		const struct field_desc *fd = &st->d->fields[f];
		struct expo_unit u = expo_unit_of(fd->unit);
		bool counter = fd->kind == FIELD_COUNTER, seen = false;

		for (uint32_t g = 0; g < f && !seen; g++)
			seen = st->d->fields[g].kind == fd->kind &&
			       !strcmp(expo_unit_of(st->d->fields[g].unit).suffix, u.suffix);
		if (seen)
			continue;
		for (int w = 0; w < (counter ? 1 : 3); w++) {
			char family[EXPO_NAME_MAX], help[512];
			struct expo_rule r = *st->rule;

			if (w)
				r.prefix = w == 1 ? "ppu_metric_mean" : "ppu_metric_max";
			expo_family_name(&r, NULL, fd, family, sizeof(family));
			snprintf(help, sizeof(help), "%s%s, in %s; the metric label names it",
				 whats[w], st->d->help ? st->d->help : st->d->name,
				 *u.suffix ? u.suffix : "counts");
			expo_header(x, family, counter, u.suffix, help);
			for (uint32_t g = f; g < st->d->nfields; g++) {
				const struct field_desc *gd = &st->d->fields[g];

				if (gd->kind != fd->kind ||
				    strcmp(expo_unit_of(gd->unit).suffix, u.suffix))
					continue;
				for (size_t k = 0; k < st->nrows; k++) {
					if (expo_labels_of(x, st, &st->rows[k]))
						expo_sample(x, family, counter, "metric", gd->name,
							    expo_val(x->s, st, &st->rows[k], g, w) *
								u.scale);
				}
			}
		}
	}
}

/* The highest rate of a byte counter in the peak window. */
static void expo_peak(struct expo_fmt *x, const struct expo_stream *st, const char *field,
		      const char *dir)
{
	int f = field ? stream_field_index(st->d, field) : -1;
	char family[EXPO_NAME_MAX], help[256];

	if (f < 0 || st->d->fields[f].kind != FIELD_COUNTER)
		return;
	snprintf(family, sizeof(family), "asys_%s_%s_peak_bytes_per_second", st->rule->peak_prefix,
		 dir);
	snprintf(help, sizeof(help),
		 "highest %s rate over windows of at least the sampling period in the peak "
		 "window before the scrape (%s %s)",
		 dir, st->d->name, field);
	expo_header(x, family, false, "bytes_per_second", help);
	for (size_t k = 0; k < st->nrows; k++) {
		if (expo_labels_of(x, st, &st->rows[k]))
			expo_sample(x, family, false, NULL, NULL,
				    expo_val(x->s, st, &st->rows[k], (uint32_t)f, 2));
	}
}

static void expo_own(struct expo_fmt *x, const struct expo_collector *c, size_t nc,
		     const char *version)
{
	x->lb.len = 0;
	expo_header(x, "asys_build_info", false, NULL, "asys's version, always 1");
	expo_sample(x, "asys_build_info", false, "version", version, 1);
	expo_header(x, "asys_collector_up", false, NULL,
		    "1 when the collector samples, 0 when it is off or its source is missing");
	for (size_t i = 0; i < nc; i++)
		expo_sample(x, "asys_collector_up", false, "collector", c[i].name, c[i].up);
	expo_header(x, "asys_collector_rate_hz", false, NULL,
		    "ticks per second the collector's sampling thread achieved over the last "
		    "second");
	for (size_t i = 0; i < nc; i++)
		if (c[i].up)
			expo_sample(x, "asys_collector_rate_hz", false, "collector", c[i].name,
				    c[i].rate_hz);
}

char *expo_format(const struct expo_snap *s, enum expo_format f, const struct expo_collector *c,
		  size_t nc, const char *version, size_t *len)
{
	struct expo_fmt x = {.s = s, .om = f == EXPO_OPENMETRICS};

	expo_own(&x, c, nc, version);
	for (size_t i = 0; i < s->nstreams; i++) {
		const struct expo_stream *st = &s->streams[i];

		if (!st->nrows)
			continue;
		if (st->rule->by_metric) {
			expo_by_metric(&x, st);
			continue;
		}
		expo_fields(&x, st);
		if (st->rule->peak_rx) {
			expo_peak(&x, st, st->rule->peak_rx, "receive");
			expo_peak(&x, st, st->rule->peak_tx, "transmit");
		}
	}
	if (x.om)
		expo_buf_put(&x.out, "# EOF\n", 6);
	free(x.lb.p);
	if (x.out.failed || !x.out.p) {
		free(x.out.p);
		return NULL;
	}
	*len = x.out.len;
	return x.out.p;
}

const char *expo_content_type(enum expo_format f)
{
	return f == EXPO_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
				     : "text/plain; version=0.0.4; charset=utf-8";
}

enum expo_format expo_negotiate(const char *accept)
{
	return accept && strcasestr(accept, "application/openmetrics-text") ? EXPO_OPENMETRICS
									    : EXPO_PROMETHEUS;
}
