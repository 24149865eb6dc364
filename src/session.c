/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "session.h"

/* The bus drains every quarter refresh, between 50 and 250 ms: a frame then
 * shows data at most a quarter refresh old, each ring holds at least a
 * quarter second at its group's rate (and wakes the bus when half full),
 * and a wake of an idle bus costs 20-70 us on a VM: at 5 ms the bus alone
 * cost more than all the collectors at their defaults, and at 50 ms it was
 * still 40% of asys top's CPU at a 1 s refresh. A recorder asks for 50 ms
 * while attached (bus_attach_within). */
static uint64_t session_bus_period_ns(const struct asys_options *o)
{
	double p = o->delay_s > 0 ? o->delay_s / 4 : 0.25;

	return (uint64_t)(1e9 * (p < 0.05 ? 0.05 : p > 0.25 ? 0.25 : p));
}

struct session *session_new(const struct asys_options *o, bool with_store)
{
	struct session *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		goto fail;
	s->opts = o;
	s->store_handle = -1;
	s->streams = stream_table_new();
	s->bus = bus_new();
	if (!s->streams || !s->bus)
		goto fail;
	s->engine = engine_new(o, s->streams, s->bus, collector_registry);
	if (!s->engine)
		goto fail;
	rc = engine_init(s->engine);
	if (rc < 0) {
		fprintf(stderr, "asys: cannot set up the collectors: %s\n", strerror(-rc));
		goto fail_quiet;
	}
	if (with_store) {
		s->store = store_new(s->streams, (uint64_t)(o->delay_s * 1e9));
		if (!s->store)
			goto fail;
		s->store_handle = bus_attach(s->bus, &store_consumer_ops, s->store);
		if (s->store_handle < 0)
			goto fail;
	}
	return s;
fail:
	fprintf(stderr, "asys: out of memory setting up the session\n");
fail_quiet:
	session_free(s);
	return NULL;
}

int session_start(struct session *s)
{
	int rc = bus_start(s->bus, session_bus_period_ns(s->opts));

	if (rc < 0)
		return rc;
	rc = engine_start(s->engine);
	if (rc < 0) {
		bus_stop(s->bus);
		return rc;
	}
	s->started = true;
	return 0;
}

void session_stop(struct session *s)
{
	if (!s || !s->started)
		return;
	engine_stop(s->engine);
	bus_stop(s->bus);
	s->started = false;
}

void session_free(struct session *s)
{
	if (!s)
		return;
	session_stop(s);
	if (s->bus && s->store_handle >= 0)
		bus_detach(s->bus, s->store_handle);
	/* the bus holds the engine's rings: free it first */
	bus_free(s->bus);
	engine_free(s->engine);
	store_free(s->store);
	stream_table_free(s->streams);
	free(s);
}
