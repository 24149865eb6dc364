/* SPDX-License-Identifier: GPL-2.0-only */
/* NIC collector cost, for bench/nic: at each requested rate it runs the real
 * collector in the engine for a few seconds (achieved rate, the sampling
 * thread's CPU), and in the same run times the parts on their own:
 *   bare   one RTM_GETSTATS dump + one pread per RDMA counter (kept fds),
 *          nothing else: the least a sample can cost;
 *   sample the collector's sample() called in a loop (bare + parsing,
 *          bookkeeping, emitting records into a ring);
 *   wake   one timerfd wake of an otherwise empty 1 kHz loop;
 *   stat   one RDMA netlink STAT_GET (a port's hw_counters) against the
 *          kernel's own devices, where it has RDMA netlink (the fixture's
 *          ports are sysfs only), beside the preads it replaces.
 *   nic_bench SYSROOT SECONDS RATE...      (SYSROOT holds the RDMA fixture) */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#include "nic_harness.h"
#include "nic_netlink.h"
#include "nic_rdma.h"
#include "nic_rdmanl.h"
#include "ring.h"
#include "sysroot.h"

static uint64_t clk(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void noop_cb(void *ctx, uint32_t ifindex, const char *name, const uint64_t v[NIC_L_NFIELDS])
{
	(*(unsigned *)ctx)++;
}

struct bare {
	double dump_us, pread_us;
	unsigned links, fds;
};

/* The bare syscalls: dump and preads, timed separately, thread CPU time. */
static void bare_cost(struct bare *b, int iters)
{
	struct nic_rdma *r = nic_rdma_new();
	struct nic_nl *nl = nic_nl_new(false, NULL);
	int fds[64];
	unsigned nfd = 0, links = 0;
	char buf[64];
	uint64_t t0, t1;

	memset(b, 0, sizeof(*b));
	if (!r || !nl)
		goto out;
	nic_rdma_scan(r);
	for (size_t i = 0; i < nic_rdma_count(r); i++) {
		struct nic_rdma_port *p = nic_rdma_port_at(r, i);

		for (int f = 0; f < NIC_R_NFIELDS && nfd < 64; f++)
			if (p->fd[f] >= 0)
				fds[nfd++] = p->fd[f];
	}
	nic_nl_dump_stats(nl, noop_cb, &links);
	b->links = links;
	b->fds = nfd;
	t0 = clk(CLOCK_THREAD_CPUTIME_ID);
	for (int i = 0; i < iters; i++)
		nic_nl_dump_stats(nl, noop_cb, &links);
	t1 = clk(CLOCK_THREAD_CPUTIME_ID);
	b->dump_us = (double)(t1 - t0) / iters / 1e3;
	t0 = clk(CLOCK_THREAD_CPUTIME_ID);
	for (int i = 0; i < iters; i++)
		for (unsigned k = 0; k < nfd; k++)
			if (pread(fds[k], buf, sizeof(buf) - 1, 0) < 0)
				break;
	t1 = clk(CLOCK_THREAD_CPUTIME_ID);
	b->pread_us = (double)(t1 - t0) / iters / 1e3;
out:
	nic_nl_free(nl);
	nic_rdma_free(r);
}

struct nl_devs {
	uint32_t index[2];
	char name[2][NIC_RDMA_NAME_MAX];
	unsigned n;
};

static void on_dev(void *ctx, uint32_t index, const char *name)
{
	struct nl_devs *d = ctx;

	if (d->n < 2) {
		d->index[d->n] = index;
		snprintf(d->name[d->n++], NIC_RDMA_NAME_MAX, "%s", name);
	}
}

/* One STAT_GET per port of the kernel's first two devices (port 1), thread
 * CPU and wall time per request, beside as many preads as it answers. */
static void stat_get_cost(const struct bare *b, int iters)
{
	int err = 0;
	struct nic_rdmanl *nl = nic_rdmanl_new(&err);
	struct nl_devs d = {.n = 0};

	if (!nl) {
		printf(
		    "RDMA netlink STAT_GET: unavailable here (NETLINK_RDMA: %s): the hw_counters "
		    "come from sysfs preads\n",
		    strerror(-err));
		return;
	}
	err = nic_rdmanl_list(nl, on_dev, &d);
	if (err || !d.n)
		printf("RDMA netlink STAT_GET: %s\n",
		       err ? strerror(-err) : "no RDMA devices in this kernel: nothing to time");
	for (unsigned k = 0; !err && k < d.n; k++) {
		uint64_t raw[NIC_R_NFIELDS], c0, c1, w0, w1;
		uint32_t have = 0;
		int rc = nic_rdmanl_stat(nl, d.index[k], 1, d.name[k], raw, &have);

		if (rc) {
			printf("RDMA netlink STAT_GET %s/1: %s (that port reads sysfs)\n",
			       d.name[k], strerror(-rc));
			continue;
		}
		c0 = clk(CLOCK_THREAD_CPUTIME_ID);
		w0 = clk(CLOCK_MONOTONIC);
		for (int i = 0; i < iters; i++)
			nic_rdmanl_stat(nl, d.index[k], 1, d.name[k], raw, &have);
		c1 = clk(CLOCK_THREAD_CPUTIME_ID);
		w1 = clk(CLOCK_MONOTONIC);
		printf("RDMA netlink STAT_GET %s/1: %.2f us CPU, %.2f us wall per request for %d "
		       "hw counters we use; as preads: ~%.2f us\n",
		       d.name[k], (double)(c1 - c0) / iters / 1e3, (double)(w1 - w0) / iters / 1e3,
		       __builtin_popcount(have),
		       b->fds ? __builtin_popcount(have) * b->pread_us / b->fds : NAN);
	}
	nic_rdmanl_free(nl);
}

/* The collector's own sample() in a loop, records going into a ring. */
static double sample_cost(int iters, unsigned *recs)
{
	struct asys_options o;
	struct stream_table *t = stream_table_new();
	struct coll_ctx ctx = {&o, t};
	struct ring *ring = ring_new(64u << 20);
	struct emitter em = {.ring = ring};
	void *st = NULL;
	uint64_t t0, t1;
	double us = NAN;

	options_defaults(&o);
	if (cli_set(&o, "nic-metrics", "true"))
		goto out;
	if (!t || !ring || nic_collector.init(&ctx, &st))
		goto out;
	nic_collector.sample(st, &em, asys_now_ns()); /* labels, first scan */
	t0 = clk(CLOCK_THREAD_CPUTIME_ID);
	for (int i = 0; i < iters; i++) {
		nic_collector.sample(st, &em, asys_now_ns());
		if ((i & 1023) == 1023) { /* drain, untimed */
			const void *r;
			size_t len;
			uint64_t p0 = clk(CLOCK_THREAD_CPUTIME_ID);

			while ((r = ring_peek(ring, &len))) {
				ring_pop(ring, len);
				(*recs)++;
			}
			t0 += clk(CLOCK_THREAD_CPUTIME_ID) - p0;
		}
	}
	t1 = clk(CLOCK_THREAD_CPUTIME_ID);
	us = (double)(t1 - t0) / iters / 1e3;
	{
		const void *r;
		size_t len;

		while ((r = ring_peek(ring, &len))) {
			ring_pop(ring, len);
			(*recs)++;
		}
	}
out:
	nic_collector.fini(st);
	ring_free(ring);
	stream_table_free(t);
	return us;
}

/* CPU of one timer wake: an empty timerfd loop at 1 kHz for half a second. */
static double wake_cost(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	struct itimerspec its = {{0, 1000000}, {0, 1000000}};
	uint64_t n = 0, exp, t0, t1;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL))
		return NAN;
	t0 = clk(CLOCK_THREAD_CPUTIME_ID);
	for (int i = 0; i < 500; i++)
		if (read(fd, &exp, sizeof(exp)) == sizeof(exp))
			n++;
	t1 = clk(CLOCK_THREAD_CPUTIME_ID);
	close(fd);
	return n ? (double)(t1 - t0) / (double)n / 1e3 : NAN;
}

int main(int argc, char **argv)
{
	struct bare b;
	double secs, wake, samp;
	unsigned recs = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: nic_bench SYSROOT SECONDS RATE...\n");
		return 2;
	}
	sysroot_set(argv[1]);
	secs = atof(argv[2]);
	/* the engine measures rate and CPU over whole 1 s windows: a shorter
	 * run would report none */
	if (secs < 2) {
		printf("(%.1f s per rate is too short to measure: using 2 s)\n", secs);
		secs = 2;
	}
	bare_cost(&b, 20000);
	samp = sample_cost(20000, &recs);
	wake = wake_cost();
	printf("sources: %u netdevs (RTM_GETSTATS), %u RDMA counter files\n", b.links, b.fds);
	printf("alone, thread CPU per call: dump %.2f us, %u preads %.2f us (bare %.2f us); "
	       "sample() %.2f us; timer wake %.2f us\n",
	       b.dump_us, b.fds, b.pread_us, b.dump_us + b.pread_us, samp, wake);
	printf("sample() above bare: %.2f us (%.0f%%): parsing, unwrap, bookkeeping, %.1f records "
	       "into the ring\n",
	       samp - b.dump_us - b.pread_us,
	       100 * (samp - b.dump_us - b.pread_us) / (b.dump_us + b.pread_us),
	       (double)recs / 20000);
	stat_get_cost(&b, 5000);
	printf("%9s %11s %8s %8s %12s %12s %9s\n", "rate", "achieved", "late", "CPU%", "us/tick",
	       "bare+wake", "overhead");
	for (int i = 3; i < argc; i++) {
		double hz = atof(argv[i]), per_tick, ref;
		struct nic_harness h;
		struct engine_group_stats gs;

		if (nic_harness_start(&h, hz, NULL, 1000000000ull)) {
			printf("%9.0f harness failed\n", hz);
			return 1;
		}
		nic_sleep_ms(secs * 1000);
		memset(&gs, 0, sizeof(gs));
		engine_stats(h.e, &gs, 1);
		nic_harness_stop(&h);
		nic_harness_free(&h);
		per_tick = gs.cpu_pct / 100 * 1e6 / gs.hz_achieved;
		/* a spinning thread burns its idle time: per-tick cost is not the cost */
		ref = b.dump_us + b.pread_us + (hz > ENGINE_SPIN_HZ ? 0 : wake);
		printf("%9.0f %9.0f Hz %8llu %7.1f%% %9.2f us %9.2f us %8.0f%%%s\n", hz,
		       gs.hz_achieved, (unsigned long long)gs.late, gs.cpu_pct, per_tick, ref,
		       100 * (per_tick - ref) / ref, hz > ENGINE_SPIN_HZ ? "  (spin mode)" : "");
	}
	return 0;
}
