/* SPDX-License-Identifier: GPL-2.0-only */
/* The metrics endpoint: libmicrohttpd, a thread that accepts and one per
 * connection, serving /metrics (serve.h) and / (a page linking to it);
 * other paths 404, other methods 405. Limits: connections in all and per
 * address, the time a request may take to arrive and a reserve kept free
 * for new connections (serve_conn.h), an idle timeout, and the memory of a
 * connection (a request's headers must fit). Scrapes are made one at a
 * time. With a web config, TLS through libmicrohttpd's GnuTLS and basic
 * auth on every path (serve_auth.h): a request without the right user and
 * password gets 401 with WWW-Authenticate. Built with HAVE_SERVE only. */
#ifndef ASYS_SERVE_HTTP_H
#define ASYS_SERVE_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "serve.h"
#include "serve_webcfg.h"

#define SERVE_HTTP_PER_ADDRESS 16
#define SERVE_HTTP_TIMEOUT_S 10
/* a connection's memory: request line, headers and the reply's headers */
#define SERVE_HTTP_MEMORY (32u << 10)
/* a connection's thread's stack */
#define SERVE_HTTP_STACK (512u << 10)

struct serve_server_cfg {
	struct store *store;
	const struct stream_table *streams;
	size_t processes; /* --metrics-processes */
	/* fills up to n collectors, returns how many; called per scrape */
	size_t (*collectors)(void *ctx, struct serve_collector *out, size_t n);
	void *ctx;
	const char *version;
	/* the window of the peaks and of the PPU metrics' mean and maximum:
	 * the whole buckets of this length before each scrape (serve.h) */
	uint64_t window_ns;
	/* TLS and basic auth (--web-config); NULL: plain HTTP, no auth. It
	 * must live until the server stops. */
	const struct serve_webcfg *web;
};

struct serve_server;

/* Listens on listen (serve_addr.h). 0, or -errno with the sentence a user
 * reads in err. */
int serve_server_start(const char *listen, const struct serve_server_cfg *cfg,
		       struct serve_server **out, char *err, size_t n);
void serve_server_stop(struct serve_server *s); /* NULL is fine */
/* The bound address, "127.0.0.1:9459" (the port is the real one for :0). */
const char *serve_server_address(const struct serve_server *s);
/* Scrapes answered so far. */
unsigned long serve_server_scrapes(const struct serve_server *s);

#endif
