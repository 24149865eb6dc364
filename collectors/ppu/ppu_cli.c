/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ppu_cli.h"
#include "ppu_lib.h"
#include "ppu_catalogue.h"
#include "strsafe.h"
#include "util.h"

/* Appends ", 7" (or "7" first) to the list of IDs that do not exist. */
static void ppu_note_missing(char *list, size_t n, unsigned long v)
{
	size_t len = strlen(list);

	if (len < n)
		snprintf(list + len, n - len, "%s%lu", len ? ", " : "", v);
}

int ppu_devices_parse(const char *spec, unsigned int ndev, bool *sel, char *note, size_t n)
{
	const char *s = spec;
	char missing[128] = "";
	int count = 0, nmissing = 0;

	note[0] = '\0';
	for (unsigned int i = 0; i < ndev; i++)
		sel[i] = false;
	if (!spec || !strcmp(spec, "none"))
		return 0;
	if (!strcmp(spec, "all")) {
		for (unsigned int i = 0; i < ndev; i++)
			sel[i] = true;
		return (int)ndev;
	}
	while (*s) {
		char *end;
		unsigned long v;

		if (*s < '0' || *s > '9' || (v = strtoul(s, &end, 10), *end && *end != ',')) {
			char shown[128];

			snprintf(note, n,
				 "bad --ppu-metrics-device '%s': use all, none, help or device "
				 "IDs separated by commas (eg.: 0,1)",
				 str_escape(shown, sizeof(shown), spec, 60));
			return -EINVAL;
		}
		if (v >= ndev) {
			ppu_note_missing(missing, sizeof(missing), v);
			nmissing++;
		} else {
			count += !sel[v];
			sel[v] = true;
		}
		s = *end ? end + 1 : end;
	}
	if (nmissing && ndev)
		snprintf(note, n,
			 "PPU device%s %s of --ppu-metrics-device do%s not exist: %u found (IDs "
			 "0-%u); --ppu-metrics-device help lists them",
			 nmissing > 1 ? "s" : "", missing, nmissing > 1 ? "" : "es", ndev,
			 ndev - 1);
	else if (nmissing)
		snprintf(note, n,
			 "PPU device%s %s of --ppu-metrics-device do%s not exist: none found",
			 nmissing > 1 ? "s" : "", missing, nmissing > 1 ? "" : "es");
	return count;
}

static int ppu_wrap(const char *text, int width, const char **rest)
{
	int len = (int)strlen(text), cut = len;

	if (len > width) {
		cut = width;
		while (cut > 0 && text[cut] != ' ')
			cut--;
		if (cut == 0)
			cut = width;
	}
	*rest = text + cut;
	while (**rest == ' ')
		(*rest)++;
	return cut;
}

void ppu_cli_print_sets(FILE *out)
{
	static const char dashes[] = "------------------------------------------------";

	fprintf(out, "Possible --ppu-metrics-set values are:\n");
	fprintf(out, " %.16s %.40s %.44s\n", dashes, dashes, dashes);
	fprintf(out, "  %-16s %-40s %s\n", "Identifier", "Description", "Enabled Metrics");
	fprintf(out, " %.16s %.40s %.44s\n", dashes, dashes, dashes);
	for (size_t i = 0; i < ppu_set_count; i++) {
		const struct ppu_set *s = &ppu_sets[i];
		const char *desc = s->desc, *rest;
		size_t m = 0;

		while (*desc || s->metrics[m]) {
			int cut = ppu_wrap(desc, 38, &rest);
			const char *metric = s->metrics[m] ? s->metrics[m++] : "";
			char buf[64], line[256];
			size_t len;

			snprintf(buf, sizeof(buf), "%.*s", cut, desc);
			snprintf(line, sizeof(line), "  %-16s %-40s %s",
				 desc == s->desc ? s->name : "", buf, metric);
			/* No trailing blanks on lines that end early. */
			len = strlen(line);
			while (len && line[len - 1] == ' ')
				line[--len] = '\0';
			fprintf(out, "%s\n", line);
			desc = rest;
		}
		fputc('\n', out);
	}
	fprintf(out, "  %-16s %s\n\n", "none", "Collect no metric set (only --ppu-metrics-list).");
}

void ppu_cli_print_metrics(FILE *out)
{
	fprintf(out, "Possible --ppu-metrics-list values are:\n\n");
	for (size_t i = 0; i < ppu_metric_count; i++) {
		const struct ppu_metric *m = &ppu_metric_catalogue[i];

		fprintf(out, "%s\n    Display Name:\n        %s\n    Unit: %s\n", m->name,
			m->display, m->unit);
		fprintf(out, "    Description:\n        %s\n\n", m->desc);
	}
}

void ppu_cli_print_devices(const struct ppu_opts *po, FILE *out)
{
	struct ppu_lib *l = NULL;
	char err[1024];
	unsigned int n = 0, unsupported = 0;

	fprintf(out, "Possible --ppu-metrics-device values are:\n"
		     "    all: Select all supported PPUs\n"
		     "    none: Disable PPU Metrics [Default]\n"
		     "    device ID list: comma separated device ID list(eg.: 0,1)\n\n");
	if (ppu_lib_open(&l, po->backend, err, sizeof(err)) < 0) {
		fprintf(out, "No PPU metrics sampling devices are available: %s.\n", err);
		return;
	}
	if (l->device_get_count(&n) != PPU_OK)
		n = 0;
	fprintf(out, "Available PPU metrics sampling devices are:\n");
	for (unsigned int i = 0; i < n; i++) {
		struct ppu_dev_ident id;
		struct ppu_gpm_support gs = {PPU_GPM_SUPPORT_VERSION, 0};
		ppu_device_t d;

		if (l->device_get_handle_by_index(i, &d) != PPU_OK)
			continue;
		ppu_lib_ident(l, d, &id);
		if (!l->gpm_query_device_support || !l->gpm_sample_get ||
		    l->gpm_query_device_support(d, &gs) != PPU_OK || !gs.is_supported) {
			unsupported++;
			continue;
		}
		fprintf(out, "    %u: %s, PCI Bus ID: %s\n", i, id.name, id.bus_id);
	}
	if (unsupported)
		fprintf(out,
			"(%u of %u devices found by %s cannot sample metrics: no GPM support)\n",
			unsupported, n, l->path);
	ppu_lib_close(l);
}

/* The devices the check applies to: those of --ppu-metrics-device, else all;
 * returns the smallest budget among them and names the device that has it. */
static unsigned int ppu_check_budget(const struct ppu_opts *po, char *who, size_t n)
{
	const struct ppu_dev_profile *def = ppu_profile_for("");
	unsigned int budget = def->budget, ndev = 0;
	struct ppu_lib *l = NULL;
	char err[1024];
	bool *sel = NULL;
	const char *spec = po->device;

	snprintf(who, n, "the default PPU (no device found)");
	if (ppu_lib_open(&l, po->backend, err, sizeof(err)) < 0)
		return budget;
	if (l->device_get_count(&ndev) != PPU_OK || !ndev)
		goto cleanup;
	sel = calloc(ndev, sizeof(*sel));
	if (!sel)
		goto cleanup;
	if (!spec || !strcmp(spec, "none") || !strcmp(spec, "help"))
		spec = "all";
	if (ppu_devices_parse(spec, ndev, sel, err, sizeof(err)) <= 0)
		goto cleanup;
	budget = ~0u;
	for (unsigned int i = 0; i < ndev; i++) {
		struct ppu_dev_ident id;
		ppu_device_t d;

		if (!sel[i] || l->device_get_handle_by_index(i, &d) != PPU_OK)
			continue;
		ppu_lib_ident(l, d, &id);
		if (ppu_profile_for(id.name)->budget < budget) {
			budget = ppu_profile_for(id.name)->budget;
			snprintf(who, n, "device %u (%s)", i, id.name);
		}
	}
	if (budget == ~0u)
		budget = def->budget;
cleanup:
	free(sel);
	ppu_lib_close(l);
	return budget;
}

int ppu_cli_check(const struct ppu_opts *po, const char *sub, const char *list, FILE *out)
{
	struct ppu_selection sel, keep, dropped;
	int run_of[PPU_METRIC_MAX];
	char err[1024], who[160];
	unsigned int budget, cost;
	int nruns;

	if (ppu_selection_build("none", list, &sel, err, sizeof(err)) < 0) {
		fprintf(stderr, "asys %s: %s\n", sub, err);
		return 2;
	}
	budget = ppu_check_budget(po, who, sizeof(who));
	cost = ppu_selection_cost(&sel);
	if (cost <= budget) {
		fprintf(out, "Check sampling metrics list result: PASS.\n"
			     "Metrics list is suitable for PPU sampling capacity.\n");
		return 0;
	}
	fprintf(out, "Check sampling metrics list result: FAIL.\n");
	fprintf(out, "Metrics list needs %u units of PPU sampling capacity; %s has %u.\n", cost,
		who, budget);
	keep = sel;
	ppu_selection_fit(&keep, budget, &dropped);
	fprintf(out, "Metrics that do not fit:\n");
	for (size_t i = 0; i < dropped.n; i++)
		fprintf(out, "    %s\n", ppu_metric_catalogue[dropped.idx[i]].name);
	nruns = ppu_selection_split(&sel, budget, run_of);
	if (nruns < 0) {
		fprintf(out, "Some metrics alone need more than the capacity; no split fits.\n");
		return 1;
	}
	fprintf(out, "A split that fits, one run each:\n");
	for (int r = 0; r < nruns; r++) {
		bool first = true;

		fprintf(out, "    --ppu-metrics-list ");
		for (size_t i = 0; i < sel.n; i++) {
			if (run_of[i] != r)
				continue;
			fprintf(out, "%s%s", first ? "" : ",",
				ppu_metric_catalogue[sel.idx[i]].name);
			first = false;
		}
		fputc('\n', out);
	}
	return 1;
}

static bool ppu_is(const char *v, const char *word)
{
	return v && !strcmp(v, word);
}

/* Device IDs that do not exist are a mistake in the command, found before
 * anything starts: when none of them exists, the command stops; when some
 * do, they are sampled and the others named. Without a library nothing can
 * be checked: the pane says why later. */
static int ppu_cli_check_devices(const struct ppu_opts *po, const char *sub)
{
	const char *spec = po->device;
	struct ppu_lib *l = NULL;
	unsigned int ndev = 0;
	bool *sel = NULL;
	char note[1024];
	int rc = -1, count;

	if (!spec || !strcmp(spec, "all") || !strcmp(spec, "none") || !strcmp(spec, "help"))
		return -1;
	if (ppu_lib_open(&l, po->backend, note, sizeof(note)) < 0)
		return -1;
	if (l->device_get_count(&ndev) != PPU_OK)
		goto cleanup;
	sel = calloc(ndev ? ndev : 1, sizeof(*sel));
	if (!sel)
		goto cleanup;
	count = ppu_devices_parse(spec, ndev, sel, note, sizeof(note));
	if (count <= 0 && note[0]) {
		fprintf(stderr, "asys %s: %s\n", sub, note);
		rc = 2;
	} else if (note[0]) {
		fprintf(stderr, "asys %s: %s; sampling the other %d\n", sub, note, count);
	}
cleanup:
	free(sel);
	ppu_lib_close(l);
	return rc;
}

int ppu_cli_early(const struct asys_options *o, const char *sub, FILE *out)
{
	const struct ppu_opts *po = ppu_opts_of(o);
	struct ppu_selection sel;
	char err[1024];
	int printed = 0;

	if (ppu_is(po->device, "help")) {
		ppu_cli_print_devices(po, out);
		printed++;
	}
	if (ppu_is(po->set, "help")) {
		if (printed++)
			fputc('\n', out);
		ppu_cli_print_sets(out);
	}
	if (ppu_is(po->list, "help")) {
		if (printed++)
			fputc('\n', out);
		ppu_cli_print_metrics(out);
	}
	if (printed)
		return 0;
	if (po->check)
		return ppu_cli_check(po, sub, po->check, out);
	if (ppu_selection_build(po->set, po->list, &sel, err, sizeof(err)) < 0) {
		fprintf(stderr, "asys %s: %s\n", sub, err);
		return 2;
	}
	return ppu_cli_check_devices(po, sub);
}

/* ---- the option table ---- */

static const struct ppu_opts ppu_defaults = {.frequency = 1000};

const struct ppu_opts *ppu_opts_of(const struct asys_options *o)
{
	return options_get(o, &ppu_options);
}

static int ppu_parse_devices(const struct opt_desc *d, const char *name, const char *val,
			     void *block, char *err, size_t n)
{
	static const char *const words[] = {"all", "none", "help"};
	bool ok = *val != '\0';

	(void)d;
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (!strcmp(val, words[i]))
			goto good;
	for (const char *p = val; *p && ok; p++)
		ok = (*p >= '0' && *p <= '9') || (*p == ',' && p != val && p[1] && p[1] != ',');
	if (!ok) {
		opt_bad_value(err, n, name, val,
			      "all, none, help, or a comma-separated list of device ids (eg. 0,1)");
		return -EINVAL;
	}
good:
	((struct ppu_opts *)block)->device = val;
	return 0;
}

static int ppu_parse_backend(const struct opt_desc *d, const char *name, const char *val,
			     void *block, char *err, size_t n)
{
	(void)d;
	if (strcmp(val, "hgml") && strcmp(val, "nvml")) {
		opt_bad_value(err, n, name, val, "hgml or nvml");
		return -EINVAL;
	}
	((struct ppu_opts *)block)->backend = val;
	return 0;
}

static const struct opt_desc ppu_opt_descs[] = {
    {.lng = "ppu-metrics-device",
     .arg = "all|none|help|ID[,ID...]",
     .help = "PPUs whose metrics are sampled (default none; device state is always shown)",
     .cmds = OPT_CMD_SAMPLE,
     .type = OPT_PARSE,
     .parse = ppu_parse_devices},
    {.lng = "ppu-metrics-set",
     .arg = "NAME|none|help",
     .help = "PPU metric set (default summary)",
     .cmds = OPT_CMD_SAMPLE,
     .type = OPT_STRING,
     .off = OPT_OFF(struct ppu_opts, set),
     .expect = "a metric set name, none or help"},
    {.lng = "ppu-metrics-list",
     .arg = "NAME[,NAME...]|help",
     .help = "extra PPU metrics, merged with the set",
     .cmds = OPT_CMD_SAMPLE,
     .type = OPT_STRING,
     .off = OPT_OFF(struct ppu_opts, list),
     .expect = "comma-separated metric names, or help"},
    {.lng = "check-ppu-metrics-list",
     .arg = "NAME[,NAME...]",
     .help = "check a metric list against the sampling capacity and exit",
     .cmds = OPT_CMD_SAMPLE,
     .type = OPT_STRING,
     .off = OPT_OFF(struct ppu_opts, check),
     .expect = "comma-separated metric names"},
    {.lng = "ppu-metrics-frequency",
     .arg = "HZ",
     .help = "PPU metric sampling rate, 10-10000 (default 1000)",
     .cmds = OPT_CMD_SAMPLE,
     .type = OPT_DOUBLE,
     .off = OPT_OFF(struct ppu_opts, frequency),
     .lo = 10,
     .hi = 10000,
     .unit = "Hz"},
    {.lng = "ppu-backend",
     .arg = "hgml|nvml",
     .help = "management library to use (default: HGML, then NVML)",
     .cmds = OPT_CMD_SAMPLE,
     .type = OPT_PARSE,
     .parse = ppu_parse_backend},
};

const struct opt_table ppu_options = {
    .name = "ppu",
    .title = "PPU",
    .opts = ppu_opt_descs,
    .nopts = ARRAY_SIZE(ppu_opt_descs),
    .size = sizeof(struct ppu_opts),
    .defaults = &ppu_defaults,
    .early = ppu_cli_early,
};
