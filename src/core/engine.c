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

#define ENGINE_MAX_COLLECTORS 32
/* Below this period a wake-up costs more than the period: spin only. */
#define ENGINE_PURE_SPIN_NS 200000ull
/* A thread less than this late runs the missed ticks at once (a short
 * preemption must not cost samples); later than this it skips them. */
#define ENGINE_CATCHUP_NS 250000000ull
/* How early a spinning thread wakes before its deadline. */
#define ENGINE_SPIN_MARGIN_NS 120000ull

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
	struct emitter em;
	pthread_t thread;
	int started;
	int tfd; /* the thread's timerfd; engine_stop fires it to wake a sleeper */
	pthread_mutex_t stats_lock;
	struct engine_group_stats stats;
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
};

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

static int group_for(struct engine *e, double hz)
{
	struct engine_group *g;

	for (int i = 0; i < e->ngroups; i++)
		if (fabs(e->groups[i].hz - hz) < 1e-9 * hz)
			return i;
	if (e->ngroups >= ENGINE_MAX_GROUPS)
		return -ENOSPC;
	g = &e->groups[e->ngroups];
	memset(g, 0, sizeof(*g));
	g->e = e;
	g->hz = hz;
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
		rc = group_for(e, ec->hz);
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
		rc = bus_add_ring(e->bus, gr->ring);
		if (rc)
			return rc;
	}
	return 0;
}

static uint64_t thread_cpu_ns(void)
{
	return util_now_ns(CLOCK_THREAD_CPUTIME_ID);
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

/* Achieved rate and own CPU, measured over windows of about a second. */
struct group_window {
	uint64_t start, ticks, cpu;
};

/* One tick, begun at t (the clock read after the wake): the first collector
 * may stamp its reads with t (emit_tick_start), and the rate and CPU windows
 * are measured on it, so a tick reads the clock once. */
static void group_tick(struct engine_group *g, uint64_t deadline, uint64_t t,
		       struct group_window *w)
{
	struct engine *e = g->e;

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
#ifdef __GLIBC__
		malloc_trim(0);
#endif
	}
	w->ticks++;
	if (t - w->start >= 1000000000ull) {
		uint64_t cpu = thread_cpu_ns();

		pthread_mutex_lock(&g->stats_lock);
		g->stats.hz_achieved = (double)w->ticks * 1e9 / (double)(t - w->start);
		g->stats.cpu_pct = 100.0 * (double)(cpu - w->cpu) / (double)(t - w->start);
		g->stats.ticks += w->ticks;
		pthread_mutex_unlock(&g->stats_lock);
		w->start = t;
		w->cpu = cpu;
		w->ticks = 0;
	}
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
static void group_loop_periodic(struct engine_group *g, uint64_t next, struct group_window *w)
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
					group_tick(g, next, asys_now_ns(), w);
			}
		}
		group_tick(g, next, asys_now_ns(), w);
		next += g->period_ns;
	}
}

/* Spinning rates: sleep to just before each deadline, spin the rest. The
 * clock read that ends the wait also starts the tick and tells if the
 * thread fell far behind. */
static void group_loop_spin(struct engine_group *g, uint64_t next, struct group_window *w)
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
		group_tick(g, next, t, w);
		next += g->period_ns;
	}
}

static void *group_thread(void *arg)
{
	struct engine_group *g = arg;
	uint64_t now = asys_now_ns(), next;
	struct group_window w = {.start = now};

	engine_thread_setup();
	{
		char name[16];

		snprintf(name, sizeof(name), "asys-%.0fHz", g->hz);
		pthread_setname_np(pthread_self(), name);
	}
	w.cpu = thread_cpu_ns();
	/* Deadlines sit mid-period on a grid of the period, so samples of
	 * slow collectors fall well inside the store's buckets, not on their edges. */
	next = (now / g->period_ns + 1) * g->period_ns + g->period_ns / 2;
	if (g->hz > ENGINE_SPIN_HZ)
		group_loop_spin(g, next, &w);
	else
		group_loop_periodic(g, next, &w);
	pthread_mutex_lock(&g->stats_lock);
	g->stats.ticks += w.ticks;
	pthread_mutex_unlock(&g->stats_lock);
	return NULL;
}

int engine_start(struct engine *e)
{
	atomic_store(&e->stopping, 0);
	for (int i = 0; i < e->ngroups; i++) {
		struct engine_group *g = &e->groups[i];
		int rc;

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
	}
	return 0;
}

void engine_stop(struct engine *e)
{
	/* an expiry in the past fires at once: it wakes a blocked read() */
	const struct itimerspec now = {{0, 0}, {0, 1}};

	if (!e)
		return;
	atomic_store_explicit(&e->stopping, 1, memory_order_release);
	for (int i = 0; i < e->ngroups; i++) {
		struct engine_group *g = &e->groups[i];

		if (g->started) {
			timerfd_settime(g->tfd, TFD_TIMER_ABSTIME, &now, NULL);
			pthread_join(g->thread, NULL);
			/* the ring's producer has stopped: this thread may write it */
			for (int m = 0; m < g->nmembers; m++) {
				struct engine_coll *ec = &e->colls[g->members[m]];

				if (ec->c->flush)
					ec->c->flush(ec->state, &g->em);
			}
		}
		g->started = 0;
		if (g->tfd >= 0)
			close(g->tfd);
		g->tfd = -1;
	}
}

int engine_stats(struct engine *e, struct engine_group_stats *out, int n)
{
	int i;

	for (i = 0; i < e->ngroups && i < n; i++) {
		pthread_mutex_lock(&e->groups[i].stats_lock);
		out[i] = e->groups[i].stats;
		out[i].dropped = ring_dropped(e->groups[i].ring);
		pthread_mutex_unlock(&e->groups[i].stats_lock);
	}
	return i;
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
		ring_free(e->groups[i].ring);
		pthread_mutex_destroy(&e->groups[i].stats_lock);
	}
	ring_free(e->control);
	free(e);
}
