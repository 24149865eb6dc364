/* SPDX-License-Identifier: GPL-2.0-only */
/* Peaks of counters: the highest rate over windows of at least the nominal
 * sampling period of the stream. A tick that comes late is followed by a
 * short interval, and a rate over a few microseconds is no rate a link or a
 * core ever had: so an interval shorter than the period is merged with its
 * neighbours until the window reaches the period. Used by the store (for the
 * panes) and by export --summary, so both show the same figure. */
#ifndef ASYS_STORE_PEAK_H
#define ASYS_STORE_PEAK_H

#include <stdint.h>

/* The window state of one counter of one series. */
struct peak_win {
	double pend_d;	  /* intervals since the last window closed, */
	uint64_t pend_ns; /* together shorter than the period */
	double last_d;	  /* the last window closed; */
	uint64_t last_ns; /* 0: none since the start or a break */
};

void peak_win_reset(struct peak_win *w);
/* One interval of a counter: it grew by dv in dt_ns. Returns the rate per
 * second over a window of at least period_ns that ends with this interval,
 * or NaN while there is none: the pending intervals once they reach the
 * period (a window that closes), else the last closed window extended by
 * them. So each sample after the first window brings one candidate, and a
 * window is never shorter than the period. period_ns 0: every interval is a
 * window (no period known). */
double peak_win_add(struct peak_win *w, double dv, uint64_t dt_ns, uint64_t period_ns);
/* A counter reset or an unknown value: no window spans it. */
void peak_win_break(struct peak_win *w);

/* The nominal period of a stream whose rate was not recorded (a file made
 * before it was): the median of the first PEAK_EST_N sample intervals. */
#define PEAK_EST_N 15
struct peak_est {
	uint64_t dt[PEAK_EST_N];
	uint32_t n;
};

/* Adds an interval while fewer than PEAK_EST_N are known; returns the
 * median of those seen (0 before the first). */
uint64_t peak_est_add(struct peak_est *e, uint64_t dt_ns);

/* The period of a rate in Hz; 0 for an unknown rate. */
uint64_t peak_period_ns(double rate_hz);

#endif
