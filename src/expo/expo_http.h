/* The metrics endpoint: libmicrohttpd, a thread that accepts and one per
 * connection, serving /metrics (expo.h) and / (a page linking to it);
 * other paths 404, other methods 405. Limits: connections in all and per
 * address, the time a request may take to arrive and a reserve kept free
 * for new connections (expo_conn.h), an idle timeout, and the memory of a
 * connection (a request's headers must fit). Scrapes are made one at a
 * time. With a web config, TLS through libmicrohttpd's GnuTLS and basic
 * auth on every path (expo_auth.h): a request without the right user and
 * password gets 401 with WWW-Authenticate. Built with HAVE_SERVE only. */
#ifndef ASYS_EXPO_HTTP_H
#define ASYS_EXPO_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "expo.h"
#include "expo_webcfg.h"

#define EXPO_HTTP_PER_ADDRESS 16
#define EXPO_HTTP_TIMEOUT_S 10
/* a connection's memory: request line, headers and the reply's headers */
#define EXPO_HTTP_MEMORY (32u << 10)
/* a connection's thread's stack */
#define EXPO_HTTP_STACK (512u << 10)

struct expo_server_cfg {
	struct store *store;
	const struct stream_table *streams;
	size_t processes; /* --metrics-processes */
	/* fills up to n collectors, returns how many; called per scrape */
	size_t (*collectors)(void *ctx, struct expo_collector *out, size_t n);
	void *ctx;
	const char *version;
	/* the window of the peaks and of the PPU metrics' mean and maximum:
	 * the whole buckets of this length before each scrape (expo.h) */
	uint64_t window_ns;
	/* TLS and basic auth (--web-config); NULL: plain HTTP, no auth. It
	 * must live until the server stops. */
	const struct expo_webcfg *web;
};

struct expo_server;

/* Listens on listen (expo_addr.h). 0, or -errno with the sentence a user
 * reads in err. */
int expo_server_start(const char *listen, const struct expo_server_cfg *cfg,
		      struct expo_server **out, char *err, size_t n);
void expo_server_stop(struct expo_server *s); /* NULL is fine */
/* The bound address, "127.0.0.1:9459" (the port is the real one for :0). */
const char *expo_server_address(const struct expo_server *s);
/* Scrapes answered so far. */
unsigned long expo_server_scrapes(const struct expo_server *s);

#endif
