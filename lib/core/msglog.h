/* SPDX-License-Identifier: GPL-2.0-only */
/* A bounded log of the messages a user was shown: every distinct status
 * (entity, text: streams that say the same share an entry, under the first
 * one's name) with the time it was first and last seen, for the
 * TUI's message log, where a status too long for its pane or one that has
 * since cleared can be read whole. Not locked: its owner (the store) is. */
#ifndef ASYS_MSGLOG_H
#define ASYS_MSGLOG_H

#include <stddef.h>
#include <stdint.h>

/* Entries kept; past it the oldest goes. Each text is at most
 * REC_TEXT_MAX bytes, so the log holds at most 512 KiB of text. */
#define MSGLOG_MAX 512
/* The stream of a note from the application itself (a failed recording). */
#define MSGLOG_NOTE UINT32_MAX

struct msglog_entry {
	uint64_t first_ns; /* the samples' clock: monotonic live, recorded in replay */
	uint64_t last_ns;
	uint32_t stream; /* MSGLOG_NOTE: the application's own */
	uint64_t entity;
	uint32_t seen; /* times it was reported */
	char *text;
};

struct msglog;

struct msglog *msglog_new(void);
void msglog_free(struct msglog *l);
/* Keeps text unless the same (entity, text) is kept already, which
 * only counts it again. Empty text ("fine again") is not kept. Returns 1
 * when added, 0 when known or empty, -ENOMEM. */
int msglog_add(struct msglog *l, uint64_t ts_ns, uint32_t stream, uint64_t entity,
	       const char *text);
size_t msglog_count(const struct msglog *l);
/* Entry i, 0 = the oldest kept; NULL past the end. */
const struct msglog_entry *msglog_get(const struct msglog *l, size_t i);
/* Entries dropped to stay within MSGLOG_MAX. */
uint64_t msglog_dropped(const struct msglog *l);

#endif
