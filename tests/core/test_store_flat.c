/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* The store's flat runs: a series that holds one row for long stretches
 * keeps no history rings, and reads exactly as the rings would. */
#include "config.h"

#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>

#include "store_fx.h"
#include "store_int.h"
#include "../check_run.h"

static const struct stream_desc p_stream = {"t.p",    1,      ENTITY_PID,  2,
					    t_fields, "test", .rate_hz = 0};

/* Sample i of entity e (a counter, then a gauge): 1 never changes; 2 steps
 * at 400, 1600 and 4300; 3 is a NaN gauge; 4 steps every 700 and its counter
 * starts a steady rate at 1300; 5 has gaps; 7 steps once, at 300. */
static void flat_values(uint64_t e, uint64_t i, double *v)
{
	v[0] = 100;
	v[1] = 5;
	if (e == 2)
		v[1] = i < 400 ? 5 : i < 1600 ? 6 : i < 4300 ? 7 : 8;
	if (e == 2 && i >= 400)
		v[0] = 107;
	if (e == 3)
		v[1] = NAN;
	if (e == 4) {
		v[0] = i < 1300 ? 100 : 100 + (double)(i - 1300);
		v[1] = (double)(i / 700);
	}
	if (e == 7)
		v[1] = i < 300 ? 1 : 2;
}

static bool same_value(double a, double b)
{
	return isnan(a) ? isnan(b) : a == b && signbit(a) == signbit(b);
}

/* Every bucket of every field of (sid, e) reads the same from both stores:
 * its mean (series_history) and its one-bucket window (series_window). */
static void flat_compare(struct store *a, struct store *b, uint32_t sid, uint64_t e, uint64_t n)
{
	static double ha[5002], hb[5002];
	const struct series *sa = store_series(a, sid, e), *sb = store_series(b, sid, e);

	ck_assert_ptr_nonnull(sa);
	ck_assert_ptr_nonnull(sb);
	for (uint32_t f = 0; f < 2; f++) {
		series_history(sa, f, (n + 2) * SEC, SEC, ha, n + 2);
		series_history(sb, f, (n + 2) * SEC, SEC, hb, n + 2);
		for (uint64_t k = 0; k < n + 2; k++)
			ck_assert_msg(same_value(ha[k], hb[k]),
				      "stream %u entity %" PRIu64 " field %u bucket %" PRIu64
				      ": %g with a run, %g in rings",
				      sid, e, f, k, ha[k], hb[k]);
		for (uint64_t k = 1; k < n + 2; k++) {
			struct field_stats wa, wb;
			int ra = series_window(sa, f, (k + 1) * SEC, SEC, &wa);
			int rb = series_window(sb, f, (k + 1) * SEC, SEC, &wb);

			ck_assert_int_eq(ra, rb);
			ck_assert_msg(same_value(wa.avg, wb.avg) && same_value(wa.min, wb.min) &&
					  same_value(wa.max, wb.max) && wa.n == wb.n,
				      "stream %u entity %" PRIu64 " field %u window %" PRIu64, sid,
				      e, f, k);
		}
	}
}

/* A series that holds one row for long stretches keeps a flat run instead
 * of its rings, goes back to one after its rings' span of equal rows, and
 * reads exactly as rings would: the same records go to a second store that
 * keeps rings from the first closed bucket (no_flat), and every bucket is
 * compared, for a node-wide and a per-process stream. */
START_TEST(store_flat_runs_read_as_rings)
{
	struct fixture f;
	struct store *rings;
	const uint64_t n = 5000;
	double v[2];

	fx_init(&f, SEC);
	ck_assert_int_eq(stream_table_add(f.t, &p_stream), 1);
	rings = store_new(f.t, SEC);
	ck_assert_ptr_nonnull(rings);
	rings->no_flat = true;
	ck_assert_int_ge(bus_attach(f.b, &store_consumer_ops, rings), 0);
	for (uint64_t i = 0; i < n; i++) {
		for (uint32_t sid = 0; sid < 2; sid++) {
			for (uint64_t e = 1; e <= 7; e++) {
				if (e == 6 || (e == 5 && ((i >= 200 && i < 203) || i == 2000)))
					continue;
				flat_values(e, i, v);
				ck_assert_int_eq(
				    emit_sample(&f.e, sid, e, (i + 1) * SEC + 500 * MS, v, 2), 0);
			}
			/* ten samples a bucket, at a steady rate */
			for (uint64_t j = 0; j < 10; j++) {
				v[0] = (double)(i * 10 + j) * 10;
				v[1] = 3;
				ck_assert_int_eq(
				    emit_sample(&f.e, sid, 6, (i + 1) * SEC + j * 100 * MS, v, 2),
				    0);
			}
		}
		if (i % 50 == 49)
			bus_pump(f.b);
		/* per-process entity 7 goes back to a run at bucket 1210, when the
		 * coarse ring drops the coarse bucket of its step (buckets 300 to
		 * 309): a run taken earlier reads that bucket wrong until then */
		if (i >= 1195 && i < 1215) {
			bus_pump(f.b);
			flat_compare(f.s, rings, 1, 7, i);
			ck_assert_msg(!store_series(f.s, 1, 7)->flat == (i < 1210),
				      "run at %" PRIu64, i);
		}
	}
	bus_pump(f.b);
	store_lock(f.s);
	for (uint32_t sid = 0; sid < 2; sid++)
		for (uint64_t e = 1; e <= 7; e++)
			flat_compare(f.s, rings, sid, e, n);
	/* never changed: a run all along */
	ck_assert_ptr_nonnull(store_series(f.s, 0, 1)->flat);
	ck_assert_ptr_null(store_series(f.s, 0, 1)->fine);
	ck_assert_ptr_nonnull(store_series(f.s, 1, 3)->flat);
	/* one row for the span of the rings since 300: a run again */
	ck_assert_ptr_nonnull(store_series(f.s, 0, 7)->flat);
	ck_assert_ptr_null(store_series(f.s, 0, 7)->fine);
	ck_assert_ptr_nonnull(store_series(f.s, 1, 7)->flat);
	/* a step 700 buckets ago: rings (and the node series never went back) */
	ck_assert_ptr_nonnull(store_series(f.s, 1, 2)->fine);
	ck_assert_ptr_nonnull(store_series(f.s, 0, 2)->fine);
	ck_assert_ptr_nonnull(store_series(f.s, 0, 5)->fine);
	ck_assert_uint_lt(f.s->hist_bytes, rings->hist_bytes / 2);
	store_unlock(f.s);
	fx_free(&f);
	store_free(rings);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("store_flat");
	TCase *tc = tcase_create("store_flat");

	/* 70,000 series reads a check under ASan on a loaded 2-core machine */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, store_flat_runs_read_as_rings);
	suite_add_tcase(s, tc);
	return check_run(s, NULL);
}
