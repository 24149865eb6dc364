/* SPDX-License-Identifier: GPL-2.0-only */
/* The ppu metrics collector's state, shared by its sampling (ppu_metrics.c)
 * and its set-up of each device (ppu_metrics_setup.c). */
#ifndef ASYS_PPU_METRICS_INT_H
#define ASYS_PPU_METRICS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "ppu_catalogue.h"
#include "ppu_cli.h"
#include "ppu_lib.h"
#include "stream.h"

#define GPM_RETRY_NS 1000000000ull

enum gpm_state { GPM_RUN, GPM_REFUSED, GPM_LOST, GPM_OFF };
/* in the order ppu_gpm_values makes them */
/* PLAN_FIELD: a device field (enum ppu_dev_field in the plan's slot) */
enum gpm_how { PLAN_GPM, PLAN_CYCLES, PLAN_FIELD, PLAN_NONE, PLAN_NKINDS };

/* How one device's values are made from its reads: a plan per selected
 * metric, worked out once and sorted by kind, so that making the values is
 * a few short loops with no branch on the kind. Devices of one family on
 * the same link and with the same capacity have the same plans and share
 * one set: at 1 kHz every line a tick touches is a miss (prefetched, but the
 * prefetches compete for the same fill buffers), and eight devices then
 * read two lines of plans instead of sixteen. */
struct gpm_plan_set {
	_Alignas(64) uint8_t n[PLAN_NKINDS]; /* plans of each kind, enum gpm_how order */
	struct gpm_plan {
		uint8_t how; /* enum gpm_how */
		uint8_t out; /* its field in the sample */
		/* its slot in mg.metrics, or the device field */
		int16_t slot;
		/* a float keeps 7 digits, more than any metric has, and makes a
		 * plan 8 bytes */
		float factor;
	} plan[PPU_METRIC_MAX];
};

/* The fields a tick touches fill the first cache line. */
struct gpm_dev {
	_Alignas(64) ppu_device_t h;
	const struct gpm_plan_set *ps;
	ppu_gpm_sample_t s[2];
	uint64_t prev_ts;
	enum gpm_state state;
	int cur;
	bool set_up, refused; /* refused: a refusal is shown as the status */
	bool have_prev;
	unsigned int index;
	/* cold: set-up and refusals */
	uint64_t retry_ns;
	bool keep[PPU_METRIC_MAX];
	/* per field, its slot in mg.metrics, or -1 (device field, or dropped
	 * for want of capacity on this device) */
	int16_t slot[PPU_METRIC_MAX];
	double pcie_peak_Bps, icn_peak_Bps;
	struct ppu_dev_ident id;
	/* The metrics request, in the device and not behind a pointer: the
	 * tick's prefetch of its lines then needs no load of a cold line first
	 * (those loads were most of the prefetch's cost at 1 kHz). */
	_Alignas(64) struct ppu_gpm_metrics_get mg;
};

struct gpm_state_all {
	/* what a tick reads first, on as few lines as possible */
	struct ppu_lib *lib;
	struct gpm_dev *devs;
	unsigned int ndev;
	unsigned int nsets;
	struct gpm_plan_set *sets; /* room for one per device */
	int stream;
	bool need[PPU_STATE_NFIELDS]; /* device fields read with each sample */
	size_t nsel;		      /* sel.n */
	struct ppu_selection sel;
	struct field_desc fields[PPU_METRIC_MAX];
	char err[1536];
	/* the rate was lowered to the library's GPM floor (ppu_gpm_rate): from
	 * asked_hz to capped_hz, told once as a status */
	double asked_hz, capped_hz;
	bool told_cap;
	char dev_note[512]; /* IDs of --ppu-metrics-device that do not exist */
};

/* The devices of --ppu-metrics-device that exist, with their handles: 0, or
 * -errno with the reason in st->err. */
int ppu_gpm_devices(struct gpm_state_all *st, const struct ppu_opts *po);
/* A device's first tick: what it can sample, its GPM request and its plans;
 * why not all, in note ("" when all). */
void ppu_gpm_setup(struct gpm_state_all *st, struct gpm_dev *d, char *note, size_t n);

#endif
