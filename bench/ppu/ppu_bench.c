/* SPDX-License-Identifier: GPL-2.0-only */
/* bench/ppu: the ppu metrics collector at a requested rate over the fake's N
 * devices (or, with ASYS_HGML_LIBRARY unset on a GPU server, over the real
 * library's devices), through the real engine and bus. It reports the achieved rate, the
 * sampling thread's CPU, and the cost of one device sample inside the
 * collector against the bare library calls it makes (clock, GpmSampleGet,
 * GpmMetricsGet), timed in the same run, before and after.
 *
 *   ppu_bench HZ DEVICES SECONDS     (ASYS_HGML_LIBRARY names the library)
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalogue.h"
#include "bus.h"
#include "engine.h"
#include "ppu_cli.h"
#include "ppu_lib.h"
#include "ppu_catalogue.h"
#include "stream.h"
#include "util.h"

extern const struct collector ppu_metrics_collector;

static uint64_t wall_ns(void)
{
	return util_now_ns(CLOCK_MONOTONIC);
}

/* The bare library calls of one collector tick for the summary set (SM
 * clock, GpmSampleGet, GpmMetricsGet per device), with nothing around them. */
struct bare {
	struct ppu_lib *l;
	unsigned int ndev;
	ppu_device_t h[64];
	ppu_gpm_sample_t s[64][2];
	struct ppu_gpm_metrics_get *mg;
	uint64_t t;
};

static int bare_open(struct bare *b, unsigned int ndev)
{
	struct ppu_selection sel;
	char err[1024];
	unsigned int nm = 0;

	memset(b, 0, sizeof(*b));
	b->ndev = ndev;
	b->mg = calloc(ndev, sizeof(*b->mg));
	if (!b->mg || ndev > 64 || ppu_lib_open(&b->l, NULL, err, sizeof(err)) < 0) {
		fprintf(stderr, "bare: %s\n", b->mg ? err : "out of memory");
		return -1;
	}
	ppu_selection_build("summary", NULL, &sel, err, sizeof(err));
	for (size_t i = 0; i < sel.n; i++) {
		const struct ppu_metric *m = &ppu_metric_catalogue[sel.idx[i]];
		bool have = m->src == PPU_SRC_DEV;

		for (unsigned int k = 0; k < nm && !have; k++)
			have = b->mg[0].metrics[k].metric_id == m->id;
		if (!have)
			b->mg[0].metrics[nm++].metric_id = m->id;
	}
	for (unsigned int d = 0; d < ndev; d++) {
		b->mg[d] = b->mg[0];
		b->mg[d].version = PPU_GPM_METRICS_GET_VERSION;
		b->mg[d].num_metrics = nm;
		b->l->device_get_handle_by_index(d, &b->h[d]);
		b->l->gpm_sample_alloc(&b->s[d][0]);
		b->l->gpm_sample_alloc(&b->s[d][1]);
		b->l->gpm_sample_get(b->h[d], b->s[d][0]);
	}
	return 0;
}

static void bare_tick(struct bare *b)
{
	unsigned int mhz, k = (unsigned int)(++b->t & 1);

	for (unsigned int d = 0; d < b->ndev; d++) {
		b->l->device_get_clock_info(b->h[d], PPU_CLOCK_SM, &mhz);
		b->l->gpm_sample_get(b->h[d], b->s[d][k]);
		b->mg[d].sample1 = b->s[d][k ^ 1];
		b->mg[d].sample2 = b->s[d][k];
		b->l->gpm_metrics_get(&b->mg[d]);
	}
}

static void bare_close(struct bare *b)
{
	for (unsigned int d = 0; b->l && d < b->ndev; d++) {
		b->l->gpm_sample_free(b->s[d][0]);
		b->l->gpm_sample_free(b->s[d][1]);
	}
	ppu_lib_close(b->l);
	free(b->mg);
}

/* In one tick of the same thread, the collector and the bare calls run one
 * after the other, in alternating order, each timed: same rate, same cache
 * state, same run. */
static struct bare bare;
static void *coll_state;
static uint64_t coll_ns, bare_ns, emit_ns, ticks;
/* per tick, for medians: a preemption inside one timed stretch (this is a
 * shared 2-vCPU VM) moves the mean but not the median */
#define MAX_TICKS 200000
static uint32_t *tick_coll, *tick_bare, *tick_emit;
static int bench_stream = -1;
static uint32_t bench_nvals;

static int bench_init(const struct coll_ctx *ctx, void **state)
{
	unsigned int n = 0;
	int rc = ppu_metrics_collector.init(ctx, &coll_state);

	*state = NULL;
	if (rc < 0)
		return rc;
	bench_stream = stream_table_find(ctx->streams, catalogue_name(STREAM_PPU_METRICS));
	bench_nvals = stream_table_get(ctx->streams, (uint32_t)bench_stream)->nfields;
	if (bare_open(&bare, 64) < 0 && 0)
		return -1;
	bare.l->device_get_count(&n);
	bare.ndev = n < 64 ? n : 64;
	return 0;
}

static int bench_sample(void *st, struct emitter *out, uint64_t now)
{
	uint64_t t0 = wall_ns(), t1, t2;

	uint64_t c, b;

	if (ticks & 1) {
		ppu_metrics_collector.sample(coll_state, out, now);
		t1 = wall_ns();
		bare_tick(&bare);
		t2 = wall_ns();
		c = t1 - t0;
		b = t2 - t1;
	} else {
		bare_tick(&bare);
		t1 = wall_ns();
		ppu_metrics_collector.sample(coll_state, out, now);
		t2 = wall_ns();
		b = t1 - t0;
		c = t2 - t1;
	}
	coll_ns += c;
	bare_ns += b;
	if (ticks < MAX_TICKS) {
		tick_coll[ticks] = (uint32_t)c;
		tick_bare[ticks] = (uint32_t)b;
	}
	/* the hand-off alone: records of the same size into the same ring */
	{
		double v[PPU_METRIC_MAX] = {0};

		t0 = wall_ns();
		for (unsigned int d = 0; d < bare.ndev; d++)
			emit_sample(out, (uint32_t)bench_stream, (1ull << 40) | d, now, v,
				    bench_nvals);
		t1 = wall_ns() - t0;
		emit_ns += t1;
		if (ticks < MAX_TICKS)
			tick_emit[ticks] = (uint32_t)t1;
	}
	ticks++;
	return 0;
}

static void bench_fini(void *st)
{
	ppu_metrics_collector.fini(coll_state);
	bare_close(&bare);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile of the per-tick times, per device (sorts v). */
static double quantile_per_dev(uint32_t *v, uint64_t n, unsigned int ndev, double q)
{
	if (n > MAX_TICKS)
		n = MAX_TICKS;
	if (!n)
		return NAN;
	qsort(v, (size_t)n, sizeof(*v), cmp_u32);
	return (double)v[(size_t)((double)(n - 1) * q)] / ndev;
}

static double median_per_dev(uint32_t *v, uint64_t n, unsigned int ndev)
{
	return quantile_per_dev(v, n, ndev, 0.5);
}

static uint64_t consumed;

static void count_consume(void *ctx, const struct rec *r)
{
	if (r->kind == REC_SAMPLE)
		consumed++;
}

static const struct bus_consumer_ops count_ops = {.consume = count_consume};

int main(int argc, char **argv)
{
	struct collector bench = ppu_metrics_collector;
	const struct collector *list[] = {&bench, NULL};
	struct engine_group_stats gs[ENGINE_MAX_GROUPS];
	struct asys_options o;
	struct ppu_opts *po;
	struct stream_table *t;
	struct bus *b;
	struct engine *e;
	double hz = argc > 1 ? atof(argv[1]) : 1000, secs = argc > 3 ? atof(argv[3]) : 3;
	unsigned int ndev = argc > 2 ? (unsigned int)atoi(argv[2]) : 8;
	char ndev_s[16];
	double coll, bare_per, emit_per, expect, elapsed_s;
	uint64_t t0, elapsed;
	struct timespec ts;

	tick_coll = calloc(MAX_TICKS, sizeof(uint32_t));
	tick_bare = calloc(MAX_TICKS, sizeof(uint32_t));
	tick_emit = calloc(MAX_TICKS, sizeof(uint32_t));
	if (!tick_coll || !tick_bare || !tick_emit)
		return 1;
	snprintf(ndev_s, sizeof(ndev_s), "%u", ndev);
	setenv("FAKE_HGML_DEVICES", ndev_s, 1);
	bench.init = bench_init;
	bench.sample = bench_sample;
	bench.fini = bench_fini;
	options_defaults(&o);
	po = options_edit(&o, &ppu_options);
	po->device = "all";
	po->frequency = hz;
	t = stream_table_new();
	b = bus_new();
	e = engine_new(&o, t, b, list);
	if (!t || !b || !e || engine_init(e) < 0 || !bare.l ||
	    bus_attach(b, &count_ops, NULL) < 0 || bus_start(b, 5000000) < 0) {
		fprintf(stderr, "ppu_bench: cannot set up the engine (ASYS_HGML_LIBRARY?)\n");
		return 1;
	}
	t0 = wall_ns();
	engine_start(e);
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
	/* stats before stopping: the last measured second of a running thread */
	engine_stats(e, gs, ENGINE_MAX_GROUPS);
	engine_stop(e);
	elapsed = wall_ns() - t0;
	elapsed_s = (double)elapsed / 1e9;
	bus_stop(b);
	/* the fake's count, or the real library's (ASYS_HGML_LIBRARY unset on a
	 * GPU server: the same bench then times NVML or HGML themselves) */
	ndev = bare.ndev;
	coll = (double)coll_ns / ((double)ticks * ndev);
	bare_per = (double)bare_ns / ((double)ticks * ndev);
	emit_per = (double)emit_ns / ((double)ticks * ndev);
	expect = hz * elapsed_s;
	printf("ppu bench: %.0f Hz requested, %u devices through %s, %.1f s\n", hz, ndev,
	       bare.l->path, secs);
	printf("  achieved rate     %.1f Hz (last second %.1f Hz), %.2f%% of the request\n",
	       (double)ticks / elapsed_s, gs[0].hz_achieved, 100.0 * (double)ticks / expect);
	printf("  late ticks        %llu, records dropped %llu, samples delivered %llu\n",
	       (unsigned long long)gs[0].late, (unsigned long long)bus_dropped(b),
	       (unsigned long long)consumed);
	printf("  sampling thread   %.1f%% of one core (collector + bare calls + wait/spin)\n",
	       gs[0].cpu_pct);
	printf("  collector         %.2f%% of one core in sample()\n",
	       100.0 * (double)coll_ns / (double)elapsed);
	printf("  per device sample (mean)   collector %.0f ns, bare library calls %.0f ns: "
	       "overhead %+.1f%%, hand-off (emit_sample) %.0f ns\n",
	       coll, bare_per, 100.0 * (coll - bare_per) / bare_per, emit_per);
	printf("  per device sample (p90 / p99 / p99.9) collector %.0f / %.0f / %.0f ns, bare "
	       "%.0f / %.0f / %.0f ns\n",
	       quantile_per_dev(tick_coll, ticks, ndev, 0.9),
	       quantile_per_dev(tick_coll, ticks, ndev, 0.99),
	       quantile_per_dev(tick_coll, ticks, ndev, 0.999),
	       quantile_per_dev(tick_bare, ticks, ndev, 0.9),
	       quantile_per_dev(tick_bare, ticks, ndev, 0.99),
	       quantile_per_dev(tick_bare, ticks, ndev, 0.999));
	coll = median_per_dev(tick_coll, ticks, ndev);
	bare_per = median_per_dev(tick_bare, ticks, ndev);
	emit_per = median_per_dev(tick_emit, ticks, ndev);
	printf("  per device sample (median) collector %.0f ns, bare library calls %.0f ns: "
	       "overhead %+.1f%%, hand-off (emit_sample) %.0f ns\n",
	       coll, bare_per, 100.0 * (coll - bare_per) / bare_per, emit_per);
	printf("  the collector's own work above bare calls + hand-off (median): %+.1f%%\n",
	       100.0 * (coll - bare_per - emit_per) / bare_per);
	engine_free(e);
	bus_free(b);
	stream_table_free(t);
	free(tick_coll);
	free(tick_bare);
	free(tick_emit);
	return 0;
}
