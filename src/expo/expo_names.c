#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "expo_int.h"
#include "util.h"

/* One rule per stream the collectors make; a stream not listed (a newer
 * collector, a replayed file) is named by the fallback from its entity
 * kind. */
static const struct expo_rule expo_rules[] = {
    {.stream = "cpu.core", .prefix = "cpu", .ent = EXPO_ENT_CPU},
    {.stream = "cpu.perf", .prefix = "cpu_perf", .ent = EXPO_ENT_CPU},
    {.stream = "mem.sys", .prefix = "memory", .ent = EXPO_ENT_NONE},
    {.stream = "mem.proc",
     .prefix = "process",
     .ent = EXPO_ENT_PID,
     .per_process = true,
     .rank = "rss"},
    {.stream = "nic.link",
     .prefix = "nic",
     .ent = EXPO_ENT_NETDEV,
     .peak_rx = "rx_bytes",
     .peak_tx = "tx_bytes",
     .peak_prefix = "nic"},
    {.stream = "nic.rdma",
     .prefix = "rdma",
     .ent = EXPO_ENT_RDMA,
     .peak_rx = "rx_bytes",
     .peak_tx = "tx_bytes",
     .peak_prefix = "rdma"},
    {.stream = "ppu.dev", .prefix = "ppu", .ent = EXPO_ENT_PPU},
    {.stream = "ppu.proc",
     .prefix = "ppu_process",
     .ent = EXPO_ENT_PPU_PROC,
     .per_process = true,
     .rank = "mem_used"},
    {.stream = "ppu.metrics",
     .prefix = "ppu_metric",
     .ent = EXPO_ENT_PPU,
     .by_metric = true,
     .window = true},
    {.stream = "gpurt.mem",
     .prefix = "runtime",
     .ent = EXPO_ENT_PID,
     .per_process = true,
     .rank = "device_bytes"},
    {.stream = "gpurt.kernels",
     .prefix = "kernel",
     .ent = EXPO_ENT_KERNEL,
     .per_process = true,
     .rank = "launches"},
};

static const struct expo_rule expo_fallback = {.prefix = NULL, .ent = EXPO_ENT_GENERIC};

const struct expo_rule *expo_rule_for(const char *stream)
{
	for (size_t i = 0; i < ARRAY_SIZE(expo_rules); i++)
		if (!strcmp(expo_rules[i].stream, stream))
			return &expo_rules[i];
	return &expo_fallback;
}

/* Schema units to base units. A unit not listed is a count (packets,
 * events, cycles): no suffix, as Prometheus names counts. */
static const struct {
	const char *unit;
	struct expo_unit u;
} expo_units[] = {
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

struct expo_unit expo_unit_of(const char *unit)
{
	if (unit && !strcmp(unit, "jiffies")) {
		long hz = sysconf(_SC_CLK_TCK);

		return (struct expo_unit){"seconds", 1.0 / (double)(hz > 0 ? hz : 100)};
	}
	for (size_t i = 0; unit && i < ARRAY_SIZE(expo_units); i++)
		if (!strcmp(expo_units[i].unit, unit))
			return expo_units[i].u;
	return (struct expo_unit){"", 1};
}

/* Appends s to buf as a name part: [a-zA-Z0-9_] kept, the rest '_'. */
static void expo_name_part(char *buf, size_t n, const char *s)
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

static bool expo_ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail) && (a == b || s[a - b - 1] == '_');
}

void expo_family_name(const struct expo_rule *r, const char *prefix_override,
		      const struct field_desc *f, char *buf, size_t n)
{
	struct expo_unit u = expo_unit_of(f->unit);

	snprintf(buf, n, "asys_");
	expo_name_part(buf, n, prefix_override ? prefix_override : r->prefix);
	if (!r->by_metric) {
		expo_name_part(buf, n, "_");
		expo_name_part(buf, n, f->name);
	}
	if (*u.suffix && !expo_ends_with(buf, u.suffix)) {
		expo_name_part(buf, n, "_");
		expo_name_part(buf, n, u.suffix);
	}
}

void expo_field_help(const struct stream_desc *d, const struct field_desc *f, char *buf, size_t n)
{
	const struct expo_rule *r = expo_rule_for(d->name);

	if (r->by_metric)
		snprintf(buf, n, "%s: the metric label names the field (asys-serve(1))",
			 d->help ? d->help : d->name);
	else
		snprintf(buf, n, "%s (%s): %s", f->display ? f->display : f->name, d->name,
			 d->help ? d->help : "");
}

static const char *expo_kind_name(enum field_kind k)
{
	return k == FIELD_COUNTER ? "counter" : "gauge";
}

void expo_list(const struct stream_desc *const *streams, size_t n, FILE *f)
{
	for (size_t i = 0; i < n; i++) {
		const struct stream_desc *d = streams[i];
		const struct expo_rule *r = expo_rule_for(d->name);
		char prefix[EXPO_NAME_MAX], name[EXPO_NAME_MAX], help[512];

		if (!r->prefix) {
			prefix[0] = '\0';
			expo_name_part(prefix, sizeof(prefix), d->name);
		}
		for (uint32_t k = 0; k < d->nfields; k++) {
			const struct field_desc *fd = &d->fields[k];
			struct expo_unit u = expo_unit_of(fd->unit);

			if (!strcmp(fd->name, "pid"))
				continue;
			expo_family_name(r, r->prefix ? NULL : prefix, fd, name, sizeof(name));
			expo_field_help(d, fd, help, sizeof(help));
			fprintf(f, "%s%s %s %s %s\n", name,
				fd->kind == FIELD_COUNTER ? "_total" : "", expo_kind_name(fd->kind),
				*u.suffix ? u.suffix : "-", help);
			if (r->by_metric)
				break; /* one family per unit: the catalogue's are listed apart */
		}
	}
}
