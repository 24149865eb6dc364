/* SPDX-License-Identifier: GPL-2.0-only */
/* The engine runs the enabled collectors. Collectors of the same frequency
 * share one thread and one timer wake per tick (a wake costs ~20 us on a VM,
 * more than most reads). Deadlines are absolute on CLOCK_MONOTONIC, so a late
 * tick does not shift later ones; above ENGINE_SPIN_HZ a thread sleeps most
 * of the period and spins the rest. Groups at or below 100 Hz whose periods
 * are whole multiples of the fastest one's ride on its thread, which also
 * pumps the bus (bus_set_helped): at the defaults one thread wakes 10 times
 * a second for memory, CPU, NICs, PPUs and the bus. A collector fed by the
 * workload (collector.workload_fed) never shares a group, a ring or a
 * thread with the others: a hostile job can lose only its own records. */
#ifndef ASYS_ENGINE_H
#define ASYS_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include "collector.h"
#include "bus.h"

#define ENGINE_SPIN_HZ 2000.0
#define ENGINE_MAX_GROUPS 10

struct engine;

struct engine_group_stats {
	double hz_requested;
	double hz_achieved; /* ticks per second over the last measuring second */
	double cpu_pct;	    /* thread CPU time over wall time, percent of one core */
	uint64_t ticks;
	uint64_t late;	  /* ticks skipped after falling far behind */
	uint64_t dropped; /* records lost to a full ring */
	char names[64];	  /* "cpu,mem" */
	char lost[160];	  /* the streams that lost them: "cpu.core 12, nic.link 3" */
	bool alone;	  /* a workload-fed collector's group (collector.workload_fed) */
};

/* Runs the NULL-terminated collectors (collector_registry, or a test's list).
 * Free the bus (or stop it) before the engine: it drains the engine's rings. */
struct engine *engine_new(const struct asys_options *o, struct stream_table *t, struct bus *b,
			  const struct collector *const *collectors);
void engine_free(struct engine *e); /* stops, then fini for each collector */
/* Registers streams, calls init for each collector whose frequency is > 0.
 * A failing init is no error: it is reported on its streams as a status. */
int engine_init(struct engine *e);
int engine_start(struct engine *e);
void engine_stop(struct engine *e);
int engine_stats(struct engine *e, struct engine_group_stats *out, int n);

#endif
