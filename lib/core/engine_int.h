/* SPDX-License-Identifier: GPL-2.0-only */
/* The engine's insides, shared by engine.c (threads and ticks) and
 * engine_share.c (which groups share a thread, and each group's rate and
 * CPU figures). */
#ifndef ASYS_ENGINE_INT_H
#define ASYS_ENGINE_INT_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "util.h"

#define ENGINE_MAX_COLLECTORS 32
/* Below this period a wake-up costs more than the period: spin only. */
#define ENGINE_PURE_SPIN_NS 200000ull
/* A thread less than this late runs the missed ticks at once (a short
 * preemption must not cost samples); later than this it skips them. */
#define ENGINE_CATCHUP_NS 250000000ull
/* How early a spinning thread wakes before its deadline. */
#define ENGINE_SPIN_MARGIN_NS 120000ull
/* Groups at or below this rate share the thread of the fastest of them
 * when their periods are whole multiples of its period (10 Hz and 1 Hz at
 * the defaults): one timer wake a tick for all, and that thread pumps the
 * bus too. Above it a group keeps a thread of its own, so a slow tick never
 * delays a fast one. */
#define ENGINE_SHARE_HZ 100.0
#define ENGINE_SHARE_MAX_EVERY 10000

struct engine_coll {
	const struct collector *c;
	void *state;
	int rc; /* init result */
	double hz;
	int group;
};

struct engine_group {
	struct engine *e;
	double hz;
	uint64_t period_ns;
	int members[ENGINE_MAX_COLLECTORS];
	int nmembers;
	struct ring *ring;
	int trimmed; /* the heap was trimmed after this group's first tick */
	bool alone;  /* a workload-fed collector's: shares no ring or thread */
	struct emitter em;
	pthread_t thread;
	int started;
	int tfd; /* the thread's timerfd; engine_stop fires it to wake a sleeper */
	pthread_mutex_t stats_lock;
	struct engine_group_stats stats;
	/* Sharing (engine_plan_sharing): a guest has no thread; its host's
	 * thread ticks it on every `every`-th of its own ticks, mid-period. */
	int host; /* -1: runs on its own thread */
	int guests[ENGINE_MAX_GROUPS];
	int nguests;
	uint64_t every;
	bool pumps; /* this thread pumps the bus after its ticks */
	struct group_window {
		uint64_t start, ticks, cpu;
		bool ticked; /* the first tick has started the window */
	} w;
	uint64_t own_cpu; /* a shared thread's CPU spent on this group's ticks */
};

struct engine {
	const struct asys_options *o;
	struct stream_table *t;
	struct bus *bus;
	struct engine_coll colls[ENGINE_MAX_COLLECTORS];
	int ncolls;
	struct engine_group groups[ENGINE_MAX_GROUPS];
	int ngroups;
	struct ring *control; /* statuses from init, before any thread runs */
	struct emitter control_em;
	atomic_int stopping;
	int inited;
	bool helped; /* a thread of ours pumps the bus (bus_set_helped) */
};

static inline uint64_t engine_thread_cpu_ns(void)
{
	return util_now_ns(CLOCK_THREAD_CPUTIME_ID);
}

uint64_t engine_group_cpu(const struct engine_group *g);
void engine_group_account(struct engine_group *g, uint64_t t);
void engine_group_windows_start(struct engine_group *g, uint64_t now);
void engine_plan_sharing(struct engine *e);
#endif
