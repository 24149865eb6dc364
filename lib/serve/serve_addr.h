/* SPDX-License-Identifier: GPL-2.0-only */
/* The address of the metrics endpoint: "ADDR:PORT", "[V6ADDR]:PORT" or
 * ":PORT" (loopback), numeric only, so that no name lookup decides where a
 * daemon listens. */
#ifndef ASYS_SERVE_ADDR_H
#define ASYS_SERVE_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* The default port: not one of the Prometheus exporters' well-known ports. */
#define SERVE_DEFAULT_PORT 9459
#define SERVE_DEFAULT_LISTEN "127.0.0.1:9459"

/* Fills ss and len; 0, or -EINVAL with the sentence a user reads in err. */
int serve_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len, char *err,
		       size_t n);
/* Only this host reaches it: 127.0.0.0/8 or ::1 (mapped too). */
bool serve_addr_loopback(const struct sockaddr *sa);
/* "127.0.0.1:9459" or "[::1]:9459" for a bound address. */
void serve_format_addr(const struct sockaddr *sa, char *buf, size_t n);

#endif
