/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
#include "config.h"

#include <check.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "layout.h"
#include "pane.h"
#include "record.h"
#include "store.h"
#include "stream.h"
#include "util.h"
#include "widget.h"
#include "collector.h"
#include "store_feed.h"
#include "../check_run.h"

extern const struct pane_class cpu_pane;

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
	    {1, 8, false, false},  {1, 6, false, false},  {3, 3, false, false},
	    {3, 300, true, false}, {2, 20, false, false},
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
	    {5, 5, false, false},
	    {5, 5, true, false},
	    {5, 5, false, false},
	    {5, 5, false, false},
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

/* At 80x24 with a two-line workload message, a build without eBPF: the
 * kernels pane (its message takes three rows) does not fit, the ranges pane
 * under it does, and takes the rows instead of a blank band. */
START_TEST(layout_drop_lets_a_smaller_pane_below_in)
{
	struct layout_req r[6] = {
	    {1, 4, true, false},  {1, 1, false, false}, {2, 2, false, false},
	    {2, 3, false, false}, {3, 3, false, false}, {1, 4, false, false},
	};
	int out[6];
	int used = layout_rows(r, 6, 17, out);

	ck_assert_int_eq(out[4], 0);
	ck_assert_int_eq(out[5], 1);
	ck_assert_int_eq(used, 17);
	ck_assert_int_eq(sum_rows(out, 6), used);
	/* the order of the shown panes is kept, and none is under its minimum */
	for (int i = 0; i < 6; i++)
		ck_assert(out[i] == 0 || out[i] >= r[i].min);
}
END_TEST

/* The same screen once the kernels pane asks for one line: it has only a
 * reason to show, so it goes before the ranges pane, which has rows. */
START_TEST(layout_drops_idle_panes_first)
{
	struct layout_req r[6] = {
	    {1, 4, true, true},	  {1, 1, false, false}, {2, 2, false, false},
	    {1, 3, false, false}, {1, 1, false, true},	{1, 4, false, false},
	};
	int out[6];
	int used = layout_rows(r, 6, 17, out);

	ck_assert_int_eq(out[4], 0);
	ck_assert_int_ge(out[5], 1);
	ck_assert_int_gt(out[0], 0); /* focused: kept, idle or not */
	ck_assert_int_le(used, 17);
	ck_assert_int_eq(sum_rows(out, 6), used);
}
END_TEST

/* 80x24, live, no runtime in use: the kernels and ranges panes have only a
 * reason to show. While the process table would get less than half the
 * rows, they give it theirs, whether it has the focus or the PPU pane (a
 * line) has; on a taller screen, or focused themselves, they stay. */
START_TEST(layout_idle_panes_give_way_to_focus)
{
	struct layout_req r[6] = {
	    {1, 1, false, false},  {1, 1, false, false}, {2, 2, false, false},
	    {3, 300, true, false}, {1, 1, false, true},	 {1, 1, false, true},
	};
	int out[6];
	int used = layout_rows(r, 6, 22, out);

	ck_assert_int_eq(out[4], 0);
	ck_assert_int_eq(out[5], 0);
	ck_assert_int_eq(out[3], 22 - 3 - 3 - 4 - 2);
	ck_assert_int_eq(used, 22);
	/* one idle pane is enough once the table has half the rows */
	used = layout_rows(r, 6, 26, out);
	ck_assert_int_eq(out[4], 1);
	ck_assert_int_eq(out[5], 0);
	ck_assert_int_ge((out[3] + LAYOUT_BOX_ROWS) * 2, 26);
	ck_assert_int_eq(sum_rows(out, 6), used);
	/* a taller screen: the table has half without their rows */
	layout_rows(r, 6, 41, out);
	ck_assert_int_eq(out[4], 1);
	ck_assert_int_eq(out[5], 1);
	/* the PPU pane focused: it has its line; the table is the one short */
	r[3].focused = false;
	r[0].focused = true;
	layout_rows(r, 6, 22, out);
	ck_assert_int_eq(out[4], 0);
	ck_assert_int_eq(out[5], 0);
	layout_rows(r, 6, 41, out);
	ck_assert_int_eq(out[4], 1);
	ck_assert_int_eq(out[5], 1);
	/* the kernels pane focused (its key): it stays, the ranges pane goes */
	r[0].focused = false;
	r[4].focused = true;
	layout_rows(r, 6, 22, out);
	ck_assert_int_eq(out[4], 1);
	ck_assert_int_eq(out[5], 0);
	ck_assert_int_eq(out[3], 22 - 3 - 3 - 4 - 3 - LAYOUT_BOX_ROWS);
}
END_TEST

START_TEST(layout_squeezes_focused_alone)
{
	struct layout_req r[2] = {{3, 3, false, false}, {50, 50, true, false}};
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
	struct layout_req r[3] = {{1, 4, false, false}, {1, 4, false, false}, {1, 1, true, false}};
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

START_TEST(layout_pairs_when_wide)
{
	const char *names[5] = {"ppu", "nic", "cpu", "mem", "kernels"};
	struct layout_req r[5] = {
	    {4, 4, false, false},  {1, 6, false, false}, {1, 1, true, false},
	    {3, 20, false, false}, {2, 2, false, false},
	};
	struct layout_box b[5];
	int nb = layout_bands(names, 5, 160, b);

	/* 160 wide: PPU and NIC share the first band, the larger part the PPU's */
	ck_assert_int_eq(nb, 4);
	ck_assert_int_eq(b[0].band, 0);
	ck_assert_int_eq(b[1].band, 0);
	ck_assert_int_eq(b[0].x, 0);
	ck_assert_int_eq(b[1].x, b[0].cols);
	ck_assert_int_eq(b[0].cols + b[1].cols, 160);
	ck_assert_int_gt(b[0].cols, b[1].cols);
	for (int i = 2; i < 5; i++) {
		ck_assert_int_eq(b[i].band, i - 1);
		ck_assert_int_eq(b[i].x, 0);
		ck_assert_int_eq(b[i].cols, 160);
	}
	ck_assert_int_eq(layout_place(r, 5, 46, b), 46);
	/* one height for the band: the larger want of the two */
	ck_assert_int_eq(b[0].y, 0);
	ck_assert_int_eq(b[1].y, 0);
	ck_assert_int_eq(b[0].rows, b[1].rows);
	ck_assert_int_eq(b[0].rows, 6 + LAYOUT_BOX_ROWS);
	ck_assert_int_eq(b[2].y, b[0].rows);
	ck_assert_int_eq(b[3].y, b[2].y + b[2].rows);
	ck_assert_int_eq(b[4].y, b[3].y + b[3].rows);
	ck_assert_int_eq(b[4].y + b[4].rows, 46);
}
END_TEST

START_TEST(layout_stacks_when_narrow)
{
	const char *names[4] = {"ppu", "nic", "cpu", "mem"};
	const char *no_ppu[3] = {"nic", "cpu", "mem"};
	const char *apart[3] = {"ppu", "cpu", "nic"};
	struct layout_req r[4] = {
	    {4, 4, false, false}, {1, 6, false, false}, {1, 1, true, false}, {3, 3, false, false}};
	struct layout_box b[4];

	/* below 160 columns every pane has a band of its own, full width */
	ck_assert_int_eq(layout_bands(names, 4, 159, b), 4);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(b[i].band, i);
		ck_assert_int_eq(b[i].cols, 159);
	}
	layout_place(r, 4, 38, b);
	ck_assert_int_eq(b[1].y, b[0].y + b[0].rows);
	ck_assert_int_eq(b[0].rows, 4 + LAYOUT_BOX_ROWS);
	ck_assert_int_eq(b[1].rows, 6 + LAYOUT_BOX_ROWS);
	/* wide, but one of the pair is not shown, or they are not neighbours */
	ck_assert_int_eq(layout_bands(no_ppu, 3, 200, b), 3);
	ck_assert_int_eq(b[0].cols, 200);
	ck_assert_int_eq(layout_bands(apart, 3, 200, b), 3);
	ck_assert_int_eq(b[2].cols, 200);
	/* a band too tall for the screen is dropped whole, the focused kept */
	ck_assert_int_eq(layout_bands(names, 4, 160, b), 3);
	layout_place(r, 4, 6, b);
	ck_assert_int_eq(b[0].rows, 0);
	ck_assert_int_eq(b[1].rows, 0);
	ck_assert_int_gt(b[2].rows, 0);
}
END_TEST

START_TEST(fmt_numbers)
{
	struct view v;
	char buf[32];

	memset(&v, 0, sizeof(v));
	util_fmt_bytes(buf, sizeof(buf), 41.2 * 1024 * 1024 * 1024);
	ck_assert_str_eq(buf, "41.2G");
	util_fmt_bytes(buf, sizeof(buf), 512);
	ck_assert_str_eq(buf, "512B");
	util_fmt_bytes(buf, sizeof(buf), NAN);
	ck_assert_str_eq(buf, "n/a");
	/* the one style of sizes, also in record and export messages */
	util_fmt_bytes(buf, sizeof(buf), 14 * 1024);
	ck_assert_str_eq(buf, "14.0K");
	util_fmt_bytes(buf, sizeof(buf), 150 * 1024);
	ck_assert_str_eq(buf, "150K");
	util_fmt_bytes(buf, sizeof(buf), 1023);
	ck_assert_str_eq(buf, "1023B");
	util_fmt_bytes(buf, sizeof(buf), 1023.7);
	ck_assert_str_eq(buf, "1.0K");
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
	static const struct tui_col cols[3] = {
	    {"PID", 7, true}, {"RSS", 6, true}, {"COMMAND", 0, false}};
	struct tui_table t = {
	    .cols = cols, .ncols = 3, .sort_col = 1, .sort_desc = true, .nrows = 100};

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

/* A curses screen writing to /dev/null, to draw widgets and read them back. */
static SCREEN *test_scr;
static FILE *test_out, *test_in;

static WINDOW *screen_open(bool utf8)
{
	if (utf8 && !setlocale(LC_ALL, "C.UTF-8"))
		return NULL;
	if (!utf8)
		setlocale(LC_ALL, "C");
	test_out = fopen("/dev/null", "w");
	test_in = fopen("/dev/null", "r");
	ck_assert(test_out && test_in);
	test_scr = newterm("xterm", test_out, test_in);
	if (!test_scr)
		return NULL;
	set_term(test_scr);
	return newwin(4, 40, 0, 0);
}

static void screen_close(WINDOW *w)
{
	if (w)
		delwin(w);
	if (test_scr) {
		endwin();
		delscreen(test_scr);
		test_scr = NULL;
	}
	fclose(test_out);
	fclose(test_in);
}

/* Row y from x, n cells, as UTF-8. */
static void row_text(WINDOW *w, int y, int x, int n, char *buf, size_t size)
{
	size_t off = 0;

	for (int i = 0; i < n && off + MB_LEN_MAX + 1 < size; i++) {
		cchar_t cc;
		wchar_t wc[CCHARW_MAX + 1];
		attr_t a;
		short pair;
		mbstate_t st;

		if (mvwin_wch(w, y, x + i, &cc) == ERR)
			break;
		getcchar(&cc, wc, &a, &pair, NULL);
		memset(&st, 0, sizeof(st));
		off += wcrtomb(buf + off, wc[0], &st);
		if (wcwidth(wc[0]) == 2)
			i++; /* its right half */
	}
	buf[off] = '\0';
}

START_TEST(draw_ascii)
{
	WINDOW *w = screen_open(false);
	struct view v;
	double fr[3] = {0.5, 0.2, NAN};
	enum tui_color c[3] = {TC_USER, TC_SYSTEM, TC_IOWAIT};
	double over[2] = {0.8, 0.8};
	double sp[3] = {0, 5, 10};
	char buf[256];

	if (!w) {
		screen_close(w);
		fprintf(stderr, "draw_ascii: no xterm terminfo here, not checked\n");
		return;
	}
	memset(&v, 0, sizeof(v));
	widget_bar(w, &v, 0, 0, 10, fr, c, 3);
	row_text(w, 0, 0, 12, buf, sizeof(buf));
	ck_assert_str_eq(buf, "#####==     ");
	/* more than the whole: clipped to the bar */
	widget_bar(w, &v, 1, 0, 10, over, c, 2);
	row_text(w, 1, 0, 12, buf, sizeof(buf));
	ck_assert_str_eq(buf, "########==  ");
	werase(w);
	widget_text(w, 0, 2, 5, "abcdefgh", false);
	row_text(w, 0, 0, 9, buf, sizeof(buf));
	ck_assert_str_eq(buf, "  abcde  ");
	widget_text(w, 1, 0, 5, "ab", true);
	row_text(w, 1, 0, 6, buf, sizeof(buf));
	ck_assert_str_eq(buf, "   ab ");
	/* controls from outside are shown escaped, never sent to the terminal */
	widget_text(w, 2, 0, 8, "a\tb\nc", false);
	row_text(w, 2, 0, 8, buf, sizeof(buf));
	ck_assert_str_eq(buf, "a\\tb\\nc ");
	werase(w);
	widget_text(w, 2, 0, 16, "\033[2J\xc2\x9bx", false);
	row_text(w, 2, 0, 16, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\\e[2J\\xC2\\x9Bx  ");
	ck_assert_int_eq(widget_text_width("\033]0;t\a"), 10);
	widget_spark(w, &v, 3, 0, 3, sp, 3, 10, TC_ACCENT);
	row_text(w, 3, 0, 3, buf, sizeof(buf));
	ck_assert_str_eq(buf, " -#");
	screen_close(w);
}
END_TEST

START_TEST(draw_utf8)
{
	WINDOW *w = screen_open(true);
	struct view v;
	double fr[1] = {0.55};
	enum tui_color c[1] = {TC_USER};
	double full[2] = {4, 4}, half[2] = {2, NAN};
	char buf[256];

	if (!w) {
		screen_close(w);
		fprintf(stderr, "draw_utf8: no C.UTF-8 locale or xterm terminfo, not checked\n");
		return;
	}
	memset(&v, 0, sizeof(v));
	v.utf8 = true;
	v.color = true;
	widget_colors_init(true, SET_THEME_DEFAULT);
	/* 5.5 cells: five full blocks and a half block */
	widget_bar(w, &v, 0, 0, 10, fr, c, 1);
	row_text(w, 0, 0, 7, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\u2588\u2588\u2588\u2588\u2588\u258c ");
	/* wide characters count two columns */
	widget_text(w, 1, 0, 3, "\u00e9\u65e5\u672c", false);
	row_text(w, 1, 0, 4, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\u00e9\u65e5 ");
	ck_assert_int_eq(widget_text_width("\u00e9\u65e5\u672c"), 5);
	/* braille: two values per cell, full and half height, NaN a gap */
	widget_spark(w, &v, 2, 0, 1, full, 2, 4, TC_ACCENT);
	widget_spark(w, &v, 2, 1, 1, half, 2, 4, TC_ACCENT);
	row_text(w, 2, 0, 2, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\u28ff\u2844");
	screen_close(w);
}
END_TEST

/* The CPU pane over a real store fed with records as the collectors send
 * them: shares, offline cores, IPC, and the reason when IPC is n/a. */
/* The CPU collector's own schemas, so a pane test breaks when they change. */
extern const struct collector cpu_collector;
#define core_desc (*cpu_collector.streams[0])
#define perf_desc (*cpu_collector.streams[1])

START_TEST(cpu_pane_over_store)
{
	struct stream_table *t = stream_table_new();
	struct store *st;
	int core = stream_table_add(t, &core_desc);
	int perf = stream_table_add(t, &perf_desc);
	struct view v;
	struct pane p;
	char title[256], footer[256];
	WINDOW *w;

	ck_assert_int_ge(core, 0);
	ck_assert_int_ge(perf, 0);
	st = store_new(t, 1000000000ull);
	ck_assert_ptr_nonnull(st);
	/* 4 cores over 5 s: core k is busy 20*k % in user, 5 % in nice and
	 * 5 % in system; core 3 goes offline at the end. IPC is 1.5
	 * everywhere. */
	for (int s = 1; s <= 5; s++) {
		for (int k = 0; k < 4; k++) {
			double u = 20.0 * k * s, ni = 5.0 * s, sy = 5.0 * s;
			double idle = (100.0 - 20 * k - 10) * s;
			double vals[11] = {
			    u, ni, sy, idle, 0, 0, 0, 0, 0, 0, k == 3 && s == 5 ? 0 : 1};
			double pv[2] = {1e9 * s, 1.5e9 * s};

			feed(st, REC_SAMPLE, (uint32_t)core, (uint64_t)k,
			     (uint64_t)s * 1000000000ull, vals, 11, NULL);
			feed(st, REC_SAMPLE, (uint32_t)perf, (uint64_t)k,
			     (uint64_t)s * 1000000000ull, pv, 2, NULL);
		}
	}
	memset(&v, 0, sizeof(v));
	v.store = st;
	v.streams = t;
	v.end_ns = 5500000000ull;
	v.window_ns = 1000000000ull;
	memset(&p, 0, sizeof(p));
	p.cls = &cpu_pane;
	p.focused = true;
	store_lock(st);
	p.priv = cpu_pane.init(&v);
	cpu_pane.title_extra(&p, &v, title, sizeof(title));
	ck_assert_msg(strstr(title, "3/4 cores online"), "title: %s", title);
	ck_assert_msg(strstr(title, "IPC 1.50"), "title: %s", title);
	/* online cores 0..2: busy 10, 30, 50 % -> avg 30 %; nice apart from
	 * user, as sar and top show it */
	ck_assert_msg(strstr(title, "avg 30%  us 20 ni 5 sy 5 wa 0 st 0"), "title: %s", title);
	/* the history line and one row of the strip */
	ck_assert_int_eq(cpu_pane.min_rows(&p, &v, 78), 2);

	w = screen_open(false);
	if (w) {
		WINDOW *big = newwin(5, 40, 0, 0);
		char buf[256];
		int marks = 0;

		ck_assert_ptr_nonnull(big);
		p.rows = 5;
		p.cols = 40;
		cpu_pane.draw(&p, big, &v);
		cpu_pane.footer(&p, &v, footer, sizeof(footer));
		/* row 0: the total's history; no total row here, so the four
		 * cores summed: 40 % busy every second, the second ASCII level */
		row_text(big, 0, 0, 40, buf, sizeof(buf));
		ck_assert_msg(!strncmp(buf, "all ", 4), "row 0: %s", buf);
		for (int i = 4; i < 35; i++) {
			ck_assert_msg(strchr(" .", buf[i]), "row 0: %s", buf);
			marks += buf[i] == '.';
		}
		ck_assert_msg(marks >= 3 && marks <= 5, "row 0: %s", buf);
		ck_assert_msg(strstr(buf, " 30%"), "row 0: %s", buf);
		row_text(big, 1, 0, 40, buf, sizeof(buf));
		ck_assert_msg(strstr(buf, "10%"), "row 1: %s", buf);
		row_text(big, 3, 0, 40, buf, sizeof(buf));
		ck_assert_msg(strstr(buf, "50%"), "row 3: %s", buf);
		row_text(big, 4, 0, 40, buf, sizeof(buf));
		ck_assert_msg(strstr(buf, "offline"), "row 4: %s", buf);
		ck_assert_str_eq(v.status, "");
		delwin(big);
	}

	/* the PMU goes away: IPC n/a, the reason once on the status line */
	store_unlock(st); /* store_consume takes the lock */
	feed(st, REC_STATUS, (uint32_t)perf, STATUS_STREAM, 5000000001ull, NULL, 0,
	     "IPC n/a: no hardware PMU on this machine");
	store_lock(st);
	v.end_ns = 5600000000ull;
	cpu_pane.title_extra(&p, &v, title, sizeof(title));
	ck_assert_msg(strstr(title, "IPC n/a"), "title: %s", title);
	if (w) {
		cpu_pane.draw(&p, w, &v);
		ck_assert_str_eq(v.status, "IPC n/a: no hardware PMU on this machine");
	}
	cpu_pane.fini(p.priv);
	store_unlock(st);
	screen_close(w);
	store_free(st);
	stream_table_free(t);
}
END_TEST

/* Every pane is in every build: a recording with NIC streams replays on a
 * build without libmnl, and its pane is then shown. */
START_TEST(registry_has_every_pane)
{
	static const char *const want[] = {"ppu", "nic", "cpu", "mem", "kernels", "ranges"};
	size_t n = 0;

	while (pane_registry[n])
		n++;
	ck_assert_uint_eq(n, ARRAY_SIZE(want));
	for (size_t i = 0; i < n; i++) {
		ck_assert_str_eq(pane_registry[i]->name, want[i]);
		ck_assert_int_eq(pane_registry[i]->hotkey, (int)('1' + i));
	}
}
END_TEST

static Suite *tui_suite(void)
{
	Suite *s = suite_create("tui");
	TCase *tc = tcase_create("core");

	/* past the 4 s default on a loaded 2-core machine under sanitizers */
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, layout_fits_80x24);
	tcase_add_test(tc, layout_drops_from_bottom_keeps_focus);
	tcase_add_test(tc, layout_drop_lets_a_smaller_pane_below_in);
	tcase_add_test(tc, layout_drops_idle_panes_first);
	tcase_add_test(tc, layout_idle_panes_give_way_to_focus);
	tcase_add_test(tc, layout_squeezes_focused_alone);
	tcase_add_test(tc, layout_wants_in_order);
	tcase_add_test(tc, layout_pairs_when_wide);
	tcase_add_test(tc, layout_stacks_when_narrow);
	tcase_add_test(tc, fmt_numbers);
	tcase_add_test(tc, table_keys);
	tcase_add_test(tc, glyphs_ascii_and_utf8);
	tcase_add_test(tc, draw_ascii);
	tcase_add_test(tc, draw_utf8);
	tcase_add_test(tc, cpu_pane_over_store);
	tcase_add_test(tc, registry_has_every_pane);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(tui_suite(), NULL);
}
