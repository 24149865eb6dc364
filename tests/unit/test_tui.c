#include "config.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "widget.h"

static int sum_rows(const int *out, int n)
{
	int used = 0;

	for (int i = 0; i < n; i++)
		if (out[i])
			used += out[i] + LAYOUT_BOX_ROWS;
	return used;
}

START_TEST(layout_fits_80x24)
{
	/* the five panes of the finished tool at 80x24: 22 rows between the
	 * header and the hint line */
	struct layout_req r[5] = {
		{ 1, 8, false }, { 1, 6, false }, { 3, 3, false }, { 3, 300, true }, { 2, 20, false },
	};
	int out[5];
	int used = layout_rows(r, 5, 22, out);

	ck_assert_int_le(used, 22);
	ck_assert_int_eq(sum_rows(out, 5), used);
	for (int i = 0; i < 5; i++)
		ck_assert_int_ge(out[i], r[i].min);
	/* the focused table took the spare rows */
	ck_assert_int_eq(used, 22);
	ck_assert_int_gt(out[3], r[3].min);
}
END_TEST

START_TEST(layout_drops_from_bottom_keeps_focus)
{
	struct layout_req r[4] = {
		{ 5, 5, false }, { 5, 5, true }, { 5, 5, false }, { 5, 5, false },
	};
	int out[4];
	int used = layout_rows(r, 4, 16, out); /* room for two boxes of 7 */

	ck_assert_int_le(used, 16);
	ck_assert_int_gt(out[0], 0);
	ck_assert_int_gt(out[1], 0);
	ck_assert_int_eq(out[2], 0);
	ck_assert_int_eq(out[3], 0);
}
END_TEST

START_TEST(layout_squeezes_focused_alone)
{
	struct layout_req r[2] = { { 3, 3, false }, { 50, 50, true } };
	int out[2];
	int used = layout_rows(r, 2, 20, out);

	ck_assert_int_eq(out[0], 0);
	ck_assert_int_eq(out[1], 18);
	ck_assert_int_eq(used, 20);
	/* no room at all: nothing, never negative */
	used = layout_rows(r, 2, 1, out);
	ck_assert_int_eq(out[0], 0);
	ck_assert_int_eq(out[1], 0);
	ck_assert_int_eq(used, 0);
}
END_TEST

START_TEST(layout_wants_in_order)
{
	struct layout_req r[3] = { { 1, 4, false }, { 1, 4, false }, { 1, 1, true } };
	int out[3];

	layout_rows(r, 3, 15, out); /* 9 rows of boxes at the minimum, 6 spare */
	ck_assert_int_eq(out[0], 4);
	ck_assert_int_eq(out[1], 4);
	ck_assert_int_eq(out[2], 1);
	/* all wants met: the bottom pane takes the rest */
	layout_rows(r, 3, 30, out);
	ck_assert_int_eq(out[0], 4);
	ck_assert_int_eq(out[2], 1 + 30 - 15);
}
END_TEST

START_TEST(fmt_numbers)
{
	struct view v;
	char buf[32];

	memset(&v, 0, sizeof(v));
	widget_fmt_bytes(buf, sizeof(buf), 41.2 * 1024 * 1024 * 1024);
	ck_assert_str_eq(buf, "41.2G");
	widget_fmt_bytes(buf, sizeof(buf), 512);
	ck_assert_str_eq(buf, "512B");
	widget_fmt_bytes(buf, sizeof(buf), NAN);
	ck_assert_str_eq(buf, "n/a");
	widget_fmt_count(buf, sizeof(buf), 57400);
	ck_assert_str_eq(buf, "57.4k");
	widget_fmt_pct(buf, sizeof(buf), 93.2);
	ck_assert_str_eq(buf, "93%");
	widget_fmt_pct(buf, sizeof(buf), NAN);
	ck_assert_str_eq(buf, "n/a");
	v.bits = true;
	widget_fmt_rate(buf, sizeof(buf), &v, 92.4e9 / 8);
	ck_assert_str_eq(buf, "92.4 Gb/s");
	v.bits = false;
	widget_fmt_rate(buf, sizeof(buf), &v, 11.6e9);
	ck_assert_str_eq(buf, "11.6 GB/s");
	widget_fmt_rate(buf, sizeof(buf), &v, NAN);
	ck_assert_str_eq(buf, "n/a");
}
END_TEST

START_TEST(table_keys)
{
	static const struct tui_col cols[3] = { { "PID", 7, true }, { "RSS", 6, true },
						{ "COMMAND", 0, false } };
	struct tui_table t = { .cols = cols, .ncols = 3, .sort_col = 1, .sort_desc = true,
			       .nrows = 100 };

	ck_assert(widget_table_key(&t, KEY_END, 10));
	ck_assert_int_eq(t.selected, 99);
	ck_assert_int_eq(t.top, 90);
	ck_assert(widget_table_key(&t, KEY_HOME, 10));
	ck_assert_int_eq(t.selected, 0);
	ck_assert_int_eq(t.top, 0);
	ck_assert(widget_table_key(&t, KEY_NPAGE, 10));
	ck_assert_int_eq(t.selected, 10);
	ck_assert(widget_table_key(&t, KEY_UP, 10));
	ck_assert_int_eq(t.selected, 9);
	ck_assert(widget_table_key(&t, '>', 10));
	ck_assert_int_eq(t.sort_col, 2);
	ck_assert(!t.sort_desc); /* names in order */
	ck_assert(widget_table_key(&t, '>', 10));
	ck_assert_int_eq(t.sort_col, 0);
	ck_assert(t.sort_desc);
	ck_assert(widget_table_key(&t, '<', 10));
	ck_assert_int_eq(t.sort_col, 2);
	ck_assert(widget_table_key(&t, 'I', 10));
	ck_assert(t.sort_desc);
	ck_assert(!widget_table_key(&t, 'x', 10));
	/* an empty table stays sane */
	t.nrows = 0;
	widget_table_clamp(&t, 10);
	ck_assert_int_eq(t.selected, 0);
	ck_assert_int_eq(t.top, 0);
}
END_TEST

START_TEST(glyphs_ascii_and_utf8)
{
	struct view v;

	memset(&v, 0, sizeof(v));
	ck_assert_str_eq(widget_level_glyph(&v, 0), " ");
	ck_assert_str_eq(widget_level_glyph(&v, 1), "@");
	ck_assert_str_eq(widget_level_glyph(&v, NAN), " ");
	ck_assert_str_eq(widget_level_glyph(&v, 7), "@"); /* clamped */
	v.utf8 = true;
	ck_assert_str_eq(widget_level_glyph(&v, 0), "\u2581");
	ck_assert_str_eq(widget_level_glyph(&v, 1), "\u2588");
	ck_assert_int_eq(widget_text_width("abc"), 3);
}
END_TEST

static Suite *tui_suite(void)
{
	Suite *s = suite_create("tui");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, layout_fits_80x24);
	tcase_add_test(tc, layout_drops_from_bottom_keeps_focus);
	tcase_add_test(tc, layout_squeezes_focused_alone);
	tcase_add_test(tc, layout_wants_in_order);
	tcase_add_test(tc, fmt_numbers);
	tcase_add_test(tc, table_keys);
	tcase_add_test(tc, glyphs_ascii_and_utf8);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(tui_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
