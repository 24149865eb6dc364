/* SPDX-License-Identifier: GPL-2.0-only */
/* Steering a player from the screen: pause, step, speed, seek, and what it
 * says of where it is. Each call takes the lock the player thread reads
 * under. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rec_player_int.h"

void rec_player_pause(struct rec_player *p, bool paused)
{
	pthread_mutex_lock(&p->lock);
	if (paused != p->paused) {
		uint64_t t = clock_locked(p);

		p->paused = paused;
		reanchor_locked(p, t);
	}
	pthread_mutex_unlock(&p->lock);
}

bool rec_player_paused(struct rec_player *p)
{
	bool v;

	pthread_mutex_lock(&p->lock);
	v = p->paused;
	pthread_mutex_unlock(&p->lock);
	return v;
}

void rec_player_toggle(struct rec_player *p)
{
	rec_player_pause(p, !rec_player_paused(p));
}

void rec_player_seek(struct rec_player *p, uint64_t t)
{
	pthread_mutex_lock(&p->lock);
	if (t < p->t0)
		t = p->t0;
	if (p->t1 && t > p->t1)
		t = p->t1;
	p->seek_to = t;
	p->seek_pending = true;
	/* the clock shows the target at once; the thread catches up */
	p->at_end = false;
	reanchor_locked(p, t);
	pthread_mutex_unlock(&p->lock);
}

void rec_player_step(struct rec_player *p, int dir)
{
	uint64_t t;

	pthread_mutex_lock(&p->lock);
	p->paused = true;
	t = clock_locked(p);
	if (dir > 0) {
		/* forward: just move the clock; the thread emits up to it */
		t += p->refresh_ns;
		if (p->t1 && t > p->t1)
			t = p->t1;
		reanchor_locked(p, t);
		pthread_mutex_unlock(&p->lock);
		return;
	}
	pthread_mutex_unlock(&p->lock);
	rec_player_seek(p, t > p->refresh_ns ? t - p->refresh_ns : 0);
}

void rec_player_speed(struct rec_player *p, double factor)
{
	pthread_mutex_lock(&p->lock);
	{
		uint64_t t = clock_locked(p);
		double s = p->speed * factor;

		if (s > REC_PLAYER_SPEED_MAX)
			s = REC_PLAYER_SPEED_MAX;
		if (s < 1.0 / REC_PLAYER_SPEED_MAX)
			s = 1.0 / REC_PLAYER_SPEED_MAX;
		p->speed = s;
		reanchor_locked(p, t);
	}
	pthread_mutex_unlock(&p->lock);
}

double rec_player_speed_get(struct rec_player *p)
{
	double s;

	pthread_mutex_lock(&p->lock);
	s = p->speed;
	pthread_mutex_unlock(&p->lock);
	return s;
}

void rec_player_seek_rel(struct rec_player *p, int64_t d)
{
	uint64_t t = rec_player_now(p), ad = d < 0 ? 0 - (uint64_t)d : (uint64_t)d;

	/* in unsigned steps: a file's times need not fit an int64_t */
	if (d < 0)
		t = ad > t ? 0 : t - ad;
	else if (__builtin_add_overflow(t, ad, &t))
		t = UINT64_MAX;
	rec_player_seek(p, t);
}

int rec_player_seek_expr(struct rec_player *p, const char *expr)
{
	uint64_t t0, t1, now = rec_player_now(p), t;
	const struct rec_meta *m = rec_reader_meta(p->r);
	int rc;

	rec_player_span(p, &t0, &t1);
	rc = rec_parse_time(expr, m->have ? m->clock_origin_ns : 0, t0, t1, now, now, &t);
	if (rc)
		return rc;
	rec_player_seek(p, t);
	return 0;
}

uint64_t rec_player_now(struct rec_player *p)
{
	uint64_t t;

	pthread_mutex_lock(&p->lock);
	t = clock_locked(p);
	pthread_mutex_unlock(&p->lock);
	return t;
}

void rec_player_span(struct rec_player *p, uint64_t *t0, uint64_t *t1)
{
	pthread_mutex_lock(&p->lock);
	*t0 = p->t0;
	*t1 = p->t1;
	pthread_mutex_unlock(&p->lock);
}

bool rec_player_at_end(struct rec_player *p)
{
	bool v;

	pthread_mutex_lock(&p->lock);
	v = p->at_end;
	pthread_mutex_unlock(&p->lock);
	return v;
}

uint64_t rec_player_holes(struct rec_player *p)
{
	uint64_t v;

	pthread_mutex_lock(&p->lock);
	v = p->holes;
	pthread_mutex_unlock(&p->lock);
	return v;
}

double rec_player_progress(struct rec_player *p)
{
	uint64_t t0, t1, t = rec_player_now(p);

	rec_player_span(p, &t0, &t1);
	if (t1 <= t0)
		return 0;
	return (double)(t - t0) / (double)(t1 - t0);
}

const struct rec_meta *rec_player_meta(const struct rec_player *p)
{
	const struct rec_meta *m = rec_reader_meta(p->r);

	/* the player thread may publish the meta meanwhile (rec_reader.c) */
	return __atomic_load_n(&m->have, __ATOMIC_ACQUIRE) ? m : NULL;
}

void rec_player_status(struct rec_player *p, char *buf, size_t n)
{
	uint64_t t0, t1, t = rec_player_now(p), holes = rec_player_holes(p), len, dropped = 0;
	char now[40], sp[16], hs[128] = "";
	bool paused = rec_player_paused(p), end = rec_player_at_end(p);
	double speed;

	rec_player_span(p, &t0, &t1);
	pthread_mutex_lock(&p->lock);
	speed = p->speed;
	pthread_mutex_unlock(&p->lock);
	rec_fmt_time(p->r, t, now, sizeof(now), false);
	now[8] = 0; /* HH:MM:SS */
	len = (t1 > t0 ? t1 - t0 : 0) / 1000000000ull;
	if (speed >= 1)
		snprintf(sp, sizeof(sp), "x%g", speed);
	else
		snprintf(sp, sizeof(sp), "x1/%g", 1 / speed);
	if (holes)
		snprintf(hs, sizeof(hs), " %llu hole%s", (unsigned long long)holes,
			 holes == 1 ? "" : "s");
	if (p->store) {
		store_lock(p->store);
		dropped = store_dropped(p->store);
		store_unlock(p->store);
	}
	/* the store's caps (store.h) left some entities out: say so */
	if (dropped)
		snprintf(hs + strlen(hs), sizeof(hs) - strlen(hs),
			 " | over %d entities per stream: %llu records not shown",
			 STORE_ENTITIES_MAX, (unsigned long long)dropped);
	snprintf(buf, n, "REPLAY %s %s / %02llu:%02llu:%02llu %s %s%s", p->name, now,
		 (unsigned long long)(len / 3600), (unsigned long long)(len / 60 % 60),
		 (unsigned long long)(len % 60), sp,
		 end	  ? "\u25a0"
		 : paused ? "\u275a\u275a"
			  : "\u25b6",
		 hs);
}
