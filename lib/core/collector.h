/* SPDX-License-Identifier: GPL-2.0-only */
/* The collector interface. One collector = one file exporting one const
 * struct collector; collectors/registry.c lists them in display order. */
#ifndef ASYS_COLLECTOR_H
#define ASYS_COLLECTOR_H

#include <stdint.h>
#include <stddef.h>
#include "job_env.h"
#include "options.h"
#include "stream.h"

struct emitter; /* where a sampling thread's records go (a ring) */
struct stream_table;

/* Given to init: the options, and where to register streams (NULL for
 * prepare_job). */
struct coll_ctx {
	const struct asys_options *opts;
	struct stream_table *streams;
};

struct collector {
	const char *name; /* "cpu", "mem", "nic", "ppu", "gpurt" */
	/* The streams it may produce (for docs, --help and export --streams);
	 * a collector with run-time fields registers its real schema at init. */
	const struct stream_desc *const *streams;
	/* Its command-line options, or NULL. Collectors that share options
	 * (ppu and ppu_metrics) point at the same table; the command line lists
	 * and parses each table once. */
	const struct opt_table *options;
	/* Sampling frequency in Hz for these options; 0 = do not run. */
	double (*frequency)(const struct asys_options *o);
	/* 0, or -errno with *state possibly set so last_error can explain.
	 * Registers its streams with stream_table_add. */
	int (*init)(const struct coll_ctx *ctx, void **state);
	/* One tick: read sources, emit records. now_ns is the tick's deadline on
	 * CLOCK_MONOTONIC; stamp samples with the time of the read itself. */
	int (*sample)(void *state, struct emitter *out, uint64_t now_ns);
	/* Optional: once, after its sampling thread has stopped, to emit what
	 * the last tick could not yet see (counts a process left at its exit). */
	void (*flush)(void *state, struct emitter *out);
	void (*fini)(void *state);
	/* A sentence a user can act on, or NULL when all is well. */
	const char *(*last_error)(const void *state);
	/* Optional, after a successful init: the rate the source can really be
	 * sampled at, when it is below the one asked (a library whose counters
	 * refresh slower); the collector then says so in a status. */
	double (*rate)(void *state, double asked);
	/* Its source is written by the workload (the shared region), which may
	 * be hostile: it gets a thread and a ring shared with no collector of
	 * the host's, so a flood can only lose the workload's own records. */
	bool workload_fed;
	/* Optional: before a job asys starts (the command after --) is forked,
	 * what the collector needs in it: variables that make its runtime
	 * load a tool, descriptors to keep across exec. Run for every job,
	 * before init; what it cannot do it says in env's warnings, what a
	 * user should know in its notes. 0 or -errno. */
	int (*prepare_job)(const struct coll_ctx *ctx, struct job_env *env);
};

/* Emit API, for collectors (and the player). All return 0 or -ENOBUFS when
 * the ring is full (the record is dropped and counted). */
int emit_sample(struct emitter *e, uint32_t stream, uint64_t entity, uint64_t ts_ns,
		const double *v, uint32_t nvals);
/* The same, for a collector that computes its values in place: the room
 * for nvals values, or NULL (full ring, counted); the sample goes out at
 * emit_sample_end with the same nvals. Nothing else may be emitted between. */
double *emit_sample_begin(struct emitter *e, uint32_t stream, uint64_t entity, uint64_t ts_ns,
			  uint32_t nvals);
void emit_sample_end(struct emitter *e, uint32_t nvals);
int emit_label(struct emitter *e, uint32_t stream, uint64_t entity, uint64_t ts_ns,
	       const char *text);
/* A hint before a tick's reads: nsamples samples of nvals values each will
 * follow, so their room in the ring can be fetched while the reads run. */
void emit_prefetch(struct emitter *e, uint32_t nsamples, uint32_t nvals);
int emit_gone(struct emitter *e, uint32_t stream, uint64_t entity, uint64_t ts_ns);
/* Status of a stream (entity STATUS_STREAM) or of one entity: why it has no
 * data, in words a user can act on; "" clears it. */
int emit_status(struct emitter *e, uint32_t stream, uint64_t entity, uint64_t ts_ns,
		const char *text);

uint64_t asys_now_ns(void); /* CLOCK_MONOTONIC */
/* The time to stamp a tick's reads with: for the first collector of a tick
 * run by the engine, when the sampling thread woke (the engine reads the
 * clock then anyway, so this saves a read a tick: ~30-80 ns, a visible share
 * of a 1 kHz tick); for any other, the clock now. */
uint64_t emit_tick_start(const struct emitter *e);

#endif
