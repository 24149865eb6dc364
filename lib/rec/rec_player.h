/* SPDX-License-Identifier: GPL-2.0-only */
/* The player: another producer. A thread reads a recording and pushes its
 * records into its own ring with the recorded timestamps, at the replay
 * clock's pace, so the store and every pane see what they saw live. */
#ifndef ASYS_REC_PLAYER_H
#define ASYS_REC_PLAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rec_reader.h"
#include "ring.h"
#include "store.h"
#include "stream.h"

#define REC_PLAYER_PREROLL_NS (120ull * 1000000000ull) /* fills history after a seek */
#define REC_PLAYER_SPEED_MAX 64.0

struct rec_player;

/* Opens the file; NULL with msg set when it cannot be read at all. */
struct rec_player *rec_player_open(const char *path, char *msg, size_t msgn, char *warn,
				   size_t warnn);
void rec_player_free(struct rec_player *p); /* stops first */
/* The file's streams: register nothing else into it. */
const struct stream_table *rec_player_streams(const struct rec_player *p);
/* Starts the thread pushing into ring (added to the bus by the caller);
 * store is cleared on seeks. begin: a time expression or NULL. */
int rec_player_start(struct rec_player *p, struct ring *ring, struct store *store,
		     uint64_t refresh_ns, double speed, const char *begin);
void rec_player_stop(struct rec_player *p);

void rec_player_pause(struct rec_player *p, bool paused);
bool rec_player_paused(struct rec_player *p);
void rec_player_toggle(struct rec_player *p);
void rec_player_step(struct rec_player *p, int dir);	    /* one refresh, paused */
void rec_player_speed(struct rec_player *p, double factor); /* x2, /2 */
double rec_player_speed_get(struct rec_player *p);
void rec_player_seek(struct rec_player *p, uint64_t t_ns);
void rec_player_seek_rel(struct rec_player *p, int64_t d_ns);
/* "14:03:10", "+90s", "-5m", "40%": 0, -EINVAL, or -ERANGE past what
 * rec_time_range allows. */
int rec_player_seek_expr(struct rec_player *p, const char *expr);

/* The recording's META (host, kernel, clock origin), or NULL until the
 * player has read it. */
const struct rec_meta *rec_player_meta(const struct rec_player *p);
/* "REPLAY run.asys 14:03:10 / 00:21:13 x4 ▶" */
void rec_player_status(struct rec_player *p, char *buf, size_t n);
double rec_player_progress(struct rec_player *p);
/* Replay clock (recorded monotonic ns) and the span known so far. */
uint64_t rec_player_now(struct rec_player *p);
void rec_player_span(struct rec_player *p, uint64_t *t0, uint64_t *t1);
bool rec_player_at_end(struct rec_player *p);
uint64_t rec_player_holes(struct rec_player *p);

#endif
