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

#include "collector.h"
#include "ppu_cli.h"
#include "ppu_lib.h"
#include "ppu_catalogue.h"
#include "util.h"

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
	bool need[PPU_DEV_NFIELDS]; /* device fields read with each sample */
	size_t nsel;		    /* sel.n */
	struct ppu_selection sel;
	struct field_desc fields[PPU_METRIC_MAX];
	char err[1536];
	/* the rate was lowered to the library's GPM floor (ppu_gpm_rate): from
	 * asked_hz to capped_hz, told once as a status */
	double asked_hz, capped_hz;
	bool told_cap;
	char dev_note[512]; /* IDs of --ppu-metrics-device that do not exist */
};

static const struct stream_desc ppu_metrics_stream = {
    .name = "ppu.metrics",
    .version = 1,
    .entity = ENTITY_DEVICE,
    .nfields = 0, /* one field per metric of the set and list: registered by init */
    .fields = NULL,
    .help = "PPU metrics (GPM) of the selected set and list, per device",
};

static const struct stream_desc *const ppu_gpm_streams[] = {&ppu_metrics_stream, NULL};

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
		    (pl->how == PLAN_FIELD && pl->slot >= PPU_DEV_NFIELDS))
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
static void ppu_gpm_setup(struct gpm_state_all *st, struct gpm_dev *d, char *note, size_t n)
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

/* The ppu.metrics schema of the selection: one field per metric. */
static int ppu_gpm_schema(struct gpm_state_all *st, const struct ppu_opts *po,
			  struct stream_table *streams)
{
	struct stream_desc sd = ppu_metrics_stream;
	char help[160];

	for (size_t i = 0; i < st->sel.n && i < STREAM_MAX_FIELDS; i++) {
		const struct ppu_metric *m = &ppu_metric_catalogue[st->sel.idx[i]];

		st->fields[i] = ppu_metric_field(m);
		if (m->src == PPU_SRC_GPM_CYCLES)
			st->need[PPU_DEV_CLOCK_SM] = true;
		if (m->src == PPU_SRC_DEV && m->id < PPU_DEV_NFIELDS)
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

/* The devices of --ppu-metrics-device that exist, with their handles. */
static int ppu_gpm_devices(struct gpm_state_all *st, const struct ppu_opts *po)
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
	double v[PPU_DEV_NFIELDS]; /* by enum ppu_dev_field */
};

static void ppu_gpm_values(const struct gpm_dev *d, const struct gpm_fields *f, double dt_s,
			   double *vals)
{
	const struct ppu_gpm_metric *gm = d->mg.metrics;
	const struct gpm_plan_set *ps = d->ps;
	const struct gpm_plan *pl = ps->plan, *end = pl + ps->n[PLAN_GPM];
	double cycles = f->v[PPU_DEV_CLOCK_SM] * dt_s;

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

	for (int k = 0; k < PPU_DEV_NFIELDS; k++)
		f->v[k] = NAN;
	for (int k = PPU_DEV_CLOCK_SM; k <= PPU_DEV_CLOCK_MEM; k++) {
		unsigned int mhz;

		if (st->need[k] && l->device_get_clock_info &&
		    l->device_get_clock_info(
			d->h, k == PPU_DEV_CLOCK_SM ? PPU_CLOCK_SM : PPU_CLOCK_MEM, &mhz) == PPU_OK)
			f->v[k] = mhz;
	}
	if (st->need[PPU_DEV_MEM_USED]) {
		struct ppu_memory mi;

		if (l->device_get_memory_info && l->device_get_memory_info(d->h, &mi) == PPU_OK)
			f->v[PPU_DEV_MEM_USED] = (double)mi.used;
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
