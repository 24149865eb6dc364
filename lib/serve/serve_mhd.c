/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "dl_load.h"
#include "serve_mhd.h"

static struct serve_mhd_api api;
static const char *api_missing; /* the first symbol not found, or the dlerror */
static char api_why[256];
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

static const char *const mhd_names[] = {SERVE_MHD_SONAME, NULL};
static const struct dl_sym mhd_syms[] = {
    /* the daemon and what it knows of a connection */
    DL_SYM("MHD_start_daemon", &api.start_daemon), DL_SYM("MHD_stop_daemon", &api.stop_daemon),
    DL_SYM("MHD_get_daemon_info", &api.get_daemon_info),
    DL_SYM("MHD_get_connection_info", &api.get_connection_info),
    DL_SYM("MHD_lookup_connection_value", &api.lookup_connection_value),
    /* the answer */
    DL_SYM("MHD_create_response_from_buffer", &api.create_response_from_buffer),
    DL_SYM("MHD_create_response_from_buffer_with_free_callback",
	   &api.create_response_from_buffer_with_free_callback),
    DL_SYM("MHD_add_response_header", &api.add_response_header),
    DL_SYM("MHD_queue_response", &api.queue_response),
    DL_SYM("MHD_destroy_response", &api.destroy_response),
    /* what the build supports; freeing what it hands out */
    DL_SYM("MHD_is_feature_supported", &api.is_feature_supported), DL_SYM("MHD_free", &api.free),
    /* absent from a build without basic authentication: users are then refused */
    DL_SYM_OPTIONAL("MHD_queue_basic_auth_fail_response", &api.queue_basic_auth_fail_response),
    DL_SYM_END};

static void serve_mhd_load(void)
{
	struct dl_why w;

	/* kept open for the life of the process: a server may start again */
	if (dl_load(mhd_names, RTLD_NOW | RTLD_LOCAL, mhd_syms, &w))
		return;
	api_missing = w.missing ? w.missing : SERVE_MHD_SONAME;
	dl_why_text(&w, api_why, sizeof(api_why), "install libmicrohttpd12",
		    "install libmicrohttpd12 0.9.71 or later");
}

#define SERVE_GNUTLS_SONAME "libgnutls.so.30"

static struct serve_tls_api tls_api;
static bool tls_ok;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;

static void serve_mhd_tls_load(void)
{
	static const char *const names[] = {SERVE_GNUTLS_SONAME, NULL};
	const struct dl_sym syms[] = {
	    DL_SYM("gnutls_certificate_get_peers", &tls_api.get_peers),
	    DL_SYM("gnutls_certificate_verify_peers2", &tls_api.verify_peers2), DL_SYM_END};
	struct dl_why w;

	/* the copy libmicrohttpd brought in, never a second one */
	tls_ok = dl_load(names, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD, syms, &w) != NULL;
}

const struct serve_tls_api *serve_mhd_tls(char *err, size_t n)
{
	pthread_once(&tls_once, serve_mhd_tls_load);
	if (!tls_ok) {
		snprintf(err, n,
			 "client_auth_type needs GnuTLS's certificate checks, and %s has no %s "
			 "loaded",
			 SERVE_MHD_SONAME, SERVE_GNUTLS_SONAME);
		return NULL;
	}
	return &tls_api;
}

const struct serve_mhd_api *serve_mhd(char *err, size_t n)
{
	pthread_once(&api_once, serve_mhd_load);
	if (api_missing) {
		snprintf(err, n, "%s", api_why);
		return NULL;
	}
	return &api;
}
