/* SPDX-License-Identifier: GPL-2.0-only */
/* The recordings of a replay, one host each (asys replay a.asys b.asys):
 * each has its own player, store and bus; one is shown at a time. They
 * share one time axis, the wall clock: the host switched to is put at the
 * wall time the one before was at, paused or playing as it was. Where a
 * recording has no data at that time, the host is "away": an empty store
 * is shown, and the header says where its data lies. */
#ifndef ASYS_REPLAY_HOSTS_H
#define ASYS_REPLAY_HOSTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bus.h"
#include "rec_player.h"
#include "ring.h"
#include "store.h"

/* Recordings one replay opens (each: a reader; once shown, a player
 * thread, a bus thread, a 16 MiB ring and a store). */
#define REPLAY_FILES_MAX 16

struct replay_host {
	struct rec_player *p;
	struct store *store;
	struct store *none; /* empty: shown while away */
	struct bus *bus;
	struct ring *ring;
	const char *path;
	bool wired, started;
	bool away;	   /* the shared time lies outside this recording */
	bool away_paused;  /* ...and the replay was paused when it came here */
	int64_t away_wall; /* that time, wall-clock ns */
};

struct replay_hosts {
	struct replay_host h[REPLAY_FILES_MAX];
	int n, cur;
	uint64_t refresh_ns;
};

/* Opens every file (no thread yet); on failure says which on stderr
 * (prog first) and returns 1 (0 when all opened). */
int replay_hosts_open(struct replay_hosts *hs, char *const *paths, int n, const char *prog);
/* The store, bus and ring of host i, the bus started: 0 or -errno. */
int replay_hosts_wire(struct replay_hosts *hs, int i);
void replay_hosts_free(struct replay_hosts *hs);

static inline struct rec_player *replay_hosts_player(const struct replay_hosts *hs)
{
	return hs->h[hs->cur].p;
}

/* Shows the next (dir 1) or previous (-1) host at the shared time. */
void replay_hosts_switch(struct replay_hosts *hs, int dir);
/* The store and streams to draw: the shown host's, or its empty store. */
void replay_hosts_data(struct replay_hosts *hs, struct store **store,
		       const struct stream_table **streams);
/* The header's status: "[2/3] REPLAY b.asys ...", or for an away host
 * "[2/3] b.asys: no data at 14:03:10, has 14:05:00-14:20:00". */
void replay_hosts_status(struct replay_hosts *hs, char *buf, size_t n);
/* For the message lines: why an away host shows nothing, and what to do
 * ("" when the host has data at the shared time). */
void replay_hosts_note(struct replay_hosts *hs, char *buf, size_t n);
/* A replay key while the shown host is away: true when handled (space
 * plays from its nearest data, a step goes there paused, Shift+Left/Right
 * moves the shared time by 10 s, into the data or not). */
bool replay_hosts_away_key(struct replay_hosts *hs, int ch);
/* The shown host, if away, goes to its nearest data (before a `g`). */
void replay_hosts_arrive(struct replay_hosts *hs);

#endif
