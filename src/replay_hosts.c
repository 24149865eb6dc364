/* SPDX-License-Identifier: GPL-2.0-only */
/* The recordings of a replay, one host each (see replay_hosts.h). */
#include "config.h"

#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "collector.h"
#include "replay_hosts.h"
#include "strsafe.h"
#include "util.h"

#define SWITCH_JUMP_NS 10000000000ll /* Shift+Left/Right */

int replay_hosts_open(struct replay_hosts *hs, char *const *paths, int n, const char *prog)
{
	char msg[512], warn[512], shown[1100];

	if (n > REPLAY_FILES_MAX) {
		fprintf(stderr, "%s: %d recordings; at most %d are replayed at once\n", prog, n,
			REPLAY_FILES_MAX);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		struct replay_host *h = &hs->h[i];

		h->path = paths[i];
		h->p = rec_player_open(paths[i], msg, sizeof(msg), warn, sizeof(warn));
		/* the reader's messages start with the file's name */
		if (!h->p) {
			fprintf(stderr, "%s: %s\n", prog, str_escape(shown, sizeof(shown), msg, 0));
			return 1;
		}
		hs->n = i + 1;
		if (*warn)
			fprintf(stderr, "%s: %s\n", prog,
				str_escape(shown, sizeof(shown), warn, 0));
	}
	return 0;
}

int replay_hosts_wire(struct replay_hosts *hs, int i)
{
	struct replay_host *h = &hs->h[i];
	const struct stream_table *st = rec_player_streams(h->p);

	if (h->wired)
		return 0;
	h->store = store_new(st, hs->refresh_ns);
	h->none = store_new(st, hs->refresh_ns);
	h->bus = bus_new();
	h->ring = ring_new(16u << 20);
	if (!h->store || !h->none || !h->bus || !h->ring || bus_add_ring(h->bus, h->ring) ||
	    bus_attach(h->bus, &store_consumer_ops, h->store) < 0)
		return -ENOMEM;
	h->wired = true;
	return bus_start(h->bus, 5000000);
}

void replay_hosts_free(struct replay_hosts *hs)
{
	for (int i = 0; i < hs->n; i++) {
		struct replay_host *h = &hs->h[i];

		rec_player_stop(h->p);
		bus_free(h->bus);
		store_free(h->store);
		store_free(h->none);
		ring_free(h->ring);
		rec_player_free(h->p);
	}
	memset(hs, 0, sizeof(*hs));
}

/* ---- the shared time ---- */

static int64_t origin_of(struct rec_player *p)
{
	const struct rec_meta *m = rec_player_meta(p);

	return m ? m->clock_origin_ns : 0;
}

/* Wall-clock ns of a recorded time, saturated (a forged origin). */
static int64_t wall_of(struct rec_player *p, uint64_t t)
{
	int64_t w;

	if (t > (uint64_t)INT64_MAX || __builtin_add_overflow((int64_t)t, origin_of(p), &w))
		return t > (uint64_t)INT64_MAX || origin_of(p) > 0 ? INT64_MAX : INT64_MIN;
	return w;
}

/* The wall time the shown host stands at. */
static int64_t shown_wall(struct replay_hosts *hs)
{
	struct replay_host *h = &hs->h[hs->cur];

	return h->away ? h->away_wall : wall_of(h->p, rec_player_now(h->p));
}

/* Puts host h at wall time w: inside its recording, a seek there, paused
 * or not; outside, away (paused). */
static void host_put(struct replay_host *h, int64_t w, bool paused)
{
	uint64_t t0, t1, t;
	int64_t o = origin_of(h->p);

	rec_player_span(h->p, &t0, &t1);
	if (w < wall_of(h->p, t0) || w > wall_of(h->p, t1)) {
		h->away = true;
		h->away_wall = w;
		h->away_paused = paused;
		rec_player_pause(h->p, true);
		return;
	}
	h->away = false;
	/* w - o in unsigned steps: exact while w >= o, and the span clamps
	 * what a saturated wall time makes of it */
	t = w >= o ? (uint64_t)w - (uint64_t)o : t0;
	rec_player_seek(h->p, t < t0 ? t0 : t > t1 ? t1 : t);
	rec_player_pause(h->p, paused);
}

static void host_start(struct replay_hosts *hs, int i, double speed)
{
	struct replay_host *h = &hs->h[i];

	/* without memory or a thread it stays unstarted: the header says so */
	if (!h->started && replay_hosts_wire(hs, i) == 0)
		h->started =
		    rec_player_start(h->p, h->ring, h->store, hs->refresh_ns, speed, NULL) == 0;
}

void replay_hosts_switch(struct replay_hosts *hs, int dir)
{
	struct replay_host *from = &hs->h[hs->cur], *to;
	int64_t w;
	bool paused;
	double speed;

	if (hs->n < 2)
		return;
	w = shown_wall(hs);
	paused = from->away ? from->away_paused : rec_player_paused(from->p);
	speed = rec_player_speed_get(from->p);
	rec_player_pause(from->p, true);
	hs->cur = (hs->cur + dir + hs->n) % hs->n;
	to = &hs->h[hs->cur];
	/* paused before its thread starts, so that it never runs ahead */
	rec_player_pause(to->p, true);
	host_start(hs, hs->cur, speed);
	if (!to->started)
		return;
	rec_player_speed(to->p, speed / rec_player_speed_get(to->p));
	host_put(to, w, paused);
}

void replay_hosts_data(struct replay_hosts *hs, struct store **store,
		       const struct stream_table **streams)
{
	struct replay_host *h = &hs->h[hs->cur];

	*streams = rec_player_streams(h->p);
	*store = h->away || !h->started ? h->none : h->store;
}

/* "14:03:10" of a wall-clock time, local. */
static void fmt_hms(char *buf, size_t n, int64_t wall)
{
	time_t s = (time_t)(wall / 1000000000);
	struct tm tm;

	if (!localtime_r(&s, &tm) || !strftime(buf, n, "%H:%M:%S", &tm))
		snprintf(buf, n, "?");
}

/* Where an away host's data lies: the times, and its file's name. */
static void away_times(struct replay_host *h, char *at, char *a, char *b, char *name)
{
	uint64_t t0, t1;
	const char *base = strrchr(h->path, '/');

	rec_player_span(h->p, &t0, &t1);
	fmt_hms(at, 16, h->away_wall);
	fmt_hms(a, 16, wall_of(h->p, t0));
	fmt_hms(b, 16, wall_of(h->p, t1));
	str_escape(name, 256, base ? base + 1 : h->path, 60);
}

void replay_hosts_status(struct replay_hosts *hs, char *buf, size_t n)
{
	struct replay_host *h = &hs->h[hs->cur];
	char pre[32] = "", at[16], a[16], b[16], name[256];
	size_t len;

	if (hs->n > 1)
		snprintf(pre, sizeof(pre), "[%d/%d] ", hs->cur + 1, hs->n);
	if (!h->away && h->started) {
		len = strlen(pre);
		snprintf(buf, n, "%s", pre);
		if (len < n)
			rec_player_status(h->p, buf + len, n - len);
		return;
	}
	away_times(h, at, a, b, name);
	/* short: the message lines say the rest */
	if (!h->started)
		snprintf(buf, n, "%s%s: cannot be played", pre, name);
	else
		snprintf(buf, n, "%s%s: no data at %s, has %s-%s", pre, name, at, a, b);
}

void replay_hosts_note(struct replay_hosts *hs, char *buf, size_t n)
{
	struct replay_host *h = &hs->h[hs->cur];
	char at[16], a[16], b[16], name[256];

	buf[0] = '\0';
	if (!h->away && h->started)
		return;
	away_times(h, at, a, b, name);
	if (!h->started)
		snprintf(buf, n, "%s cannot be played: out of memory or threads", name);
	else
		snprintf(buf, n,
			 "%s has no data at %s: its recording runs from %s to %s. Space goes "
			 "there, Shift+Left/Right move the time, } and { switch host.",
			 name, at, a, b);
}

void replay_hosts_arrive(struct replay_hosts *hs)
{
	struct replay_host *h = &hs->h[hs->cur];
	uint64_t t0, t1;

	if (!h->away || !h->started)
		return;
	rec_player_span(h->p, &t0, &t1);
	h->away = false;
	rec_player_seek(h->p, h->away_wall < wall_of(h->p, t0) ? t0 : t1);
	rec_player_pause(h->p, h->away_paused);
}

bool replay_hosts_away_key(struct replay_hosts *hs, int ch)
{
	struct replay_host *h = &hs->h[hs->cur];
	int64_t w;

	if (!h->away || !h->started)
		return false;
	switch (ch) {
	case ' ':
		h->away_paused = false;
		replay_hosts_arrive(hs);
		return true;
	case '.':
	case ',':
		h->away_paused = true;
		replay_hosts_arrive(hs);
		return true;
	case KEY_SRIGHT:
	case KEY_SLEFT:
		if (__builtin_add_overflow(h->away_wall,
					   ch == KEY_SRIGHT ? SWITCH_JUMP_NS : -SWITCH_JUMP_NS, &w))
			w = h->away_wall;
		host_put(h, w, h->away_paused);
		return true;
	}
	return false;
}
