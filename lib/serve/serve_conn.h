/* SPDX-License-Identifier: GPL-2.0-only */
/* The connections of one endpoint, for two bounds that libmicrohttpd's idle
 * timeout does not give, since it starts again at every byte:
 *
 * - a request must arrive whole (TLS handshake, request line, headers)
 *   within SERVE_CONN_REQUEST_S of the connection's opening or of its
 *   previous answer, so a client that sends a byte every few seconds
 *   holds no connection for longer;
 * - at most SERVE_CONN_KEEP connections are kept: a new one beyond cuts the
 *   oldest whose request has not arrived whole, so that a scraper gets in
 *   while slow clients from many addresses hold the rest. The library
 *   takes SERVE_CONN_MAX, so that those being closed leave room; a cut
 *   connection's request has been arriving for longer than any newer
 *   one's, so a scraper, whose request comes at once, is not the one cut.
 *
 * A connection is cut with shutdown(2) of its socket, under the table's
 * lock, which its close (libmicrohttpd's notice, before it closes the
 * socket) takes too, so no other file is ever shut down: its thread sees
 * the end and closes it. A thread of the table's own (signals blocked)
 * cuts the late ones. */
#ifndef ASYS_SERVE_CONN_H
#define ASYS_SERVE_CONN_H

#include <stdbool.h>
#include <stddef.h>

#define SERVE_CONN_KEEP 64     /* connections kept at a time */
#define SERVE_CONN_MAX 128     /* the library's limit: the kept and those closing */
#define SERVE_CONN_REQUEST_S 5 /* for a request to arrive whole */

struct serve_conns;
struct serve_conn;

/* NULL when memory or the thread fails. */
struct serve_conns *serve_conns_new(void);
/* After the last connection closed (the server stopped). NULL is fine. */
void serve_conns_free(struct serve_conns *c);
/* A new connection on fd: its slot, or NULL when none is free (the
 * connection is then cut at once). */
struct serve_conn *serve_conns_open(struct serve_conns *c, int fd);
/* Before fd is closed. k may be NULL. */
void serve_conns_close(struct serve_conns *c, struct serve_conn *k);
/* Its request arrived whole: no deadline while it is answered. */
void serve_conns_request(struct serve_conns *c, struct serve_conn *k);
/* Its answer is sent: the next request's time starts. */
void serve_conns_answered(struct serve_conns *c, struct serve_conn *k);
/* Connections cut so far (late, or for the reserve). */
unsigned long serve_conns_cuts(struct serve_conns *c);

#endif
