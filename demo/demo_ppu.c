/* SPDX-License-Identifier: GPL-2.0-only */
/* The PPU streams of the demo: eight devices, each running one rank of the
 * training job (demo_load.c), their state once a second (ppu.dev, as the
 * ppu collector reads it at a 1 s refresh), the processes on them
 * (ppu.proc) and GPM metrics ten times a second (ppu.metrics). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "demo.h"
#include "util.h"

#define DEV_MEM_TOTAL (96 * GIB)
#define CONTEXT_BYTES (0.6 * GIB) /* the runtime's own, per process */

/* A metric as a mix of what the device does; unit % is capped at 100. */
struct metric_mix {
	const char *prefix;
	double compute, comm, ckpt, input, base, jitter;
};

static const struct metric_mix metric_mixes[] = {
    {"ce__cycles_active.", 98, 60, 0, 20, 1, 0.01},
    {"gd__dispatch_count.", 74, 20, 0, 10, 0.5, 0.04},
    {"ce__warps_active_accumulated.", 58, 30, 0, 8, 0.5, 0.05},
    {"cu__cycles_active.", 93, 55, 0, 15, 1, 0.02},
    {"cu__ws_issue_active.", 52, 12, 0, 5, 0.5, 0.06},
    {"cu__we_pipe_tensor_cycles_active.", 71, 0, 0, 0, 0, 0.05},
    {"dram__exclude_hbm_bytes_read.", 55, 25, 2, 30, 1, 0.06},
    {"dram__exclude_hbm_bytes_write.", 32, 22, 6, 10, 1, 0.06},
    {"l2__transaction_hit_rate.", 80, 45, 30, 40, 0, 0.03},
    {"pcie__read_bytes.sum.per_second", 0.3e9, 0.2e9, 0.1e9, 24e9, 0.2e9, 0.08},
    {"pcie__write_bytes.sum.per_second", 0.2e9, 0.1e9, 18e9, 0, 0.1e9, 0.08},
    {"icnltx__bytes.sum.per_second", 4e9, 230e9, 0, 0, 1e9, 0.05},
    {"icnlrx__bytes.sum.per_second", 4e9, 226e9, 0, 0, 1e9, 0.05},
};

static double clock_sm(const struct demo_load *l)
{
	double busy = l->compute + l->comm;

	return 1200.0 + 300.0 * (busy > 1 ? 1 : busy);
}

static double metric_value(const char *name, const char *unit, const struct demo_load *l,
			   double noise)
{
	if (!strcmp(unit, "cycle/second"))
		return clock_sm(l) * 1e6;
	for (size_t i = 0; i < ARRAY_SIZE(metric_mixes); i++) {
		const struct metric_mix *m = &metric_mixes[i];
		double x;

		if (strncmp(name, m->prefix, strlen(m->prefix)))
			continue;
		x = m->compute * l->compute + m->comm * l->comm + m->ckpt * l->ckpt +
		    m->input * l->input + m->base;
		x *= 1.0 + m->jitter * noise;
		/* GPM counts bytes in MiB; a share in steps of 1/16 % keeps the
		 * file small and shows the same */
		if (strcmp(unit, "%"))
			return round(x / 1048576) * 1048576;
		return x > 100 ? 100 : round(x * 16) / 16;
	}
	return NAN;
}

static void ppu_metrics(struct demo *d, uint64_t tick)
{
	const struct stream_desc *sd = stream_table_get(d->streams, d->sid[DS_PPU_MET]);
	double v[STREAM_MAX_FIELDS];

	for (int dev = 0; dev < DEMO_NDEV; dev++) {
		struct demo_load l;

		demo_load_at(demo_secs(tick), dev, &l);
		demo_clear(v);
		for (uint32_t f = 0; f < sd->nfields; f++)
			v[f] = metric_value(sd->fields[f].name, sd->fields[f].unit, &l,
					    demo_noise(DS_PPU_MET * 1000 + f, (uint64_t)dev, tick));
		demo_emit(d, DS_PPU_MET, (uint64_t)dev, tick, v);
	}
}

/* The device's busy share over the second before t, as the driver's
 * utilisation counter averages it. */
static void ppu_second(double t, int dev, double *busy, double *mem, double *power)
{
	*busy = *mem = *power = 0;
	for (int k = 0; k < 20; k++) {
		struct demo_load l;
		double b;

		demo_load_at(t - k * 0.05, dev, &l);
		b = l.compute * 1.03 + l.comm * 0.9 + l.input * 0.3;
		*busy += (b > 1 ? 1 : b) / 20;
		*mem += (l.compute * 0.45 + l.comm * 0.25 + l.input * 0.1) / 20;
		*power += (115 + 520 * l.compute + 110 * l.comm + 40 * l.ckpt) / 20;
	}
}

/* The rank's share of its device (ppu.proc_util): all of the device's
 * work is its own. */
static void ppu_proc_util(struct demo *d, uint64_t tick, int dev, double busy, double mem)
{
	double v[STREAM_MAX_FIELDS];

	demo_clear(v);
	demo_set(d, DS_PPU_UTIL, v, PPU_PROC_UTIL_SM, round(100 * busy));
	demo_set(d, DS_PPU_UTIL, v, PPU_PROC_UTIL_MEM, round(100 * mem));
	demo_set(d, DS_PPU_UTIL, v, PPU_PROC_UTIL_ENC, 0);
	demo_set(d, DS_PPU_UTIL, v, PPU_PROC_UTIL_DEC, 0);
	demo_emit(d, DS_PPU_UTIL, ((uint64_t)dev << 32) | demo_rank_pid(dev), tick, v);
}

static void ppu_dev(struct demo *d, uint64_t tick, int dev)
{
	double t = demo_secs(tick), v[STREAM_MAX_FIELDS], busy, mem, power;
	double n = demo_noise(DS_PPU_DEV, (uint64_t)dev, tick);
	struct demo_load l;

	demo_load_at(t, dev, &l);
	ppu_second(t, dev, &busy, &mem, &power);
	power *= 1.0 + 0.02 * n;
	/* the die follows the power with a lag of some seconds */
	if (d->temp[dev] == 0)
		d->temp[dev] = 58;
	d->temp[dev] += (36 + 0.064 * power + (dev % 3) + 4 * (dev == 3) - d->temp[dev]) * 0.15;
	demo_clear(v);
	demo_set(d, DS_PPU_DEV, v, PPU_DEV_UTIL_GPU, round(100 * busy));
	demo_set(d, DS_PPU_DEV, v, PPU_DEV_UTIL_MEM, round(100 * mem));
	demo_set(d, DS_PPU_DEV, v, PPU_DEV_MEM_USED,
		 demo_rank_device_bytes(dev, t) + CONTEXT_BYTES + 0.7 * GIB);
	demo_set(d, DS_PPU_DEV, v, PPU_DEV_MEM_TOTAL, DEV_MEM_TOTAL);
	demo_set(d, DS_PPU_DEV, v, PPU_DEV_CLOCK_SM, round(clock_sm(&l) / 15) * 15);
	demo_set(d, DS_PPU_DEV, v, PPU_DEV_CLOCK_MEM, 2619);
	demo_set(d, DS_PPU_DEV, v, PPU_DEV_POWER, round(power));
	demo_set(d, DS_PPU_DEV, v, PPU_DEV_POWER_LIMIT, 700);
	demo_set(d, DS_PPU_DEV, v, PPU_DEV_TEMP, round(d->temp[dev]));
	demo_set(d, DS_PPU_DEV, v, PPU_DEV_PCIE_GEN, 5);
	demo_set(d, DS_PPU_DEV, v, PPU_DEV_PCIE_WIDTH, 16);
	demo_emit(d, DS_PPU_DEV, (uint64_t)dev, tick, v);
	ppu_proc_util(d, tick, dev, busy, mem);
}

static void ppu_labels(struct demo *d)
{
	/* two PCIe switches of four devices each, as on common 8-way boards */
	static const unsigned int bus[DEMO_NDEV] = {0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb};
	char label[96];

	for (int dev = 0; dev < DEMO_NDEV; dev++) {
		snprintf(label, sizeof(label), "%d: PPU 00000000:%02X:00.0", dev, bus[dev]);
		demo_label(d, DS_PPU_DEV, (uint64_t)dev, 0, label);
		demo_label(d, DS_PPU_MET, (uint64_t)dev, 0, label);
		snprintf(label, sizeof(label), "%u python", demo_rank_pid(dev));
		demo_label(d, DS_PPU_PROC, ((uint64_t)dev << 32) | demo_rank_pid(dev), 0, label);
		demo_label(d, DS_PPU_UTIL, ((uint64_t)dev << 32) | demo_rank_pid(dev), 0, label);
	}
}

void demo_ppu_tick(struct demo *d, uint64_t tick)
{
	if (tick == 0)
		ppu_labels(d);
	if (demo_has(d, DS_PPU_MET) && demo_every(tick, 10))
		ppu_metrics(d, tick);
	if (!demo_every(tick, 1))
		return;
	for (int dev = 0; dev < DEMO_NDEV; dev++) {
		double mem = demo_rank_device_bytes(dev, demo_secs(tick)) + CONTEXT_BYTES;

		ppu_dev(d, tick, dev);
		demo_emit(d, DS_PPU_PROC, ((uint64_t)dev << 32) | demo_rank_pid(dev), tick, &mem);
	}
}
