/* SPDX-License-Identifier: GPL-2.0-only */
/* UDP sender and receiver for the NIC tests: a known number of datagrams of
 * a known size at a known pace, so the veth counters can be checked.
 *
 *   nic_traffic send  DST PORT PAYLOAD PPS SECONDS   steady stream
 *   nic_traffic burst DST PORT PAYLOAD COUNT SPAN_US  COUNT datagrams in SPAN_US
 *   nic_traffic recv  PORT SECONDS [PACKETS]         prints "packets N bytes B"
 *                     after SECONDS, or once PACKETS have come
 *   nic_traffic capped DST PORT PAYLOAD N SECONDS   as fast as it may, but never
 *                     more than N datagrams in any 1 ms: a send starts at
 *                     least 1 ms after the send N before it returned, so the
 *                     counters (which move inside sendto on a veth) never
 *                     gain more than N frames in 1 ms. Prints "sent C in U us".
 *
 * Frames on the wire are PAYLOAD + 42 bytes (UDP 8, IPv4 20, Ethernet 14). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void wait_until(uint64_t t)
{
	uint64_t n = now_ns();

	/* sleep most of the way, spin the last 200 us so the pace is exact */
	if (t > n + 200000) {
		uint64_t s = t - 200000;
		struct timespec ts = {(time_t)(s / 1000000000ull), (long)(s % 1000000000ull)};

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	while (now_ns() < t)
		;
}

static int open_dst(const char *dst, int port, struct sockaddr_in *sa)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	if (fd < 0 || inet_pton(AF_INET, dst, &sa->sin_addr) != 1) {
		fprintf(stderr, "nic_traffic: bad destination %s or no socket: %s\n", dst,
			strerror(errno));
		exit(1);
	}
	return fd;
}

static int send_one(int fd, const struct sockaddr_in *sa, const char *buf, size_t len)
{
	while (sendto(fd, buf, len, 0, (const struct sockaddr *)sa, sizeof(*sa)) < 0) {
		if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR) {
			perror("nic_traffic: sendto");
			return -1;
		}
	}
	return 0;
}

#define CAP_MAX 64

static int send_capped(char **argv)
{
	static char buf[65536];
	struct sockaddr_in sa;
	size_t len = strtoul(argv[4], NULL, 10);
	long cap = atol(argv[5]), n = 0;
	int fd = open_dst(argv[2], atoi(argv[3]), &sa);
	uint64_t done[CAP_MAX] = {0}; /* when each of the last cap sends returned */
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)(atof(argv[6]) * 1e9);

	if (len > sizeof(buf) || cap < 1 || cap > CAP_MAX)
		return 2;
	for (uint64_t t = t0; t < end; t = now_ns()) {
		uint64_t *slot = &done[n % cap];

		if (*slot && t < *slot + 1000000)
			continue; /* the send cap before this one returned under 1 ms ago */
		if (send_one(fd, &sa, buf, len))
			return 1;
		*slot = now_ns();
		n++;
	}
	printf("sent %ld in %.0f us\n", n, (double)(now_ns() - t0) / 1e3);
	return 0;
}

int main(int argc, char **argv)
{
	static char buf[65536];
	struct sockaddr_in sa;

	if (argc == 7 && !strcmp(argv[1], "send")) {
		size_t len = strtoul(argv[4], NULL, 10);
		double pps = atof(argv[5]), secs = atof(argv[6]);
		long n = (long)(pps * secs + 0.5);
		int fd = open_dst(argv[2], atoi(argv[3]), &sa);
		uint64_t t0 = now_ns(), period = (uint64_t)(1e9 / pps);

		if (len > sizeof(buf) || pps <= 0)
			return 2;
		for (long i = 0; i < n; i++) {
			wait_until(t0 + (uint64_t)i * period);
			if (send_one(fd, &sa, buf, len))
				return 1;
		}
		printf("sent %ld\n", n);
		return 0;
	}
	if (argc == 7 && !strcmp(argv[1], "burst")) {
		size_t len = strtoul(argv[4], NULL, 10);
		long n = atol(argv[5]);
		double span = atof(argv[6]) * 1000.0;
		int fd = open_dst(argv[2], atoi(argv[3]), &sa);
		uint64_t t0 = now_ns();

		if (len > sizeof(buf) || n <= 0)
			return 2;
		for (long i = 0; i < n; i++) {
			wait_until(t0 + (uint64_t)(span * (double)i / (double)n));
			if (send_one(fd, &sa, buf, len))
				return 1;
		}
		printf("sent %ld in %.0f us\n", n, (double)(now_ns() - t0) / 1e3);
		return 0;
	}
	if (argc == 7 && !strcmp(argv[1], "capped"))
		return send_capped(argv);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "recv")) {
		int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		uint64_t end = now_ns() + (uint64_t)(atof(argv[3]) * 1e9);
		long want = argc == 5 ? atol(argv[4]) : 0;
		long pk = 0;
		long long bytes = 0;
		int rcv = 4 << 20;

		memset(&sa, 0, sizeof(sa));
		sa.sin_family = AF_INET;
		sa.sin_port = htons((uint16_t)atoi(argv[2]));
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
		if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			perror("nic_traffic: bind");
			return 1;
		}
		for (uint64_t t; (t = now_ns()) < end && (want <= 0 || pk < want);) {
			struct pollfd p = {.fd = fd, .events = POLLIN};
			int ms = (int)((end - t) / 1000000) + 1;

			if (poll(&p, 1, ms) > 0) {
				ssize_t r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

				if (r >= 0) {
					pk++;
					bytes += r;
				}
			}
		}
		printf("packets %ld bytes %lld\n", pk, bytes);
		return 0;
	}
	fprintf(stderr, "usage: nic_traffic send DST PORT PAYLOAD PPS SECONDS\n"
			"       nic_traffic burst DST PORT PAYLOAD COUNT SPAN_US\n"
			"       nic_traffic recv PORT SECONDS [PACKETS]\n"
			"       nic_traffic capped DST PORT PAYLOAD N SECONDS\n");
	return 2;
}
