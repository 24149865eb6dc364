/* SPDX-License-Identifier: GPL-2.0-only */
/* The generator of the demo recording (demo.asys, for `asys demo`): synthetic
 * samples of every stream the panes draw, in the collectors' own schemas,
 * written by the recorder itself. The same build always writes the same
 * samples: there is no randomness but a hash of the sample's place. */
#ifndef ASYS_DEMO_H
#define ASYS_DEMO_H

#include <stdbool.h>
#include <stdint.h>

#include "bus.h"
#include "catalogue.h"
#include "stream.h"

#define DEMO_SECONDS 120	 /* the recording's length */
#define DEMO_TICK_NS 50000000ull /* the fastest stream: NIC counters at 20 Hz */
#define DEMO_NDEV 8
#define DEMO_NCPU 64
#define DEMO_NRANK DEMO_NDEV /* one training process per device */
#define DEMO_NKERNELS 8	     /* kernels each rank launches */
#define DEMO_NPROCS 30	     /* in mem.proc: the job and the machine's daemons */
#define DEMO_NNICS 9	     /* netdevs and RDMA ports */
#define GIB 1073741824.0
#define DEMO_NCOPY 16	     /* gpurt.copy counters the demo moves */
#define DEMO_UPTIME_S 1.04e6 /* the node was up twelve days at the first record */

enum demo_stream {
	DS_PPU_DEV,
	DS_PPU_PROC,
	DS_PPU_MET,
	DS_NIC_LINK,
	DS_NIC_RDMA,
	DS_CPU_CORE,
	DS_CPU_PERF,
	DS_MEM_SYS,
	DS_MEM_PROC,
	DS_GPURT_MEM,
	DS_GPURT_KERN,
	DS_GPURT_COPY,
	DS_PPU_UTIL,
	DS_PROC_CPU,
	DS_COUNT
};

/* What the training job does at a moment, on one device: shares 0..1. */
struct demo_load {
	double compute; /* forward and backward */
	double comm;	/* the gradient all-reduce over RDMA and ICN */
	double ckpt;	/* writing a checkpoint to storage over eth0 */
	double input;	/* the next batch coming in over PCIe */
};

struct demo {
	struct emitter em;
	struct stream_table *streams;
	uint32_t sid[DS_COUNT];
	uint64_t t0; /* the first record's time, CLOCK_MONOTONIC ns */
	/* counters and slow gauges, advanced tick by tick */
	double temp[DEMO_NDEV];
	double nic[DEMO_NNICS][10];
	double cpu[DEMO_NCPU + 1][10];
	double perf[DEMO_NCPU][2];
	double rss_hwm[DEMO_NPROCS];
	double proc_cpu[DEMO_NPROCS][2]; /* proc.cpu's utime and stime, s */
	double allocs[DEMO_NRANK], kern[DEMO_NRANK][DEMO_NKERNELS];
	double copy[DEMO_NRANK][DEMO_NCOPY]; /* gpurt.copy, demo_procs.c */
};

/* demo_load.c: the job's phases, and the noise that keeps numbers alive */
void demo_load_at(double t, int dev, struct demo_load *l);
/* -1..1, the same for the same arguments */
double demo_noise(uint32_t what, uint64_t who, uint64_t when);
/* t in seconds since the start, for a tick */
double demo_secs(uint64_t tick);

/* demo_gen.c: records, by the catalogue's field constant (field), through
 * catalogue_field_index, so that a field moved in a schema still gets its
 * value, and a field the schema lacks is NaN */
bool demo_has(const struct demo *d, enum demo_stream ds);
void demo_clear(double *v);
void demo_set(const struct demo *d, enum demo_stream ds, double *v, unsigned int field, double x);
void demo_emit(struct demo *d, enum demo_stream ds, uint64_t ent, uint64_t tick, const double *v);
void demo_label(struct demo *d, enum demo_stream ds, uint64_t ent, uint64_t tick, const char *text);
uint64_t demo_ts(const struct demo *d, uint64_t tick);
/* ticks of a stream sampled at hz */
bool demo_every(uint64_t tick, double hz);

/* demo_schema.c: registers every stream as its collector does */
int demo_schema(struct demo *d, char *err, size_t n);
/* the catalogue's stream of a demo stream */
enum stream_id demo_stream_id(enum demo_stream ds);

/* demo_ppu.c: ppu.dev, ppu.proc and ppu.metrics at a tick */
void demo_ppu_tick(struct demo *d, uint64_t tick);
/* demo_host.c: the NICs and the CPU cores at a tick */
void demo_host_tick(struct demo *d, uint64_t tick);
/* demo_procs.c: mem.sys, mem.proc, gpurt.mem and gpurt.kernels at a tick */
void demo_procs_tick(struct demo *d, uint64_t tick);

/* The training processes, shared by mem.proc, ppu.proc and gpurt. */
unsigned int demo_rank_pid(int rank);
double demo_rank_device_bytes(int rank, double t);
void demo_rank_cmdline(int rank, char *buf, size_t n);

#endif
