/* SPDX-License-Identifier: GPL-2.0-only */
/* libmicrohttpd, loaded with dlopen when an endpoint starts: linked, it
 * and what it needs (GnuTLS, p11-kit, nettle, ...) cost every asys top
 * about 2.5 MiB resident, served or not. The types come from its header;
 * the calls go through serve_mhd. */
#ifndef ASYS_SERVE_MHD_H
#define ASYS_SERVE_MHD_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <microhttpd.h>

#define SERVE_MHD_SONAME "libmicrohttpd.so.12"

struct serve_mhd_api {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_get_connection_info) *get_connection_info;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_create_response_from_buffer_with_free_callback)
	    *create_response_from_buffer_with_free_callback;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_is_feature_supported) *is_feature_supported;
	/* optional: NULL where the library was built without basic auth (the
	 * header itself is read by serve_auth_basic) */
	__typeof__(MHD_queue_basic_auth_fail_response) *queue_basic_auth_fail_response;
	__typeof__(MHD_free) *free;
};

/* The library's calls, loaded once; NULL with why in err (a sentence that
 * says what to install). Thread-safe. */
const struct serve_mhd_api *serve_mhd(char *err, size_t n);

/* GnuTLS's checks of a client's certificate, from the copy libmicrohttpd
 * loaded (so after serve_mhd): the session is MHD's
 * MHD_CONNECTION_INFO_GNUTLS_SESSION; the types are GnuTLS's, by pointer. */
struct serve_tls_api {
	/* the peer's certificate chain; NULL or *n 0: none given */
	const void *(*get_peers)(void *session, unsigned int *n);
	/* 0 with *status 0: the chain verifies against the trusted CAs */
	int (*verify_peers2)(void *session, unsigned int *status);
};
const struct serve_tls_api *serve_mhd_tls(char *err, size_t n);
#endif
