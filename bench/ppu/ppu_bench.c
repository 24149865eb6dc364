/* bench/ppu: the ppu metrics collector at a requested rate over N fake
 * devices, through the real engine and bus. It reports the achieved rate, the
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

#include "bus.h"
#include "engine.h"
#include "ppu_lib.h"
#include "ppu_metrics.h"
#include "stream.h"
#include "util.h"

extern const struct collector ppu_metrics_collector;

static uint64_t wall_ns(void)
{
	return util_now_ns(CLOCK_MONOTONIC);
}

/* The collector, timed from inside its own thread. */
static uint64_t in_sample_ns, in_sample_ticks;

static int timed_sample(void *st, struct emitter *out, uint64_t now)
{
	uint64_t t0 = wall_ns();
	int rc = ppu_metrics_collector.sample(st, out, now);

	in_sample_ns += wall_ns() - t0;
	in_sample_ticks++;
	return rc;
}

static uint64_t consumed;

static void count_consume(void *ctx, const struct rec *r)
{
	if (r->kind == REC_SAMPLE)
		consumed++;
}

static const struct bus_consumer_ops count_ops = {NULL, count_consume, NULL};

/* The same library calls as one collector tick for the summary set, with
 * nothing around them: ns per device sample. */
static double bare_calls(unsigned int ndev, unsigned int ticks)
{
	struct ppu_lib *l = NULL;
	struct ppu_selection sel;
	ppu_device_t h[64];
	ppu_gpm_sample_t s[64][2];
	struct ppu_gpm_metrics_get *mg = calloc(ndev, sizeof(*mg));
	char err[1024];
	unsigned int nm = 0, mhz;
	uint64_t t0, t;
	double res = NAN;

	if (!mg || ndev > 64 || ppu_lib_open(&l, NULL, err, sizeof(err)) < 0) {
		fprintf(stderr, "bare: %s\n", mg ? err : "out of memory");
		free(mg);
		return NAN;
	}
	ppu_selection_build("summary", NULL, &sel, err, sizeof(err));
	for (size_t i = 0; i < sel.n; i++) {
		const struct ppu_metric *m = &ppu_metric_catalogue[sel.idx[i]];
		bool have = m->src == PPU_SRC_DEV;

		for (unsigned int k = 0; k < nm && !have; k++)
			have = mg[0].metrics[k].metric_id == m->id;
		if (!have)
			mg[0].metrics[nm++].metric_id = m->id;
	}
	for (unsigned int d = 0; d < ndev; d++) {
		mg[d] = mg[0];
		mg[d].version = PPU_GPM_METRICS_GET_VERSION;
		mg[d].num_metrics = nm;
		l->device_get_handle_by_index(d, &h[d]);
		l->gpm_sample_alloc(&s[d][0]);
		l->gpm_sample_alloc(&s[d][1]);
		l->gpm_sample_get(h[d], s[d][0]);
	}
	t0 = wall_ns();
	for (t = 1; t <= ticks; t++) {
		for (unsigned int d = 0; d < ndev; d++) {
			l->device_get_clock_info(h[d], PPU_CLOCK_SM, &mhz);
			l->gpm_sample_get(h[d], s[d][t & 1]);
			mg[d].sample1 = s[d][(t & 1) ^ 1];
			mg[d].sample2 = s[d][t & 1];
			l->gpm_metrics_get(&mg[d]);
		}
	}
	res = (double)(wall_ns() - t0) / ((double)ticks * ndev);
	for (unsigned int d = 0; d < ndev; d++) {
		l->gpm_sample_free(s[d][0]);
		l->gpm_sample_free(s[d][1]);
	}
	ppu_lib_close(l);
	free(mg);
	return res;
}

int main(int argc, char **argv)
{
	struct collector timed = ppu_metrics_collector;
	const struct collector *list[] = {&timed, NULL};
	struct engine_group_stats gs[ENGINE_MAX_GROUPS];
	struct asys_options o;
	struct stream_table *t;
	struct bus *b;
	struct engine *e;
	double hz = argc > 1 ? atof(argv[1]) : 1000, secs = argc > 3 ? atof(argv[3]) : 3;
	unsigned int ndev = argc > 2 ? (unsigned int)atoi(argv[2]) : 8;
	char ndev_s[16];
	double bare1, bare2, bare, coll, expect;
	uint64_t t0, elapsed, ticks;
	struct timespec ts;

	snprintf(ndev_s, sizeof(ndev_s), "%u", ndev);
	setenv("FAKE_HGML_DEVICES", ndev_s, 1);
	timed.sample = timed_sample;
	options_defaults(&o);
	o.ppu_metrics_device = "all";
	o.ppu_metrics_frequency = hz;
	bare1 = bare_calls(ndev, (unsigned int)fmax(1000, hz));
	t = stream_table_new();
	b = bus_new();
	e = engine_new(&o, t, b, list);
	if (!t || !b || !e || engine_init(e) < 0 || bus_attach(b, &count_ops, NULL) < 0 ||
	    bus_start(b, 5000000) < 0) {
		fprintf(stderr, "ppu_bench: cannot set up the engine\n");
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
	bus_stop(b);
	bare2 = bare_calls(ndev, (unsigned int)fmax(1000, hz));
	bare = (bare1 + bare2) / 2;
	ticks = in_sample_ticks;
	coll = (double)in_sample_ns / ((double)ticks * ndev);
	expect = hz * (double)elapsed / 1e9;
	printf("ppu bench: %.0f Hz requested, %u fake devices, %.1f s\n", hz, ndev, secs);
	printf("  achieved rate    %.1f Hz (last second %.1f Hz), %.2f%% of the request\n",
	       (double)ticks / ((double)elapsed / 1e9), gs[0].hz_achieved,
	       100.0 * (double)ticks / expect);
	printf("  late ticks       %llu, records dropped %llu, samples delivered %llu\n",
	       (unsigned long long)gs[0].late, (unsigned long long)bus_dropped(b),
	       (unsigned long long)consumed);
	printf("  sampling thread  %.1f%% of one core (wait and spin included)\n", gs[0].cpu_pct);
	printf("  collector CPU    %.1f%% of one core inside sample()\n",
	       100.0 * (double)in_sample_ns / (double)elapsed);
	printf("  per device sample: collector %.0f ns, bare library calls %.0f ns "
	       "(%.0f / %.0f), overhead %+.1f%%\n",
	       coll, bare, bare1, bare2, 100.0 * (coll - bare) / bare);
	engine_free(e);
	bus_free(b);
	stream_table_free(t);
	return 0;
}
