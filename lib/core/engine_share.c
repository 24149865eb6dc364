/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine_int.h"

/* The CPU a group has used so far: its thread's, less what the thread spent
 * on its guests; a guest's own ticks. Read once a second, not a tick. */
uint64_t engine_group_cpu(const struct engine_group *g)
{
	const struct engine *e = g->e;
	uint64_t cpu;

	if (g->host >= 0)
		return g->own_cpu;
	cpu = engine_thread_cpu_ns();
	for (int i = 0; i < g->nguests; i++)
		cpu -= e->groups[g->guests[i]].own_cpu;
	return cpu;
}

/* Achieved rate and CPU, over windows of about a second. */
void engine_group_account(struct engine_group *g, uint64_t t)
{
	struct group_window *w = &g->w;

	/* The rate is of the intervals between ticks, from the first: from the
	 * thread's start, a slow group's first window would also hold the wait
	 * for its first deadline (a 1 Hz guest read 1.8 Hz). */
	if (!w->ticked) {
		w->ticked = true;
		w->start = t;
		w->cpu = engine_group_cpu(g);
		pthread_mutex_lock(&g->stats_lock);
		g->stats.ticks++;
		pthread_mutex_unlock(&g->stats_lock);
		return;
	}
	w->ticks++;
	/* a window of whole periods that reaches about a second: a 1 Hz
	 * group whose tick came a little early against a late first one
	 * would otherwise wait a second more, and read 0 Hz until then */
	if (t - w->start + g->period_ns / 4 >= 1000000000ull) {
		uint64_t cpu = engine_group_cpu(g);

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

/* The windows of a group and of its guests start with its thread. */
void engine_group_windows_start(struct engine_group *g, uint64_t now)
{
	struct engine *e = g->e;

	for (int i = 0; i < g->nguests; i++) {
		struct engine_group *gu = &e->groups[g->guests[i]];

		gu->own_cpu = 0;
		gu->w = (struct group_window){.start = now};
	}
	g->w = (struct group_window){.start = now, .cpu = engine_group_cpu(g)};
}

/* Which groups ride on another's thread (ENGINE_SHARE_HZ), and whether that
 * thread pumps the bus: when it ticks at least once per bus period, so a
 * frame still sees data at most a bus period old, or when every group rides
 * on it, since then no record can be fresher than its last tick (host
 * memory at 1 Hz would otherwise wake the bus thread 4 times a second to
 * find nothing). */
void engine_plan_sharing(struct engine *e)
{
	struct engine_group *host = NULL;

	for (int i = 0; i < e->ngroups; i++) {
		struct engine_group *g = &e->groups[i];

		g->host = -1;
		g->nguests = 0;
		g->every = 1;
		g->pumps = false;
		if (!g->alone && g->hz <= ENGINE_SHARE_HZ &&
		    (!host || g->period_ns < host->period_ns))
			host = g;
	}
	if (!host)
		return;
	for (int i = 0; i < e->ngroups; i++) {
		struct engine_group *g = &e->groups[i];

		if (g == host || g->alone || g->hz > ENGINE_SHARE_HZ ||
		    g->period_ns % host->period_ns ||
		    g->period_ns / host->period_ns > ENGINE_SHARE_MAX_EVERY)
			continue;
		g->host = (int)(host - e->groups);
		g->every = g->period_ns / host->period_ns;
		host->guests[host->nguests++] = i;
	}
	bool all = true;
	for (int i = 0; i < e->ngroups; i++)
		all &= &e->groups[i] == host || e->groups[i].host >= 0;
	host->pumps = bus_period_ns(e->bus) && (host->period_ns <= bus_period_ns(e->bus) || all);
}

/* "stream count, ..." of the records the group's ring refused, by stream
 * (the emitter counts them), so that a loss names whom it hit. */
static void engine_lost_text(const struct engine *e, const struct engine_group *g, char *buf,
			     size_t size)
{
	const uint64_t *lost = __atomic_load_n(&g->em.lost, __ATOMIC_ACQUIRE);
	size_t off = 0;

	buf[0] = '\0';
	for (uint32_t id = 0; lost && id < STREAM_MAX && off < size; id++) {
		const struct stream_desc *d = stream_table_get(e->t, id);
		uint64_t n = __atomic_load_n(&lost[id], __ATOMIC_RELAXED);

		if (n && d)
			off += (size_t)snprintf(buf + off, size - off, "%s%s %llu", off ? ", " : "",
						d->name, (unsigned long long)n);
	}
}

int engine_stats(struct engine *e, struct engine_group_stats *out, int n)
{
	int i;

	for (i = 0; i < e->ngroups && i < n; i++) {
		pthread_mutex_lock(&e->groups[i].stats_lock);
		out[i] = e->groups[i].stats;
		out[i].dropped = ring_dropped(e->groups[i].ring);
		engine_lost_text(e, &e->groups[i], out[i].lost, sizeof(out[i].lost));
		out[i].alone = e->groups[i].alone;
		pthread_mutex_unlock(&e->groups[i].stats_lock);
	}
	return i;
}
