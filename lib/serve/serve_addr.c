/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "serve_addr.h"
#include "util.h"

#define SERVE_EXPECT "ADDR:PORT with a numeric address, such as 127.0.0.1:9459 or [::1]:9459"

static int serve_parse_port(const char *p, unsigned *port)
{
	double v;

	if (!*p || strspn(p, "0123456789") != strlen(p) || util_parse_double(p, &v) || v > 65535)
		return -EINVAL;
	*port = (unsigned)v;
	return 0;
}

int serve_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len, char *err,
		       size_t n)
{
	const char *colon = strrchr(s, ':');
	char host[INET6_ADDRSTRLEN + 2];
	unsigned port;
	size_t hl;

	memset(ss, 0, sizeof(*ss));
	if (!colon || serve_parse_port(colon + 1, &port) < 0)
		goto bad;
	hl = (size_t)(colon - s);
	if (hl >= sizeof(host))
		goto bad;
	memcpy(host, s, hl);
	host[hl] = '\0';
	if (host[0] == '[') {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

		if (hl < 3 || host[hl - 1] != ']')
			goto bad;
		host[hl - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &a6->sin6_addr) != 1)
			goto bad;
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a6);
	} else {
		struct sockaddr_in *a4 = (struct sockaddr_in *)ss;

		if (!*host)
			strcpy(host, "127.0.0.1");
		if (inet_pton(AF_INET, host, &a4->sin_addr) != 1)
			goto bad;
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		*len = sizeof(*a4);
	}
	return 0;
bad:
	snprintf(err, n, "expected %s", SERVE_EXPECT);
	return -EINVAL;
}

void serve_format_addr(const struct sockaddr *sa, char *buf, size_t n)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &a6->sin6_addr, host, sizeof(host));
		snprintf(buf, n, "[%s]:%u", host, ntohs(a6->sin6_port));
	} else if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *a4 = (const struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &a4->sin_addr, host, sizeof(host));
		snprintf(buf, n, "%s:%u", host, ntohs(a4->sin_port));
	} else {
		snprintf(buf, n, "?");
	}
}

bool serve_addr_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) ||
		       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}
