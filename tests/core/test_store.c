/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* The store and the bus that feeds it: rates, windows and peaks (the peak over windows of at least
 * the sampling period), resets, labels and statuses, caps, history. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bus.h"
#include "collector.h"
#include "ring.h"
#include "store.h"
#include "store_int.h"
#include "store_peak.h"
#include "stream.h"
#include "util.h"
#include "../check_run.h"

#include "store_fx.h"

/* An attribute keeps no history rings (a process table's series are mostly
 * attributes): its buckets read as its latest value over the series' life,
 * and a gauge beside it keeps its own history. */
static const struct field_desc a_fields[] = {
    FIELD_DESC("temp", "C", FIELD_GAUGE),
    FIELD_DESC("uid", "", FIELD_ATTR),
};
static const struct stream_desc a_stream = {"t.a",    1,      ENTITY_KEY,  2,
					    a_fields, "test", .rate_hz = 0};

START_TEST(store_attributes_keep_no_history)
{
	struct fixture f;
	const struct series *se;
	double hist[6];
	int sid;

	fx_init(&f, SEC);
	sid = stream_table_add(f.t, &a_stream);
	ck_assert_int_ge(sid, 0);
	for (int i = 0; i < 4; i++) {
		double v[2] = {10.0 * (i + 1), 1000 + i};

		ck_assert_int_eq(emit_sample(&f.e, (uint32_t)sid, 5, (2 + i) * SEC + SEC / 2, v, 2),
				 0);
	}
	bus_pump(f.b);
	store_lock(f.s);
	se = store_series(f.s, (uint32_t)sid, 5);
	ck_assert_ptr_nonnull(se);
	/* buckets 0..5 ending at 6 s: nothing before the first sample at 2.5 s */
	series_history(se, 0, 6 * SEC, SEC, hist, 6);
	ck_assert(isnan(hist[0]) && isnan(hist[1]));
	ck_assert_double_eq(hist[2], 10);
	ck_assert_double_eq(hist[4], 30);
	series_history(se, 1, 6 * SEC, SEC, hist, 6);
	ck_assert(isnan(hist[0]) && isnan(hist[1]));
	ck_assert_double_eq(hist[2], 1003);
	ck_assert_double_eq(hist[5], 1003);
	ck_assert_double_eq(series_last(se, 1), 1003);
	store_unlock(f.s);
	fx_free(&f);
}
END_TEST

START_TEST(store_rates_windows_and_peaks)
{
	struct fixture f;
	struct field_stats st;
	const struct series *se;
	double hist[4];

	fx_init(&f, SEC);
	/* 1 kHz for 3 s: 1000 B/ms quietly, plus a 5 ms burst of 100x in second 1 */
	for (uint64_t i = 0; i <= 3000; i++) {
		static double total;
		uint64_t ms = i;

		if (i)
			total += (ms >= 1500 && ms < 1505) ? 100000 : 1000;
		put(&f, 7, 10 * SEC + ms * MS, total, 40 + (double)(ms / 1000));
	}
	bus_pump(f.b);
	store_lock(f.s);
	se = store_series(f.s, 0, 7);
	ck_assert_ptr_nonnull(se);
	/* no rate recorded for t.s: the period is the median interval */
	ck_assert_uint_eq(series_peak_window_ns(se), MS);
	/* window = second 11.0..12.0 (bucket 11), complete */
	ck_assert_int_eq(series_window(se, 0, 12 * SEC + 500 * MS, SEC, &st), 0);
	ck_assert_double_eq_tol(st.avg, (995 * 1000.0 + 5 * 100000.0), 1.0);
	ck_assert_double_eq_tol(st.max, 100000.0 * 1000, 1.0); /* the burst's per-ms rate */
	ck_assert_double_eq_tol(st.min, 1000.0 * 1000, 1.0);
	ck_assert_int_eq(series_window(se, 1, 12 * SEC + 500 * MS, SEC, &st), 0);
	ck_assert_double_eq_tol(st.avg, 41.0, 1e-9);
	ck_assert_double_eq_tol(series_rate(se, 0), 1e6, 1.0);
	ck_assert_double_eq_tol(series_last(se, 1), 43.0, 1e-9);
	/* history ending at 13.0: buckets 9 (none), 10, 11, 12 */
	series_history(se, 1, 13 * SEC, SEC, hist, 4);
	ck_assert(isnan(hist[0]));
	ck_assert_double_eq_tol(hist[1], 40.0, 1e-9);
	ck_assert_double_eq_tol(hist[2], 41.0, 1e-9);
	ck_assert_double_eq_tol(hist[3], 42.0, 1e-9);
	store_unlock(f.s);
	fx_free(&f);
}
END_TEST

START_TEST(store_counter_backwards_is_never_negative)
{
	struct fixture f;
	struct field_stats st;
	const struct series *se;

	fx_init(&f, SEC);
	put(&f, 1, 1 * SEC + 100 * MS, 1e19, 1);
	put(&f, 1, 1 * SEC + 200 * MS, 1.5e19, 1);
	put(&f, 1, 1 * SEC + 300 * MS, 10, 1); /* reset (driver reload) */
	put(&f, 1, 1 * SEC + 400 * MS, 110, 1);
	put(&f, 1, 1 * SEC + 500 * MS, NAN, 1); /* unknown: no rate, no zero */
	put(&f, 1, 2 * SEC + 100 * MS, 210, 1);
	bus_pump(f.b);
	store_lock(f.s);
	se = store_series(f.s, 0, 1);
	ck_assert_uint_eq(series_resets(se), 1);
	ck_assert_int_eq(series_window(se, 0, 2 * SEC + 500 * MS, SEC, &st), 0);
	ck_assert(st.min >= 0);
	ck_assert_double_eq_tol(st.max, 5e19, 1e13);
	ck_assert_uint_eq(st.n, 1);
	ck_assert(isnan(series_rate(se, 0))); /* NaN before 210: no rate */
	store_unlock(f.s);
	fx_free(&f);
}
END_TEST

/* The peak rule on its own: a late tick (1.9 ms) then a short interval
 * (0.1 ms) that holds a whole 1000 B chunk. Per interval that is 10 MB/s;
 * over windows of at least 1 ms it is at most 2000 B / 1.1 ms. */
START_TEST(peak_merges_short_intervals)
{
	struct peak_win w;
	struct peak_est e = {0};

	peak_win_reset(&w);
	ck_assert(isnan(peak_win_add(&w, 500, 500 * 1000, MS))); /* pending: no window yet */
	ck_assert_double_eq_tol(peak_win_add(&w, 500, 500 * 1000, MS), 1e6, 1e-6);
	ck_assert_double_eq_tol(peak_win_add(&w, 1900, 1900 * 1000, MS), 1e6, 1e-6);
	/* 0.1 ms: the last window (1.9 ms) extended by it */
	ck_assert_double_eq_tol(peak_win_add(&w, 1000, 100 * 1000, MS), 2900 / 2e-3, 1e-6);
	/* 1 ms more: the pending 0.1 ms closes with it */
	ck_assert_double_eq_tol(peak_win_add(&w, 1000, MS, MS), 2000 / 1.1e-3, 1e-6);
	/* a reset breaks the windows: nothing spans it */
	peak_win_break(&w);
	ck_assert(isnan(peak_win_add(&w, 10, 10 * 1000, MS)));
	/* period 0 (unknown): every interval is a window */
	peak_win_reset(&w);
	ck_assert_double_eq_tol(peak_win_add(&w, 1, 1000, 0), 1e6, 1e-6);
	/* the period of a file without one: the median interval */
	ck_assert_uint_eq(peak_est_add(&e, 3 * MS), 3 * MS);
	ck_assert_uint_eq(peak_est_add(&e, 1 * MS), 2 * MS);
	ck_assert_uint_eq(peak_est_add(&e, 1 * MS), 1 * MS);
	ck_assert_uint_eq(peak_est_add(&e, 100 * MS), 1 * MS + MS);
	ck_assert_uint_eq(peak_period_ns(1000), MS);
	ck_assert_uint_eq(peak_period_ns(0), 0);
	ck_assert_uint_eq(peak_period_ns(NAN), 0);
}
END_TEST

static const struct stream_desc k_stream = {"t.k",    1,       ENTITY_KEY,     2,
					    t_fields, "1 kHz", .rate_hz = 1000};

/* The store keeps the rule: a 1 kHz stream whose traffic is one 1000 B
 * chunk per ms (never more than 2000 B in any 1 ms window), read on a grid
 * whose ticks come late, some very late, then catch up in microseconds. */
START_TEST(store_peak_late_ticks)
{
	struct fixture f;
	struct field_stats st;
	const struct series *se;
	double per_sample_max = 0;
	uint64_t ts = 10 * SEC, prev = 0;

	f.t = stream_table_new();
	ck_assert_int_eq(stream_table_add(f.t, &k_stream), 0);
	ck_assert_double_eq(stream_table_get(f.t, 0)->rate_hz, 1000);
	f.s = store_new(f.t, SEC);
	f.b = bus_new();
	f.r = ring_new(1 << 22);
	f.e = (struct emitter){.ring = f.r};
	ck_assert_int_eq(bus_add_ring(f.b, f.r), 0);
	ck_assert_int_ge(bus_attach(f.b, &store_consumer_ops, f.s), 0);
	for (uint64_t i = 0; i < 2000; i++) {
		/* every 7th tick 0.95 ms late, every 50th 4 ms late then caught up
		 * with 3 reads 2 us apart; the others on time, 10 us jitter */
		uint64_t grid = 10 * SEC + i * MS, late = (i % 7 == 3) ? 950000 : (i % 3) * 10000;
		double bytes;

		if (i % 50 == 20)
			late = 4 * MS;
		if (i % 50 >= 21 && i % 50 <= 23)
			late = 4 * MS - (i % 50 - 20) * MS + (i % 50 - 20) * 2000;
		ts = grid + late > ts ? grid + late : ts + 2000;
		/* chunks land at every whole ms + 0.98 ms: in the short interval
		 * after a tick 0.95 ms late */
		bytes = 1000.0 * (double)((ts - 10 * SEC + 20000) / MS);
		if (prev && ts > prev) {
			static double last_bytes;
			double r = (bytes - last_bytes) * 1e9 / (double)(ts - prev);

			if (r > per_sample_max)
				per_sample_max = r;
			last_bytes = bytes;
		}
		prev = ts;
		put(&f, 3, ts, bytes, 0);
	}
	bus_pump(f.b);
	store_lock(f.s);
	se = store_series(f.s, 0, 3);
	ck_assert_uint_eq(series_peak_window_ns(se), MS);
	ck_assert_int_eq(series_window(se, 0, 12 * SEC + 500 * MS, SEC, &st), 0);
	/* per interval the rate goes far past the bound: the test can fail */
	ck_assert(per_sample_max > 1e7);
	ck_assert(st.max <= 2000.0 / 1e-3);
	ck_assert(st.max >= st.avg);
	ck_assert_double_eq_tol(st.avg, 1e6, 1e6 * 0.01);
	store_unlock(f.s);
	fx_free(&f);
}
END_TEST

/* A row's mean never passes its peak, nor its low: over any span (a mark
 * makes long ones) and at any end, on bursty traffic with jittered ticks,
 * also where the period is as long as a bucket. */
START_TEST(store_avg_within_min_and_peak)
{
	static const struct stream_desc slow = {"t.slow", 1,	  ENTITY_KEY,  2,
						t_fields, "1 Hz", .rate_hz = 1};
	const struct stream_desc *descs[2] = {&k_stream, &slow};

	for (int d = 0; d < 2; d++) {
		struct fixture f;
		const struct series *se;
		uint64_t step = d ? SEC : 10 * MS, rng = 12345;
		double total = 0;

		f.t = stream_table_new();
		ck_assert_int_eq(stream_table_add(f.t, descs[d]), 0);
		f.s = store_new(f.t, d ? SEC : 100 * MS);
		f.b = bus_new();
		f.r = ring_new(1 << 22);
		f.e = (struct emitter){.ring = f.r};
		ck_assert_int_eq(bus_add_ring(f.b, f.r), 0);
		ck_assert_int_ge(bus_attach(f.b, &store_consumer_ops, f.s), 0);
		for (uint64_t i = 0; i < 600; i++) {
			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			/* high for a while, then low: a long span averages above the
			 * last window's peak */
			total += (i < 200 ? 5000.0 : 100.0) * (double)((rng >> 33) % 100);
			put(&f, 1, SEC + i * step + (rng >> 40) % (step / 10), total, 0);
		}
		bus_pump(f.b);
		store_lock(f.s);
		se = store_series(f.s, 0, 1);
		for (uint64_t end = 2 * SEC; end < SEC + 600 * step; end += step * 3)
			for (uint64_t span = step; span < 600 * step; span *= 3) {
				struct field_stats st;

				if (series_window(se, 0, end, span, &st))
					continue;
				ck_assert_msg(st.avg <= st.max && st.min <= st.avg,
					      "stream %d end %llu span %llu: %g <= %g <= %g", d,
					      (unsigned long long)end, (unsigned long long)span,
					      st.min, st.avg, st.max);
			}
		store_unlock(f.s);
		fx_free(&f);
	}
}
END_TEST

START_TEST(store_labels_status_gone_and_late_consumer)
{
	struct fixture f;
	struct store *late;
	uint64_t ents[8];

	fx_init(&f, SEC);
	ck_assert_int_eq(emit_label(&f.e, 0, 5, SEC, "eth0"), 0);
	put(&f, 5, SEC, 1, 1);
	put(&f, 6, SEC, 1, 1);
	ck_assert_int_eq(emit_status(&f.e, 0, STATUS_STREAM, SEC, "no PMU"), 0);
	ck_assert_int_eq(emit_status(&f.e, 0, 6, SEC, "lost"), 0);
	bus_pump(f.b);
	store_lock(f.s);
	ck_assert_uint_eq(store_entities(f.s, 0, ents, 8), 2);
	ck_assert_uint_eq(ents[0], 5);
	ck_assert_str_eq(series_label(store_series(f.s, 0, 5)), "eth0");
	ck_assert_str_eq(store_status(f.s, 0, STATUS_STREAM), "no PMU");
	ck_assert_str_eq(store_status(f.s, 0, 6), "lost");
	store_unlock(f.s);
	/* a consumer attached now still learns the label and statuses */
	late = store_new(f.t, SEC);
	ck_assert_int_ge(bus_attach(f.b, &store_consumer_ops, late), 0);
	store_lock(late);
	ck_assert_str_eq(series_label(store_series(late, 0, 5)), "eth0");
	ck_assert_str_eq(store_status(late, 0, STATUS_STREAM), "no PMU");
	store_unlock(late);
	ck_assert_int_eq(emit_gone(&f.e, 0, 5, 2 * SEC), 0);
	ck_assert_int_eq(emit_status(&f.e, 0, STATUS_STREAM, 2 * SEC, ""), 0);
	bus_pump(f.b);
	store_lock(f.s);
	ck_assert_uint_eq(store_entities(f.s, 0, ents, 8), 1);
	ck_assert_ptr_null(store_series(f.s, 0, 5));
	ck_assert_ptr_null(store_status(f.s, 0, STATUS_STREAM));
	store_unlock(f.s);
	fx_free(&f);
	store_free(late);
}
END_TEST

START_TEST(store_many_entities_and_clear)
{
	struct fixture f;
	uint64_t ents[1];

	fx_init(&f, SEC);
	for (uint64_t e = 0; e < 5000; e++)
		put(&f, e * 977, SEC, (double)e, 1);
	bus_pump(f.b);
	store_lock(f.s);
	ck_assert_uint_eq(store_entities(f.s, 0, ents, 1), 5000);
	for (uint64_t e = 0; e < 5000; e += 499)
		ck_assert_double_eq(series_last(store_series(f.s, 0, e * 977), 0), (double)e);
	store_unlock(f.s);
	store_clear(f.s);
	store_lock(f.s);
	ck_assert_uint_eq(store_entities(f.s, 0, ents, 1), 0);
	store_unlock(f.s);
	fx_free(&f);
}
END_TEST

/* The fine ring starts small and grows as buckets close: every bucket of
 * the last STORE_FINE_BUCKETS stays at its own value through the growths,
 * also across a gap in the samples, and the ring stops at full size. */
START_TEST(store_fine_ring_grows_keeps_buckets)
{
	struct fixture f;
	const struct series *se;
	double hist[STORE_FINE_BUCKETS];
	const uint64_t n = 900;

	fx_init(&f, SEC);
	for (uint64_t i = 0; i < n; i++) {
		if (i >= 100 && i < 110)
			continue; /* a gap: those buckets have no value */
		put(&f, 1, (i + 1) * SEC + 500 * MS, (double)i, (double)i);
		if (i % 50 == 49)
			bus_pump(f.b);
	}
	bus_pump(f.b);
	store_lock(f.s);
	se = store_series(f.s, 0, 1);
	ck_assert_ptr_nonnull(se);
	ck_assert_uint_eq(se->fine_cap, STORE_FINE_BUCKETS);
	/* buckets n-600 .. n-1 (bucket b holds sample b-1), the last one open */
	series_history(se, 1, (n + 1) * SEC, SEC, hist, STORE_FINE_BUCKETS);
	for (uint64_t k = 0; k < STORE_FINE_BUCKETS; k++)
		ck_assert_double_eq_tol(hist[k], (double)(n - STORE_FINE_BUCKETS + k), 1e-9);
	store_unlock(f.s);
	fx_free(&f);
	/* young: within the first ring's span it has not grown */
	fx_init(&f, SEC);
	for (uint64_t i = 0; i < STORE_FINE_FIRST / 2; i++)
		put(&f, 1, (i + 1) * SEC + 500 * MS, (double)i, (double)i);
	for (uint64_t i = 200; i < 230; i++) /* past a gap of 160: first growth */
		put(&f, 1, (i + 1) * SEC + 500 * MS, (double)i, (double)i);
	bus_pump(f.b);
	store_lock(f.s);
	se = store_series(f.s, 0, 1);
	ck_assert_uint_gt(se->fine_cap, STORE_FINE_FIRST);
	series_history(se, 1, 231 * SEC, SEC, hist, 231);
	ck_assert_double_eq_tol(hist[1], 0.0, 1e-9);
	ck_assert_double_eq_tol(hist[STORE_FINE_FIRST / 2], STORE_FINE_FIRST / 2 - 1, 1e-9);
	ck_assert(isnan(hist[100]));
	ck_assert_double_eq_tol(hist[230], 229.0, 1e-9);
	store_unlock(f.s);
	fx_free(&f);
}
END_TEST

/* Samples 0 .. n-1 of entity ent of stream sid, one a second mid-bucket
 * (bucket i+1 holds sample i), both fields at the sample's number; returns
 * its series with the store locked. */
static const struct series *ramp_series(struct fixture *f, uint32_t sid, uint64_t ent, uint64_t n)
{
	const struct series *se;
	double v[2];

	for (uint64_t i = 0; i < n; i++) {
		v[0] = v[1] = (double)i;
		ck_assert_int_eq(emit_sample(&f->e, sid, ent, (i + 1) * SEC + 500 * MS, v, 2), 0);
		if (i % 50 == 49)
			bus_pump(f->b);
	}
	bus_pump(f->b);
	store_lock(f->s);
	se = store_series(f->s, sid, ent);
	ck_assert_ptr_nonnull(se);
	return se;
}

/* hist[k] of a ramp_series series is bucket k+1, which holds sample k: from
 * coarse to fine - 1 each reads its coarse bucket's mean (coarse bucket c
 * holds buckets 10c..10c+9, samples 10c-1..10c+8), from fine to n - 1 its
 * own sample. */
static void check_ramp(const double *hist, uint64_t coarse, uint64_t fine, uint64_t n)
{
	for (uint64_t k = coarse; k < fine; k++)
		ck_assert_double_eq_tol(hist[k], (double)((k + 1) / 10 * 10) + 3.5, 1e-3);
	for (uint64_t k = fine; k < n; k++)
		ck_assert_double_eq_tol(hist[k], (double)k, 1e-9);
}

/* The coarse ring starts small too, and grows as its buckets close: past
 * the fine ring's span every bucket reads its coarse bucket's mean. */
START_TEST(store_coarse_ring_grows_keeps_buckets)
{
	struct fixture f;
	const struct series *se;
	static double hist[1600];
	const uint64_t n = 1600;

	fx_init(&f, SEC);
	se = ramp_series(&f, 0, 1, n);
	/* 160 coarse buckets closed: grown from the first size, not yet full */
	ck_assert_uint_gt(se->coarse_cap, STORE_COARSE_FIRST);
	ck_assert_uint_lt(se->coarse_cap, STORE_COARSE_BUCKETS);
	series_history(se, 1, (n + 1) * SEC, SEC, hist, n);
	check_ramp(hist, 9, n - STORE_FINE_BUCKETS - 1, n);
	store_unlock(f.s);
	fx_free(&f);
}
END_TEST

/* A per-process stream keeps shorter rings (every process has a series):
 * exact buckets for its fine span, coarse means before that, and nothing
 * past the coarse span; its rings stop at their own full sizes. */
static const struct stream_desc p_stream = {"t.p",    1,      ENTITY_PID,  2,
					    t_fields, "test", .rate_hz = 0};

START_TEST(store_pid_series_keep_shorter_history)
{
	struct fixture f;
	const struct series *se;
	static double hist[1200];
	const uint64_t n = 1200, fine_old = n - STORE_PID_FINE_BUCKETS - 1;
	/* coarse buckets 29..118 closed (the one of bucket 1199 is open) */
	const uint64_t coarse_old = (119 - STORE_PID_COARSE_BUCKETS) * STORE_COARSE_FACTOR - 1;

	fx_init(&f, SEC);
	ck_assert_int_eq(stream_table_add(f.t, &p_stream), 1);
	se = ramp_series(&f, 1, 7, n);
	ck_assert_uint_eq(se->fine_cap, STORE_PID_FINE_BUCKETS);
	ck_assert_uint_eq(se->coarse_cap, STORE_PID_COARSE_BUCKETS);
	series_history(se, 1, (n + 1) * SEC, SEC, hist, n);
	for (uint64_t k = 0; k < coarse_old; k++)
		ck_assert_msg(isnan(hist[k]), "bucket %" PRIu64 " past the coarse span", k + 1);
	check_ramp(hist, coarse_old, fine_old, n);
	store_unlock(f.s);
	fx_free(&f);
}
END_TEST

/* A flood of entities stops at the caps and says how much it dropped;
 * rings come only with a closed bucket that differs from the one before;
 * GONE frees room. */
START_TEST(store_caps_and_lazy_history)
{
	struct fixture f;
	uint64_t ents[1];

	fx_init(&f, SEC);
	for (uint64_t e = 0; e < STORE_ENTITIES_MAX + 100; e++) {
		put(&f, e, SEC, 1, 1);
		if (e % 4096 == 4095)
			bus_pump(f.b); /* the ring holds fewer */
	}
	bus_pump(f.b);
	store_lock(f.s);
	ck_assert_uint_eq(store_entities(f.s, 0, ents, 1), STORE_ENTITIES_MAX);
	ck_assert_uint_eq(store_dropped(f.s), 100);
	ck_assert_ptr_null(store_series(f.s, 0, STORE_ENTITIES_MAX));
	ck_assert_uint_eq(f.s->hist_bytes, 0);
	store_unlock(f.s);
	ck_assert_int_eq(emit_gone(&f.e, 0, 3, 2 * SEC), 0);
	put(&f, STORE_ENTITIES_MAX + 7, 2 * SEC, 1, 1);
	put(&f, 5, 3 * SEC, 2, 2);
	put(&f, 5, 4 * SEC, 3, 7); /* a closed bucket unlike the first: rings */
	bus_pump(f.b);
	store_lock(f.s);
	ck_assert_ptr_nonnull(store_series(f.s, 0, STORE_ENTITIES_MAX + 7));
	ck_assert_ptr_null(store_series(f.s, 0, 3));
	ck_assert_uint_gt(f.s->hist_bytes, 0);
	ck_assert_ptr_nonnull(store_series(f.s, 0, 5)->fine);
	ck_assert_ptr_null(store_series(f.s, 0, 6)->fine);
	ck_assert_ptr_null(store_series(f.s, 0, 6)->flat);
	store_unlock(f.s);
	fx_free(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("store");

	/* the 4 s default: 5000 series under ASan on a loaded 2-core machine hit it */
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, store_rates_windows_and_peaks);
	tcase_add_test(tc, store_counter_backwards_is_never_negative);
	tcase_add_test(tc, peak_merges_short_intervals);
	tcase_add_test(tc, store_peak_late_ticks);
	tcase_add_test(tc, store_avg_within_min_and_peak);
	tcase_add_test(tc, store_labels_status_gone_and_late_consumer);
	tcase_add_test(tc, store_many_entities_and_clear);
	tcase_add_test(tc, store_caps_and_lazy_history);
	tcase_add_test(tc, store_fine_ring_grows_keeps_buckets);
	tcase_add_test(tc, store_coarse_ring_grows_keeps_buckets);
	tcase_add_test(tc, store_pid_series_keep_shorter_history);
	tcase_add_test(tc, store_attributes_keep_no_history);
	suite_add_tcase(s, tc);
	return check_run(s, NULL);
}
