/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#ifndef HAVE_SERVE
#error "serve_http.c needs libmicrohttpd (configure --enable-serve)"
#endif

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "serve_addr.h"
#include "serve_auth.h"
#include "serve_conn.h"
#include "serve_http.h"
#include "serve_mhd.h"
#include "util.h"

#define SERVE_COLLECTORS_MAX 32

struct serve_server {
	struct serve_server_cfg cfg;
	struct MHD_Daemon *d;
	char address[64];
	/* one scrape at a time, as on one thread: the formatting of many at
	 * once would take the CPU from the samplers */
	pthread_mutex_t lock;
	atomic_ulong scrapes;
	struct serve_auth *auth; /* NULL: no basic auth */
	struct serve_conns *conns;
	/* the library's first complaint while it starts, for the error */
	atomic_bool starting;
	char why[160];
};

/* The library's calls: set by the first server start, before any callback. */
static const struct serve_mhd_api *mhd;
static const struct serve_tls_api *tls; /* with client_auth_type */

static const char serve_index_html[] =
    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>asys</title></head>\n"
    "<body><h1>asys</h1><p>Metrics of this node's PPUs, NICs, CPUs and memory: "
    "<a href=\"/metrics\">/metrics</a> (Prometheus text; OpenMetrics when asked for). "
    "See asys-serve(1).</p></body></html>\n";

static enum MHD_Result serve_reply(struct MHD_Connection *c, unsigned code, const char *type,
				   char *body, size_t len, bool owned)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	if (owned)
		r = mhd->create_response_from_buffer_with_free_callback(len, body, free);
	else
		r = mhd->create_response_from_buffer(len, body, MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (owned)
			free(body);
		return MHD_NO;
	}
	mhd->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = mhd->queue_response(c, code, r);
	mhd->destroy_response(r);
	return ret;
}

/* The peaks and the PPU metrics' maxima are over a window of fixed length
 * (--peak-window) ending at the scrape, the same whoever else scrapes. */
static enum MHD_Result serve_metrics(struct serve_server *s, struct MHD_Connection *c)
{
	enum serve_format f = serve_negotiate(
	    mhd->lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
	struct serve_collector col[SERVE_COLLECTORS_MAX];
	struct serve_snap_opts o = {.processes = s->cfg.processes, .window_ns = s->cfg.window_ns};
	struct serve_snap *snap;
	size_t nc =
	    s->cfg.collectors ? s->cfg.collectors(s->cfg.ctx, col, SERVE_COLLECTORS_MAX) : 0;
	size_t len = 0;
	char *text;

	pthread_mutex_lock(&s->lock);
	snap = serve_snap_take(s->cfg.store, s->cfg.streams, &o);
	text = snap ? serve_format(snap, f, col, nc, s->cfg.version, &len) : NULL;
	pthread_mutex_unlock(&s->lock);
	serve_snap_free(snap);
	if (!text)
		return serve_reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8",
				   "out of memory\n", 14, false);
	atomic_fetch_add(&s->scrapes, 1);
	return serve_reply(c, MHD_HTTP_OK, serve_content_type(f), text, len, true);
}

/* The client's certificate, as client_auth_type asks: given and verified
 * against client_ca_file, or, with VerifyClientCertIfGiven, none at all. */
static bool serve_client_cert_ok(struct serve_server *s, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
	    mhd->get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	unsigned int n = 0, status = 1;

	if (!ci || !ci->tls_session)
		return false;
	if (!tls->get_peers(ci->tls_session, &n) || !n)
		return s->cfg.web->client_auth == SERVE_CLIENT_VERIFY_IF_GIVEN;
	return tls->verify_peers2(ci->tls_session, &status) == 0 && status == 0;
}

/* The request's basic auth matches a user of the web config. The header
 * is read here, not by the library, which would cut a password at a NUL. */
static int serve_authorized(struct serve_server *s, struct MHD_Connection *c)
{
	char user[SERVE_WEB_USER_MAX], *pass = NULL;
	int ok;

	if (serve_auth_basic(
		mhd->lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION),
		user, sizeof(user), &pass) < 0)
		return 0;
	ok = serve_auth_verify(s->auth, user, pass);
	explicit_bzero(pass, strlen(pass));
	free(pass);
	explicit_bzero(user, sizeof(user));
	return ok;
}

static enum MHD_Result serve_unauthorized(struct MHD_Connection *c)
{
	static const char msg[] = "401 unauthorized: this endpoint needs a user and password\n";
	struct MHD_Response *r =
	    mhd->create_response_from_buffer(sizeof(msg) - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	mhd->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	/* adds WWW-Authenticate: Basic realm="asys" */
	ret = mhd->queue_basic_auth_fail_response(c, "asys", r);
	mhd->destroy_response(r);
	return ret;
}

static struct serve_conn *serve_conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
	    mhd->get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* A connection opens or closes: the table of their deadlines. The close
 * comes before the library closes the socket. */
static void serve_on_connection(void *cls, struct MHD_Connection *c, void **ctx,
				enum MHD_ConnectionNotificationCode what)
{
	struct serve_server *s = cls;
	const union MHD_ConnectionInfo *ci;

	if (what == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = mhd->get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		*ctx = ci ? serve_conns_open(s->conns, ci->connect_fd) : NULL;
	} else {
		serve_conns_close(s->conns, *ctx);
		*ctx = NULL;
	}
}

/* A request ended (answered, or cut): the next one's time starts. */
static void serve_on_completed(void *cls, struct MHD_Connection *c, void **req,
			       enum MHD_RequestTerminationCode why)
{
	struct serve_server *s = cls;

	(void)req;
	(void)why;
	serve_conns_answered(s->conns, serve_conn_of(c));
}

static enum MHD_Result serve_handle(void *cls, struct MHD_Connection *c, const char *url,
				    const char *method, const char *version, const char *upload,
				    size_t *upload_len, void **req)
{
	struct serve_server *s = cls;
	int ok;

	(void)version;
	(void)upload;
	/* the first call: the request line and headers are in */
	if (!*req)
		serve_conns_request(s->conns, serve_conn_of(c));
	/* *req marks a request already let in: its later calls (its body)
	 * are not checked again */
	if (!*req && s->cfg.web && s->cfg.web->client_auth && !serve_client_cert_ok(s, c)) {
		static const char msg[] = "403 forbidden: this endpoint needs a client certificate "
					  "that its client_ca_file signed\n";

		return serve_reply(c, MHD_HTTP_FORBIDDEN, "text/plain; charset=utf-8", (char *)msg,
				   sizeof(msg) - 1, false);
	}
	if (!*req && s->auth && (ok = serve_authorized(s, c)) != 1) {
		static const char busy[] =
		    "503 busy: too many password checks at once, try again\n";

		if (ok == 0)
			return serve_unauthorized(c);
		return serve_reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8",
				   (char *)busy, sizeof(busy) - 1, false);
	}
	*req = s;
	if (*upload_len) {
		*upload_len = 0; /* a body is read and dropped: the answer is 405 */
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		static const char msg[] = "only GET and HEAD\n";

		return serve_reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8",
				   (char *)msg, sizeof(msg) - 1, false);
	}
	if (!strcmp(url, "/metrics"))
		return serve_metrics(s, c);
	if (!strcmp(url, "/"))
		return serve_reply(c, MHD_HTTP_OK, "text/html; charset=utf-8",
				   (char *)serve_index_html, sizeof(serve_index_html) - 1, false);
	return serve_reply(c, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8",
			   "not found: see /metrics\n", 24, false);
}

/* libmicrohttpd's messages: the first one while it starts becomes the
 * error's reason; later ones (a client's failed TLS handshake) are dropped,
 * since the terminal may be asys top's screen. */
static void serve_log(void *cls, const char *fmt, va_list ap)
{
	struct serve_server *s = cls;
	size_t k;

	if (!atomic_load(&s->starting) || s->why[0])
		return;
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	/* "Failed to bind to port 0: ...": the port asked for is in the address */
	if (!strncmp(s->why, "Failed to bind", 14) && strrchr(s->why, ':')) {
		char tail[sizeof(s->why) - 8];
		const char *c = strrchr(s->why, ':') + 1;

		util_strlcpy(tail, c + strspn(c, " "), sizeof(tail));
		snprintf(s->why, sizeof(s->why), "bind: %s", tail);
	}
	k = strlen(s->why);
	while (k && (s->why[k - 1] == '\n' || s->why[k - 1] == '.'))
		s->why[--k] = '\0';
}

/* TLS and basic auth from the web config: the daemon's flags and options
 * (ops, ending in MHD_OPTION_END). 0 or -errno with why in err. */
static int serve_server_web(struct serve_server *s, const struct serve_webcfg *w, unsigned *flags,
			    struct MHD_OptionItem *ops, char *prio, size_t np, char *err, size_t n)
{
	size_t k = 0;

	if (w && w->tls) {
		if (mhd->is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
			snprintf(err, n,
				 "--web-config asks for TLS, but %s was built without it "
				 "(GnuTLS)",
				 SERVE_MHD_SONAME);
			return -ENOTSUP;
		}
		serve_webcfg_priorities(w, prio, np);
		*flags |= MHD_USE_TLS;
		ops[k++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, w->cert_pem};
		ops[k++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, w->key_pem};
		ops[k++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0, prio};
		/* a trust list makes the library ask clients for a certificate */
		if (w->client_auth) {
			if (!tls && !(tls = serve_mhd_tls(err, n)))
				return -ENOTSUP;
			ops[k++] =
			    (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_TRUST, 0, w->ca_pem};
		}
	}
	ops[k] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
	if (!w || !w->nusers)
		return 0;
	if (!mhd->queue_basic_auth_fail_response ||
	    mhd->is_feature_supported(MHD_FEATURE_BASIC_AUTH) != MHD_YES) {
		snprintf(err, n,
			 "--web-config has basic_auth_users, but %s was built without "
			 "basic authentication",
			 SERVE_MHD_SONAME);
		return -ENOTSUP;
	}
	if (!(s->auth = serve_auth_new(w->users, w->nusers, err, n)))
		return -ENOMEM;
	return 0;
}

/* The daemon on ss: a thread that accepts, and one per connection, so
 * that a request waiting for its password's check holds up no other. Its
 * threads start with every signal blocked, so that a key, a resize or a
 * stop signal goes to the thread that waits for it (the TUI's poll,
 * serve's sigsuspend), never to one of these. */
static struct MHD_Daemon *serve_server_daemon(struct serve_server *s, unsigned flags,
					      const struct sockaddr_storage *ss,
					      const struct MHD_OptionItem *web)
{
	struct MHD_Daemon *d;
	sigset_t all, old;

	if (ss->ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	atomic_store(&s->starting, true);
	d = mhd->start_daemon(flags | MHD_USE_ERROR_LOG, 0, NULL, NULL, serve_handle, s,
			      MHD_OPTION_EXTERNAL_LOGGER, serve_log, s, MHD_OPTION_SOCK_ADDR,
			      (const struct sockaddr *)ss, MHD_OPTION_CONNECTION_LIMIT,
			      (unsigned)SERVE_CONN_MAX, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
			      (unsigned)SERVE_HTTP_PER_ADDRESS, MHD_OPTION_CONNECTION_TIMEOUT,
			      (unsigned)SERVE_HTTP_TIMEOUT_S, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
			      (size_t)SERVE_HTTP_MEMORY, MHD_OPTION_THREAD_STACK_SIZE,
			      (size_t)SERVE_HTTP_STACK, MHD_OPTION_NOTIFY_CONNECTION,
			      serve_on_connection, s, MHD_OPTION_NOTIFY_COMPLETED,
			      serve_on_completed, s, MHD_OPTION_ARRAY, web, MHD_OPTION_END);
	atomic_store(&s->starting, false);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return d;
}

static void serve_server_free(struct serve_server *s)
{
	serve_auth_free(s->auth);
	serve_conns_free(s->conns);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

int serve_server_start(const char *listen, const struct serve_server_cfg *cfg,
		       struct serve_server **out, char *err, size_t n)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct serve_server *s;
	const union MHD_DaemonInfo *di;
	struct MHD_OptionItem web[5];
	char prio[128];
	unsigned flags =
	    MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
	int rc = serve_parse_listen(listen, &ss, &len, err, n);

	*out = NULL;
	if (rc < 0)
		return rc;
	if (!mhd && !(mhd = serve_mhd(err, n)))
		return -ENOENT;
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, n, "out of memory");
		return -ENOMEM;
	}
	s->cfg = *cfg;
	pthread_mutex_init(&s->lock, NULL);
	if (!(s->conns = serve_conns_new())) {
		snprintf(err, n, "out of memory (or no thread)");
		serve_server_free(s);
		return -ENOMEM;
	}
	if ((rc = serve_server_web(s, cfg->web, &flags, web, prio, sizeof(prio), err, n)) < 0) {
		serve_server_free(s);
		return rc;
	}
	if (!(s->d = serve_server_daemon(s, flags, &ss, web))) {
		/* without a word from the library, a bind that fails is the usual cause */
		if (s->why[0])
			snprintf(err, n, "cannot listen on %s: %s", listen, s->why);
		else
			snprintf(err, n,
				 "cannot listen on %s (address in use, or not this host's?)",
				 listen);
		serve_server_free(s);
		return -EADDRNOTAVAIL;
	}
	di = mhd->get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	if (di && di->port) {
		if (ss.ss_family == AF_INET6)
			((struct sockaddr_in6 *)&ss)->sin6_port = htons(di->port);
		else
			((struct sockaddr_in *)&ss)->sin_port = htons(di->port);
	}
	serve_format_addr((struct sockaddr *)&ss, s->address, sizeof(s->address));
	*out = s;
	return 0;
}

void serve_server_stop(struct serve_server *s)
{
	if (!s)
		return;
	/* a request waiting for a password's check is let go at once */
	if (s->auth)
		serve_auth_stop(s->auth);
	mhd->stop_daemon(s->d);
	serve_server_free(s);
}

const char *serve_server_address(const struct serve_server *s)
{
	return s->address;
}

unsigned long serve_server_scrapes(const struct serve_server *s)
{
	return atomic_load(&((struct serve_server *)s)->scrapes);
}
