/* SPDX-License-Identifier: GPL-2.0-only */
/* The ppu collector: device state (utilisation, memory, clocks, power,
 * temperature, PCIe link) and the processes using each device, through HGML
 * or NVML loaded with dlopen (ppu_lib.c). It runs at the refresh rate; the
 * GPM metric sets are sampled by ppu_metrics_collector (ppu_metrics.c) at their
 * own frequency. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "collector.h"
#include "ppu.h"
#include "ppu_cli.h"
#include "ppu_lib.h"
#include "ppu_putil.h"
#include "util.h"

#define PPU_PROC_MAX 4096

static const struct stream_desc *const ppu_streams[] = {
    CATALOGUE_STREAM(STREAM_PPU_DEV), CATALOGUE_STREAM(STREAM_PPU_PROC),
    CATALOGUE_STREAM(STREAM_PPU_PROC_UTIL), NULL};

struct ppu_dev {
	ppu_device_t h;
	struct ppu_dev_ident id;
	bool lost, labelled;
	unsigned int *pids; /* processes seen last tick */
	size_t npids;
};

struct ppu_state {
	struct ppu_lib *lib;
	struct ppu_dev *devs;
	unsigned int ndev;
	int s_dev, s_proc, s_util;
	struct ppu_putil util;
	struct ppu_process_info *procs;
	unsigned int procs_cap;
	char err[1536];
};

static double ppu_frequency(const struct asys_options *o)
{
	double hz = o->delay_s > 0 ? 1.0 / o->delay_s : 1.0;

	return hz < 1.0 ? 1.0 : hz;
}

static void ppu_fini(void *p)
{
	struct ppu_state *st = p;

	if (!st)
		return;
	for (unsigned int i = 0; st->devs && i < st->ndev; i++)
		free(st->devs[i].pids);
	free(st->devs);
	free(st->procs);
	ppu_putil_fini(&st->util);
	ppu_lib_close(st->lib);
	free(st);
}

static int ppu_init(const struct coll_ctx *ctx, void **state)
{
	struct ppu_state *st = calloc(1, sizeof(*st));
	unsigned int n = 0;
	ppu_ret_t r;
	char ebuf[64];
	int ret;

	*state = st;
	if (!st)
		return -ENOMEM;
	st->s_dev = stream_table_add(ctx->streams, CATALOGUE_STREAM(STREAM_PPU_DEV));
	st->s_proc = stream_table_add(ctx->streams, CATALOGUE_STREAM(STREAM_PPU_PROC));
	st->s_util = stream_table_add(ctx->streams, CATALOGUE_STREAM(STREAM_PPU_PROC_UTIL));
	if (st->s_dev < 0 || st->s_proc < 0 || st->s_util < 0) {
		snprintf(st->err, sizeof(st->err), "cannot register the PPU streams");
		return st->s_dev < 0 ? st->s_dev : st->s_proc < 0 ? st->s_proc : st->s_util;
	}
	ret = ppu_lib_open(&st->lib, ppu_opts_of(ctx->opts)->backend, st->err, sizeof(st->err));
	if (ret < 0)
		return ret;
	r = st->lib->device_get_count(&n);
	if (r != PPU_OK || n == 0) {
		snprintf(st->err, sizeof(st->err), "%s reports no PPU devices%s%s", st->lib->path,
			 r != PPU_OK ? ": " : "",
			 r != PPU_OK ? ppu_lib_strerror(st->lib, r, ebuf, sizeof(ebuf)) : "");
		return -ENODEV;
	}
	st->devs = calloc(n, sizeof(*st->devs));
	st->procs_cap = 64;
	st->procs = calloc(st->procs_cap, sizeof(*st->procs));
	if (!st->devs || !st->procs || ppu_putil_init(&st->util, st->s_util, st->lib, n) < 0) {
		snprintf(st->err, sizeof(st->err), "out of memory for %u PPU devices", n);
		return -ENOMEM;
	}
	st->ndev = n;
	for (unsigned int i = 0; i < n; i++) {
		struct ppu_dev *d = &st->devs[i];

		r = st->lib->device_get_handle_by_index(i, &d->h);
		if (r != PPU_OK) {
			d->lost = r == PPU_ERR_GPU_IS_LOST;
			d->h = NULL;
			continue;
		}
		ppu_lib_ident(st->lib, d->h, &d->id);
	}
	return 0;
}

/* Reads one value; a lost device is remembered, other failures are NaN. */
static double ppu_read(struct ppu_dev *d, ppu_ret_t r, double v)
{
	if (r == PPU_ERR_GPU_IS_LOST)
		d->lost = true;
	return r == PPU_OK ? v : NAN;
}

static void ppu_read_state(struct ppu_state *st, struct ppu_dev *d, double *v)
{
	const struct ppu_lib *l = st->lib;
	struct ppu_utilization u = {0, 0};
	struct ppu_memory m = {0, 0, 0};
	unsigned int x = 0;

	for (int i = 0; i < PPU_DEV_NFIELDS; i++)
		v[i] = NAN;
	if (l->device_get_utilization_rates) {
		ppu_ret_t r = l->device_get_utilization_rates(d->h, &u);

		v[PPU_DEV_UTIL_GPU] = ppu_read(d, r, u.gpu);
		v[PPU_DEV_UTIL_MEM] = ppu_read(d, r, u.memory);
	}
	if (l->device_get_memory_info && !d->lost) {
		ppu_ret_t r = l->device_get_memory_info(d->h, &m);

		v[PPU_DEV_MEM_USED] = ppu_read(d, r, (double)m.used);
		v[PPU_DEV_MEM_TOTAL] = ppu_read(d, r, (double)m.total);
	}
	/* One call, then its value: argument order is unspecified in C. */
#define PPU_U32(fn, i, scale, ...)                                                                 \
	do {                                                                                       \
		if (l->fn && !d->lost) {                                                           \
			ppu_ret_t r_ = l->fn(d->h, __VA_ARGS__);                                   \
			v[i] = ppu_read(d, r_, x * (scale));                                       \
		}                                                                                  \
	} while (0)
	PPU_U32(device_get_clock_info, PPU_DEV_CLOCK_SM, 1.0, PPU_CLOCK_SM, &x);
	PPU_U32(device_get_clock_info, PPU_DEV_CLOCK_MEM, 1.0, PPU_CLOCK_MEM, &x);
	PPU_U32(device_get_power_usage, PPU_DEV_POWER, 1e-3, &x);
	PPU_U32(device_get_enforced_power_limit, PPU_DEV_POWER_LIMIT, 1e-3, &x);
	PPU_U32(device_get_temperature, PPU_DEV_TEMP, 1.0, PPU_TEMPERATURE_GPU, &x);
	PPU_U32(device_get_curr_pcie_link_generation, PPU_DEV_PCIE_GEN, 1.0, &x);
	PPU_U32(device_get_curr_pcie_link_width, PPU_DEV_PCIE_WIDTH, 1.0, &x);
#undef PPU_U32
}

static uint64_t ppu_proc_key(unsigned int dev, unsigned int pid)
{
	return ((uint64_t)dev << 32) | pid;
}

static bool ppu_has_pid(const unsigned int *pids, size_t n, unsigned int pid)
{
	for (size_t i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* Forgets the processes of a device (they are gone, or the device is). */
static void ppu_procs_gone(struct ppu_state *st, struct emitter *out, unsigned int dev, uint64_t ts)
{
	struct ppu_dev *d = &st->devs[dev];

	for (size_t i = 0; i < d->npids; i++)
		emit_gone(out, (uint32_t)st->s_proc, ppu_proc_key(dev, d->pids[i]), ts);
	d->npids = 0;
}

/* Emits the processes on device dev; false when it could not list them. */
static bool ppu_sample_procs(struct ppu_state *st, struct emitter *out, unsigned int dev,
			     uint64_t ts)
{
	struct ppu_dev *d = &st->devs[dev];
	unsigned int *now_pids;
	char label[128];
	ppu_ret_t r;
	int n = ppu_lib_processes(st->lib, d->h, st->procs, st->procs_cap, &r);

	if (n < 0 && r == PPU_ERR_INSUFFICIENT_SIZE && st->procs_cap < PPU_PROC_MAX) {
		struct ppu_process_info *np = calloc(PPU_PROC_MAX, sizeof(*np));

		if (np) {
			free(st->procs);
			st->procs = np;
			st->procs_cap = PPU_PROC_MAX;
			n = ppu_lib_processes(st->lib, d->h, st->procs, st->procs_cap, &r);
		}
	}
	if (n < 0) {
		if (r == PPU_ERR_GPU_IS_LOST)
			d->lost = true;
		return false;
	}
	now_pids = calloc((size_t)n + 1, sizeof(*now_pids));
	if (!now_pids)
		return false;
	for (int i = 0; i < n; i++) {
		unsigned int pid = st->procs[i].pid;
		double mem = (double)st->procs[i].used_memory;

		/* NVML reports "not available" as ULLONG_MAX (no permission). */
		if (st->procs[i].used_memory == ~0ull)
			mem = NAN;
		if (!ppu_has_pid(d->pids, d->npids, pid)) {
			ppu_proc_label(pid, label, sizeof(label));
			emit_label(out, (uint32_t)st->s_proc, ppu_proc_key(dev, pid), ts, label);
		}
		emit_sample(out, (uint32_t)st->s_proc, ppu_proc_key(dev, pid), ts, &mem, 1);
		now_pids[i] = pid;
	}
	for (size_t i = 0; i < d->npids; i++)
		if (!ppu_has_pid(now_pids, (size_t)n, d->pids[i]))
			emit_gone(out, (uint32_t)st->s_proc, ppu_proc_key(dev, d->pids[i]), ts);
	free(d->pids);
	d->pids = now_pids;
	d->npids = (size_t)n;
	return true;
}

static void ppu_mark_lost(struct ppu_state *st, struct emitter *out, unsigned int i, uint64_t ts)
{
	char msg[256];

	snprintf(msg, sizeof(msg),
		 "lost: device %u (%s) stopped answering (GPU is lost); the other devices go "
		 "on. Check the kernel log and ppu-smi; the device may need a reset",
		 i, st->devs[i].id.bus_id);
	emit_status(out, (uint32_t)st->s_dev, i, ts, msg);
	ppu_procs_gone(st, out, i, ts);
	ppu_putil_gone(&st->util, out, i, ts);
}

static int ppu_sample(void *p, struct emitter *out, uint64_t now_ns)
{
	struct ppu_state *st = p;
	double v[PPU_DEV_NFIELDS];
	char label[256];

	for (unsigned int i = 0; i < st->ndev; i++) {
		struct ppu_dev *d = &st->devs[i];
		uint64_t ts = asys_now_ns();

		if (d->lost || !d->h) {
			if (!d->labelled) {
				snprintf(label, sizeof(label), "%u: %s %s", i, "PPU", "n/a");
				emit_label(out, (uint32_t)st->s_dev, i, ts, label);
				ppu_mark_lost(st, out, i, ts);
				d->labelled = d->lost = true;
			}
			continue;
		}
		if (!d->labelled) {
			/* "0: NAME BUS_ID UUID": the UUID, when known, is the
			 * last word and the only one without a colon after it */
			snprintf(label, sizeof(label), "%u: %s %s%s%s", i, d->id.name, d->id.bus_id,
				 d->id.uuid[0] ? " " : "", d->id.uuid);
			emit_label(out, (uint32_t)st->s_dev, i, ts, label);
			d->labelled = true;
		}
		ppu_read_state(st, d, v);
		if (!d->lost) {
			bool listed = ppu_sample_procs(st, out, i, ts);

			if (!d->lost && ppu_putil_sample(&st->util, st->lib, out, i, d->h,
							 listed ? d->pids : NULL, d->npids,
							 ts) == PPU_ERR_GPU_IS_LOST)
				d->lost = true;
		}
		if (d->lost) {
			ppu_mark_lost(st, out, i, ts);
			continue;
		}
		emit_sample(out, (uint32_t)st->s_dev, i, ts, v, PPU_DEV_NFIELDS);
	}
	return 0;
}

static const char *ppu_last_error(const void *p)
{
	const struct ppu_state *st = p;

	return st && st->err[0] ? st->err : NULL;
}

const struct collector ppu_collector = {
    .name = "ppu",
    .streams = ppu_streams,
    .options = &ppu_options,
    .frequency = ppu_frequency,
    .init = ppu_init,
    .sample = ppu_sample,
    .fini = ppu_fini,
    .last_error = ppu_last_error,
};
