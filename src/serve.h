/* The metrics endpoint of a live session: asys serve, and --listen on
 * asys top and asys record. The collectors' figures come from the registry
 * and the engine; the values from the session's store. */
#ifndef ASYS_SERVE_H
#define ASYS_SERVE_H

#include <stddef.h>

#include "expo.h"
#include "options.h"
#include "session.h"

struct serve;

/* Listens on listen, with the TLS and basic auth of o->web_config, which
 * is read once, here. NULL after saying why on stderr ("asys WHO: ..."),
 * also when asys was built without libmicrohttpd. */
struct serve *serve_start(struct session *s, const struct asys_options *o, const char *listen,
			  const char *who);
void serve_stop(struct serve *sv); /* NULL is fine */
const char *serve_address(const struct serve *sv);
/* "https" with the web config's TLS, else "http" */
const char *serve_scheme(const struct serve *sv);
/* The registry's collectors, whether each samples and its thread's
 * achieved rate; returns how many (at most n). */
size_t serve_collectors(struct engine *e, struct expo_collector *out, size_t n);

#endif
