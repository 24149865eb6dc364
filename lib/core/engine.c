/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "util.h"

#include "engine_int.h"

static void engine_thread_setup(void)
{
	/* 1 ns slack: the default 50 us would smear a 10 kHz schedule */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	util_block_signals();
}

struct engine *engine_new(const struct asys_options *o, struct stream_table *t, struct bus *b,
			  const struct collector *const *collectors)
{
	struct engine *e = calloc(1, sizeof(*e));
	const struct collector *const *list = collectors;

	if (!e || !list) {
		free(e);
		return NULL;
	}
	e->o = o;
	e->t = t;
	e->bus = b;
	e->control = ring_new(256 * 1024);
	if (!e->control) {
		engine_free(e);
		return NULL;
	}
	e->control_em.ring = e->control;
	for (int i = 0; list[i] && e->ncolls < ENGINE_MAX_COLLECTORS; i++)
		e->colls[e->ncolls++] =
		    (struct engine_coll){.c = list[i], .rc = -EAGAIN, .group = -1};
	return e;
}

static int group_for(struct engine *e, double hz, bool alone)
{
	struct engine_group *g;

	/* workload-fed collectors ride only with each other: the job may lose
	 * its own records, never the host's */
	for (int i = 0; i < e->ngroups; i++)
		if (e->groups[i].alone == alone && fabs(e->groups[i].hz - hz) < 1e-9 * hz)
			return i;
	if (e->ngroups >= ENGINE_MAX_GROUPS)
		return -ENOSPC;
	g = &e->groups[e->ngroups];
	memset(g, 0, sizeof(*g));
	g->e = e;
	g->hz = hz;
	g->alone = alone;
	g->period_ns = (uint64_t)llround(1e9 / hz);
	/* A quarter second at up to 1 KiB a tick, at least 1 MiB (a slow tick
	 * may list thousands of processes) and at most 8 MiB: every byte of it
	 * becomes resident after the first pass, so a ring sized for the worst
	 * tick at 100 kHz would cost over 100 MiB. The bus drains a ring once a
	 * period (a quarter refresh, 50-250 ms, see session.c), and earlier
	 * when it passes half full. */
	g->ring = ring_new((size_t)fmin(8 << 20, fmax(1 << 20, hz * 0.25 * 1024)));
	if (!g->ring)
		return -ENOMEM;
	/* a fast producer writes all of it within seconds anyway */
	if (hz >= 100)
		ring_prefault(g->ring);
	g->em.ring = g->ring;
	emit_keep_texts(&g->em);
	pthread_mutex_init(&g->stats_lock, NULL);
	g->tfd = -1;
	g->stats.hz_requested = hz;
	return e->ngroups++;
}

static void report_init_failure(struct engine *e, struct engine_coll *ec)
{
	const char *why = NULL;
	char buf[REC_TEXT_MAX];

	if (ec->state && ec->c->last_error)
		why = ec->c->last_error(ec->state);
	if (!why || !*why) {
		snprintf(buf, sizeof(buf), "%s: %s", ec->c->name, strerror(-ec->rc));
		why = buf;
	}
	for (int i = 0; ec->c->streams && ec->c->streams[i]; i++) {
		int id = stream_table_find(e->t, ec->c->streams[i]->name);

		if (id >= 0)
			emit_status(&e->control_em, (uint32_t)id, STATUS_STREAM, asys_now_ns(),
				    why);
	}
}

/* The rate a collector really runs at is its streams' nominal rate: the
 * streams it registered at init (ids from first on, as init runs alone) and
 * its static ones. Recorded with the schema, it gives a replay the window
 * its peaks are taken over. */
static void set_stream_rates(struct engine *e, const struct engine_coll *ec, uint32_t first)
{
	for (uint32_t id = first; id < stream_table_count(e->t); id++)
		stream_table_set_rate(e->t, id, ec->hz);
	for (int k = 0; ec->c->streams && ec->c->streams[k]; k++) {
		int id = stream_table_find(e->t, ec->c->streams[k]->name);

		if (id >= 0)
			stream_table_set_rate(e->t, (uint32_t)id, ec->hz);
	}
}

int engine_init(struct engine *e)
{
	int rc;

	if (e->inited)
		return -EALREADY;
	e->inited = 1;
	rc = bus_add_ring(e->bus, e->control);
	if (rc)
		return rc;
	for (int i = 0; i < e->ncolls; i++) {
		struct engine_coll *ec = &e->colls[i];
		struct coll_ctx ctx = {.opts = e->o, .streams = e->t};
		uint32_t first = stream_table_count(e->t);

		ec->hz = ec->c->frequency ? ec->c->frequency(e->o) : 0;
		if (!(ec->hz > 0))
			continue;
		ec->rc = ec->c->init(&ctx, &ec->state);
		if (ec->rc < 0) {
			/* its streams exist all the same, to carry the reason;
			 * after init, so that one whose schema depends on the
			 * options (ppu.metrics) keeps the real one. A collector
			 * that starts registers only what it produces: mem
			 * has no mem.proc with -s none. */
			for (int k = 0; ec->c->streams && ec->c->streams[k]; k++)
				stream_table_add(e->t, ec->c->streams[k]);
			report_init_failure(e, ec);
			continue;
		}
		if (ec->c->rate) {
			double hz = ec->c->rate(ec->state, ec->hz);

			if (hz > 0 && hz < ec->hz)
				ec->hz = hz;
		}
		set_stream_rates(e, ec, first);
		rc = group_for(e, ec->hz, ec->c->workload_fed);
		if (rc < 0) {
			ec->rc = rc;
			report_init_failure(e, ec);
			continue;
		}
		ec->group = rc;
		e->groups[rc].members[e->groups[rc].nmembers++] = i;
	}
	for (int g = 0; g < e->ngroups; g++) {
		struct engine_group *gr = &e->groups[g];
		size_t off = 0;

		for (int m = 0; m < gr->nmembers; m++)
			off += (size_t)snprintf(
			    gr->stats.names + off,
			    off < sizeof(gr->stats.names) ? sizeof(gr->stats.names) - off : 0,
			    "%s%s", m ? "," : "", e->colls[gr->members[m]].c->name);
		rc =
		    gr->alone ? bus_add_ring_fed(e->bus, gr->ring) : bus_add_ring(e->bus, gr->ring);
		if (rc)
			return rc;
	}
	return 0;
}

/* Spinning rates: sleep until shortly before the deadline (CLOCK_MONOTONIC
 * ns), then spin to it, or stop when asked. Returns 1 to go on, with *now the
 * clock read that reached the deadline, or 0 to stop. A stop that fires the
 * timer just before this re-arms it is seen at the wake, at most a period
 * (0.5 ms here) later. */
static int wait_until(struct engine_group *g, uint64_t deadline, uint64_t *now)
{
	/* below ENGINE_PURE_SPIN_NS a wake-up costs more than the period */
	uint64_t wake = g->period_ns <= ENGINE_PURE_SPIN_NS ? 0 : deadline - ENGINE_SPIN_MARGIN_NS;
	uint64_t t = asys_now_ns();

	if (wake && wake > t) {
		struct itimerspec its = {{0, 0}, util_timespec(wake)};
		uint64_t exp;

		timerfd_settime(g->tfd, TFD_TIMER_ABSTIME, &its, NULL);
		if (read(g->tfd, &exp, sizeof(exp)) < 0)
			return 0;
		t = asys_now_ns();
	}
	/* A collector slower than the period leaves no time to spin, so look at
	 * the flag here too (nic: 100 kHz asked, ~40 kHz delivered). */
	for (;;) {
		if (atomic_load_explicit(&g->e->stopping, memory_order_relaxed))
			return 0;
		if (t >= deadline)
			break;
		t = asys_now_ns();
	}
	*now = t;
	return 1;
}

/* The group's collectors, once: the first may stamp its reads with t, the
 * clock read after the wake (emit_tick_start), so a tick reads the clock
 * once. */
static void group_sample(struct engine_group *g, uint64_t deadline, uint64_t t)
{
	struct engine *e = g->e;

	/* a slow ring is drained between ticks: start it over, so its
	 * resident pages stay those of one tick's records (a fast one is
	 * prefaulted whole anyway) */
	if (g->hz < 100)
		ring_rewind(g->ring);
	if (g->em.nkept)
		emit_flush_kept(&g->em);
	g->em.tick_ns = t;
	for (int m = 0; m < g->nmembers; m++) {
		struct engine_coll *ec = &e->colls[g->members[m]];

		ec->c->sample(ec->state, &g->em, deadline);
		g->em.tick_ns = 0;
	}
	/* A first tick loads what a collector needs once (a BPF object and
	 * the kernel's BTF: megabytes, freed at once); glibc keeps freed
	 * memory in the thread's arena, resident for the whole run, unless
	 * told to return it. Once, and not at kHz rates, where it would delay
	 * the next ticks. */
	if (!g->trimmed && g->hz < 100) {
		g->trimmed = 1;
		/* Under ASan the allocator is the sanitizer's: glibc's arenas
		 * hold nothing to return, and trimming them from this thread
		 * while another starts up was seen to fault inside mtrim. */
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
		malloc_trim(0);
#endif
	}
}

/* One tick of a group with a thread, begun at t, then the guests whose
 * turn it is (mid-way through their own period: the deadline's index on
 * the host's grid is every/2 modulo every), then the bus when a period has
 * passed since its last pump. */
static void group_tick(struct engine_group *g, uint64_t deadline, uint64_t t)
{
	struct engine *e = g->e;
	uint64_t k = deadline / g->period_ns;

	group_sample(g, deadline, t);
	engine_group_account(g, t);
	for (int i = 0; i < g->nguests; i++) {
		struct engine_group *gu = &e->groups[g->guests[i]];
		uint64_t c0, now;

		if (k % gu->every != gu->every / 2)
			continue;
		c0 = engine_thread_cpu_ns();
		now = asys_now_ns();
		group_sample(gu, deadline, now);
		gu->own_cpu += engine_thread_cpu_ns() - c0;
		engine_group_account(gu, now);
	}
	if (g->pumps)
		bus_pump_due(e->bus, asys_now_ns());
}

static void group_add_late(struct engine_group *g, uint64_t missed)
{
	pthread_mutex_lock(&g->stats_lock);
	g->stats.late += missed;
	pthread_mutex_unlock(&g->stats_lock);
}

/* Sleeping rates: one periodic timer armed once on the grid, so a tick costs
 * a single blocking read(), which also says how many deadlines went by. The
 * reference loop of bench/overhead re-arms and reads: two calls a tick. */
static void group_loop_periodic(struct engine_group *g, uint64_t next)
{
	struct itimerspec its = {util_timespec(g->period_ns), util_timespec(next)};

	if (timerfd_settime(g->tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return;
	/* a stop that came before this arming fired a timer we just replaced */
	if (atomic_load_explicit(&g->e->stopping, memory_order_acquire))
		return;
	for (;;) {
		uint64_t exp = 0;

		if (read(g->tfd, &exp, sizeof(exp)) != sizeof(exp) ||
		    atomic_load_explicit(&g->e->stopping, memory_order_acquire))
			break;
		if (exp > 1) {
			uint64_t missed = exp - 1;

			if (missed * g->period_ns > ENGINE_CATCHUP_NS) {
				/* far behind (suspended, starved): skip, keep the grid */
				next += missed * g->period_ns;
				group_add_late(g, missed);
			} else {
				/* a short preemption must not cost samples */
				for (; missed; missed--, next += g->period_ns)
					group_tick(g, next, asys_now_ns());
			}
		}
		group_tick(g, next, asys_now_ns());
		next += g->period_ns;
	}
}

/* Spinning rates: sleep to just before each deadline, spin the rest. The
 * clock read that ends the wait also starts the tick and tells if the
 * thread fell far behind. */
static void group_loop_spin(struct engine_group *g, uint64_t next)
{
	for (;;) {
		uint64_t t;

		if (!wait_until(g, next, &t))
			break;
		if (t > next + ENGINE_CATCHUP_NS) {
			/* far behind: skip to the last deadline passed, keep the grid */
			uint64_t missed = (t - next) / g->period_ns;

			next += missed * g->period_ns;
			group_add_late(g, missed);
		}
		group_tick(g, next, t);
		next += g->period_ns;
	}
}

static void *group_thread(void *arg)
{
	struct engine_group *g = arg;
	uint64_t now = asys_now_ns(), next;

	engine_thread_setup();
	{
		char name[16];

		snprintf(name, sizeof(name), "asys-%.0fHz", g->hz);
		pthread_setname_np(pthread_self(), name);
	}
	engine_group_windows_start(g, now);
	/* Deadlines sit mid-period on a grid of the period, so samples of
	 * slow collectors fall well inside the store's buckets, not on their
	 * edges. The first is the next point of the grid, not one period
	 * later: a run of n periods then holds n ticks (asys snapshot's rates). */
	next = now / g->period_ns * g->period_ns + g->period_ns / 2;
	if (next <= now)
		next += g->period_ns;
	if (g->hz > ENGINE_SPIN_HZ)
		group_loop_spin(g, next);
	else
		group_loop_periodic(g, next);
	for (int i = 0; i < g->nguests; i++) {
		struct engine_group *gu = &g->e->groups[g->guests[i]];

		pthread_mutex_lock(&gu->stats_lock);
		gu->stats.ticks += gu->w.ticks;
		pthread_mutex_unlock(&gu->stats_lock);
	}
	pthread_mutex_lock(&g->stats_lock);
	g->stats.ticks += g->w.ticks;
	pthread_mutex_unlock(&g->stats_lock);
	return NULL;
}

int engine_start(struct engine *e)
{
	bool helped = false;
	int threads = 0;

	atomic_store(&e->stopping, 0);
	e->helped = false;
	engine_plan_sharing(e);
	for (int i = 0; i < e->ngroups; i++) {
		struct engine_group *g = &e->groups[i];
		int rc;

		if (g->host >= 0)
			continue;
		g->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		if (g->tfd < 0) {
			rc = -errno;
			engine_stop(e);
			return rc;
		}
		rc = pthread_create(&g->thread, NULL, group_thread, g);
		if (rc) {
			close(g->tfd);
			g->tfd = -1;
			engine_stop(e);
			return -rc;
		}
		g->started = 1;
		helped |= g->pumps;
		threads++;
	}
	if (helped) {
		bus_set_helped(e->bus, true, threads == 1);
		e->helped = true;
	}
	return 0;
}

/* Whether the group's collectors ran: on its thread or on its host's. */
static bool group_ran(const struct engine *e, const struct engine_group *g)
{
	return g->host >= 0 ? e->groups[g->host].started : g->started;
}

void engine_stop(struct engine *e)
{
	/* an expiry in the past fires at once: it wakes a blocked read() */
	const struct itimerspec now = {{0, 0}, {0, 1}};

	if (!e)
		return;
	atomic_store_explicit(&e->stopping, 1, memory_order_release);
	/* the bus thread keeps its own period from here; only while the
	 * engine helps it, as engine_free may come after the bus is freed */
	if (e->helped) {
		bus_set_helped(e->bus, false, false);
		e->helped = false;
	}
	for (int i = 0; i < e->ngroups; i++) {
		struct engine_group *g = &e->groups[i];

		if (g->started) {
			timerfd_settime(g->tfd, TFD_TIMER_ABSTIME, &now, NULL);
			pthread_join(g->thread, NULL);
		}
	}
	for (int i = 0; i < e->ngroups; i++) {
		struct engine_group *g = &e->groups[i];

		/* the ring's producer has stopped: this thread may write it */
		for (int m = 0; group_ran(e, g) && m < g->nmembers; m++) {
			struct engine_coll *ec = &e->colls[g->members[m]];

			if (ec->c->flush)
				ec->c->flush(ec->state, &g->em);
		}
		/* texts a full ring held: one more drain makes their room */
		if (g->em.nkept && e->bus) {
			bus_pump(e->bus);
			emit_flush_kept(&g->em);
		}
	}
	for (int i = 0; i < e->ngroups; i++) {
		struct engine_group *g = &e->groups[i];

		g->started = 0;
		if (g->tfd >= 0)
			close(g->tfd);
		g->tfd = -1;
	}
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	engine_stop(e);
	for (int i = 0; i < e->ncolls; i++) {
		struct engine_coll *ec = &e->colls[i];

		if (ec->state && ec->c->fini)
			ec->c->fini(ec->state);
	}
	for (int i = 0; i < e->ngroups; i++) {
		emit_release(&e->groups[i].em);
		ring_free(e->groups[i].ring);
		pthread_mutex_destroy(&e->groups[i].stats_lock);
	}
	ring_free(e->control);
	free(e);
}
