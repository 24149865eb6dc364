/* SPDX-License-Identifier: GPL-2.0-only */
/* When the screen draws its next frame (see frame_clock.c). */
#ifndef ASYS_FRAME_CLOCK_H
#define ASYS_FRAME_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct tui_driver;

struct frame_clock {
	uint64_t due; /* the frame's time on the grid; 0: at once (a key, a resize) */
	uint64_t at;  /* the earliest a pump's wake draws it */
	uint64_t end; /* when the timer draws it */
	int fd;	      /* the driver's wake for this frame, or -1 */
	bool woken;   /* the wake came */
};

/* After a frame drawn at now (CLOCK_MONOTONIC ns), refreshing every
 * period: the next frame's window, and its wake asked of d (may be NULL). */
void frame_clock_next(struct frame_clock *fc, uint64_t period, const struct tui_driver *d,
		      uint64_t now);
bool frame_clock_due(const struct frame_clock *fc, uint64_t now);
/* The poll timeout until the timer's end of the window, at most max_ms. */
int frame_clock_wait_ms(const struct frame_clock *fc, uint64_t now, int max_ms);

#endif
