/* SPDX-License-Identifier: GPL-2.0-only */
/* Builds an RDMA sysfs fixture tree under ROOT and advances its counters at
 * known rates, as a driver would: value(t) = start + rate * t, with one
 * 32-bit counter that wraps (mlx5_0 port_rcv_data at t = 1.5 s) and one that
 * resets to zero (mlx5_0 port_xmit_data at t = 2.5 s, a driver reload).
 *
 *   rdma_fixture ROOT create [bench]   make the tree (bench: 2 ports only)
 *   rdma_fixture ROOT run SECONDS [HZ] advance it (0 s = until killed);
 *                                      writes ROOT/t0 (CLOCK_MONOTONIC ns of t = 0)
 *                                      before the first update
 * The expected rates are in rdma_fixture.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rdma_fixture.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int mkdirs(const char *path)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static uint64_t value_at(const struct rdma_fixture_counter *c, double t)
{
	if (c->reset_at > 0 && t >= c->reset_at)
		return (uint64_t)(c->rate * (t - c->reset_at));
	{
		uint64_t v = c->start + (uint64_t)(c->rate * t);

		return c->wrap32 ? (v & 0xffffffffull) : v;
	}
}

static void counter_path(char *buf, size_t n, const char *root, const struct rdma_fixture_port *p,
			 const struct rdma_fixture_counter *c)
{
	snprintf(buf, n, "%s/sys/class/infiniband/%s/ports/%u/%s", root, p->dev, p->port, c->file);
}

static int create(const char *root, bool bench)
{
	char path[1024];

	for (size_t i = 0; i < RDMA_FIXTURE_NPORTS; i++) {
		const struct rdma_fixture_port *p = &rdma_fixture_ports[i];

		if (bench && !p->bench)
			continue;
		snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/ports/%u/counters", root,
			 p->dev, p->port);
		if (mkdirs(path))
			return -1;
		snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/ports/%u/hw_counters",
			 root, p->dev, p->port);
		if (mkdirs(path))
			return -1;
		if (p->netdev_by_gid) {
			snprintf(path, sizeof(path),
				 "%s/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs", root,
				 p->dev, p->port);
			if (mkdirs(path))
				return -1;
			char text[64];

			strcat(path, "/0");
			snprintf(text, sizeof(text), "%s\n", p->netdev);
			if (write_file(path, text))
				return -1;
		} else {
			snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/device/net/%s",
				 root, p->dev, p->netdev);
			if (mkdirs(path))
				return -1;
		}
		for (size_t k = 0; k < p->ncounters; k++) {
			char text[32];

			counter_path(path, sizeof(path), root, p, &p->counters[k]);
			snprintf(text, sizeof(text), "%020llu\n",
				 (unsigned long long)value_at(&p->counters[k], 0));
			if (write_file(path, text))
				return -1;
		}
	}
	return 0;
}

struct open_counter {
	int fd;
	const struct rdma_fixture_counter *c;
};

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int run(const char *root, double secs, double hz)
{
	struct open_counter oc[RDMA_FIXTURE_NPORTS * RDMA_FIXTURE_MAX_COUNTERS];
	size_t n = 0;
	char path[1024], text[64];
	uint64_t t0, period = (uint64_t)(1e9 / hz);

	for (size_t i = 0; i < RDMA_FIXTURE_NPORTS; i++) {
		const struct rdma_fixture_port *p = &rdma_fixture_ports[i];

		for (size_t k = 0; k < p->ncounters; k++) {
			counter_path(path, sizeof(path), root, p, &p->counters[k]);
			oc[n].fd = open(path, O_WRONLY);
			if (oc[n].fd < 0)
				continue; /* not in this tree (bench) */
			oc[n++].c = &p->counters[k];
		}
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	t0 = now_ns();
	snprintf(path, sizeof(path), "%s/t0", root);
	snprintf(text, sizeof(text), "%llu\n", (unsigned long long)t0);
	if (write_file(path, text))
		return 1;
	for (uint64_t k = 1; !stop; k++) {
		uint64_t next = t0 + k * period;
		struct timespec ts = {(time_t)(next / 1000000000ull), (long)(next % 1000000000ull)};
		double t;

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		t = (double)(now_ns() - t0) / 1e9;
		if (secs > 0 && t > secs)
			break;
		for (size_t i = 0; i < n; i++) {
			/* same width every time: no truncation, a reader never sees a
			 * short file */
			snprintf(text, sizeof(text), "%020llu\n",
				 (unsigned long long)value_at(oc[i].c, t));
			/* a file removed under us (the unplug test) just stops counting */
			(void)!pwrite(oc[i].fd, text, 21, 0);
		}
	}
	for (size_t i = 0; i < n; i++)
		close(oc[i].fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[2], "create"))
		return create(argv[1], argc > 3 && !strcmp(argv[3], "bench")) ? 1 : 0;
	if (argc >= 4 && !strcmp(argv[2], "run"))
		return run(argv[1], atof(argv[3]), argc > 4 ? atof(argv[4]) : 1000.0);
	fprintf(stderr, "usage: rdma_fixture ROOT create [bench] | ROOT run SECONDS [HZ]\n");
	return 2;
}
