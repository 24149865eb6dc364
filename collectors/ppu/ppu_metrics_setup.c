/* SPDX-License-Identifier: GPL-2.0-only */
/* The set-up of the ppu metrics collector: the devices it samples, and for
 * each, on its first tick, the metrics it can keep and how their values are
 * made from its reads. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "ppu_metrics_int.h"
#include "util.h"

/* Peak PCIe bandwidth of the link, one direction, bytes/s. */
static double ppu_pcie_peak(unsigned int gen, unsigned int width)
{
	static const double lane_Bps[] = {0, 250e6, 500e6, 985e6, 1969e6, 3938e6, 7877e6};

	if (gen == 0 || gen >= ARRAY_SIZE(lane_Bps) || width == 0)
		return NAN;
	return lane_Bps[gen] * width;
}

/* The plan of each metric of one device: a GPM value times a factor (the
 * scale, or the MiB/s to % of peak conversion), GPM % x clock x interval
 * (cycles), or a device field times its scale. */
static void ppu_gpm_plan(struct gpm_state_all *st, struct gpm_dev *d)
{
	struct gpm_plan by_field[PPU_METRIC_MAX];
	struct gpm_plan_set *ps = &st->sets[st->nsets];
	size_t n = 0;

	memset(ps, 0, sizeof(*ps)); /* compared whole below, padding included */
	for (size_t i = 0; i < st->nsel; i++) {
		const struct ppu_metric *m = &ppu_metric_catalogue[st->sel.idx[i]];
		struct gpm_plan *pl = &by_field[i];

		pl->how = PLAN_GPM;
		pl->out = (uint8_t)i;
		pl->slot = d->slot[i];
		pl->factor = (float)m->scale;
		switch (m->src) {
		case PPU_SRC_GPM:
			break;
		case PPU_SRC_GPM_CYCLES:
			pl->how = PLAN_CYCLES;
			pl->factor = (float)(1e6 / 100.0);
			break;
		case PPU_SRC_GPM_PCIE_PCT:
			pl->factor = (float)(1048576.0 * 100.0 / d->pcie_peak_Bps);
			break;
		case PPU_SRC_GPM_ICN_PCT:
			pl->factor = (float)(1048576.0 * 100.0 / d->icn_peak_Bps);
			break;
		case PPU_SRC_DEV:
			pl->how = PLAN_FIELD;
			pl->slot = (int16_t)m->id;
			break;
		}
		if (!d->keep[i] || pl->slot < 0 ||
		    (pl->how == PLAN_FIELD && pl->slot >= PPU_STATE_NFIELDS))
			pl->how = PLAN_NONE;
	}
	for (int k = 0; k < PLAN_NKINDS; k++)
		for (size_t i = 0; i < st->nsel; i++)
			if (by_field[i].how == k) {
				ps->plan[n++] = by_field[i];
				ps->n[k]++;
			}
	for (unsigned int k = 0; k < st->nsets; k++)
		if (!memcmp(&st->sets[k], ps, sizeof(*ps))) {
			d->ps = &st->sets[k];
			return;
		}
	d->ps = ps;
	st->nsets++;
}

/* Which metrics of the selection the device keeps (those that fit its
 * capacity), and where each is in its GPM request: one slot per metric id,
 * shared by metrics that read the same id. */
static void ppu_gpm_slots(struct gpm_state_all *st, struct gpm_dev *d,
			  const struct ppu_selection *fit)
{
	unsigned int nm = 0;

	d->mg.version = PPU_GPM_METRICS_GET_VERSION;
	for (size_t i = 0; i < st->sel.n; i++) {
		const struct ppu_metric *m = &ppu_metric_catalogue[st->sel.idx[i]];

		d->slot[i] = -1;
		d->keep[i] = false;
		for (size_t k = 0; k < fit->n; k++)
			d->keep[i] |= fit->idx[k] == st->sel.idx[i];
		if (!d->keep[i] || m->src == PPU_SRC_DEV)
			continue;
		for (unsigned int k = 0; k < nm && d->slot[i] < 0; k++)
			if (d->mg.metrics[k].metric_id == m->id)
				d->slot[i] = (int16_t)k;
		if (d->slot[i] < 0 && nm < PPU_GPM_MAX_METRICS) {
			d->mg.metrics[nm].metric_id = m->id;
			d->slot[i] = (int16_t)nm++;
		}
	}
	d->mg.num_metrics = nm;
}

/* Sets up one device: GPM support, capacity, the metrics request, samples. */
void ppu_gpm_setup(struct gpm_state_all *st, struct gpm_dev *d, char *note, size_t n)
{
	const struct ppu_dev_profile *prof = ppu_profile_for(d->id.name);
	struct ppu_gpm_support gs = {PPU_GPM_SUPPORT_VERSION, 0};
	struct ppu_selection fit = st->sel, dropped;
	const struct ppu_lib *l = st->lib;
	char sym[64];

	note[0] = '\0';
	d->pcie_peak_Bps = ppu_pcie_peak(d->id.pcie_gen, d->id.pcie_width);
	d->icn_peak_Bps = prof->icn_peak_Bps;
	if (!l->gpm_sample_get || !l->gpm_metrics_get || !l->gpm_sample_alloc) {
		ppu_lib_symbol(l, l->gpm_sample_get ? "GpmMetricsGet" : "GpmSampleGet", sym,
			       sizeof(sym));
		snprintf(note, n,
			 "PPU metrics need %s, which %s lacks (an older library); device "
			 "state is still shown. Update the PPU SDK or driver",
			 sym, l->path);
		d->state = GPM_OFF;
		return;
	}
	if (l->gpm_query_device_support &&
	    (l->gpm_query_device_support(d->h, &gs) != PPU_OK || !gs.is_supported)) {
		snprintf(note, n,
			 "device %u (%s) does not support metrics sampling (no GPM); device "
			 "state is still shown",
			 d->index, d->id.name);
		d->state = GPM_OFF;
		return;
	}
	if (ppu_selection_fit(&fit, prof->budget, &dropped)) {
		size_t used =
		    (size_t)snprintf(note, n,
				     "the metrics need %u units of sampling capacity, "
				     "device %u has %u; not sampled:",
				     ppu_selection_cost(&st->sel), d->index, prof->budget);

		for (size_t i = 0; i < dropped.n && used < n; i++)
			used += (size_t)snprintf(note + used, n - used, " %s",
						 ppu_metric_catalogue[dropped.idx[i]].name);
		if (used < n)
			snprintf(note + used, n - used,
				 ". --check-ppu-metrics-list suggests a split that fits");
	}
	if (l->gpm_sample_alloc(&d->s[0]) != PPU_OK || l->gpm_sample_alloc(&d->s[1]) != PPU_OK) {
		snprintf(note, n, "cannot allocate GPM samples for device %u", d->index);
		d->state = GPM_OFF;
		return;
	}
	ppu_gpm_slots(st, d, &fit);
	ppu_gpm_plan(st, d);
	d->state = GPM_RUN;
}

/* The devices of --ppu-metrics-device that exist, with their handles. */
int ppu_gpm_devices(struct gpm_state_all *st, const struct ppu_opts *po)
{
	bool sel[256];
	unsigned int n = 0;
	int ret;

	if (st->lib->device_get_count(&n) != PPU_OK || n == 0) {
		snprintf(st->err, sizeof(st->err), "%s reports no PPU devices", st->lib->path);
		return -ENODEV;
	}
	if (n > ARRAY_SIZE(sel))
		n = ARRAY_SIZE(sel);
	ret = ppu_devices_parse(po->device, n, sel, st->dev_note, sizeof(st->dev_note));
	if (ret <= 0) {
		snprintf(st->err, sizeof(st->err), "%s", st->dev_note);
		return ret < 0 ? ret : -ENODEV;
	}
	/* aligned, so that each device's first line holds its hot fields */
	st->devs = aligned_alloc(64, (size_t)ret * sizeof(*st->devs));
	st->sets = aligned_alloc(64, (size_t)ret * sizeof(*st->sets));
	if (st->devs)
		memset(st->devs, 0, (size_t)ret * sizeof(*st->devs));
	if (!st->devs || !st->sets) {
		snprintf(st->err, sizeof(st->err), "out of memory for %d PPU devices", ret);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < n; i++) {
		struct gpm_dev *d;

		if (!sel[i])
			continue;
		d = &st->devs[st->ndev++];
		d->index = i;
		if (st->lib->device_get_handle_by_index(i, &d->h) != PPU_OK) {
			d->h = NULL;
			d->state = GPM_LOST;
			continue;
		}
		ppu_lib_ident(st->lib, d->h, &d->id);
	}
	return 0;
}
