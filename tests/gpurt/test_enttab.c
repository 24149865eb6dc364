/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* The probes' entity tables (the core's keyed table, keyed by an entity
 * that is already a mixed hash): records found again by their entity through
 * growth and colliding slots, fresh ones zeroed, a sweep that drops what its
 * callback says once per record and keeps the rest findable. */
#include "config.h"

#include <check.h>
#include <stdint.h>

#include "ktab.h"
#include "../check_run.h"

struct rec {
	struct ktab_key ek;
	uint32_t pid;
	uint64_t payload;
};

#define N 5000

/* entities whose low bits all agree: every one probes past the others */
static uint64_t ent(uint32_t i)
{
	return ((uint64_t)i << 24) | 0x5a;
}

static bool drop_odd_pid(void *rec, void *ctx)
{
	struct rec *r = rec;
	unsigned *calls = ctx;

	(*calls)++;
	return r->pid & 1;
}

START_TEST(enttab_finds_grows_and_sweeps)
{
	struct ktab t;
	struct rec *r;
	unsigned calls = 0;

	ktab_init(&t, sizeof(struct rec), 4, KTAB_MIXED);
	ck_assert_ptr_null(ktab_find(&t, 0, ent(1)));
	for (uint32_t i = 0; i < N; i++) {
		ck_assert_int_eq(ktab_get(&t, 0, ent(i), (void **)&r), 1);
		ck_assert_ptr_nonnull(r);
		ck_assert_uint_eq(r->ek.key, ent(i));
		ck_assert_uint_eq(r->pid, 0);
		ck_assert_uint_eq(r->payload, 0);
		r->pid = i;
		r->payload = ent(i) ^ 0xffff;
	}
	ck_assert_uint_eq(t.n, N);
	ck_assert_uint_le(t.n * 2, t.cap);
	for (uint32_t i = 0; i < N; i++) {
		ck_assert_int_eq(ktab_get(&t, 0, ent(i), (void **)&r), 0);
		ck_assert_ptr_eq(r, ktab_find(&t, 0, ent(i)));
		ck_assert_uint_eq(r->pid, i);
		ck_assert_uint_eq(r->payload, ent(i) ^ 0xffff);
	}
	ck_assert_uint_eq(t.n, N);
	ck_assert_ptr_null(ktab_find(&t, 0, ent(N)));

	ck_assert_int_eq(ktab_sweep(&t, drop_odd_pid, &calls), 0);
	ck_assert_uint_eq(calls, N);
	ck_assert_uint_eq(t.n, N / 2);
	for (uint32_t i = 0; i < N; i++) {
		r = ktab_find(&t, 0, ent(i));
		if (i & 1) {
			ck_assert_ptr_null(r);
			continue;
		}
		ck_assert_ptr_nonnull(r);
		ck_assert_uint_eq(r->pid, i);
	}
	/* a dropped entity comes back fresh */
	ck_assert_int_eq(ktab_get(&t, 0, ent(1), (void **)&r), 1);
	ck_assert_uint_eq(r->pid, 0);
	ktab_fini(&t);
	ck_assert_uint_eq(t.n, 0);
	ck_assert_ptr_null(ktab_find(&t, 0, ent(0)));
	ktab_fini(&t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("enttab");
	TCase *tc = tcase_create("enttab");

	tcase_add_test(tc, enttab_finds_grows_and_sweeps);
	suite_add_tcase(s, tc);
	return check_run(s, NULL);
}
