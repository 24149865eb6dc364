/* needs: none */
/* The probes' entity tables: records found again by their entity through
 * growth and colliding slots, fresh ones zeroed, a sweep that drops what its
 * callback says once per record and keeps the rest findable. */
#include "config.h"

#include <check.h>
#include <stdint.h>

#include "enttab.h"
#include "../check_run.h"

struct rec {
	struct enttab_key ek;
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
	struct enttab t;
	bool fresh;
	unsigned calls = 0;

	enttab_init(&t, sizeof(struct rec), 4);
	ck_assert_ptr_null(enttab_find(&t, ent(1)));
	for (uint32_t i = 0; i < N; i++) {
		struct rec *r = enttab_get(&t, ent(i), &fresh);

		ck_assert_ptr_nonnull(r);
		ck_assert(fresh);
		ck_assert_uint_eq(r->ek.entity, ent(i));
		ck_assert_uint_eq(r->pid, 0);
		ck_assert_uint_eq(r->payload, 0);
		r->pid = i;
		r->payload = ent(i) ^ 0xffff;
	}
	ck_assert_uint_eq(t.n, N);
	ck_assert_uint_le(t.n * 2, t.cap);
	for (uint32_t i = 0; i < N; i++) {
		struct rec *r = enttab_get(&t, ent(i), &fresh);

		ck_assert(!fresh);
		ck_assert_ptr_eq(r, enttab_find(&t, ent(i)));
		ck_assert_uint_eq(r->pid, i);
		ck_assert_uint_eq(r->payload, ent(i) ^ 0xffff);
	}
	ck_assert_uint_eq(t.n, N);
	ck_assert_ptr_null(enttab_find(&t, ent(N)));

	ck_assert_int_eq(enttab_sweep(&t, drop_odd_pid, &calls), 0);
	ck_assert_uint_eq(calls, N);
	ck_assert_uint_eq(t.n, N / 2);
	for (uint32_t i = 0; i < N; i++) {
		struct rec *r = enttab_find(&t, ent(i));

		if (i & 1) {
			ck_assert_ptr_null(r);
			continue;
		}
		ck_assert_ptr_nonnull(r);
		ck_assert_uint_eq(r->pid, i);
	}
	/* a dropped entity comes back fresh */
	ck_assert(((struct rec *)enttab_get(&t, ent(1), &fresh))->pid == 0 && fresh);
	enttab_fini(&t);
	ck_assert_uint_eq(t.n, 0);
	ck_assert_ptr_null(enttab_find(&t, ent(0)));
	enttab_fini(&t);
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
