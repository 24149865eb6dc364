/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <stddef.h>

#include "frame_clock.h"
#include "tui.h"

/* With a driver's wake, a frame comes with the first pump of the sampling
 * thread in the half refresh before its time: that thread wakes the screen,
 * at about a sixth of the CPU of a wake by a timer on a VM, right after the
 * frame's records are in the store. The frames keep to a grid of the
 * refresh, so a 1 Hz sampling tick falls in each window [due - period/2,
 * due + period/2) once and frames keep the sampling's cadence. The timer
 * draws a frame that no pump brought at the window's end. Without a wake
 * (a replay), the timer draws each frame at its time. */
void frame_clock_next(struct frame_clock *fc, uint64_t period, const struct tui_driver *d,
		      uint64_t now)
{
	/* after a stall of more than the window (a suspend), start again */
	if (fc->due && fc->due + period + period / 2 > now)
		fc->due += period;
	else
		fc->due = now + period;
	fc->at = fc->due - period / 2;
	fc->fd = d && d->frame_wake ? d->frame_wake(d->ctx, fc->at) : -1;
	if (fc->fd < 0)
		fc->at = fc->due;
	fc->end = fc->fd < 0 ? fc->due : fc->due + period / 2;
	fc->woken = false;
}

bool frame_clock_due(const struct frame_clock *fc, uint64_t now)
{
	/* a wake asked for before a key's frame comes too early: at says */
	return !fc->due || now >= fc->end || (fc->woken && now >= fc->at);
}

int frame_clock_wait_ms(const struct frame_clock *fc, uint64_t now, int max_ms)
{
	uint64_t ms = fc->end > now ? (fc->end - now + 999999) / 1000000 : 0;

	return ms > (uint64_t)max_ms ? max_ms : (int)ms;
}
