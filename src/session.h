/* SPDX-License-Identifier: GPL-2.0-only */
/* A live session: the stream table, the bus, the engine with its collectors,
 * and the store the panes read. `asys top` and `asys record` both use it. */
#ifndef ASYS_SESSION_H
#define ASYS_SESSION_H

#include <stdbool.h>
#include "bus.h"
#include "engine.h"
#include "options.h"
#include "store.h"
#include "stream.h"

struct session {
	const struct asys_options *opts;
	struct stream_table *streams;
	struct bus *bus;
	struct engine *engine;
	struct store *store; /* NULL when with_store was false */
	int store_handle;
	bool started;
};

/* Creates everything and runs every collector's init (a collector whose
 * source is missing is no error). Returns NULL with a message on stderr only
 * when memory or threads cannot be had. */
struct session *session_new(const struct asys_options *o, bool with_store);
int session_start(struct session *s);
void session_stop(struct session *s); /* engine, then a last bus drain */
void session_free(struct session *s);

#endif
