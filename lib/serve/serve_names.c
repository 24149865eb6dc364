/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalogue.h"
#include "serve_int.h"
#include "util.h"

/* One rule per stream of the catalogue; a stream not listed (a replayed
 * file of another version) is named by the fallback from its entity kind. */
static const struct serve_rule serve_rules[STREAM_COUNT] = {
    [STREAM_CPU_CORE] = {.prefix = "cpu", .ent = SERVE_ENT_CPU},
    [STREAM_CPU_PERF] = {.prefix = "cpu_perf", .ent = SERVE_ENT_CPU},
    [STREAM_MEM_SYS] = {.prefix = "memory", .ent = SERVE_ENT_NONE},
    [STREAM_MEM_PROC] = {.prefix = "process",
			 .ent = SERVE_ENT_PID,
			 .per_process = true,
			 .ranked = true,
			 .rank = MEM_PROC_RSS},
    [STREAM_PROC_CPU] = {.prefix = "process",
			 .ent = SERVE_ENT_PID,
			 .per_process = true,
			 .ranked = true,
			 .rank = PROC_CPU_UTIME},
    [STREAM_PROC_THREAD] = {.prefix = "thread",
			    .ent = SERVE_ENT_PID,
			    .per_process = true,
			    .ranked = true,
			    .rank = PROC_THREAD_UTIME},
    [STREAM_NIC_LINK] = {.prefix = "nic",
			 .ent = SERVE_ENT_NETDEV,
			 .peaks = true,
			 .peak_prefix = "nic"},
    [STREAM_NIC_RDMA] = {.prefix = "rdma",
			 .ent = SERVE_ENT_RDMA,
			 .peaks = true,
			 .peak_prefix = "rdma"},
    [STREAM_PPU_DEV] = {.prefix = "ppu", .ent = SERVE_ENT_PPU},
    [STREAM_PPU_PROC] = {.prefix = "ppu_process",
			 .ent = SERVE_ENT_PPU_PROC,
			 .per_process = true,
			 .ranked = true,
			 .rank = PPU_PROC_MEM_USED},
    [STREAM_PPU_PROC_UTIL] = {.prefix = "ppu_process_util",
			      .ent = SERVE_ENT_PPU_PROC,
			      .per_process = true,
			      .ranked = true,
			      .rank = PPU_PROC_UTIL_SM},
    [STREAM_PPU_METRICS] = {.prefix = "ppu_metric",
			    .ent = SERVE_ENT_PPU,
			    .by_metric = true,
			    .window = true},
    [STREAM_GPURT_MEM] = {.prefix = "runtime",
			  .ent = SERVE_ENT_PID,
			  .per_process = true,
			  .ranked = true,
			  .rank = GPURT_MEM_DEVICE_BYTES},
    [STREAM_GPURT_COPY] = {.prefix = "runtime_copy",
			   .ent = SERVE_ENT_PID,
			   .per_process = true,
			   .ranked = true,
			   .rank = GPURT_COPY_HTOD_BYTES},
    [STREAM_GPURT_KERNELS] = {.prefix = "kernel",
			      .ent = SERVE_ENT_KERNEL,
			      .per_process = true,
			      .ranked = true,
			      .rank = GPURT_KERNELS_LAUNCHES},
    [STREAM_HGTX_RANGES] = {.prefix = "hgtx_range",
			    .ent = SERVE_ENT_RANGE,
			    .per_process = true,
			    .ranked = true,
			    .rank = HGTX_TOTAL_NS},
    /* the profiling interface's kernel durations and copies: a series per
     * kernel, so per process as the launch counts */
    [STREAM_GPURT_KTIME] = {.prefix = "kernel_time",
			    .ent = SERVE_ENT_KERNEL,
			    .per_process = true,
			    .ranked = true,
			    .rank = GPURT_KTIME_TOTAL_NS},
    [STREAM_GPURT_KCOPY] = {.prefix = "copy_activity",
			    .ent = SERVE_ENT_GENERIC,
			    .per_process = true,
			    .ranked = true,
			    .rank = GPURT_KCOPY_BYTES},
};

static const struct serve_rule serve_fallback = {.prefix = NULL, .ent = SERVE_ENT_GENERIC};

/* The peaks of nic.link and nic.rdma read the same two constants. */
_Static_assert((int)NIC_LINK_RX_BYTES == (int)NIC_RDMA_RX_BYTES &&
		   (int)NIC_LINK_TX_BYTES == (int)NIC_RDMA_TX_BYTES,
	       "nic.link and nic.rdma share their byte counters' places");

int serve_rule_field(const struct serve_rule *r, const struct stream_desc *d, unsigned int f)
{
	if (r == &serve_fallback)
		return -1;
	return catalogue_field_index(d, (enum stream_id)(r - serve_rules), f);
}

const struct serve_rule *serve_rule_for(const char *stream)
{
	int id = catalogue_find(stream);

	return id >= 0 && serve_rules[id].prefix ? &serve_rules[id] : &serve_fallback;
}

/* Schema units to base units. A unit not listed is a count (packets,
 * events, cycles): no suffix, as Prometheus names counts. */
static const struct {
	const char *unit;
	struct serve_unit u;
} serve_units[] = {
    {"B", {"bytes", 1}},
    {"byte", {"bytes", 1}},
    {"%", {"ratio", 0.01}},
    {"ns", {"seconds", 1e-9}},
    {"us", {"seconds", 1e-6}},
    {"ms", {"seconds", 1e-3}},
    {"s", {"seconds", 1}},
    {"MHz", {"hertz", 1e6}},
    {"Hz", {"hertz", 1}},
    {"cycle/second", {"hertz", 1}},
    {"W", {"watts", 1}},
    {"mW", {"watts", 1e-3}},
    {"C", {"celsius", 1}},
    {"B/s", {"bytes_per_second", 1}},
    {"byte/second", {"bytes_per_second", 1}},
};

struct serve_unit serve_unit_of(const char *unit)
{
	if (unit && !strcmp(unit, "jiffies")) {
		long hz = sysconf(_SC_CLK_TCK);

		return (struct serve_unit){"seconds", 1.0 / (double)(hz > 0 ? hz : 100)};
	}
	for (size_t i = 0; unit && i < ARRAY_SIZE(serve_units); i++)
		if (!strcmp(serve_units[i].unit, unit))
			return serve_units[i].u;
	return (struct serve_unit){"", 1};
}

/* Appends s to buf as a name part: [a-zA-Z0-9_] kept, the rest '_'. */
static void serve_name_part(char *buf, size_t n, const char *s)
{
	size_t len = strlen(buf);

	for (; *s && len + 1 < n; s++) {
		char c = *s;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_';

		buf[len++] = ok ? c : '_';
	}
	buf[len] = '\0';
}

static bool serve_ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail) && (a == b || s[a - b - 1] == '_');
}

void serve_family_name(const struct serve_rule *r, const char *prefix_override,
		       const struct field_desc *f, char *buf, size_t n)
{
	struct serve_unit u = serve_unit_of(f->unit);

	snprintf(buf, n, "asys_");
	serve_name_part(buf, n, prefix_override ? prefix_override : r->prefix);
	if (!r->by_metric) {
		size_t fl = strlen(f->name), ul = f->unit ? strlen(f->unit) : 0;

		serve_name_part(buf, n, "_");
		serve_name_part(buf, n, f->name);
		/* "last_fail_ns" in ns: the base unit replaces the field's own */
		if (*u.suffix && ul && fl > ul + 1 && f->name[fl - ul - 1] == '_' &&
		    !strcmp(f->name + fl - ul, f->unit))
			buf[strlen(buf) - ul - 1] = '\0';
	}
	if (*u.suffix && !serve_ends_with(buf, u.suffix)) {
		serve_name_part(buf, n, "_");
		serve_name_part(buf, n, u.suffix);
	}
}

void serve_field_help(const struct stream_desc *d, const struct field_desc *f, char *buf, size_t n)
{
	const struct serve_rule *r = serve_rule_for(d->name);

	if (r->by_metric)
		snprintf(buf, n, "%s: the metric label names the field (asys-serve(1))",
			 d->help ? d->help : d->name);
	else
		snprintf(buf, n, "%s %s%s%s: %s", d->name, f->display ? f->display : f->name,
			 *serve_unit_of(f->unit).suffix ? ", in " : "",
			 serve_unit_of(f->unit).suffix, d->help ? d->help : "");
}

/* The list is what serve_format writes for one series of each stream: its
 * OpenMetrics metadata, so the man page's list and a scrape cannot differ. */
static void serve_list_meta(const char *text, FILE *f)
{
	char name[SERVE_NAME_MAX] = "", type[16] = "", unit[32] = "-";
	const char *help = "", *help_end = help;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (!strncmp(p, "# HELP ", 7)) {
			const char *sp = memchr(p + 7, ' ', len - 7);

			snprintf(name, sizeof(name), "%.*s", (int)((sp ? sp : p + len) - p - 7),
				 p + 7);
			help = sp ? sp + 1 : p + len;
			help_end = p + len;
			snprintf(unit, sizeof(unit), "-");
		} else if (!strncmp(p, "# TYPE ", 7)) {
			const char *sp = memchr(p + 7, ' ', len - 7);

			snprintf(type, sizeof(type), "%.*s", sp ? (int)(p + len - sp - 1) : 0,
				 sp ? sp + 1 : "");
		} else if (!strncmp(p, "# UNIT ", 7)) {
			const char *sp = memchr(p + 7, ' ', len - 7);

			snprintf(unit, sizeof(unit), "%.*s", sp ? (int)(p + len - sp - 1) : 0,
				 sp ? sp + 1 : "");
		} else if (*name) {
			/* the first sample: the family is whole */
			fprintf(f, "%s%s %s %s ", name, strcmp(type, "counter") ? "" : "_total",
				type, unit);
			/* OpenMetrics' escapes undone: the list is plain text */
			for (const char *h = help; h < help_end; h++)
				if (*h != '\\' || ++h < help_end)
					fputc(*h == 'n' && h[-1] == '\\' ? '\n' : *h, f);
			fputc('\n', f);
			name[0] = '\0';
		}
		p += len + (nl ? 1 : 0);
	}
}

int serve_list(const struct stream_desc *const *streams, size_t n, FILE *f)
{
	struct serve_snap s = {0};
	struct serve_row *rows = calloc(n ? n : 1, sizeof(*rows));
	size_t len, nv = 0;
	char *text = NULL;
	int rc = -ENOMEM;

	s.streams = calloc(n ? n : 1, sizeof(*s.streams));
	for (size_t i = 0; i < n; i++)
		nv += 3 * (size_t)streams[i]->nfields;
	s.vals = calloc(nv ? nv : 1, sizeof(*s.vals));
	if (!rows || !s.streams || !s.vals)
		goto out;
	for (size_t i = 0, v = 0; i < n; i++) {
		struct serve_stream *st = &s.streams[s.nstreams++];

		st->d = streams[i];
		st->rule = serve_rule_for(streams[i]->name);
		st->window = st->rule->window || st->rule->peaks;
		st->nsets = st->window ? 3 : 1;
		st->set_avg = st->window ? 1 : 0;
		st->set_max = st->window ? 2 : 0;
		st->rows = &rows[i];
		st->nrows = 1;
		rows[i].val = v;
		v += (size_t)st->nsets * streams[i]->nfields;
	}
	text = serve_format(&s, SERVE_OPENMETRICS, &(struct serve_collector){"cpu", true, 1}, 1, "",
			    &len);
	if (text) {
		serve_list_meta(text, f);
		rc = 0;
	}
out:
	free(text);
	free(s.vals);
	free(s.streams);
	free(rows);
	return rc;
}
