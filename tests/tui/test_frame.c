/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* The windows a frame keeps from one frame to the next: one that stays
 * where it was comes back as newwin would leave it (blank, plain
 * attributes, the cursor home), and one that moved or changed size is made
 * again where it is asked for; each shares stdscr's cells instead of
 * holding a copy, and after they are freed for a resize they are made at
 * the new size; a pane's box keeps its inner window with it, and both move
 * together. */
#include "config.h"

#include <check.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "stream.h"
#include "tui_int.h"
#include "util.h"
#include "../check_run.h"

static SCREEN *scr;
static FILE *out, *in;

static void screen_open(void)
{
	setlocale(LC_ALL, "C");
	out = fopen("/dev/null", "w");
	in = fopen("/dev/null", "r");
	ck_assert(out && in);
	scr = newterm("xterm", out, in);
	ck_assert_ptr_nonnull(scr);
	set_term(scr);
	resizeterm(24, 80);
}

static void screen_close(void)
{
	endwin();
	delscreen(scr);
	fclose(out);
	fclose(in);
}

static void assert_place(WINDOW *w, int rows, int cols, int y, int x)
{
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(getmaxy(w), rows);
	ck_assert_int_eq(getmaxx(w), cols);
	ck_assert_int_eq(getbegy(w), y);
	ck_assert_int_eq(getbegx(w), x);
}

START_TEST(kept_window_comes_back_blank)
{
	WINDOW *kept = NULL, *w, *again;

	screen_open();
	w = tui_win_keep(&kept, 3, 20, 1, 2);
	assert_place(w, 3, 20, 1, 2);
	ck_assert_ptr_eq(w, kept);
	wattron(w, A_BOLD | A_REVERSE);
	mvwaddstr(w, 1, 3, "stale");
	ck_assert_int_eq((int)(mvwinch(w, 1, 3) & A_CHARTEXT), 's');

	again = tui_win_keep(&kept, 3, 20, 1, 2);
	ck_assert_ptr_eq(again, w);
	ck_assert_int_eq(getcury(w), 0);
	ck_assert_int_eq(getcurx(w), 0);
	ck_assert_int_eq((int)getattrs(w), (int)A_NORMAL);
	for (int y = 0; y < 3; y++)
		for (int x = 0; x < 20; x++)
			ck_assert_int_eq((int)mvwinch(w, y, x), ' ');
	delwin(kept);
	screen_close();
}
END_TEST

START_TEST(kept_window_follows_its_place)
{
	WINDOW *kept = NULL;

	screen_open();
	assert_place(tui_win_keep(&kept, 3, 20, 1, 2), 3, 20, 1, 2);
	/* moved, then taller, then narrower */
	assert_place(tui_win_keep(&kept, 3, 20, 4, 2), 3, 20, 4, 2);
	assert_place(tui_win_keep(&kept, 5, 20, 4, 2), 5, 20, 4, 2);
	assert_place(tui_win_keep(&kept, 5, 10, 4, 2), 5, 10, 4, 2);
	assert_place(tui_win_keep(&kept, 10, 80, 0, 0), 10, 80, 0, 0);
	/* nothing is made outside the screen */
	ck_assert_ptr_null(tui_win_keep(&kept, 10, 81, 0, 0));
	ck_assert_ptr_null(kept);
	screen_close();
}
END_TEST

START_TEST(kept_window_shares_the_screen)
{
	struct tui *t = calloc(1, sizeof(*t));
	WINDOW *w;

	ck_assert_ptr_nonnull(t);
	screen_open();
	untouchwin(stdscr); /* the resize of screen_open marked it */
	w = tui_win_keep(&t->win.msg, 2, 30, 20, 5);
	mvwaddstr(w, 1, 4, "kept");
	/* the text is in stdscr's cells: no copy of the screen is held; and
	 * stdscr is not marked, so reading a key does not repaint it */
	ck_assert(!is_wintouched(stdscr));
	ck_assert_int_eq((int)(mvwinch(stdscr, 21, 9) & A_CHARTEXT), 'k');
	/* the terminal shrinks: the windows go first, then curses resizes
	 * stdscr, and the frame asks for the new width */
	ck_assert_ptr_nonnull(tui_win_keep(&t->win.head, 1, 80, 0, 0));
	tui_wins_free(t);
	ck_assert_int_eq(resizeterm(20, 60), OK);
	assert_place(tui_win_keep(&t->win.head, 1, 60, 0, 0), 1, 60, 0, 0);
	assert_place(tui_win_keep(&t->win.msg, 2, 60, 18, 0), 2, 60, 18, 0);
	ck_assert_int_eq((int)mvwinch(t->win.msg, 1, 0), ' ');
	/* made again elsewhere, over cells another window drew: blank */
	mvwaddstr(t->win.msg, 0, 0, "stale");
	assert_place(tui_win_keep(&t->win.head, 3, 60, 17, 0), 3, 60, 17, 0);
	for (int x = 0; x < 60; x++)
		ck_assert_int_eq((int)mvwinch(t->win.head, 1, x), ' ');
	tui_wins_free(t);
	screen_close();
	free(t);
}
END_TEST

START_TEST(pane_box_keeps_its_inner_window)
{
	struct tui *t = calloc(1, sizeof(*t));
	WINDOW *box, *inner, *inner2;

	ck_assert_ptr_nonnull(t);
	screen_open();
	box = tui_pane_win(t, 2, 6, 30, 1, 0, &inner);
	assert_place(box, 6, 30, 1, 0);
	assert_place(inner, 4, 28, 2, 1);
	wattron(inner, A_BOLD);
	mvwaddstr(inner, 2, 2, "stale");
	ck_assert_ptr_eq(tui_pane_win(t, 2, 6, 30, 1, 0, &inner2), box);
	ck_assert_ptr_eq(inner2, inner);
	ck_assert_int_eq((int)getattrs(inner), (int)A_NORMAL);
	ck_assert_int_eq((int)mvwinch(inner, 2, 2), ' ');
	/* moved: the box is made again, so its inner window first goes */
	box = tui_pane_win(t, 2, 8, 40, 10, 5, &inner);
	assert_place(box, 8, 40, 10, 5);
	assert_place(inner, 6, 38, 11, 6);
	tui_wins_free(t);
	screen_close();
	free(t);
}
END_TEST

START_TEST(kept_windows_freed)
{
	struct tui *t = calloc(1, sizeof(*t));

	ck_assert_ptr_nonnull(t);
	screen_open();
	t->win.box[3] = derwin(stdscr, 6, 30, 1, 0);
	t->win.inner[3] = derwin(t->win.box[3], 4, 28, 1, 1);
	t->win.head = derwin(stdscr, 1, 80, 0, 0);
	t->win.msg = derwin(stdscr, 2, 80, 21, 0);
	tui_wins_free(t);
	ck_assert_ptr_null(t->win.box[3]);
	ck_assert_ptr_null(t->win.inner[3]);
	ck_assert_ptr_null(t->win.head);
	ck_assert_ptr_null(t->win.msg);
	/* twice is harmless: the screen goes after the frame's windows */
	tui_wins_free(t);
	screen_close();
	free(t);
}
END_TEST

/* A pane that says more when it has fewer rows: its status takes one line
 * with 20 inner rows or more and three with fewer. */
static const char long_status[] =
    "w01 w02 w03 w04 w05 w06 w07 w08 w09 w10 w11 w12 w13 w14 w15 w16 w17 w18 w19 w20 "
    "w21 w22 w23 w24 w25 w26 w27 w28 w29 w30 w31 w32 w33 w34 w35 w36 w37 w38 w39 w40 "
    "w41 w42 w43 w44 w45";

static int talky_min(const struct pane *p, const struct view *v, int cols)
{
	(void)p, (void)v, (void)cols;
	return 1;
}

static int talky_want(const struct pane *p, const struct view *v, int cols)
{
	(void)p, (void)v, (void)cols;
	return 100;
}

static void talky_draw(struct pane *p, WINDOW *w, struct view *v)
{
	(void)w;
	util_strlcpy(v->status, p->rows >= 20 ? "enough rows" : long_status, sizeof(v->status));
	v->status_shown = false;
}

static const struct pane_class talky = {.name = "talky",
					.title = "Talky",
					.hotkey = '1',
					.min_rows = talky_min,
					.want_rows = talky_want,
					.draw = talky_draw};

START_TEST(status_that_grows_is_not_cut)
{
	struct tui *t = calloc(1, sizeof(*t));
	struct stream_table *st = stream_table_new();
	struct tui_ctx ctx = {0};
	char line[128], all[512] = "";
	int rows;

	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(st);
	screen_open();
	t->ctx = &ctx;
	t->v.streams = st;
	t->v.store = store_new(st, 1000000000ull);
	ck_assert_ptr_nonnull(t->v.store);
	t->npanes = 1;
	t->panes[0].cls = &talky;
	/* no status yet: the pane gets 20 inner rows and says one line; given
	 * a line less, it says three; with three lines less, still three */
	tui_frame(t);
	ck_assert_ptr_nonnull(t->win.msg);
	rows = getmaxy(t->win.msg);
	ck_assert_int_eq(rows, 3);
	for (int y = 0; y < rows; y++) {
		mvwinnstr(t->win.msg, y, 0, line, (int)sizeof(line) - 1);
		strcat(all, line);
	}
	ck_assert_msg(strstr(all, "w01") && strstr(all, "w45") && !strchr(all, '~'),
		      "status cut: '%s'", all);
	tui_wins_free(t);
	screen_close();
	store_free(t->v.store);
	stream_table_free(st);
	free(t);
}
END_TEST

static Suite *frame_suite(void)
{
	Suite *s = suite_create("frame");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, kept_window_comes_back_blank);
	tcase_add_test(tc, kept_window_follows_its_place);
	tcase_add_test(tc, kept_window_shares_the_screen);
	tcase_add_test(tc, pane_box_keeps_its_inner_window);
	tcase_add_test(tc, kept_windows_freed);
	tcase_add_test(tc, status_that_grows_is_not_cut);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(frame_suite(), NULL);
}
