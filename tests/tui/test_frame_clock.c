/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
#include "config.h"

#include <check.h>
#include <stdint.h>

#include "frame_clock.h"
#include "tui.h"
#include "../check_run.h"

#define S 1000000000ull
#define MS 1000000ull

struct wake_spy {
	int fd; /* what frame_wake returns */
	uint64_t at;
	int calls;
};

static int spy_wake(void *ctx, uint64_t at_ns)
{
	struct wake_spy *w = ctx;

	w->at = at_ns;
	w->calls++;
	return w->fd;
}

/* With a wake: each frame's window is the half refresh either side of its
 * time on the grid; the wake is asked for the window's start, and the timer
 * ends it. A wake draws the frame only inside the window. */
START_TEST(frame_clock_windows_on_the_grid)
{
	struct wake_spy w = {.fd = 7};
	struct tui_driver d = {.ctx = &w, .frame_wake = spy_wake};
	struct frame_clock fc = {.fd = -1};
	uint64_t t0 = 100 * S;

	ck_assert(frame_clock_due(&fc, t0)); /* the first frame: at once */
	frame_clock_next(&fc, S, &d, t0);
	ck_assert_uint_eq(fc.due, t0 + S);
	ck_assert_uint_eq(w.at, t0 + S / 2);
	ck_assert_int_eq(fc.fd, 7);
	ck_assert_int_eq(frame_clock_wait_ms(&fc, t0, 2000), 1500);
	ck_assert_int_eq(frame_clock_wait_ms(&fc, t0, 1000), 1000);
	ck_assert(!frame_clock_due(&fc, t0 + S));
	fc.woken = true;
	ck_assert(!frame_clock_due(&fc, t0 + S / 2 - 1));
	ck_assert(frame_clock_due(&fc, t0 + S / 2));

	/* drawn early in its window: the next keeps the grid, not now + period */
	frame_clock_next(&fc, S, &d, t0 + S / 2 + 3 * MS);
	ck_assert_uint_eq(fc.due, t0 + 2 * S);
	ck_assert_uint_eq(w.at, t0 + 3 * S / 2);
	ck_assert(!fc.woken);
	/* no wake came: the timer at the window's end */
	ck_assert(!frame_clock_due(&fc, t0 + 5 * S / 2 - 1));
	ck_assert(frame_clock_due(&fc, t0 + 5 * S / 2));
	ck_assert_int_eq(frame_clock_wait_ms(&fc, t0 + 5 * S / 2, 2000), 0);

	/* a stall past the window (Ctrl-Z): a new grid from now */
	frame_clock_next(&fc, S, &d, t0 + 10 * S);
	ck_assert_uint_eq(fc.due, t0 + 11 * S);
	ck_assert_int_eq(w.calls, 3);

	/* a key's frame: at once, then a grid from it */
	fc.due = 0;
	ck_assert(frame_clock_due(&fc, t0 + 10 * S + 1));
}
END_TEST

/* Without a wake (a replay, or a driver that cannot give one): the timer
 * draws each frame at its time, a refresh apart. */
START_TEST(frame_clock_timer_without_a_wake)
{
	struct wake_spy w = {.fd = -1};
	struct tui_driver d = {.ctx = &w, .frame_wake = spy_wake};
	struct tui_driver none = {0};
	struct frame_clock fc = {.fd = -1};
	uint64_t t0 = 100 * S;

	frame_clock_next(&fc, S / 2, &d, t0);
	ck_assert_int_eq(w.calls, 1);
	ck_assert_int_eq(fc.fd, -1);
	ck_assert_uint_eq(fc.at, t0 + S / 2);
	ck_assert_uint_eq(fc.end, t0 + S / 2);
	fc.woken = true; /* no wake can come; a stray one draws nothing early */
	ck_assert(!frame_clock_due(&fc, t0 + S / 2 - 1));
	ck_assert(frame_clock_due(&fc, t0 + S / 2));
	ck_assert_int_eq(frame_clock_wait_ms(&fc, t0 + 1, 2000), 500);

	frame_clock_next(&fc, S / 2, &none, t0 + S / 2 + MS);
	ck_assert_uint_eq(fc.due, t0 + S);
	ck_assert_uint_eq(fc.end, t0 + S);
	frame_clock_next(&fc, S / 2, NULL, t0 + S + MS);
	ck_assert_uint_eq(fc.due, t0 + 3 * S / 2);
	ck_assert_int_eq(fc.fd, -1);
}
END_TEST

static Suite *frame_clock_suite(void)
{
	Suite *s = suite_create("frame_clock");
	TCase *tc = tcase_create("frame_clock");

	tcase_add_test(tc, frame_clock_windows_on_the_grid);
	tcase_add_test(tc, frame_clock_timer_without_a_wake);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(frame_clock_suite(), NULL);
}
