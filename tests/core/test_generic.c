/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* The generic pieces of the core: the keyed table (removal keeps the rest
 * findable, a bound and a fixed array say full), the buffer (a bound, an
 * insert, a failed one hands nothing out) and the loader (a library found,
 * a symbol missing, a name that does not load). */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "dl_load.h"
#include "ktab.h"
#include "../check_run.h"

struct item {
	struct ktab_key k;
	uint64_t v;
};

START_TEST(ktab_remove_keeps_the_run)
{
	struct ktab t;
	struct item *it;

	ktab_init(&t, sizeof(struct item), 16, KTAB_PAIR);
	for (uint64_t e = 0; e < 1000; e++) {
		ck_assert_int_eq(ktab_get(&t, (uint32_t)(e % 7), e, (void **)&it), 1);
		it->v = e * 3;
	}
	for (uint64_t e = 0; e < 1000; e += 2)
		ktab_remove(&t, ktab_find(&t, (uint32_t)(e % 7), e));
	ck_assert_uint_eq(t.n, 500);
	for (uint64_t e = 0; e < 1000; e++) {
		it = ktab_find(&t, (uint32_t)(e % 7), e);
		if (e % 2 == 0) {
			ck_assert_ptr_null(it);
			continue;
		}
		ck_assert_ptr_nonnull(it);
		ck_assert_uint_eq(it->v, e * 3);
		/* the other half of the pair is part of the key */
		ck_assert_ptr_null(ktab_find(&t, (uint32_t)(e % 7) + 1, e));
	}
	ktab_fini(&t);
}
END_TEST

START_TEST(ktab_says_full)
{
	struct item slots[8], *it;
	struct ktab t;
	size_t i = 0, n = 0;

	ktab_init(&t, sizeof(struct item), 0, KTAB_U64);
	t.max = 3;
	for (uint64_t pid = 1; pid <= 3; pid++)
		ck_assert_int_eq(ktab_get(&t, 0, pid, (void **)&it), 1);
	ck_assert_int_eq(ktab_get(&t, 0, 2, (void **)&it), 0);
	ck_assert_int_eq(ktab_get(&t, 0, 4, (void **)&it), -ENOSPC);
	ck_assert_ptr_null(it);
	while (ktab_next(&t, &i))
		n++;
	ck_assert_uint_eq(n, 3);
	ktab_fini(&t);

	/* the caller's array: half of it, and never an allocation */
	memset(slots, 0, sizeof(slots));
	ktab_init_fixed(&t, slots, 8, sizeof(struct item), KTAB_MIXED);
	for (uint64_t e = 0; e < 4; e++)
		ck_assert_int_eq(ktab_get(&t, 0, e << 3, (void **)&it), 1);
	ck_assert_int_eq(ktab_get(&t, 0, 99, (void **)&it), -ENOSPC);
	ck_assert_ptr_eq(t.v, (void *)slots);
	ck_assert_ptr_nonnull(ktab_find(&t, 0, 3 << 3));
	ktab_fini(&t);
}
END_TEST

START_TEST(buf_bound_insert_take)
{
	struct buf b = {.max = 10};
	char *s;

	buf_puts(&b, "world");
	ck_assert_str_eq(buf_str(&b), "world");
	ck_assert_int_eq(buf_insert(&b, 0, "hello", 5), 0);
	ck_assert_str_eq(buf_str(&b), "helloworld");
	ck_assert_int_eq(buf_insert(&b, 5, " ", 1), -EFBIG);
	ck_assert_uint_eq(b.len, 10);
	b.max = 0;
	buf_printf(&b, " %d%s", 42, "!");
	ck_assert_str_eq(buf_str(&b), "helloworld 42!");
	s = buf_take(&b);
	ck_assert_str_eq(s, "helloworld 42!");
	free(s);
	ck_assert_uint_eq(b.len, 0);
	ck_assert_str_eq(buf_str(&b), "");
	/* a failed buffer adds nothing more and hands nothing out */
	buf_puts(&b, "x");
	b.failed = true;
	buf_puts(&b, "y");
	ck_assert_str_eq(buf_str(&b), "x");
	ck_assert_ptr_null(buf_take(&b));
	buf_free(&b);
}
END_TEST

START_TEST(dl_load_finds_and_says_why)
{
	static const char *const libc[] = {"asys-no-such-library.so.0", "libc.so.6", NULL};
	static const char *const none[] = {"asys-no-such-library.so.0", NULL};
	size_t (*len)(const char *) = NULL;
	void *nosuch = &len, *h;
	struct dl_sym syms[] = {DL_SYM("strlen", &len),
				DL_SYM_OPTIONAL("asys_no_such_symbol", &nosuch), DL_SYM_END};
	struct dl_sym need[] = {DL_SYM("strlen", &len), DL_SYM("asys_no_such_symbol", &nosuch),
				DL_SYM_END};
	struct dl_why w;
	char text[256];

	h = dl_load(libc, RTLD_NOW | RTLD_LOCAL, syms, &w);
	ck_assert_ptr_nonnull(h);
	ck_assert_str_eq(w.name, "libc.so.6");
	ck_assert_uint_eq(len("four"), 4);
	ck_assert_ptr_null(nosuch);
	dlclose(h);

	ck_assert_ptr_null(dl_load(libc, RTLD_NOW | RTLD_LOCAL, need, &w));
	ck_assert_ptr_null(len); /* none set when none loaded */
	dl_why_text(&w, text, sizeof(text), "load advice", "symbol advice");
	ck_assert_str_eq(text, "libc.so.6 lacks asys_no_such_symbol: symbol advice");

	ck_assert_ptr_null(dl_load(none, RTLD_NOW | RTLD_LOCAL, NULL, &w));
	dl_why_text(&w, text, sizeof(text), "load advice", "symbol advice");
	ck_assert_msg(!strncmp(text, "cannot load asys-no-such-library.so.0 (", 39), "%s", text);
	ck_assert_msg(strstr(text, "): load advice"), "%s", text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("generic");
	TCase *tc = tcase_create("generic");

	tcase_add_test(tc, ktab_remove_keeps_the_run);
	tcase_add_test(tc, ktab_says_full);
	tcase_add_test(tc, buf_bound_insert_take);
	tcase_add_test(tc, dl_load_finds_and_says_why);
	suite_add_tcase(s, tc);
	return check_run(s, NULL);
}
