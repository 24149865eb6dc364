/* SPDX-License-Identifier: GPL-2.0-only */
/* The metrics endpoint of a live session: asys serve, and --listen on
 * asys top and asys record. The collectors' figures come from the registry
 * and the engine; the values from the session's store. */
#ifndef ASYS_LISTEN_H
#define ASYS_LISTEN_H

#include <stddef.h>

#include "serve.h"
#include "options.h"
#include "session.h"

/* The endpoint's options: serve, and top and record with --listen. */
struct listen_opts {
	const char *listen;	  /* --listen ADDR:PORT, NULL: no endpoint (serve: the default) */
	double metrics_processes; /* --metrics-processes N: per-process series, 0 = none */
	const char *web_config;	  /* --web-config FILE: TLS and basic auth, NULL: none */
	double peak_window_s;	  /* --peak-window: the peaks' window, default 15 s */
	bool list_metrics;	  /* serve --list-metrics */
};

struct listener;

/* Listens on listen, with the TLS and basic auth of lo->web_config, which
 * is read once, here. NULL after saying why on stderr ("asys WHO: ..."),
 * also when asys was built without libmicrohttpd. An address other hosts
 * reach without TLS and a password is served with a warning on stderr. */
struct listener *listen_start(struct session *s, const struct listen_opts *lo, const char *listen,
			      const char *who);
void listen_stop(struct listener *sv); /* NULL is fine */
const char *listen_address(const struct listener *sv);
/* An address other hosts reach, without TLS or a password: the warning
 * (also said on stderr at start), one line for a screen; NULL when none. */
const char *listen_warning(const struct listener *sv);
/* "https" with the web config's TLS, else "http" */
const char *listen_scheme(const struct listener *sv);
/* The registry's collectors, whether each samples and its thread's
 * achieved rate; returns how many (at most n). */
size_t listen_collectors(struct engine *e, struct serve_collector *out, size_t n);
/* After the engine stopped: each collector's rate over the elapsed_s its
 * threads ran, from their whole count of ticks; NaN when elapsed_s is
 * shorter than a period. */
void listen_collectors_over(struct engine *e, struct serve_collector *c, size_t nc,
			    double elapsed_s);

#endif
