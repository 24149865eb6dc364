/* SPDX-License-Identifier: GPL-2.0-only */
/* On-demand recording in a live view: R starts a recorder on the running
 * bus and R stops it. Used by `asys top` (and -o FILE from the start). */
#ifndef ASYS_REC_TOGGLE_H
#define ASYS_REC_TOGGLE_H

#include <stdbool.h>
#include <stddef.h>

#include <stdint.h>

#include "bus.h"
#include "rec_writer.h"
#include "stream.h"

/* The recording's options: -o and --force (top and record), and record's
 * limits, segments and syncs. */
struct record_opts {
	const char *output;   /* -o FILE */
	bool force;	      /* --force: replace an existing output */
	double duration_s;    /* --duration, 0 = until a signal */
	uint64_t max_size;    /* --max-size bytes, 0 = none */
	uint64_t rotate_size; /* --rotate SIZE */
	double rotate_s;      /* --rotate DURATION */
	double fsync_s;	      /* --fsync-interval, default 1 */
};

/* The writer's options from these, command the command line for META. */
void record_writer_opts(struct rec_writer_opts *w, const struct record_opts *r,
			const char *command);

struct rec_toggle;

struct rec_toggle *rec_toggle_new(struct bus *bus, const struct stream_table *t,
				  const struct record_opts *o, const char *command);
/* Stops a recording in progress (trailer written), then frees. */
void rec_toggle_free(struct rec_toggle *rt);
/* Starts recording to -o FILE the first time, else to
 * asys-YYYYmmdd-HHMMSS.asys. 0 or -errno with msg set. */
int rec_toggle_start(struct rec_toggle *rt, char *msg, size_t n);
void rec_toggle_stop(struct rec_toggle *rt);
/* 'R' toggles; true when the key was taken. */
bool rec_toggle_key(struct rec_toggle *rt, int ch);
/* "● REC run.asys 1.2M 00:00:12", "recording paused: disk full", or
 * "R: record". */
void rec_toggle_status(struct rec_toggle *rt, char *buf, size_t n);
/* The same for a narrow header, without the file's name: "● REC 1.2M 00:12",
 * "REC paused" or "R: record". */
void rec_toggle_status_short(struct rec_toggle *rt, char *buf, size_t n);
/* For a few seconds after R, and in the message log: "recording to
 * /dir/run.asys; R stops", "saved /dir/run.asys (1.2M)", or why it could
 * not record, what to do first. false when there is none. */
bool rec_toggle_note(struct rec_toggle *rt, char *buf, size_t n);

#endif
