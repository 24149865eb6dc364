/* SPDX-License-Identifier: GPL-2.0-only */
/* The ppu metrics collector: GPM metric sets of the devices named by
 * --ppu-metrics-device, at --ppu-metrics-frequency. Its schema (one field per
 * metric of the set and list) is known only from the options, so init
 * registers it. Device state is the ppu collector's (ppu.c), at the refresh
 * rate; the two load the library each on their own (dlopen and the
 * libraries' init are reference counted). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "collector.h"
#include "ppu.h"
#include "ppu_cli.h"
#include "ppu_lib.h"
#include "ppu_catalogue.h"
#include "util.h"

#include "ppu_metrics_int.h"

static const struct stream_desc *const ppu_gpm_streams[] = {CATALOGUE_STREAM(STREAM_PPU_METRICS),
							    NULL};

static double ppu_gpm_frequency(const struct asys_options *o)
{
	const struct ppu_opts *po = ppu_opts_of(o);
	const char *d = po->device;

	if (!d || !strcmp(d, "none") || !strcmp(d, "help"))
		return 0;
	if (po->set && !strcmp(po->set, "none") && (!po->list || !*po->list))
		return 0;
	return po->frequency > 0 ? po->frequency : 1000;
}

static void ppu_gpm_fini(void *p)
{
	struct gpm_state_all *st = p;

	if (!st)
		return;
	for (unsigned int i = 0; st->devs && i < st->ndev; i++) {
		struct gpm_dev *d = &st->devs[i];

		for (int k = 0; k < 2; k++)
			if (d->s[k] && st->lib->gpm_sample_free)
				st->lib->gpm_sample_free(d->s[k]);
	}
	free(st->devs);
	free(st->sets);
	ppu_lib_close(st->lib);
	free(st);
}

/* The ppu.metrics schema of the selection: one field per metric. */
static int ppu_gpm_schema(struct gpm_state_all *st, const struct ppu_opts *po,
			  struct stream_table *streams)
{
	struct stream_desc sd = catalogue_streams[STREAM_PPU_METRICS];
	char help[160];

	for (size_t i = 0; i < st->sel.n && i < STREAM_MAX_FIELDS; i++) {
		const struct ppu_metric *m = &ppu_metric_catalogue[st->sel.idx[i]];

		st->fields[i] = ppu_metric_field(m);
		if (m->src == PPU_SRC_GPM_CYCLES)
			st->need[PPU_STATE_CLOCK_SM] = true;
		if (m->src == PPU_SRC_DEV && m->id < PPU_STATE_NFIELDS)
			st->need[m->id] = true;
	}
	sd.nfields = (uint32_t)(st->sel.n < STREAM_MAX_FIELDS ? st->sel.n : STREAM_MAX_FIELDS);
	st->nsel = sd.nfields;
	sd.fields = st->fields;
	/* the set goes with the schema, so that a recording says what it holds */
	snprintf(help, sizeof(help), "PPU metrics (GPM) per device: set %s%s",
		 po->set ? po->set : "summary", po->list && *po->list ? " and a metric list" : "");
	sd.help = help;
	st->stream = stream_table_add(streams, &sd);
	if (st->stream < 0)
		snprintf(st->err, sizeof(st->err), "cannot register the ppu.metrics stream");
	return st->stream < 0 ? st->stream : 0;
}

static int ppu_gpm_init(const struct coll_ctx *ctx, void **state)
{
	const struct ppu_opts *po = ppu_opts_of(ctx->opts);
	struct gpm_state_all *st = calloc(1, sizeof(*st));
	int ret;

	*state = st;
	if (!st)
		return -ENOMEM;
	ret = ppu_selection_build(po->set, po->list, &st->sel, st->err, sizeof(st->err));
	if (ret >= 0)
		ret = ppu_gpm_schema(st, po, ctx->streams);
	if (ret >= 0)
		ret = ppu_lib_open(&st->lib, po->backend, st->err, sizeof(st->err));
	if (ret >= 0)
		ret = ppu_gpm_devices(st, po);
	return ret < 0 ? ret : 0;
}

/* Why GPM refused, and what the user can do about it. */
static void ppu_gpm_refused(struct gpm_state_all *st, struct gpm_dev *d, ppu_ret_t r, char *buf,
			    size_t n)
{
	const char *what = r == PPU_ERR_IN_USE		? "the performance counters are in use"
			   : r == PPU_ERR_NO_PERMISSION ? "no permission to sample"
			   : r == PPU_ERR_NOT_SUPPORTED ? "sampling is not supported right now"
							: "sampling failed";
	char sym[64], ebuf[64];

	ppu_lib_symbol(st->lib, "GpmSampleGet", sym, sizeof(sym));
	snprintf(buf, n,
		 "metrics sampling refused on device %u: %s (%s: %s). Likely causes: another "
		 "asys is sampling metrics; an acu application is collecting a trace; DCGM is "
		 "profiling (pause it: dcgmi profile --pause); HGML GPM holds the counters "
		 "(check: ppu-smi -q and ppu-smi gpm --get-sample-state; release: ppu-smi gpm "
		 "-s 0)%s. Device state keeps updating; retrying every second",
		 d->index, what, sym, ppu_lib_strerror(st->lib, r, ebuf, sizeof(ebuf)),
		 r == PPU_ERR_NO_PERMISSION ? "; or run asys as root" : "");
}

/* The device fields read with the sample (NAN: not asked for, or failed). */
struct gpm_fields {
	double v[PPU_STATE_NFIELDS]; /* by enum ppu_dev_field */
};

static void ppu_gpm_values(const struct gpm_dev *d, const struct gpm_fields *f, double dt_s,
			   double *vals)
{
	const struct ppu_gpm_metric *gm = d->mg.metrics;
	const struct gpm_plan_set *ps = d->ps;
	const struct gpm_plan *pl = ps->plan, *end = pl + ps->n[PLAN_GPM];
	double cycles = f->v[PPU_STATE_CLOCK_SM] * dt_s;

	for (; pl < end; pl++)
		vals[pl->out] = gm[pl->slot].ret == PPU_OK ? gm[pl->slot].value * pl->factor : NAN;
	for (end += ps->n[PLAN_CYCLES]; pl < end; pl++)
		vals[pl->out] =
		    gm[pl->slot].ret == PPU_OK ? gm[pl->slot].value * pl->factor * cycles : NAN;
	for (end += ps->n[PLAN_FIELD]; pl < end; pl++)
		vals[pl->out] = f->v[pl->slot] * pl->factor;
	for (end += ps->n[PLAN_NONE]; pl < end; pl++)
		vals[pl->out] = NAN;
}

/* One device's reads for this tick; the values are emitted by the caller once
 * every device has been read (ppu_gpm_sample). Returns true when a sample
 * is ready. */
/* GpmSampleGet failed: the device is lost, or sampling was refused. Kept out
 * of line, with the first tick's set-up, so that the code a tick runs is
 * small: at 1 kHz it is out of the instruction cache at every tick. */
static __attribute__((cold, noinline)) void ppu_gpm_read_failed(struct gpm_state_all *st,
								struct gpm_dev *d,
								struct emitter *out, ppu_ret_t r,
								uint64_t now_ns)
{
	char msg[1024];

	if (r == PPU_ERR_GPU_IS_LOST) {
		snprintf(msg, sizeof(msg), "lost: device %u (%s) stopped answering (GPU is lost)",
			 d->index, d->id.bus_id);
		d->state = GPM_LOST;
	} else {
		ppu_gpm_refused(st, d, r, msg, sizeof(msg));
		d->state = GPM_REFUSED;
		d->refused = true;
		d->retry_ns = now_ns + GPM_RETRY_NS;
	}
	d->have_prev = false;
	emit_status(out, (uint32_t)st->stream, d->index, asys_now_ns(), msg);
}

static bool ppu_gpm_read(struct gpm_state_all *st, struct gpm_dev *d, struct gpm_fields *f,
			 struct emitter *out, uint64_t now_ns)
{
	const struct ppu_lib *l = st->lib;
	bool ready = false;
	ppu_ret_t r;

	for (int k = 0; k < PPU_STATE_NFIELDS; k++)
		f->v[k] = NAN;
	for (int k = PPU_STATE_CLOCK_SM; k <= PPU_STATE_CLOCK_MEM; k++) {
		unsigned int mhz;

		if (st->need[k] && l->device_get_clock_info &&
		    l->device_get_clock_info(d->h,
					     k == PPU_STATE_CLOCK_SM ? PPU_CLOCK_SM : PPU_CLOCK_MEM,
					     &mhz) == PPU_OK)
			f->v[k] = mhz;
	}
	if (st->need[PPU_STATE_MEM_USED]) {
		struct ppu_memory mi;

		if (l->device_get_memory_info && l->device_get_memory_info(d->h, &mi) == PPU_OK)
			f->v[PPU_STATE_MEM_USED] = (double)mi.used;
	}
	r = l->gpm_sample_get(d->h, d->s[d->cur]);
	if (__builtin_expect(r != PPU_OK, 0)) {
		ppu_gpm_read_failed(st, d, out, r, now_ns);
		return false;
	}
	if (__builtin_expect(d->refused, 0)) {
		d->refused = false;
		emit_status(out, (uint32_t)st->stream, d->index, asys_now_ns(), "");
	}
	if (d->have_prev) {
		d->mg.sample1 = d->s[d->cur ^ 1];
		d->mg.sample2 = d->s[d->cur];
		ready = l->gpm_metrics_get(&d->mg) == PPU_OK;
	}
	d->cur ^= 1;
	d->have_prev = true;
	return ready;
}

/* A library whose GPM counters refresh slower than asked (NVML: 100 ms)
 * gives zeros for closer samples, so the metrics run at its rate instead. */
static double ppu_gpm_rate(void *p, double asked)
{
	struct gpm_state_all *st = p;
	double max_hz;

	if (!st || !st->lib || !st->lib->gpm_min_interval_ns)
		return asked;
	max_hz = 1e9 / (double)st->lib->gpm_min_interval_ns;
	if (asked <= max_hz)
		return asked;
	st->asked_hz = asked;
	st->capped_hz = max_hz;
	return max_hz;
}

/* Once, with the first device's first tick: why the rate is lower, and
 * which asked devices do not exist. */
static __attribute__((cold, noinline)) void ppu_gpm_tell_cap(struct gpm_state_all *st,
							     struct emitter *out, uint64_t now_ns)
{
	char msg[1600] = "";
	size_t len;

	st->told_cap = true;
	if (st->dev_note[0])
		snprintf(msg, sizeof(msg), "%s%s", st->dev_note, st->capped_hz > 0 ? ". " : "");
	len = strlen(msg);
	if (st->capped_hz > 0)
		snprintf(msg + len, sizeof(msg) - len,
			 "PPU metrics at %g Hz, not the %g Hz asked: %s GPM samples must be %g ms "
			 "apart %s (library: %s)",
			 st->capped_hz, st->asked_hz,
			 st->lib->backend == PPU_BACKEND_NVML ? "NVML" : "HGML",
			 (double)st->lib->gpm_min_interval_ns / 1e6,
			 st->lib->gpm_min_interval_from_env
			     ? "(set by ASYS_GPM_MIN_INTERVAL_MS)"
			     : "(NVIDIA documents 100 ms for NVML: its counters refresh no faster, "
			       "and closer samples read as zeros); HGML has no such floor. "
			       "ASYS_GPM_MIN_INTERVAL_MS overrides it",
			 st->lib->path);
	emit_status(out, (uint32_t)st->stream, STATUS_STREAM, now_ns, msg);
}

/* First tick of a device: set up and label; the notes become statuses. */
static __attribute__((cold, noinline)) void ppu_gpm_first_tick(struct gpm_state_all *st,
							       struct gpm_dev *d,
							       struct emitter *out, uint64_t now_ns)
{
	char label[160], note[1024];

	d->set_up = true;
	if ((st->capped_hz > 0 || st->dev_note[0]) && !st->told_cap)
		ppu_gpm_tell_cap(st, out, now_ns);
	snprintf(label, sizeof(label), "%u: %s %s", d->index, d->h ? d->id.name : "PPU",
		 d->h ? d->id.bus_id : "n/a");
	emit_label(out, (uint32_t)st->stream, d->index, now_ns, label);
	if (d->state == GPM_LOST)
		snprintf(note, sizeof(note), "lost: device %u does not answer (GPU is lost)",
			 d->index);
	else
		ppu_gpm_setup(st, d, note, sizeof(note));
	if (note[0])
		emit_status(out, (uint32_t)st->stream, d->index, now_ns, note);
}

static int ppu_gpm_sample(void *p, struct emitter *out, uint64_t now_ns)
{
	struct gpm_state_all *st = p;
	uint64_t t0;

	/* At 1 kHz every line below is out of cache at each tick (measured: the
	 * misses made up most of the collector's cost above the library calls);
	 * ask for them all now so the misses overlap the first library calls. */
	emit_prefetch(out, st->ndev, (uint32_t)st->nsel);
	for (unsigned int i = 0; i < st->nsets; i++)
		for (size_t o = 0;
		     o < offsetof(struct gpm_plan_set, plan) + st->nsel * sizeof(struct gpm_plan);
		     o += 64)
			__builtin_prefetch((const char *)&st->sets[i] + o, 0, 3);
	for (unsigned int i = 0; i < st->ndev; i++) {
		__builtin_prefetch(&st->devs[i], 1, 3);
		for (size_t o = 0; o < offsetof(struct ppu_gpm_metrics_get, metrics) +
					   st->nsel * sizeof(struct ppu_gpm_metric);
		     o += 64)
			__builtin_prefetch((const char *)&st->devs[i].mg + o, 1, 3);
	}
	/* Every device's sample is stamped with the start of the tick's reads:
	 * one clock read a tick, not one a device, and that one is the engine's
	 * at the wake when this collector runs first in its tick (a read of
	 * CLOCK_MONOTONIC costs 25-80 ns on a VM, up to a third of a fake device
	 * read). A device sits at the same place in the loop every tick, so its
	 * intervals stay exact to the jitter of the reads before it, a few us at
	 * most. */
	t0 = emit_tick_start(out);
	for (unsigned int i = 0; i < st->ndev; i++) {
		struct gpm_dev *d = &st->devs[i];
		struct gpm_fields f;

		if (__builtin_expect(!d->set_up, 0))
			ppu_gpm_first_tick(st, d, out, now_ns);
		if (d->state == GPM_REFUSED && now_ns >= d->retry_ns)
			d->state = GPM_RUN;
		if (d->state != GPM_RUN)
			continue;
		/* the values are made and sent while the device's lines are hot */
		if (ppu_gpm_read(st, d, &f, out, now_ns) && d->prev_ts) {
			double *v = emit_sample_begin(out, (uint32_t)st->stream, d->index, t0,
						      (uint32_t)st->nsel);

			if (v) {
				ppu_gpm_values(d, &f, (double)(t0 - d->prev_ts) * 1e-9, v);
				emit_sample_end(out, (uint32_t)st->nsel);
			}
		}
		if (d->state == GPM_RUN)
			d->prev_ts = d->have_prev ? t0 : 0;
	}
	return 0;
}

static const char *ppu_gpm_last_error(const void *p)
{
	const struct gpm_state_all *st = p;

	return st && st->err[0] ? st->err : NULL;
}

const struct collector ppu_metrics_collector = {
    .name = "ppu-metrics",
    .streams = ppu_gpm_streams,
    .options = &ppu_options,
    .frequency = ppu_gpm_frequency,
    .init = ppu_gpm_init,
    .sample = ppu_gpm_sample,
    .fini = ppu_gpm_fini,
    .last_error = ppu_gpm_last_error,
    .rate = ppu_gpm_rate,
};
