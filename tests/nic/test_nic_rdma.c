/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: serial */
/* The NIC collector's RDMA side against a sysfs fixture tree under a
 * temporary sysroot, advanced by tests/nic/rdma_fixture at known rates (with a
 * 32-bit wrap and a reset): bytes = words x 4, packet sizes, CNP and ECN
 * rates, Send Wait, NaN for a missing counter, regex selection, netdev
 * mapping, a port that disappears. Also the option rules and regex errors. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "nic_harness.h"
#include "nic_rdma.h"
#include "rdma_fixture.h"
#include "sysroot.h"
#include "../check_run.h"

static char root[256];
static pid_t fixture_pid;

static const char *fixture_bin(void)
{
	static char path[512];
	const char *b = getenv("top_builddir");

	snprintf(path, sizeof(path), "%s/tests/nic/rdma_fixture", b ? b : ".");
	return path;
}

static uint64_t read_t0(void)
{
	char path[512], buf[64];

	snprintf(path, sizeof(path), "%s/t0", root);
	for (int i = 0; i < 500; i++) {
		FILE *f = fopen(path, "r");

		if (f) {
			unsigned long long t = 0;
			int ok = fgets(buf, sizeof(buf), f) && sscanf(buf, "%llu", &t) == 1;

			fclose(f);
			if (ok && t)
				return t;
		}
		nic_sleep_ms(5);
	}
	ck_abort_msg("the fixture did not start");
	return 0;
}

/* Creates the tree; advance: starts the helper and returns its t = 0. */
static uint64_t fixture_start(bool advance)
{
	char cmd[1024];
	const char *tmp = getenv("TMPDIR");

	snprintf(root, sizeof(root), "%s/asys-nic-XXXXXX", tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "%s %s create", fixture_bin(), root);
	ck_assert_int_eq(system(cmd), 0);
	sysroot_set(root);
	if (!advance)
		return 0;
	fixture_pid = fork();
	if (fixture_pid == 0) {
		execl(fixture_bin(), fixture_bin(), root, "run", "8", "1000", (char *)NULL);
		_exit(127);
	}
	ck_assert_int_gt(fixture_pid, 0);
	return read_t0();
}

static void fixture_stop(void)
{
	char cmd[512];

	if (fixture_pid > 0) {
		kill(fixture_pid, SIGTERM);
		waitpid(fixture_pid, NULL, 0);
		fixture_pid = 0;
	}
	if (root[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		(void)!system(cmd);
		root[0] = '\0';
	}
}

static void sleep_until(uint64_t t)
{
	uint64_t n = asys_now_ns();

	if (t > n)
		nic_sleep_ms((double)(t - n) / 1e6);
}

static struct field_stats win(struct nic_harness *h, int64_t ent, int f, uint64_t end, uint64_t len)
{
	struct field_stats fs;

	store_lock(h->st);
	series_window(store_series(h->st, (uint32_t)h->rdma_sid, (uint64_t)ent), (uint32_t)f, end,
		      len, &fs);
	store_unlock(h->st);
	return fs;
}

static void last(struct nic_harness *h, int64_t ent, int f, double *v, uint64_t *ts)
{
	const struct series *se;

	store_lock(h->st);
	se = store_series(h->st, (uint32_t)h->rdma_sid, (uint64_t)ent);
	*v = se ? series_last(se, (uint32_t)f) : NAN;
	*ts = se ? series_last_ns(se) : 0;
	store_unlock(h->st);
}

#define ck_near(got, want, tol)                                                                    \
	ck_assert_msg(!isnan(got) && fabs((got) - (want)) <= (tol)*fabs((double)(want)),           \
		      "%s = %.1f, want %.1f within %.0f%%", #got, (double)(got), (double)(want),   \
		      (tol)*100)

START_TEST(test_unwrap)
{
	uint64_t w = 0, r = 0;

	ck_assert_uint_eq(nic_rdma_unwrap(10, 25, &w, &r), 15);
	/* 32-bit wrap: 0xfffffff0 -> 0x10 is 0x20 on */
	ck_assert_uint_eq(nic_rdma_unwrap(0xfffffff0ull, 0x10, &w, &r), 0x20);
	ck_assert_uint_eq(w, 1);
	/* 64-bit wrap */
	ck_assert_uint_eq(nic_rdma_unwrap(UINT64_MAX - 4, 5, &w, &r), 10);
	ck_assert_uint_eq(w, 2);
	/* a step back from the middle of the range is a reset: counts from 0 */
	ck_assert_uint_eq(nic_rdma_unwrap(1000000, 300, &w, &r), 300);
	ck_assert_uint_eq(nic_rdma_unwrap(0x90000000ull, 5, &w, &r), 5);
	ck_assert_uint_eq(r, 2);
}
END_TEST

START_TEST(test_frequency)
{
	struct asys_options o;

	options_defaults(&o);
	o.delay_s = 2.0;
	ck_assert(fabs(nic_collector.frequency(&o) - 0.5) < 1e-9); /* top default: 1/delay */
	ck_assert_int_eq(cli_set(&o, "nic-metrics", "true"), 0);
	ck_assert_int_eq(cli_set(&o, "nic-metrics-frequency", "10000"), 0);
	ck_assert(fabs(nic_collector.frequency(&o) - 10000) < 1e-9);
	ck_assert_int_eq(cli_set(&o, "nic-metrics", "false"), 0);
	ck_assert(nic_collector.frequency(&o) == 0); /* --nic-metrics false: off */
}
END_TEST

START_TEST(test_regex_error)
{
	static const char *const bad[] = {"(", "eth,[", "a{2,1}"};

	/* the command line refuses them before a collector runs, naming the
	 * option and the expression */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cli_options o;
		char *argv[] = {"top", "--nic-device-include", (char *)bad[i], NULL};
		static const struct cli_cmd top = {.sub = "top", .cmd = OPT_CMD_TOP};
		char buf[512] = "";
		FILE *saved = stderr, *f = fmemopen(buf, sizeof(buf), "w");

		ck_assert_ptr_nonnull(f);
		cli_options_defaults(&o);
		stderr = f;
		ck_assert_int_eq(cli_parse(&top, 3, argv, &o), CLI_EXIT_USAGE);
		stderr = saved;
		fclose(f);
		ck_assert_msg(strstr(buf, "bad regular expression") &&
				  strstr(buf, "--nic-device-include"),
			      "%s", buf);
	}
}
END_TEST

START_TEST(test_rates)
{
	struct nic_harness h;
	uint64_t t0 = fixture_start(true), end, ta, tb, tm;
	int64_t e0, eb;
	double va, vb, wa, wb, wm;
	struct field_stats fs;

	ck_assert_int_eq(nic_harness_start(&h, 100, NULL, 100000000ull), 0);
	sleep_until(t0 + 700000000ull);
	e0 = nic_harness_find(&h, h.rdma_sid, "mlx5_0/1 (eth2)");
	eb = nic_harness_find(&h, h.rdma_sid, "mlx5_bond_0/1 (bond0)");
	ck_assert_int_ge(e0, 0);
	ck_assert_int_ge(eb, 0);
	ck_assert_int_ge(nic_harness_find(&h, h.rdma_sid, "mlx5_2/1 (lo)"), 0); /* gid_attrs */
	ck_assert_int_ge(nic_harness_find(&h, h.link_sid, "lo (rdma: mlx5_2)"), 0);
	last(&h, e0, NIC_R_RX_BYTES, &va, &ta);
	last(&h, e0, NIC_R_TX_BYTES, &wa, &ta);
	sleep_until(t0 + 2800000000ull);
	last(&h, e0, NIC_R_TX_BYTES, &wm, &tm);
	sleep_until(t0 + 3700000000ull);
	last(&h, e0, NIC_R_RX_BYTES, &vb, &tb);
	last(&h, e0, NIC_R_TX_BYTES, &wb, &tb);
	nic_harness_stop(&h);

	/* the counter goes on through the wrap (t = 1.5 s): 4 bytes a word,
	 * nothing lost or invented */
	ck_near((vb - va) / ((double)(tb - ta) / 1e9), 10e6, 0.01);
	/* after the reset (t = 2.5 s) it counts on from zero; what the device
	 * counted between the last read and the reset is gone with it (one
	 * sample, more if the sampler was starved then) */
	ck_near((wb - wm) / ((double)(tb - tm) / 1e9), 20e6, 0.01);
	ck_assert_msg((wb - wa) / ((double)(tb - ta) / 1e9) >= 0.8 * 20e6 &&
			  (wb - wa) / ((double)(tb - ta) / 1e9) <= 1.01 * 20e6,
		      "across the reset %.0f B/s, want a little under 20 MB/s",
		      (wb - wa) / ((double)(tb - ta) / 1e9));

	end = t0 + 3500000000ull;
	end -= end % 100000000ull;
	fs = win(&h, e0, NIC_R_RX_BYTES, end, 3000000000ull);
	ck_near(fs.avg, 10e6, 0.02);
	/* the helper may be starved on a busy machine and catch up, so one
	 * per-sample rate can be many times the mean; a reset taken for a 64-bit
	 * wrap would be ~2^64 words, a wrap taken at face value a negative step */
	ck_assert_msg(fs.min >= 0 && fs.max <= 100 * 10e6, "rx per-sample rates %.0f..%.0f", fs.min,
		      fs.max);
	fs = win(&h, e0, NIC_R_TX_BYTES, end, 3000000000ull);
	ck_assert_msg(fs.min >= 0 && fs.max <= 100 * 20e6, "tx per-sample rates %.0f..%.0f", fs.min,
		      fs.max);
	fs = win(&h, e0, NIC_R_TX_BYTES, end, 900000000ull); /* after the reset */
	ck_near(fs.avg, 20e6, 0.02);
	ck_near(fs.avg / win(&h, e0, NIC_R_TX_PACKETS, end, 900000000ull).avg, 4000, 0.02);
	ck_near(win(&h, e0, NIC_R_RX_BYTES, end, 3000000000ull).avg /
		    win(&h, e0, NIC_R_RX_PACKETS, end, 3000000000ull).avg,
		4000, 0.02);
	ck_near(win(&h, e0, NIC_R_XMIT_WAIT, end, 3000000000ull).avg, 1e6, 0.02);
	ck_near(win(&h, e0, NIC_R_CNP_RX, end, 3000000000ull).avg, 200, 0.03);
	ck_near(win(&h, e0, NIC_R_CNP_TX, end, 3000000000ull).avg, 100, 0.03);
	ck_near(win(&h, e0, NIC_R_ECN_MARKED, end, 3000000000ull).avg, 300, 0.03);
	ck_near(win(&h, e0, NIC_R_OUT_OF_SEQ, end, 3000000000ull).avg, 5, 0.15);
	fs = win(&h, e0, NIC_R_CNP_IGNORED, end, 3000000000ull);
	ck_assert_msg(isnan(fs.avg) && fs.n == 0, "missing rp_cnp_ignored reads NaN, got %f",
		      fs.avg);
	/* the bond port */
	ck_near(win(&h, eb, NIC_R_RX_BYTES, end, 3000000000ull).avg, 5e6, 0.02);
	ck_near(win(&h, eb, NIC_R_TX_BYTES, end, 3000000000ull).avg /
		    win(&h, eb, NIC_R_TX_PACKETS, end, 3000000000ull).avg,
		8000, 0.02);
	ck_near(win(&h, eb, NIC_R_CNP_IGNORED, end, 3000000000ull).avg, 1, 0.4);
	fs = win(&h, eb, NIC_R_XMIT_WAIT, end, 3000000000ull);
	ck_assert_msg(fs.avg == 0, "idle send wait is 0, got %f", fs.avg);
	nic_harness_free(&h);
	fixture_stop();
}
END_TEST

static void check_pick(const char *include, bool mlx5_0, bool bond, bool mlx5_2)
{
	struct nic_harness h;

	fixture_start(false);
	ck_assert_int_eq(nic_harness_start(&h, 100, include, 100000000ull), 0);
	nic_sleep_ms(200);
	ck_assert_msg((nic_harness_find(&h, h.rdma_sid, "mlx5_0/") >= 0) == mlx5_0,
		      "'%s' and mlx5_0", include);
	ck_assert_msg((nic_harness_find(&h, h.rdma_sid, "mlx5_bond_0/") >= 0) == bond,
		      "'%s' and mlx5_bond_0", include);
	ck_assert_msg((nic_harness_find(&h, h.rdma_sid, "mlx5_2/") >= 0) == mlx5_2,
		      "'%s' and mlx5_2", include);
	nic_harness_stop(&h);
	nic_harness_free(&h);
	fixture_stop();
}

START_TEST(test_select)
{
	check_pick("bond", false, true, false); /* not mlx5_0 */
	check_pick("eth2", true, false, false); /* by its netdev */
	check_pick("bond,eth", true, true, false);
	check_pick("^mlx5_[0-9]$", true, false, true);
	check_pick("^lo$", false, false, true); /* netdev via gid_attrs */
}
END_TEST

START_TEST(test_unplug)
{
	struct nic_harness h;
	uint64_t t0 = fixture_start(true), ts;
	char cmd[600];
	double v;

	ck_assert_int_eq(nic_harness_start(&h, 100, "mlx5", 100000000ull), 0);
	sleep_until(t0 + 500000000ull);
	ck_assert_int_ge(nic_harness_find(&h, h.rdma_sid, "mlx5_bond_0/1"), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/sys/class/infiniband/mlx5_bond_0'", root);
	ck_assert_int_eq(system(cmd), 0);
	sleep_until(t0 + 2200000000ull);
	ck_assert_int_lt(nic_harness_find(&h, h.rdma_sid, "mlx5_bond_0/1"), 0);
	last(&h, nic_harness_find(&h, h.rdma_sid, "mlx5_0/1"), NIC_R_RX_BYTES, &v, &ts);
	ck_assert_msg(asys_now_ns() - ts < 100000000ull, "mlx5_0 still sampled");
	nic_harness_stop(&h);
	nic_harness_free(&h);
	fixture_stop();
}
END_TEST

/* Asked for more than the counters deliver: sampled as fast as they go, and
 * said once with both rates. A machine with cheap reads samples the
 * fixture's three ports at 100 kHz, so 64 more copies of mlx5_0 (9
 * counters each) make a tick of about 600 reads: at 0.16 us a read, well
 * under 20 kHz. */
START_TEST(test_rate_status)
{
	struct nic_harness h;
	const char *st;
	struct engine_group_stats gs;
	char cmd[600];

	fixture_start(false);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s/sys/class/infiniband' && for i in $(seq 64); do "
		 "cp -r mlx5_0 mlx5_m$i || exit 1; done",
		 root);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(nic_harness_start(&h, 100000, NULL, 100000000ull), 0);
	nic_sleep_ms(2600);
	engine_stats(h.e, &gs, 1);
	nic_harness_stop(&h);
	store_lock(h.st);
	st = store_status(h.st, (uint32_t)h.rdma_sid, STATUS_STREAM);
	ck_assert_msg(st && strstr(st, "asked for 100000 Hz") && strstr(st, "deliver"),
		      "status: %s (achieved %.0f Hz)", st ? st : "(none)", gs.hz_achieved);
	store_unlock(h.st);
	ck_assert_msg(gs.hz_achieved > 100 && gs.hz_achieved < 95000, "achieved %.0f Hz",
		      gs.hz_achieved);
	nic_harness_free(&h);
	fixture_stop();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nic_rdma");
	TCase *tc = tcase_create("rdma");
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, NULL, fixture_stop);
	tcase_add_test(tc, test_unwrap);
	tcase_add_test(tc, test_frequency);
	tcase_add_test(tc, test_regex_error);
	tcase_add_test(tc, test_rates);
	tcase_add_test(tc, test_select);
	tcase_add_test(tc, test_unplug);
	tcase_add_test(tc, test_rate_status);
	suite_add_tcase(s, tc);
	return check_run(s, NULL);
}
