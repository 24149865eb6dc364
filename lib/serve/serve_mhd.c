#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "serve_mhd.h"

static struct serve_mhd_api api;
static const char *api_missing; /* the first symbol not found, or the dlerror */
static char api_why[256];
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

#define SERVE_MHD_SYM(field, name)                                                                 \
	do {                                                                                       \
		if (!(api.field = (__typeof__(api.field))dlsym(h, name)) && !api_missing)          \
			api_missing = name;                                                        \
	} while (0)

static void serve_mhd_load(void)
{
	/* kept open for the life of the process: a server may start again */
	void *h = dlopen(SERVE_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		const char *e = dlerror();

		snprintf(api_why, sizeof(api_why), "cannot load %s (%s): install libmicrohttpd12",
			 SERVE_MHD_SONAME, e ? e : "not found");
		api_missing = SERVE_MHD_SONAME;
		return;
	}
	SERVE_MHD_SYM(start_daemon, "MHD_start_daemon");
	SERVE_MHD_SYM(stop_daemon, "MHD_stop_daemon");
	SERVE_MHD_SYM(get_daemon_info, "MHD_get_daemon_info");
	SERVE_MHD_SYM(get_connection_info, "MHD_get_connection_info");
	SERVE_MHD_SYM(lookup_connection_value, "MHD_lookup_connection_value");
	SERVE_MHD_SYM(create_response_from_buffer, "MHD_create_response_from_buffer");
	SERVE_MHD_SYM(create_response_from_buffer_with_free_callback,
		      "MHD_create_response_from_buffer_with_free_callback");
	SERVE_MHD_SYM(add_response_header, "MHD_add_response_header");
	SERVE_MHD_SYM(queue_response, "MHD_queue_response");
	SERVE_MHD_SYM(destroy_response, "MHD_destroy_response");
	SERVE_MHD_SYM(is_feature_supported, "MHD_is_feature_supported");
	SERVE_MHD_SYM(free, "MHD_free");
	api.queue_basic_auth_fail_response = (__typeof__(api.queue_basic_auth_fail_response))dlsym(
	    h, "MHD_queue_basic_auth_fail_response");
	if (api_missing)
		snprintf(api_why, sizeof(api_why),
			 "%s lacks %s: install libmicrohttpd12 0.9.71 or later", SERVE_MHD_SONAME,
			 api_missing);
}

#define SERVE_GNUTLS_SONAME "libgnutls.so.30"

static struct serve_tls_api tls_api;
static bool tls_ok;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;

static void serve_mhd_tls_load(void)
{
	/* the copy libmicrohttpd brought in, never a second one */
	void *h = dlopen(SERVE_GNUTLS_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);

	if (!h)
		return;
	tls_api.get_peers = (__typeof__(tls_api.get_peers))dlsym(h, "gnutls_certificate_get_peers");
	tls_api.verify_peers2 =
	    (__typeof__(tls_api.verify_peers2))dlsym(h, "gnutls_certificate_verify_peers2");
	tls_ok = tls_api.get_peers && tls_api.verify_peers2;
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
