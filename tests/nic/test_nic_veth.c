/* SPDX-License-Identifier: GPL-2.0-only */
/* The NIC collector against real traffic: run inside a network namespace
 * whose veth peer (in another namespace) runs `nic_traffic recv`. The real
 * collector + engine + store sample at 1 kHz while nic_traffic sends a known
 * stream and then a 5 ms burst inside a quiet second; the store's rates,
 * packet sizes and peak must match. Then the veth is deleted (the entity must
 * go, the collector keep running) and a new one added (it must appear).
 *
 *   test_nic_veth IFNAME DST PORT NIC_TRAFFIC     (driven by tests/nic/veth.sh) */
#include "config.h"

#include <math.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nic_harness.h"
#include "nic_netlink.h"

#define PAYLOAD 958 /* + 42 header bytes = 1000-byte frames */
#define FRAME 1000.0
#define PPS 1000.0

static int failures;

#define EXPECT(cond, ...)                                                                          \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			failures++;                                                                \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);                                \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		}                                                                                  \
	} while (0)

static const char *traffic_bin, *dst, *port;

static int run_traffic(const char *mode, const char *a, const char *b, const char *c)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		execl(traffic_bin, traffic_bin, mode, dst, port, a, b, c, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int within(double got, double want, double tol)
{
	return !isnan(got) && fabs(got - want) <= tol * want;
}

static struct field_stats window(struct nic_harness *h, uint64_t ent, int field, uint64_t end,
				 uint64_t len)
{
	struct field_stats fs;

	store_lock(h->st);
	series_window(store_series(h->st, (uint32_t)h->link_sid, ent), (uint32_t)field, end, len,
		      &fs);
	store_unlock(h->st);
	return fs;
}

/* Waits until the store holds the link's samples up to end_ns: on a loaded
 * machine the bus may hand them over late, and a window read before would
 * miss the last of them. Returns when it stopped waiting (20 s at most). */
static uint64_t wait_stored(struct nic_harness *h, uint64_t ent, uint64_t end_ns)
{
	for (int ms = 0; ms < 20000; ms += 10) {
		uint64_t last;

		store_lock(h->st);
		last = series_last_ns(store_series(h->st, (uint32_t)h->link_sid, ent));
		store_unlock(h->st);
		if (last >= end_ns)
			break;
		nic_sleep_ms(10);
	}
	return asys_now_ns();
}

struct nl_pick {
	uint32_t ifindex;
	uint64_t v[NIC_L_NFIELDS];
	int seen;
};

/* Waits until a link series labelled label is (listed) or is not in the
 * store. A loaded machine may take seconds: the deadline is generous, and
 * the wait ends as soon as the store shows it. */
static bool wait_listed(struct nic_harness *h, const char *label, bool listed)
{
	for (int ms = 0; ms < 20000; ms += 20) {
		if ((nic_harness_find(h, h->link_sid, label) >= 0) == listed)
			return true;
		nic_sleep_ms(20);
	}
	return (nic_harness_find(h, h->link_sid, label) >= 0) == listed;
}

static void pick_cb(void *ctx, uint32_t ifindex, const char *name, const uint64_t v[NIC_L_NFIELDS])
{
	struct nl_pick *p = ctx;

	if (ifindex == p->ifindex) {
		memcpy(p->v, v, sizeof(p->v));
		p->seen++;
	}
}

/* RTM_GETSTATS and the RTM_GETLINK fallback report the same counters. */
static void check_fallback(uint32_t ifindex)
{
	struct nl_pick a = {.ifindex = ifindex}, b = {.ifindex = ifindex};
	int err = 0;
	struct nic_nl *gs = nic_nl_new(false, &err), *gl = nic_nl_new(true, &err);

	EXPECT(gs && gl, "netlink sockets: %d", err);
	if (!gs || !gl)
		goto out;
	EXPECT(nic_nl_dump_stats(gs, pick_cb, &a) == 0, "RTM_GETSTATS dump");
	EXPECT(nic_nl_uses_getstats(gs), "RTM_GETSTATS is there on this kernel");
	EXPECT(nic_nl_dump_stats(gl, pick_cb, &b) == 0, "RTM_GETLINK dump");
	EXPECT(!nic_nl_uses_getstats(gl), "forced fallback uses RTM_GETLINK");
	EXPECT(a.seen == 1 && b.seen == 1, "both dumps list the veth once (%d, %d)", a.seen,
	       b.seen);
	EXPECT(!memcmp(a.v, b.v, sizeof(a.v)), "same counters (tx_bytes %llu vs %llu)",
	       (unsigned long long)a.v[NIC_L_TX_BYTES], (unsigned long long)b.v[NIC_L_TX_BYTES]);
out:
	nic_nl_free(gs);
	nic_nl_free(gl);
}

int main(int argc, char **argv)
{
	struct nic_harness h;
	const char *ifname;
	uint32_t ifindex;
	uint64_t t0, t1, tb0, tb1;
	struct field_stats txb, txp, rxp, peak;
	struct engine_group_stats gs;
	int64_t ent;

	if (argc != 5) {
		fprintf(stderr, "usage: test_nic_veth IFNAME DST PORT NIC_TRAFFIC\n");
		return 2;
	}
	ifname = argv[1];
	dst = argv[2];
	port = argv[3];
	traffic_bin = argv[4];
	ifindex = if_nametoindex(ifname);
	if (!ifindex) {
		printf("no interface %s\n", ifname);
		return 1;
	}
	check_fallback(ifindex);

	if (nic_harness_start(&h, 1000, "veth", 100000000ull)) {
		printf("FAIL: harness did not start\n");
		return 1;
	}
	wait_listed(&h, ifname, true);
	ent = nic_harness_find(&h, h.link_sid, ifname);
	EXPECT(ent == (int64_t)ifindex, "%s labelled as entity %u (got %lld)", ifname, ifindex,
	       (long long)ent);
	EXPECT(nic_harness_find(&h, h.link_sid, "lo") < 0, "lo is not selected by 'veth'");

	/* 1: a steady 1000 x 1000-byte frames per second for 3 s */
	t0 = asys_now_ns();
	EXPECT(run_traffic("send", "958", "1000", "3") == 0, "sender ran");
	t1 = asys_now_ns();
	/* two seconds that end 0.5 s before the sender did: its start (exec,
	 * and the sanitizers' start-up) can take long on a loaded machine, its
	 * exit after the last frame does not */
	txb = window(&h, ifindex, NIC_L_TX_BYTES, t1 - 500000000ull, 2000000000ull);
	txp = window(&h, ifindex, NIC_L_TX_PACKETS, t1 - 500000000ull, 2000000000ull);
	rxp = window(&h, ifindex, NIC_L_RX_PACKETS, t1 - 500000000ull, 2000000000ull);
	printf("steady: tx %.0f B/s (want %.0f), %.1f pkt/s, %.1f B/pkt, rx %.1f pkt/s, "
	       "sender %.2f s\n",
	       txb.avg, FRAME * PPS, txp.avg, txb.avg / txp.avg, rxp.avg, (double)(t1 - t0) / 1e9);
	EXPECT(within(txb.avg, FRAME * PPS, 0.02), "tx rate %.0f within 2%% of %.0f", txb.avg,
	       FRAME * PPS);
	EXPECT(within(txp.avg, PPS, 0.02), "tx packets %.1f/s within 2%% of %.0f", txp.avg, PPS);
	EXPECT(within(txb.avg / txp.avg, FRAME, 0.02), "packet size %.1f within 2%% of %.0f",
	       txb.avg / txp.avg, FRAME);
	EXPECT(rxp.avg < 5, "nothing comes back (%.1f pkt/s)", rxp.avg);

	/* 2: a quiet second (1 s after the stream) with a 5 ms burst of 50 frames (10 MB/s) in the
	 * middle */
	nic_sleep_ms(1000);
	tb0 = asys_now_ns();
	EXPECT(run_traffic("burst", "958", "50", "5000") == 0, "burst ran");
	tb1 = asys_now_ns();
	{
		/* a whole-bucket second from ~0.7 s before the burst to ~0.3 s after */
		uint64_t end = ((tb1 + 300000000ull) / 100000000ull + 1) * 100000000ull;
		double hist[10];

		printf("burst: the store reached the window's end %.0f ms after the sender\n",
		       (double)(wait_stored(&h, ifindex, end) - tb1) / 1e6);

		peak = window(&h, ifindex, NIC_L_TX_BYTES, end, 1000000000ull);
		store_lock(h.st);
		series_history(store_series(h.st, (uint32_t)h.link_sid, ifindex), NIC_L_TX_BYTES,
			       end, 100000000ull, hist, 10);
		store_unlock(h.st);
		printf("burst second, 100 ms buckets (B/s):");
		for (int i = 0; i < 10; i++)
			printf(" %.0f", hist[i]);
		printf("\n");
	}
	printf("burst: sender took %.1f ms; 1 s window avg %.0f B/s, peak %.0f B/s "
	       "(burst %.0f B/s)\n",
	       (double)(tb1 - tb0) / 1e6, peak.avg, peak.max, 50 * FRAME / 0.005);
	EXPECT(within(peak.avg, 50 * FRAME, 0.2), "window avg %.0f ~ 50 kB/s", peak.avg);
	EXPECT(peak.max >= 0.3 * 50 * FRAME / 0.005 && peak.max <= 20 * 50 * FRAME / 0.005,
	       "peak %.0f B/s catches the 10 MB/s burst", peak.max);
	EXPECT(peak.max > 50 * peak.avg, "peak %.0f stands out of the avg %.0f", peak.max,
	       peak.avg);

	/* 3: the veth disappears mid-run, a new one appears */
	{
		char cmd[128];
		uint64_t ticks0;

		engine_stats(h.e, &gs, 1);
		ticks0 = gs.ticks;
		snprintf(cmd, sizeof(cmd), "ip link del dev %s", ifname);
		EXPECT(system(cmd) == 0, "%s", cmd);
		EXPECT(wait_listed(&h, ifname, false), "%s gone from the store", ifname);
		EXPECT(system("ip link add veth-nX type veth peer name veth-nY") == 0,
		       "add veth-nX");
		EXPECT(wait_listed(&h, "veth-nX", true), "veth-nX picked up");
		EXPECT(wait_listed(&h, "veth-nY", true), "veth-nY picked up");
		system("ip link del dev veth-nX");
		/* the tick count is updated once a second: poll it */
		for (int ms = 0; ms < 20000; ms += 50) {
			engine_stats(h.e, &gs, 1);
			if (gs.ticks > ticks0 + 500)
				break;
			nic_sleep_ms(50);
		}
		printf("engine: %.0f Hz achieved of %.0f, %.1f%% CPU, %llu late, %llu dropped\n",
		       gs.hz_achieved, gs.hz_requested, gs.cpu_pct, (unsigned long long)gs.late,
		       (unsigned long long)gs.dropped);
		EXPECT(gs.ticks > ticks0 + 500, "sampling went on (%llu ticks after the removal)",
		       (unsigned long long)(gs.ticks - ticks0));
	}
	nic_harness_stop(&h);
	nic_harness_free(&h);
	printf("%s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
