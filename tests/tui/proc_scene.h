/* SPDX-License-Identifier: GPL-2.0-only */
/* A fixed set of processes for the process table's tests, as the schema
 * agreed for the process view (mem.sys, mem.proc, proc.cpu, proc.thread,
 * ppu.proc_util) has them: fed into a store by test_proc.c, written into a
 * recording by proc_rec.c for the tmux tests. A stream a collector already
 * describes is taken from it, so a schema change breaks these tests; the
 * others are described here as agreed. Header only. */
#ifndef ASYS_TESTS_PROC_SCENE_H
#define ASYS_TESTS_PROC_SCENE_H

#include <stdint.h>
#include <string.h>

#include "collector.h"
#include "stream.h"

extern const struct collector mem_collector;
extern const struct collector ppu_collector;

enum { SC_MEMSYS, SC_MEMPROC, SC_CPU, SC_THREAD, SC_PPU, SC_N };

static const struct field_desc sc_cpu_fields[] = {
    FIELD_DESC("utime", "s", FIELD_COUNTER), FIELD_DESC("stime", "s", FIELD_COUNTER),
    FIELD_DESC("state", "", FIELD_ATTR),     FIELD_DESC("nice", "", FIELD_ATTR),
    FIELD_DESC("kthread", "", FIELD_ATTR),   FIELD_DESC("start", "s", FIELD_ATTR),
};
static const struct field_desc sc_thread_fields[] = {
    FIELD_DESC("utime", "s", FIELD_COUNTER),
    FIELD_DESC("stime", "s", FIELD_COUNTER),
    FIELD_DESC("state", "", FIELD_ATTR),
    FIELD_DESC("tgid", "", FIELD_ATTR),
};
static const struct field_desc sc_ppu_fields[] = {
    FIELD_DESC("sm", "%", FIELD_GAUGE),
    FIELD_DESC("mem", "%", FIELD_GAUGE),
    FIELD_DESC("enc", "%", FIELD_GAUGE),
    FIELD_DESC("dec", "%", FIELD_GAUGE),
};
static const struct stream_desc sc_local[] = {
    {.name = "proc.cpu",
     .version = 1,
     .entity = ENTITY_PID,
     .nfields = 6,
     .fields = sc_cpu_fields,
     .help = "per-process CPU time, state and nice"},
    {.name = "proc.thread",
     .version = 1,
     .entity = ENTITY_PID,
     .nfields = 4,
     .fields = sc_thread_fields,
     .help = "per-thread CPU time"},
    {.name = "ppu.proc_util",
     .version = 1,
     .entity = ENTITY_KEY,
     .nfields = 4,
     .fields = sc_ppu_fields,
     .help = "per-process PPU utilisation"},
};

/* The collector's description of stream name, else the agreed one here. */
static inline const struct stream_desc *sc_desc(const char *name)
{
	const struct collector *cs[2] = {&mem_collector, &ppu_collector};

	for (int c = 0; c < 2; c++)
		for (int i = 0; cs[c]->streams && cs[c]->streams[i]; i++)
			if (!strcmp(cs[c]->streams[i]->name, name))
				return cs[c]->streams[i];
	for (size_t i = 0; i < sizeof(sc_local) / sizeof(sc_local[0]); i++)
		if (!strcmp(sc_local[i].name, name))
			return &sc_local[i];
	return NULL;
}

/* Registers the streams; ids[SC_*] get their ids (-1: not wanted). */
static inline int sc_register(struct stream_table *t, int *ids, unsigned want)
{
	static const char *const names[SC_N] = {"mem.sys", "mem.proc", "proc.cpu", "proc.thread",
						"ppu.proc_util"};

	for (int i = 0; i < SC_N; i++) {
		const struct stream_desc *d = sc_desc(names[i]);

		ids[i] = -1;
		if (!(want & (1u << i)))
			continue;
		if (!d || (ids[i] = stream_table_add(t, d)) < 0)
			return -1;
	}
	return 0;
}

struct sc_proc {
	uint64_t pid, ppid;
	double rss_mib, threads;
	const char *cmd, *container;
	double urate, srate, u0, s0; /* CPU seconds per second, and at tick 0 */
	char state;
	double nice, kthread;
	double sm[2]; /* PPU% on devices 0 and 1; < 0: none */
};

/* CPU% 10, 0, 75, 25, 0, 3; PPU% -, -, 30+12.5, 20, -, -. */
static const struct sc_proc sc_procs[] = {
    {1, 0, 10, 1, "/sbin/init", NULL, 0.10, 0.00, 5, 2, 'S', 0, 0, {-1, -1}},
    {2, 0, 0, 1, "[kthreadd]", NULL, 0.00, 0.00, 0, 1, 'S', 0, 1, {-1, -1}},
    {100,
     1,
     1024,
     8,
     "python train.py",
     "pod 1a2b3c4d",
     0.50,
     0.25,
     60,
     1.23,
     'R',
     5,
     0,
     {30, 12.5}},
    {101,
     100,
     512,
     2,
     "python worker.py",
     "pod 1a2b3c4d",
     0.25,
     0,
     3600,
     123,
     'S',
     -2,
     0,
     {-1, 20}},
    {200, 1, 4, 1, "bash", "user@1000.service", 0, 0, 0.5, 0.2, 'S', 0, 0, {-1, -1}},
    {201, 200, 2, 1, "vim notes.txt", "user@1000.service", 0.02, 0.01, 1, 0, 'T', 0, 0, {-1, -1}},
};
#define SC_NPROCS (sizeof(sc_procs) / sizeof(sc_procs[0]))
#define SC_MIB 1048576.0
#define SC_TOTAL (4096 * SC_MIB) /* mem.sys total: MEM% of train.py is 25 */

/* Where a record goes: a store, or a recording. */
typedef void (*sc_put_fn)(void *ctx, int slot, uint64_t entity, uint64_t ts, const double *v, int n,
			  const char *label);

/* Tick k (k >= 1) at time ts: labels on the first, then the samples. */
static inline void sc_tick(sc_put_fn put, void *ctx, const int *ids, int k, uint64_t ts)
{
	double sys[11] = {SC_TOTAL, 1024 * SC_MIB, 2048 * SC_MIB, 0, 0, 2048 * SC_MIB, 0, 0, 0, 0,
			  0};

	put(ctx, SC_MEMSYS, 0, ts, sys, 11, NULL);
	for (size_t i = 0; i < SC_NPROCS; i++) {
		const struct sc_proc *p = &sc_procs[i];
		double mp[5] = {p->rss_mib * SC_MIB, p->rss_mib * SC_MIB, 0, (double)p->ppid,
				p->threads};
		double cpu[6] = {
		    p->u0 + p->urate * k, p->s0 + p->srate * k, p->state, p->nice, p->kthread, 10};

		if (k == 1) {
			put(ctx, SC_MEMPROC, p->pid, ts, NULL, 0, p->cmd);
			if (p->container && ids[SC_CPU] >= 0)
				put(ctx, SC_CPU, p->pid, ts, NULL, 0, p->container);
		}
		put(ctx, SC_MEMPROC, p->pid, ts, mp, 5, NULL);
		if (ids[SC_CPU] >= 0)
			put(ctx, SC_CPU, p->pid, ts, cpu, 6, NULL);
		for (uint64_t d = 0; d < 2 && ids[SC_PPU] >= 0; d++) {
			double u[4] = {p->sm[d], 0, 0, 0};

			if (p->sm[d] >= 0)
				put(ctx, SC_PPU, d << 32 | p->pid, ts, u, 4, NULL);
		}
	}
	if (ids[SC_THREAD] >= 0) {
		/* train.py's main thread (its pid) and a data loader at 10 % */
		double main_t[4] = {60 + 0.4 * k, 1.23 + 0.25 * k, 'R', 100};
		double loader[4] = {0.1 * k, 0, 'S', 100};

		if (k == 1)
			put(ctx, SC_THREAD, 102, ts, NULL, 0, "dataloader");
		put(ctx, SC_THREAD, 100, ts, main_t, 4, NULL);
		put(ctx, SC_THREAD, 102, ts, loader, 4, NULL);
	}
}

#endif
