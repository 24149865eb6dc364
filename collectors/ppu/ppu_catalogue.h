/* SPDX-License-Identifier: GPL-2.0-only */
/* The PPU metric catalogue, as data: every metric asys can sample, where its
 * value comes from (a GPM metric id or a device field), what it costs in the
 * device's sampling capacity, and the named sets. Also the selection of a set
 * plus a list, the capacity check and a split of a list into runs that fit. */
#ifndef ASYS_PPU_CATALOGUE_H
#define ASYS_PPU_CATALOGUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stream.h"

enum ppu_group { PPU_GROUP_COMPUTE = 0, PPU_GROUP_MEMORY, PPU_GROUP_IO, PPU_GROUP_COUNT };

enum ppu_src {
	PPU_SRC_GPM = 0,      /* GPM metric `id`, times scale */
	PPU_SRC_GPM_CYCLES,   /* GPM `id` (a %) x SM clock x interval: cycles */
	PPU_SRC_GPM_PCIE_PCT, /* GPM `id` (MiB/s) as % of the PCIe link's peak */
	PPU_SRC_GPM_ICN_PCT,  /* GPM `id` (MiB/s) as % of the device's ICN peak */
	PPU_SRC_DEV,	      /* device field `id` (enum ppu_dev_field), times scale */
};

enum ppu_dev_field {
	PPU_STATE_CLOCK_SM = 0, /* MHz */
	PPU_STATE_CLOCK_MEM,	/* MHz */
	PPU_STATE_MEM_USED,	/* bytes */
	PPU_STATE_NFIELDS
};

struct ppu_metric {
	const char *name;    /* "cu__cycles_active.avg.pct_of_peak_sustained_elapsed" */
	const char *display; /* "CU Active" */
	const char *label;   /* short, for the pane: "CU act" */
	const char *unit;    /* "%", "cycle", "byte/second" */
	const char *desc;
	enum ppu_group group;
	enum ppu_src src;
	unsigned int id; /* GPM metric id, or enum ppu_dev_field */
	double scale;
	/* Capacity units taken by the counter behind `id`. Metrics that read the
	 * same GPM id share one counter and pay once; device fields cost 0. */
	unsigned int cost;
};

struct ppu_set {
	const char *name;
	const char *desc;
	const char *const *metrics; /* NULL-terminated */
};

/* Capacity and link peaks of a device family, chosen by name prefix. */
struct ppu_dev_profile {
	const char *prefix;  /* "" matches every device */
	unsigned int budget; /* capacity units */
	double icn_peak_Bps; /* all ICN links, one direction */
};

#define PPU_METRIC_MAX 128

extern const struct ppu_metric ppu_metric_catalogue[];
extern const size_t ppu_metric_count;
extern const struct ppu_set ppu_sets[];
extern const size_t ppu_set_count;
extern const char *const ppu_group_names[PPU_GROUP_COUNT];

/* A metric's field in the ppu.metrics schema. What the pane draws with goes
 * into the schema, and so into a recording: a replay needs no catalogue. */
struct field_desc ppu_metric_field(const struct ppu_metric *m);

int ppu_metric_index(const char *name); /* -1 if unknown */
const struct ppu_set *ppu_set_find(const char *name);
const struct ppu_dev_profile *ppu_profile_for(const char *device_name);
/* Up to n catalogue names closest to name, best first; returns how many. */
size_t ppu_metric_suggest(const char *name, const char **out, size_t n);

/* Metric indices, in catalogue order, without duplicates. */
struct ppu_selection {
	uint16_t idx[PPU_METRIC_MAX];
	size_t n;
};

/* set: NULL = "summary", "none" = no set; list: NULL/"" = none, else names
 * separated by commas. 0, or -EINVAL with a sentence in err naming the bad
 * word and the closest names. */
int ppu_selection_build(const char *set, const char *list, struct ppu_selection *sel, char *err,
			size_t errlen);
/* Units of capacity the selection needs (each counter once). */
unsigned int ppu_selection_cost(const struct ppu_selection *sel);
/* Assigns each selected metric (by position) to a run so that every run fits
 * budget, keeping metrics of one counter together; returns the number of
 * runs, or -E2BIG if one counter alone is larger than the budget. */
int ppu_selection_split(const struct ppu_selection *sel, unsigned int budget, int *run_of);
/* Keeps, in order, the metrics whose counters still fit; the rest go to
 * dropped (may be NULL). Returns the number dropped. */
size_t ppu_selection_fit(struct ppu_selection *sel, unsigned int budget,
			 struct ppu_selection *dropped);

#endif
