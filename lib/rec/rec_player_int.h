/* SPDX-License-Identifier: GPL-2.0-only */
/* The player's state, shared by its thread (rec_player.c) and the calls
 * that steer it from the screen (rec_player_ctl.c). */
#ifndef ASYS_REC_PLAYER_INT_H
#define ASYS_REC_PLAYER_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "collector.h"
#include "rec_export.h"
#include "rec_player.h"
#include "rec_reader.h"
#include "util.h"

#define TICK_NS 10000000ull	   /* the player thread wakes every 10 ms */
#define LOOKAHEAD_NS 1000000000ull /* frames may close up to 250 ms late: read ahead 1 s */
#define EOF_RETRY_NS 250000000ull  /* a clean end of a file without a trailer: look again */
#define BATCH_MAX 20000		   /* records per tick, so the ring is never flooded */
#define PEND_MAX (4 * BATCH_MAX)   /* records decoded ahead of the clock */
#define PEND_BYTES (8u << 20)	   /* and their bytes (labels may be 1 KiB each) */
#define DECODE_STEP 256		   /* records decoded between those checks */

struct player_rec {
	uint64_t ts, seq;
	size_t off; /* into the arena */
};

struct rec_player {
	struct rec_reader *r;
	char *name;
	struct ring *ring;
	struct emitter em;
	struct store *store;
	uint64_t refresh_ns;

	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	/* under lock */
	bool stop, paused, at_end;
	double speed;
	uint64_t anchor_t, anchor_wall; /* replay clock = anchor_t + (now - anchor_wall) * speed */
	uint64_t t0, t1;
	bool seek_pending;
	uint64_t seek_to;
	uint64_t holes;

	/* player thread only */
	struct buf arena;
	struct player_rec *pend;
	size_t npend, cappend, sorted;
	uint64_t seq, read_hwm;
	bool eof;
	bool in_frame; /* cur: a DATA frame partly decoded */
	struct rec_data_cur cur;
};

static inline uint64_t wall_now(void)
{
	return asys_now_ns();
}

static inline uint64_t clock_locked(struct rec_player *p)
{
	uint64_t t = p->anchor_t;

	/* saturates: a forged file's times may lie near 2^64 */
	if (!p->paused && !p->at_end &&
	    __builtin_add_overflow(t, (uint64_t)((double)(wall_now() - p->anchor_wall) * p->speed),
				   &t))
		t = UINT64_MAX;
	if (p->t1 && t > p->t1)
		t = p->t1;
	return t;
}

static inline void reanchor_locked(struct rec_player *p, uint64_t t)
{
	p->anchor_t = t;
	p->anchor_wall = wall_now();
}

#endif
