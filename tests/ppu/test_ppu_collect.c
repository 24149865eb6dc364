/* SPDX-License-Identifier: GPL-2.0-only */
/* The ppu collectors run for real, in process, through the engine, the bus
 * and the store, with the fake libhgml.so loaded by the real dlopen path:
 * values match the fake's patterns, a lost device, GPM refused, no library,
 * an old library. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bus.h"
#include "engine.h"
#include "ppu_cli.h"
#include "ppu_catalogue.h"
#include "rec_writer.h"
#include "store.h"
#include "stream.h"
#include "test_ppu.h"

extern const struct collector ppu_collector;
extern const struct collector ppu_metrics_collector;

static void kept_consume(void *ctx, const struct rec *r)
{
	struct kept *k = ctx;

	if (r->kind != REC_SAMPLE || (int)r->stream != k->stream || k->n >= MAX_KEPT)
		return;
	k->entity[k->n] = r->entity;
	k->ts[k->n] = r->ts_ns;
	for (int i = 0; i < KEPT_FIELDS; i++)
		k->v[k->n][i] = i < r->nvals ? rec_values(r)[i] : NAN;
	k->n++;
}

static const struct bus_consumer_ops kept_ops = {.consume = kept_consume};

/* The recorder of r->rec_path, attached like asys record's. */
static void run_record(struct run *r)
{
	struct rec_writer_opts o = {.path = r->rec_path, .force = true};
	char msg[256] = "";
	int err = 0;

	r->w = rec_writer_new(r->t, &o, &err, msg, sizeof(msg));
	ck_assert_msg(r->w != NULL, "%s", msg);
	ck_assert_int_ge(
	    bus_attach_within(r->b, &rec_writer_consumer_ops, r->w, REC_WRITER_LATENCY_NS), 0);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void run_go(struct run *r, double secs)
{
	run_until(r, secs, NULL);
}

void run_until(struct run *r, double secs, bool (*done)(const struct run *r))
{
	static const struct collector *const list[] = {&ppu_collector, &ppu_metrics_collector,
						       NULL};
	static const struct timespec tick = {0, 10000000};
	double end;

	r->t = stream_table_new();
	r->b = bus_new();
	r->s = store_new(r->t, 100000000ull);
	r->k = calloc(1, sizeof(*r->k));
	ck_assert_ptr_nonnull(r->k);
	r->e = engine_new(&r->o, r->t, r->b, list);
	ck_assert_ptr_nonnull(r->e);
	ck_assert_int_eq(engine_init(r->e), 0);
	r->dev = stream_table_find(r->t, "ppu.dev");
	r->proc = stream_table_find(r->t, "ppu.proc");
	r->util = stream_table_find(r->t, "ppu.proc_util");
	r->metrics = stream_table_find(r->t, "ppu.metrics");
	r->k->stream = stream_table_find(r->t, r->keep ? r->keep : "ppu.metrics");
	ck_assert_int_ge(r->dev, 0);
	ck_assert_int_ge(r->proc, 0);
	ck_assert_int_ge(r->util, 0);
	ck_assert_int_ge(bus_attach(r->b, &store_consumer_ops, r->s), 0);
	ck_assert_int_ge(bus_attach(r->b, &kept_ops, r->k), 0);
	if (r->rec_path)
		run_record(r);
	ck_assert_int_eq(bus_start(r->b, 5000000), 0);
	ck_assert_int_eq(engine_start(r->e), 0);
	end = now_s() + secs;
	for (bool ok = false; !ok && now_s() < end;) {
		nanosleep(&tick, NULL);
		if (done) {
			store_lock(r->s);
			ok = done(r);
			store_unlock(r->s);
		}
	}
	engine_stop(r->e);
	bus_stop(r->b);
	if (r->w)
		ck_assert_int_eq(rec_writer_close(r->w), 0);
	store_lock(r->s);
}

void run_end(struct run *r)
{
	store_unlock(r->s);
	bus_free(r->b);
	engine_free(r->e);
	store_free(r->s);
	stream_table_free(r->t);
	rec_writer_free(r->w);
	free(r->k);
}

void opts_for(struct run *r, const char *devices, const char *set, const char *list, double hz)
{
	struct ppu_opts *po;

	memset(r, 0, sizeof(*r));
	options_defaults(&r->o);
	r->o.delay_s = 0.1;
	po = options_edit(&r->o, &ppu_options);
	po->device = devices;
	po->set = set;
	po->list = list;
	po->frequency = hz;
}

int field(const struct run *r, int stream, const char *name)
{
	int i = stream_field_index(stream_table_get(r->t, (uint32_t)stream), name);

	ck_assert_msg(i >= 0, "no field %s", name);
	return i;
}

double last(const struct run *r, int stream, uint64_t ent, const char *name)
{
	const struct series *se = store_series(r->s, (uint32_t)stream, ent);

	ck_assert_msg(se != NULL, "no series %s/%llu", name, (unsigned long long)ent);
	return series_last(se, (uint32_t)field(r, stream, name));
}

/* Every device and process of the fake sampled once. */
static bool all_devices_seen(const struct run *r)
{
	return store_entities(r->s, (uint32_t)r->dev, NULL, 0) == 4 &&
	       store_entities(r->s, (uint32_t)r->proc, NULL, 0) == 1 + 2 + 3 + 1;
}

START_TEST(device_state_matches_the_fake)
{
	struct run r;
	uint64_t ents[8];
	char want[128];

	tp_use_fake(0);
	opts_for(&r, NULL, NULL, NULL, 1000);
	run_until(&r, 10, all_devices_seen);
	ck_assert_int_lt(r.metrics, 0); /* no device listed: no metrics stream */
	ck_assert_uint_eq(store_entities(r.s, (uint32_t)r.dev, ents, 8), 4);
	for (unsigned int d = 0; d < 4; d++) {
		const struct series *se = store_series(r.s, (uint32_t)r.dev, d);
		double util = last(&r, r.dev, d, "util_gpu"), used = 512.0 * 1048576;

		/* the UUID last: the fake's "PPU-0000000d-...a50d" */
		snprintf(want, sizeof(want),
			 "%u: PPU 00000000:%02X:00.0 PPU-%08x-0000-4000-8000-00000000a5%02x", d,
			 0x10 + d, d, d);
		ck_assert_str_eq(series_label(se), want);
		ck_assert_ptr_null(store_status(r.s, (uint32_t)r.dev, d));
		ck_assert_double_eq(last(&r, r.dev, d, "clock_sm"), 1000 + 10 * d);
		ck_assert_double_eq(last(&r, r.dev, d, "clock_mem"), 1600);
		ck_assert_double_eq(last(&r, r.dev, d, "temp"), 40 + d);
		ck_assert_double_eq(last(&r, r.dev, d, "power_limit"), 400);
		ck_assert_double_eq(last(&r, r.dev, d, "pcie_gen"), 5);
		ck_assert_double_eq(last(&r, r.dev, d, "pcie_width"), 16);
		ck_assert_double_eq(last(&r, r.dev, d, "mem_total"), 96.0 * (1 << 30));
		for (unsigned int i = 0; i < 1 + d % 3; i++)
			used += (i + 1.0) * (d + 1) * (1 << 30);
		ck_assert_double_eq(last(&r, r.dev, d, "mem_used"), used);
		ck_assert_msg(util == 10 * d || util == 10 * d + 1, "util %g", util);
		ck_assert_double_eq(last(&r, r.dev, d, "power"), 100 + 2 * util);
		ck_assert_double_eq(last(&r, r.dev, d, "util_mem"), floor(util / 2));
	}
	/* processes: 1 + d % 3 per device, the first of device 0 is us */
	ck_assert_uint_eq(store_entities(r.s, (uint32_t)r.proc, NULL, 0), 1 + 2 + 3 + 1);
	snprintf(want, sizeof(want), "%d test_ppu", (int)getpid());
	ck_assert_str_eq(series_label(store_series(r.s, (uint32_t)r.proc, (uint64_t)getpid())),
			 want);
	ck_assert_double_eq(last(&r, r.proc, (1ull << 32) | 4000101, "mem_used"), 4.0 * (1 << 30));
	run_end(&r);
}
END_TEST

START_TEST(metric_values_match_the_fake)
{
	struct run r;
	int f_ce, f_cu, f_kvd, f_pcie, f_clk;
	double prev[4] = {NAN, NAN, NAN, NAN};
	size_t per_dev[4] = {0};

	tp_use_fake(0);
	opts_for(&r, "0,2", "none",
		 "cu__cycles_active.avg.pct_of_peak_sustained_elapsed,"
		 "ce__cycles_active.avg.pct_of_peak_sustained_elapsed,"
		 "kvd__transaction_hit_rate.pct,pcie__read_bytes.sum.per_second,"
		 "ce__cycles_elapsed.avg.per_second",
		 200);
	run_go(&r, 1.0);
	ck_assert_int_ge(r.metrics, 0);
	ck_assert_uint_eq(stream_table_get(r.t, (uint32_t)r.metrics)->nfields, 5);
	f_ce = field(&r, r.metrics, "ce__cycles_active.avg.pct_of_peak_sustained_elapsed");
	f_cu = field(&r, r.metrics, "cu__cycles_active.avg.pct_of_peak_sustained_elapsed");
	f_kvd = field(&r, r.metrics, "kvd__transaction_hit_rate.pct");
	f_pcie = field(&r, r.metrics, "pcie__read_bytes.sum.per_second");
	f_clk = field(&r, r.metrics, "ce__cycles_elapsed.avg.per_second");
	for (size_t i = 0; i < r.k->n; i++) {
		unsigned int d = (unsigned int)r.k->entity[i];
		const double *v = r.k->v[i];

		ck_assert_msg(d == 0 || d == 2, "device %u was not asked for", d);
		/* GPM 1: (10 d + 1 + s) % 100, s the sample number, from 2 */
		if (isnan(prev[d]))
			ck_assert_double_eq(v[f_ce], 10 * d + 1 + 2);
		else
			ck_assert_double_eq(v[f_ce], fmod(prev[d] + 1, 100));
		prev[d] = v[f_ce];
		ck_assert_double_eq(fmod(v[f_cu] - v[f_ce] + 100, 100), 1); /* GPM 2 */
		ck_assert_double_eq(v[f_kvd], 50 + d + 1);
		ck_assert_double_eq(v[f_pcie], (100.0 * (d + 1) + 21) * 1048576);
		ck_assert_double_eq(v[f_clk], (1000.0 + 10 * d) * 1e6);
		per_dev[d]++;
	}
	/* 1 s at 200 Hz, on a shared machine */
	ck_assert_msg(per_dev[0] >= 150 && per_dev[0] <= 202, "%zu samples", per_dev[0]);
	ck_assert_uint_eq(per_dev[1] + per_dev[3], 0);
	ck_assert_uint_ge(per_dev[2] + 1, per_dev[0]);
	ck_assert_str_eq(series_label(store_series(r.s, (uint32_t)r.metrics, 2)),
			 "2: PPU 00000000:12:00.0");
	run_end(&r);
}
END_TEST

/* Each way a value is made (a GPM value, GPM x clock x interval, a device
 * field, dropped for capacity), mixed in the list's order: every value lands
 * in its own field, and the dropped ones are NaN and named in the status. */
START_TEST(every_kind_of_metric_in_its_field)
{
	char list[4096];
	struct run r;
	int f_mem, f_cyc, f_pct, f_mclk, f_clk, nf, ndropped = 0;
	size_t used, nchecked = 0;
	uint64_t prev_ts = 0;
	const char *st;

	tp_use_fake(0);
	used = (size_t)snprintf(list, sizeof(list),
				"dram__bytes_used.sum,ce__cycles_active.avg,"
				"dram__cycles_elapsed.avg.per_second");
	/* eleven counters of 2 units each: more than a device's 16 */
	for (size_t i = 0, n = 0; i < ppu_metric_count && n < 11; i++)
		if (ppu_metric_catalogue[i].cost == 2) {
			used += (size_t)snprintf(list + used, sizeof(list) - used, ",%s",
						 ppu_metric_catalogue[i].name);
			n++;
		}
	snprintf(list + used, sizeof(list) - used,
		 ",ce__cycles_elapsed.avg.per_second,ce__cycles_active.avg.%s",
		 "pct_of_peak_sustained_elapsed");
	opts_for(&r, "1", "none", list, 200);
	run_go(&r, 1.0);
	nf = (int)stream_table_get(r.t, (uint32_t)r.metrics)->nfields;
	ck_assert_int_eq(nf, KEPT_FIELDS);
	f_mem = field(&r, r.metrics, "dram__bytes_used.sum");
	f_cyc = field(&r, r.metrics, "ce__cycles_active.avg");
	f_mclk = field(&r, r.metrics, "dram__cycles_elapsed.avg.per_second");
	f_clk = field(&r, r.metrics, "ce__cycles_elapsed.avg.per_second");
	f_pct = field(&r, r.metrics, "ce__cycles_active.avg.pct_of_peak_sustained_elapsed");
	st = store_status(r.s, (uint32_t)r.metrics, 1);
	ck_assert_msg(st && strstr(st, "not sampled:"), "status: %s", st ? st : "(none)");
	ck_assert_uint_gt(r.k->n, 100);
	for (size_t i = 0; i < r.k->n; i++) {
		const double *v = r.k->v[i];

		ck_assert_uint_eq(r.k->entity[i], 1);
		ck_assert_double_eq(v[f_mem], last(&r, r.dev, 1, "mem_used"));
		ck_assert_double_eq(v[f_mclk], 1600e6);
		ck_assert_double_eq(v[f_clk], 1010e6);
		/* cycles: the % x the clock x the interval, which is the time
		 * between this device's samples */
		if (prev_ts && v[f_pct] > 0) {
			double dt = v[f_cyc] / (v[f_pct] / 100.0 * v[f_clk]);

			ck_assert_double_eq_tol(dt, (double)(r.k->ts[i] - prev_ts) * 1e-9,
						1e-6 * dt);
			nchecked++;
		}
		prev_ts = r.k->ts[i];
		for (int f = 0; f < nf; f++) {
			const char *name =
			    stream_table_get(r.t, (uint32_t)r.metrics)->fields[f].name;
			bool dropped = strstr(st, name) != NULL;

			ck_assert_msg(dropped == (bool)isnan(v[f]), "%s: %g, status: %s", name,
				      v[f], st);
			ndropped += i == 0 && dropped;
		}
	}
	ck_assert_uint_gt(nchecked, 100);
	ck_assert_int_ge(ndropped, 1);
	run_end(&r);
}
END_TEST

/* Devices whose plans differ (here the PCIe link, so the % of peak) each
 * get their own, while the others share one: every device's PCIe % is its
 * own MiB/s over its own link's peak. */
START_TEST(devices_on_other_links_get_their_own_plans)
{
	struct run r;
	int f_rd, f_wr;
	size_t per_dev[4] = {0};

	tp_use_fake(0);
	setenv("FAKE_HGML_PCIE_X8", "1,3", 1);
	opts_for(&r, "all", "none",
		 "pcie__read_bytes.avg.pct_of_peak_sustained_elapsed,"
		 "pcie__write_bytes.avg.pct_of_peak_sustained_elapsed",
		 200);
	run_go(&r, 0.5);
	unsetenv("FAKE_HGML_PCIE_X8");
	f_rd = field(&r, r.metrics, "pcie__read_bytes.avg.pct_of_peak_sustained_elapsed");
	f_wr = field(&r, r.metrics, "pcie__write_bytes.avg.pct_of_peak_sustained_elapsed");
	for (size_t i = 0; i < r.k->n; i++) {
		unsigned int d = (unsigned int)r.k->entity[i];
		/* gen 5: 3938e6 B/s a lane, x16; gen 4: 1969e6, x8 */
		double peak = d % 2 ? 1969e6 * 8 : 3938e6 * 16;
		const double *v = r.k->v[i];

		ck_assert_uint_lt(d, 4);
		/* the fake's GPM 21 (RX, reads) and 20 (TX), MiB/s: 100 (d + 1) + id */
		ck_assert_double_eq_tol(v[f_rd], (100.0 * (d + 1) + 21) * 1048576 * 100 / peak,
					1e-6 * v[f_rd]);
		ck_assert_double_eq_tol(v[f_wr], (100.0 * (d + 1) + 20) * 1048576 * 100 / peak,
					1e-6 * v[f_wr]);
		per_dev[d]++;
	}
	for (unsigned int d = 0; d < 4; d++)
		ck_assert_msg(per_dev[d] > 50, "device %u: %zu samples", d, per_dev[d]);
	run_end(&r);
}
END_TEST

/* NVML's GPM counters refresh every 100 ms (closer samples read as zeros),
 * so through the nvml backend the metrics run at 10 Hz and say why, while
 * ASYS_GPM_MIN_INTERVAL_MS=0 lifts the floor; HGML has none. */
static size_t samples_of(const struct run *r, unsigned int d)
{
	size_t n = 0;

	for (size_t i = 0; i < r->k->n; i++)
		n += r->k->entity[i] == d;
	return n;
}

/* One second at 200 Hz asked through a backend, with a hand-set GPM floor
 * in ms or none (NULL). */
static void run_floor(struct run *r, const char *devices, const char *backend, const char *floor_ms)
{
	tp_use_fake(0);
	if (floor_ms)
		setenv("ASYS_GPM_MIN_INTERVAL_MS", floor_ms, 1);
	opts_for(r, devices, "summary", NULL, 200);
	((struct ppu_opts *)options_edit(&r->o, &ppu_options))->backend = backend;
	run_go(r, 1.0);
	unsetenv("ASYS_GPM_MIN_INTERVAL_MS");
}

START_TEST(nvml_gpm_runs_at_its_refresh_rate)
{
	struct run r;
	const char *st;

	run_floor(&r, "0,1", "nvml", NULL);
	for (unsigned int d = 0; d < 2; d++)
		ck_assert_msg(samples_of(&r, d) >= 7 && samples_of(&r, d) <= 11,
			      "device %u: %zu samples in 1 s", d, samples_of(&r, d));
	st = store_status(r.s, (uint32_t)r.metrics, STATUS_STREAM);
	ck_assert_msg(st && strstr(st, "PPU metrics at 10 Hz, not the 200 Hz asked") &&
			  strstr(st, "100 ms") && strstr(st, "ASYS_GPM_MIN_INTERVAL_MS"),
		      "status: %s", st ? st : "(none)");
	/* device state is not the metrics': it keeps its own rate */
	ck_assert_ptr_nonnull(store_series(r.s, (uint32_t)r.dev, 1));
	run_end(&r);

	run_floor(&r, "0", "nvml", "0");
	ck_assert_msg(samples_of(&r, 0) >= 150, "%zu samples", samples_of(&r, 0));
	ck_assert_ptr_null(store_status(r.s, (uint32_t)r.metrics, STATUS_STREAM));
	run_end(&r);

	run_floor(&r, "0", "hgml", NULL);
	ck_assert_msg(samples_of(&r, 0) >= 150, "%zu samples", samples_of(&r, 0));
	run_end(&r);

	/* a floor set by hand applies to HGML too, and says where it came from */
	run_floor(&r, "0", "hgml", "50");
	ck_assert_msg(samples_of(&r, 0) >= 14 && samples_of(&r, 0) <= 21, "%zu samples",
		      samples_of(&r, 0));
	st = store_status(r.s, (uint32_t)r.metrics, STATUS_STREAM);
	ck_assert_msg(st && strstr(st, "at 20 Hz, not the 200 Hz asked: HGML GPM samples must be "
				       "50 ms apart (set by ASYS_GPM_MIN_INTERVAL_MS)"),
		      "status: %s", st ? st : "(none)");
	run_end(&r);
}
END_TEST

START_TEST(lost_device_shows_lost_others_go_on)
{
	struct run r;
	const char *st;
	uint64_t last0, last2;

	tp_use_fake(0);
	setenv("FAKE_HGML_LOST", "2:300", 1);
	opts_for(&r, "all", NULL, NULL, 100);
	run_go(&r, 1.0);
	st = store_status(r.s, (uint32_t)r.dev, 2);
	ck_assert_msg(st && !strncmp(st, "lost: device 2 (00000000:12:00.0)", 33), "%s", st);
	st = store_status(r.s, (uint32_t)r.metrics, 2);
	ck_assert_msg(st && !strncmp(st, "lost", 4), "%s", st);
	last0 = series_last_ns(store_series(r.s, (uint32_t)r.dev, 0));
	last2 = series_last_ns(store_series(r.s, (uint32_t)r.dev, 2));
	ck_assert_msg(last0 > last2 + 400000000ull, "device 0 stopped with device 2");
	last0 = series_last_ns(store_series(r.s, (uint32_t)r.metrics, 3));
	last2 = series_last_ns(store_series(r.s, (uint32_t)r.metrics, 2));
	ck_assert_msg(last0 > last2 + 400000000ull, "device 3 metrics stopped with device 2");
	for (unsigned int d = 0; d < 4; d++)
		if (d != 2)
			ck_assert_ptr_null(store_status(r.s, (uint32_t)r.dev, d));
	/* the lost device's processes are gone */
	ck_assert_ptr_null(store_series(r.s, (uint32_t)r.proc, (2ull << 32) | 4000200));
	ck_assert_ptr_nonnull(store_series(r.s, (uint32_t)r.proc, (3ull << 32) | 4000300));
	run_end(&r);
}
END_TEST

static bool device_1_metrics_said(const struct run *r)
{
	return store_status(r->s, (uint32_t)r->metrics, 1) != NULL;
}

static bool device_1_metrics_refused(const struct run *r)
{
	return store_status(r->s, (uint32_t)r->metrics, 1) &&
	       store_series(r->s, (uint32_t)r->dev, 1) &&
	       store_series(r->s, (uint32_t)r->metrics, 0);
}

START_TEST(gpm_in_use_says_why_and_what_to_do)
{
	static const char *const must[] = {
	    "metrics sampling refused on device 1: the performance counters are in use",
	    "hgmlGpmSampleGet: In use by another client",
	    "another asys is sampling metrics",
	    "an acu application is collecting a trace",
	    "dcgmi profile --pause",
	    "ppu-smi -q",
	    "ppu-smi gpm --get-sample-state",
	    "ppu-smi gpm -s 0",
	    "Device state keeps updating",
	};
	struct run r;
	const char *st;

	tp_use_fake(0);
	setenv("FAKE_HGML_GPM_BUSY", "1", 1);
	opts_for(&r, "all", NULL, NULL, 100);
	run_until(&r, 10, device_1_metrics_refused);
	st = store_status(r.s, (uint32_t)r.metrics, 1);
	ck_assert_ptr_nonnull(st);
	for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++)
		ck_assert_msg(strstr(st, must[i]), "'%s' missing from: %s", must[i], st);
	/* device state of that device keeps updating, other devices' metrics too */
	ck_assert_ptr_null(store_status(r.s, (uint32_t)r.dev, 1));
	ck_assert_ptr_nonnull(store_series(r.s, (uint32_t)r.dev, 1));
	ck_assert_ptr_nonnull(store_series(r.s, (uint32_t)r.metrics, 0));
	ck_assert_uint_eq(series_last_ns(store_series(r.s, (uint32_t)r.metrics, 1)), 0);
	run_end(&r);

	/* no permission: says so, and suggests root */
	setenv("FAKE_HGML_GPM_ERROR", "no_permission", 1);
	opts_for(&r, "1", NULL, NULL, 100);
	run_until(&r, 10, device_1_metrics_said);
	st = store_status(r.s, (uint32_t)r.metrics, 1);
	ck_assert_msg(st && strstr(st, "no permission to sample") && strstr(st, "run asys as root"),
		      "%s", st);
	run_end(&r);
}
END_TEST

START_TEST(gpm_released_clears_the_message)
{
	struct run r;

	tp_use_fake(0);
	setenv("FAKE_HGML_GPM_BUSY", "all", 1);
	setenv("FAKE_HGML_GPM_BUSY_MS", "200", 1);
	opts_for(&r, "0", NULL, NULL, 100);
	run_go(&r, 1.6);
	ck_assert_ptr_null(store_status(r.s, (uint32_t)r.metrics, 0));
	ck_assert_uint_gt(r.k->n, 10);
	run_end(&r);
}
END_TEST

static bool every_stream_said(const struct run *r)
{
	return store_status(r->s, (uint32_t)r->dev, STATUS_STREAM) &&
	       store_status(r->s, (uint32_t)r->proc, STATUS_STREAM) &&
	       store_status(r->s, (uint32_t)r->metrics, STATUS_STREAM);
}

START_TEST(no_library_says_where_it_looked)
{
	struct run r;
	const char *st;
	/* what to do first (a pane's one line: up to "; "), then where it looked */
	static const char want[] = "no PPU library: set PPU_HOME or ASYS_HGML_LIBRARY; PPU_HOME "
				   "names the PPU SDK's directory, ASYS_HGML_LIBRARY the library "
				   "file; asys looked in /nonexistent/ppu/lib/libhgml.so, ";

	tp_use_fake(0);
	unsetenv("ASYS_HGML_LIBRARY");
	setenv("PPU_HOME", "/nonexistent/ppu", 1);
	opts_for(&r, "all", NULL, NULL, 100);
	((struct ppu_opts *)options_edit(&r.o, &ppu_options))->backend = "hgml";
	run_until(&r, 10, every_stream_said);
	st = store_status(r.s, (uint32_t)r.dev, STATUS_STREAM);
	ck_assert_msg(st && !strncmp(st, want, sizeof(want) - 1), "%s", st);
	st = store_status(r.s, (uint32_t)r.proc, STATUS_STREAM);
	ck_assert_msg(st && !strncmp(st, want, sizeof(want) - 1), "%s", st);
	st = store_status(r.s, (uint32_t)r.metrics, STATUS_STREAM);
	ck_assert_msg(st && !strncmp(st, want, sizeof(want) - 1), "%s", st);
	ck_assert_uint_eq(store_entities(r.s, (uint32_t)r.dev, NULL, 0), 0);
	run_end(&r);
}
END_TEST

static bool old_library_seen(const struct run *r)
{
	return store_series(r->s, (uint32_t)r->dev, 1) &&
	       store_series(r->s, (uint32_t)r->proc, (1ull << 32) | 4000101) &&
	       store_status(r->s, (uint32_t)r->metrics, 0);
}

START_TEST(old_library_degrades_per_symbol)
{
	struct run r;
	const char *st;

	tp_use_fake(1);
	opts_for(&r, "all", NULL, NULL, 100);
	run_until(&r, 10, old_library_seen);
	ck_assert(isnan(last(&r, r.dev, 1, "power_limit")));
	ck_assert(!isnan(last(&r, r.dev, 1, "power")));
	ck_assert_double_eq(last(&r, r.proc, (1ull << 32) | 4000101, "mem_used"), 4.0 * (1 << 30));
	st = store_status(r.s, (uint32_t)r.metrics, 0);
	ck_assert_msg(st && strstr(st, "PPU metrics need hgmlGpmSampleGet, which ") &&
			  strstr(st, "lacks"),
		      "%s", st);
	run_end(&r);
}
END_TEST

/* Device 7 refused, device 0 sampled: every device's state and a value of
 * device 0's metrics. */
static bool device_7_refused(const struct run *r)
{
	const struct series *se = store_series(r->s, (uint32_t)r->metrics, 0);

	return store_status(r->s, (uint32_t)r->metrics, STATUS_STREAM) &&
	       store_entities(r->s, (uint32_t)r->dev, NULL, 0) == 4 && se &&
	       !isnan(series_last(
		   se, (uint32_t)field(r, r->metrics,
				       "cu__cycles_active.avg.pct_of_peak_sustained_elapsed")));
}

START_TEST(bad_device_id_is_explained)
{
	struct run r;
	const char *st;

	tp_use_fake(0);
	opts_for(&r, "0,7", NULL, NULL, 100);
	run_until(&r, 10, device_7_refused);
	st = store_status(r.s, (uint32_t)r.metrics, STATUS_STREAM);
	ck_assert_msg(st && strstr(st, "PPU device 7 of --ppu-metrics-device does not exist: 4 "
				       "found (IDs 0-3)"),
		      "%s", st);
	ck_assert_uint_eq(store_entities(r.s, (uint32_t)r.dev, NULL, 0), 4);
	/* the device that exists is sampled all the same */
	ck_assert_uint_eq(store_entities(r.s, (uint32_t)r.metrics, NULL, 0), 1);
	ck_assert(
	    !isnan(last(&r, r.metrics, 0, "cu__cycles_active.avg.pct_of_peak_sustained_elapsed")));
	run_end(&r);
}
END_TEST

static bool two_hundred_processes(const struct run *r)
{
	return store_entities(r->s, (uint32_t)r->proc, NULL, 0) >= 200;
}

START_TEST(many_processes_grow_the_buffer)
{
	struct run r;

	tp_use_fake(0);
	setenv("FAKE_HGML_PROCS", "100", 1);
	setenv("FAKE_HGML_DEVICES", "2", 1);
	opts_for(&r, NULL, NULL, NULL, 100);
	run_until(&r, 10, two_hundred_processes);
	ck_assert_uint_eq(store_entities(r.s, (uint32_t)r.proc, NULL, 0), 200);
	ck_assert_double_eq(last(&r, r.proc, (1ull << 32) | 4000199, "mem_used"),
			    100.0 * 2 * (1 << 30));
	run_end(&r);
}
END_TEST

TCase *tp_collect_tcase(void)
{
	TCase *tc = tcase_create("collect");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, device_state_matches_the_fake);
	tcase_add_test(tc, metric_values_match_the_fake);
	tcase_add_test(tc, every_kind_of_metric_in_its_field);
	tcase_add_test(tc, devices_on_other_links_get_their_own_plans);
	tcase_add_test(tc, nvml_gpm_runs_at_its_refresh_rate);
	tcase_add_test(tc, lost_device_shows_lost_others_go_on);
	tcase_add_test(tc, gpm_in_use_says_why_and_what_to_do);
	tcase_add_test(tc, gpm_released_clears_the_message);
	tcase_add_test(tc, no_library_says_where_it_looked);
	tcase_add_test(tc, old_library_degrades_per_symbol);
	tcase_add_test(tc, bad_device_id_is_explained);
	tcase_add_test(tc, many_processes_grow_the_buffer);
	return tc;
}
