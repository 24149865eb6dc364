/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <string.h>

#include "store_peak.h"

void peak_win_reset(struct peak_win *w)
{
	memset(w, 0, sizeof(*w));
}

void peak_win_break(struct peak_win *w)
{
	peak_win_reset(w);
}

double peak_win_add(struct peak_win *w, double dv, uint64_t dt_ns, uint64_t period_ns)
{
	w->pend_d += dv;
	w->pend_ns += dt_ns;
	if (!w->pend_ns)
		return NAN; /* two samples at one time: no window */
	if (w->pend_ns >= period_ns) {
		double r = w->pend_d * 1e9 / (double)w->pend_ns;

		w->last_d = w->pend_d;
		w->last_ns = w->pend_ns;
		w->pend_d = 0;
		w->pend_ns = 0;
		return r;
	}
	if (!w->last_ns)
		return NAN;
	return (w->last_d + w->pend_d) * 1e9 / (double)(w->last_ns + w->pend_ns);
}

uint64_t peak_est_add(struct peak_est *e, uint64_t dt_ns)
{
	uint64_t s[PEAK_EST_N];
	uint32_t n;

	if (e->n < PEAK_EST_N && dt_ns)
		e->dt[e->n++] = dt_ns;
	n = e->n;
	if (!n)
		return 0;
	/* insertion sort of at most PEAK_EST_N values */
	memcpy(s, e->dt, n * sizeof(s[0]));
	for (uint32_t i = 1; i < n; i++) {
		uint64_t v = s[i];
		uint32_t j = i;

		for (; j && s[j - 1] > v; j--)
			s[j] = s[j - 1];
		s[j] = v;
	}
	return n % 2 ? s[n / 2] : s[n / 2 - 1] / 2 + s[n / 2] / 2;
}

uint64_t peak_period_ns(double rate_hz)
{
	/* below a µHz the period would not fit: as good as unknown */
	return rate_hz >= 1e-6 && isfinite(rate_hz) ? (uint64_t)llround(1e9 / rate_hz) : 0;
}
