/* SPDX-License-Identifier: GPL-2.0-only */
/* The host streams of the demo: the NICs (nic.link, nic.rdma) at 20 Hz, so
 * that bursts show as peaks, and the CPU cores (cpu.core, cpu.perf) once a
 * second. Counters only grow, by whole units, as the kernel's do. */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "demo.h"
#include "util.h"

#define NIC_NRDMA 4
#define NIC_NLINK (NIC_NRDMA + 1) /* eth0 and the RDMA netdevs */
#define RDMA_BPS 23.5e9		  /* a 200 Gb/s port, busy */
#define RDMA_PKT 4154.0		  /* a 4 KiB MTU and the RoCE headers */
#define USER_HZ 100.0

_Static_assert(NIC_NLINK + NIC_NRDMA == DEMO_NNICS, "struct demo counts DEMO_NNICS");

static const char *const netdevs[NIC_NLINK] = {"eth0", "ens1f0np0", "ens1f1np1", "ens2f0np0",
					       "ens2f1np1"};

static uint64_t link_ent(int i)
{
	return (uint64_t)(i ? i + 3 : 2); /* ifindex: eth0 is 2, the RDMA ports' from 4 */
}

static uint64_t rdma_ent(int i)
{
	return ((uint64_t)i << 8) | 1; /* device index << 8 | port */
}

static void nic_labels(struct demo *d)
{
	char label[64];

	for (int i = 0; i < NIC_NLINK; i++) {
		if (i)
			snprintf(label, sizeof(label), "%s (rdma: mlx5_%d)", netdevs[i], i - 1);
		else
			snprintf(label, sizeof(label), "%s", netdevs[i]);
		demo_label(d, DS_NIC_LINK, link_ent(i), 0, label);
	}
	for (int i = 0; i < NIC_NRDMA; i++) {
		snprintf(label, sizeof(label), "mlx5_%d/1 (%s)", i, netdevs[i + 1]);
		demo_label(d, DS_NIC_RDMA, rdma_ent(i), 0, label);
	}
}

/* Adds rate * dt, whole units, to a counter. */
static void grow(double *c, double rate, double dt)
{
	*c += floor(rate * dt + 0.5);
}

/* eth0 carries ssh and metrics, and the checkpoints to storage; the RDMA
 * netdevs carry only the job's TCP rendezvous. */
static void nic_link_tick(struct demo *d, uint64_t tick, const struct demo_load *l, double dt)
{
	double v[STREAM_MAX_FIELDS];

	for (int i = 0; i < NIC_NLINK; i++) {
		double *c = d->nic[i], n = demo_noise(DS_NIC_LINK, (uint64_t)i, tick);
		double rx = i ? 4.2e6 : 2.1e6, tx = i ? 3.9e6 : 0.7e6;

		if (!i)
			tx += l->ckpt * 2.9e9;
		grow(&c[0], rx * (1 + 0.3 * n), dt);
		grow(&c[1], tx * (1 + 0.1 * n), dt);
		grow(&c[2], rx * (1 + 0.3 * n) / 610, dt);
		grow(&c[3], tx * (1 + 0.1 * n) / (l->ckpt && !i ? 1448 : 520), dt);
		if (!i && n > 0.995)
			c[6]++; /* now and then a drop, as a real eth0 shows */
		demo_clear(v);
		for (unsigned int f = 0; f < NIC_LINK_NFIELDS; f++)
			demo_set(d, DS_NIC_LINK, v, f, c[f]);
		demo_emit(d, DS_NIC_LINK, link_ent(i), tick, v);
	}
}

/* The all-reduce: every port busy both ways; ports 1 and 2 share a
 * congested switch, so they are sent CNPs and wait to send. */
static void nic_rdma_tick(struct demo *d, uint64_t tick, const struct demo_load *l, double dt)
{
	double v[STREAM_MAX_FIELDS];

	for (int i = 0; i < NIC_NRDMA; i++) {
		double *c = d->nic[NIC_NLINK + i], n = demo_noise(DS_NIC_RDMA, (uint64_t)i, tick);
		bool hot = i == 1 || i == 2;
		double bps = (l->comm * RDMA_BPS * (hot ? 0.93 : 0.97) + 40e6) * (1 + 0.04 * n);
		double burst = l->comm > 0.75 ? 1.0 : 0.0;

		grow(&c[0], bps, dt);
		grow(&c[1], bps * (1 - 0.01 * n), dt);
		grow(&c[2], bps / RDMA_PKT, dt);
		grow(&c[3], bps * (1 - 0.01 * n) / RDMA_PKT, dt);
		grow(&c[4], l->comm * l->comm * (hot ? 9e6 : 0.8e6) * (1 + 0.2 * n), dt);
		grow(&c[5], burst * (hot ? 2600 : 90) * (1 + 0.3 * n), dt);
		grow(&c[6], burst * (hot ? 60 : 1300) * (1 + 0.3 * n), dt);
		grow(&c[7], burst * (hot ? 480 : 10400) * (1 + 0.3 * n), dt);
		demo_clear(v);
		for (unsigned int f = 0; f < NIC_RDMA_NFIELDS; f++)
			demo_set(d, DS_NIC_RDMA, v, f, c[f]);
		demo_emit(d, DS_NIC_RDMA, rdma_ent(i), tick, v);
	}
}

static void nic_tick(struct demo *d, uint64_t tick)
{
	struct demo_load l;

	if (tick == 0) {
		/* counters of a machine up for some days */
		for (int i = 0; i < NIC_NLINK + NIC_NRDMA; i++)
			for (int f = 0; f < 4; f++)
				d->nic[i][f] = floor((f < 2 ? 7.3e13 : 2.1e10) * (1 + 0.1 * i));
		nic_labels(d);
	}
	demo_load_at(demo_secs(tick), 0, &l);
	if (demo_has(d, DS_NIC_LINK))
		nic_link_tick(d, tick, &l, DEMO_TICK_NS / 1e9);
	if (demo_has(d, DS_NIC_RDMA))
		nic_rdma_tick(d, tick, &l, DEMO_TICK_NS / 1e9);
}

/* Shares of a core's time in this tick (user, system, iowait, irq,
 * softirq; idle is the rest) and its IPC: the first eight cores run the
 * ranks, the next 32 their data-loading workers, eight take the NICs'
 * interrupts, and the rest are nearly idle. */
static double core_shares(int cpu, const struct demo_load *l, double n, double *s)
{
	s[0] = s[1] = s[2] = s[3] = s[4] = 0;
	if (cpu < DEMO_NRANK) {
		s[0] = 0.97 * l->compute + 0.75 * l->comm + 0.3 * l->ckpt + 0.5 * l->input;
		s[1] = 0.02 + 0.08 * l->comm + 0.25 * l->ckpt;
		s[2] = 0.1 * l->ckpt;
		return l->comm > 0.5 ? 0.7 : 1.9;
	}
	if (cpu < 40) {
		s[0] = 0.42 + 0.35 * l->input + 0.1 * n;
		s[1] = 0.06;
		s[2] = 0.02 * l->ckpt;
		return 1.2;
	}
	if (cpu < 48) {
		s[3] = 0.01 + 0.02 * l->comm;
		s[4] = 0.04 + 0.12 * l->comm + 0.2 * l->ckpt;
		s[0] = 0.03;
		return 0.9;
	}
	s[0] = 0.025 + 0.015 * n;
	s[1] = 0.01;
	return 0.8;
}

static void cpu_accumulate(struct demo *d, uint64_t tick, double dt)
{
	/* in /proc/stat order: user nice system idle iowait irq softirq */
	static const int col[5] = {0, 2, 4, 5, 6};

	for (int cpu = 0; cpu < DEMO_NCPU; cpu++) {
		struct demo_load l;
		double s[5], busy = 0, n = demo_noise(DS_CPU_CORE, (uint64_t)cpu, tick / 4);
		double ipc;

		demo_load_at(demo_secs(tick), cpu % DEMO_NRANK, &l);
		ipc = core_shares(cpu, &l, n, s);
		for (int k = 0; k < 5; k++) {
			d->cpu[cpu][col[k]] += s[k] * USER_HZ * dt;
			d->cpu[DEMO_NCPU][col[k]] += s[k] * USER_HZ * dt;
			busy += s[k];
		}
		d->cpu[cpu][3] += (1 - busy) * USER_HZ * dt;
		d->cpu[DEMO_NCPU][3] += (1 - busy) * USER_HZ * dt;
		d->perf[cpu][0] += (busy * 2.9e9 + 0.02e9) * dt;
		d->perf[cpu][1] += busy * 2.9e9 * ipc * dt;
	}
}

static void cpu_emit(struct demo *d, uint64_t tick)
{
	double v[STREAM_MAX_FIELDS];

	for (int cpu = 0; cpu <= DEMO_NCPU; cpu++) {
		uint64_t ent = cpu < DEMO_NCPU ? (uint64_t)cpu : ENTITY_CPU_TOTAL;

		demo_clear(v);
		/* the jiffies, in /proc/stat's order: all but online */
		for (unsigned int f = CPU_CORE_USER; f < CPU_CORE_ONLINE; f++)
			demo_set(d, DS_CPU_CORE, v, f, floor(d->cpu[cpu][f]));
		demo_set(d, DS_CPU_CORE, v, CPU_CORE_ONLINE, 1);
		demo_emit(d, DS_CPU_CORE, ent, tick, v);
		if (cpu == DEMO_NCPU || !demo_has(d, DS_CPU_PERF))
			continue;
		demo_clear(v);
		demo_set(d, DS_CPU_PERF, v, CPU_PERF_CYCLES, floor(d->perf[cpu][0]));
		demo_set(d, DS_CPU_PERF, v, CPU_PERF_INSTRUCTIONS, floor(d->perf[cpu][1]));
		demo_emit(d, DS_CPU_PERF, ent, tick, v);
	}
}

static void cpu_tick(struct demo *d, uint64_t tick)
{
	char name[24];

	if (tick == 0) {
		for (int cpu = 0; cpu < DEMO_NCPU; cpu++) {
			snprintf(name, sizeof(name), "cpu%d", cpu);
			demo_label(d, DS_CPU_CORE, (uint64_t)cpu, 0, name);
			d->cpu[cpu][3] = DEMO_UPTIME_S * USER_HZ; /* mostly idle */
			d->cpu[DEMO_NCPU][3] += d->cpu[cpu][3];
		}
		demo_label(d, DS_CPU_CORE, ENTITY_CPU_TOTAL, 0, "cpu");
	}
	cpu_accumulate(d, tick, DEMO_TICK_NS / 1e9);
	if (demo_every(tick, 1))
		cpu_emit(d, tick);
}

void demo_host_tick(struct demo *d, uint64_t tick)
{
	nic_tick(d, tick);
	if (demo_has(d, DS_CPU_CORE))
		cpu_tick(d, tick);
}
