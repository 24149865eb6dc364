/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve_addr.h"
#include "registry.h"
#include "listen.h"
#include "strsafe.h"
#ifdef HAVE_SERVE
#include "serve_http.h"
#endif

/* name is one of the comma-separated names of a group ("cpu,mem") */
static bool listen_in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == n && !strncmp(p, name, n))
			return true;
		p = comma ? comma + 1 : NULL;
	}
	return false;
}

size_t listen_collectors(struct engine *e, struct serve_collector *out, size_t n)
{
	struct engine_group_stats st[ENGINE_MAX_GROUPS];
	int k = e ? engine_stats(e, st, ENGINE_MAX_GROUPS) : 0;
	size_t m = 0;

	for (size_t i = 0; collector_registry[i] && m < n; i++) {
		struct serve_collector *c = &out[m++];

		c->name = collector_registry[i]->name;
		c->up = false;
		c->rate_hz = NAN;
		for (int g = 0; g < k; g++) {
			if (!listen_in_list(st[g].names, c->name))
				continue;
			c->up = true;
			/* a rate needs a window of about a second of ticks: a
			 * window closes on a tick, so a measured rate is never 0 */
			c->rate_hz = st[g].hz_achieved > 0 ? st[g].hz_achieved : NAN;
		}
	}
	return m;
}

void listen_collectors_over(struct engine *e, struct serve_collector *c, size_t nc,
			    double elapsed_s)
{
	struct engine_group_stats st[ENGINE_MAX_GROUPS];
	int k = e ? engine_stats(e, st, ENGINE_MAX_GROUPS) : 0;

	for (size_t i = 0; i < nc; i++) {
		if (!c[i].up)
			continue;
		c[i].rate_hz = NAN;
		for (int g = 0; g < k; g++) {
			/* ticks sit on a grid of the period: an interval shorter
			 * than one period may hold one tick or none */
			if (listen_in_list(st[g].names, c[i].name) && st[g].hz_requested > 0 &&
			    elapsed_s * st[g].hz_requested >= 1)
				c[i].rate_hz = (double)st[g].ticks / elapsed_s;
		}
	}
}

#ifdef HAVE_SERVE
/* An address other hosts can reach (the bound one, addr), served without
 * TLS or without a password: the warning, short enough for a message line
 * of 80 columns; false when it needs none. */
static bool listen_exposed(const char *listen, const char *addr, bool tls, bool auth, char *buf,
			   size_t n)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char why[160];

	if ((tls && auth) || serve_parse_listen(listen, &ss, &len, why, sizeof(why)) < 0 ||
	    serve_addr_loopback((const struct sockaddr *)&ss))
		return false;
	snprintf(buf, n, "serving %s to other hosts %s", addr,
		 !tls && !auth ? "without TLS or a password"
		 : !tls	       ? "without TLS: passwords cross in clear"
			       : "without a password");
	return true;
}

struct listener {
	struct serve_server *srv;
	struct engine *engine;
	struct serve_webcfg web; /* read at start; the server points into it */
	char warning[200];	 /* listen_exposed's, or "" */
};

static size_t listen_collectors_cb(void *ctx, struct serve_collector *out, size_t n)
{
	struct listener *sv = ctx;

	return listen_collectors(sv->engine, out, n);
}

struct listener *listen_start(struct session *s, const struct listen_opts *o, const char *listen,
			      const char *who)
{
	struct listener *sv = calloc(1, sizeof(*sv));
	struct serve_server_cfg cfg = {
	    .store = s->store,
	    .streams = s->streams,
	    .processes = (size_t)o->metrics_processes,
	    .collectors = listen_collectors_cb,
	    .version = PACKAGE_VERSION,
	    .window_ns = (uint64_t)(o->peak_window_s * 1e9),
	};
	char err[512], shown[2100];

	if (!sv) {
		fprintf(stderr, "asys %s: out of memory\n", who);
		return NULL;
	}
	sv->engine = s->engine;
	cfg.ctx = sv;
	if (o->web_config) {
		if (serve_webcfg_load(o->web_config, &sv->web, err, sizeof(err)) < 0) {
			fprintf(stderr, "asys %s: --web-config: %s\n", who,
				str_escape(shown, sizeof(shown), err, 0));
			free(sv);
			return NULL;
		}
		cfg.web = &sv->web;
	}
	if (serve_server_start(listen, &cfg, &sv->srv, err, sizeof(err)) < 0) {
		fprintf(stderr, "asys %s: --listen: %s\n", who,
			str_escape(shown, sizeof(shown), err, 0));
		serve_webcfg_free(&sv->web);
		free(sv);
		return NULL;
	}
	if (listen_exposed(listen, serve_server_address(sv->srv), sv->web.tls, sv->web.nusers,
			   sv->warning, sizeof(sv->warning)))
		fprintf(stderr,
			"asys %s: warning: %s: anyone who reaches the port reads the metrics; "
			"give --web-config with tls_server_config and basic_auth_users, or "
			"listen on 127.0.0.1 (asys-serve(1), SECURITY)\n",
			who, sv->warning);
	return sv;
}

const char *listen_warning(const struct listener *sv)
{
	return sv && sv->warning[0] ? sv->warning : NULL;
}

void listen_stop(struct listener *sv)
{
	if (!sv)
		return;
	serve_server_stop(sv->srv);
	serve_webcfg_free(&sv->web);
	free(sv);
}

const char *listen_address(const struct listener *sv)
{
	return serve_server_address(sv->srv);
}

const char *listen_scheme(const struct listener *sv)
{
	return sv->web.tls ? "https" : "http";
}
#else
struct listener *listen_start(struct session *s, const struct listen_opts *o, const char *listen,
			      const char *who)
{
	(void)s;
	(void)o;
	(void)listen;
	fprintf(stderr,
		"asys %s: this asys was built without libmicrohttpd, so it cannot serve "
		"metrics (install libmicrohttpd-dev and configure --enable-serve)\n",
		who);
	return NULL;
}

void listen_stop(struct listener *sv)
{
	(void)sv;
}

const char *listen_warning(const struct listener *sv)
{
	(void)sv;
	return NULL;
}

const char *listen_address(const struct listener *sv)
{
	(void)sv;
	return "";
}

const char *listen_scheme(const struct listener *sv)
{
	(void)sv;
	return "http";
}
#endif
