/* SPDX-License-Identifier: GPL-2.0-only */
/* ppu.proc_util, per-process PPU utilisation, from the fake libhgml.so
 * through the real dlopen path, the engine, the bus and the store: the
 * values follow the fake's pattern exactly, each library sample is read
 * once, both library calls work, a refusal is said once, the buffer grows
 * within its bound, and a recording replays the stream as it was. */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus.h"
#include "rec_player.h"
#include "ring.h"
#include "store.h"
#include "stream.h"
#include "test_ppu.h"

static const char *const util_fields[] = {"sm", "mem", "enc", "dec"};

static uint64_t key(unsigned int d, unsigned int pid)
{
	return ((uint64_t)d << 32) | pid;
}

/* Process i of device d when the device has nbase processes of its own
 * (FAKE_HGML_SHARED's follow them). */
static unsigned int pid_of(unsigned int d, unsigned int i, unsigned int nbase)
{
	if (i >= nbase)
		return 4000900 + (i - nbase);
	return d == 0 && i == 0 ? (unsigned int)getpid() : 4000000 + 100 * d + i;
}

/* The fake's pattern (tests/fakes/libhgml.c): sm, mem, enc, dec. */
static void pattern(unsigned int d, unsigned int i, double w[4])
{
	unsigned int sm = 1 + (10 * d + i) % 100;

	w[0] = sm;
	w[1] = sm / 2;
	w[2] = (d + i) % 100;
	w[3] = i % 2 ? NAN : 2 * d % 100;
}

static void check_process(const struct run *r, unsigned int d, unsigned int i, unsigned int nbase)
{
	unsigned int pid = pid_of(d, i, nbase);
	double w[4];

	pattern(d, i, w);
	for (int f = 0; f < 4; f++) {
		double v = last(r, r->util, key(d, pid), util_fields[f]);

		if (isnan(w[f]))
			ck_assert_msg(isnan(v), "device %u pid %u %s: %g, want n/a", d, pid,
				      util_fields[f], v);
		else
			ck_assert_msg(v == w[f], "device %u pid %u %s: %g, want %g", d, pid,
				      util_fields[f], v, w[f]);
	}
}

/* What the fake's utilisation calls did on device d: samples returned,
 * returned again, calls of the newer and of the older call. */
static void fake_stats(int old, unsigned int d, unsigned long long out[4])
{
	char path[PATH_MAX];
	void (*fn)(unsigned int, unsigned long long *);
	void *h;

	tp_fake_path(path, sizeof(path), old);
	h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	ck_assert_msg(h != NULL, "the fake is not loaded: %s", path);
	*(void **)&fn = dlsym(h, "fakeHgmlUtilStats");
	ck_assert_ptr_nonnull(fn);
	fn(d, out);
	dlclose(h);
}

static size_t util_entities(const struct run *r)
{
	return store_entities(r->s, (uint32_t)r->util, NULL, 0);
}

static const char *util_status(const struct run *r)
{
	return store_status(r->s, (uint32_t)r->util, STATUS_STREAM);
}

static bool util_said(const struct run *r)
{
	return util_status(r) != NULL;
}

/* The seven processes of the fake's four devices (1 + d % 3 each). */
static bool util_seven(const struct run *r)
{
	return util_entities(r) == 1 + 2 + 3 + 1;
}

START_TEST(util_values_follow_the_fake)
{
	unsigned long long st[4];
	struct run r;

	tp_use_fake(0);
	setenv("FAKE_HGML_SHARED", "1", 1);
	opts_for(&r, NULL, NULL, NULL, 100);
	r.keep = "ppu.proc_util";
	run_go(&r, 0.6);
	/* 1 + d % 3 processes per device, and the two shared ones on 0 and 1 */
	ck_assert_uint_eq(util_entities(&r), 1 + 2 + 3 + 1 + 4);
	for (unsigned int d = 0; d < 4; d++)
		for (unsigned int i = 0; i < 1 + d % 3 + (d < 2 ? 2 : 0); i++)
			check_process(&r, d, i, 1 + d % 3);
	/* the sums the fake's comment promises for a pane */
	ck_assert_double_eq(
	    last(&r, r.util, key(0, 4000900), "sm") + last(&r, r.util, key(1, 4000900), "sm"), 15);
	ck_assert_double_eq(
	    last(&r, r.util, key(0, 4000901), "sm") + last(&r, r.util, key(1, 4000901), "sm"), 17);
	ck_assert_double_eq(last(&r, r.util, key(0, (unsigned int)getpid()), "sm"), 1);
	/* the newer call, every sample read once */
	for (unsigned int d = 0; d < 4; d++) {
		fake_stats(0, d, st);
		ck_assert_msg(st[0] > 0 && st[1] == 0, "device %u: %llu samples, %llu again", d,
			      st[0], st[1]);
		ck_assert_uint_gt(st[2], 0);
		ck_assert_uint_eq(st[3], 0);
	}
	/* one sample per process per refresh, however many the library had */
	ck_assert_uint_gt(r.k->n, 11);
	for (size_t a = 0; a < r.k->n; a++)
		for (size_t b = a + 1; b < r.k->n; b++)
			ck_assert(r.k->entity[a] != r.k->entity[b] || r.k->ts[a] != r.k->ts[b]);
	ck_assert_ptr_null(util_status(&r));
	run_end(&r);
}
END_TEST

START_TEST(util_old_library_uses_the_older_call)
{
	unsigned long long st[4];
	struct run r;

	tp_use_fake(1);
	opts_for(&r, "all", NULL, NULL, 100);
	run_until(&r, 10, util_seven);
	ck_assert_uint_eq(util_entities(&r), 1 + 2 + 3 + 1);
	for (unsigned int d = 0; d < 4; d++)
		for (unsigned int i = 0; i < 1 + d % 3; i++)
			check_process(&r, d, i, 1 + d % 3);
	fake_stats(1, 1, st);
	ck_assert_msg(st[0] > 0 && st[1] == 0, "%llu samples, %llu again", st[0], st[1]);
	ck_assert_uint_eq(st[2], 0);
	ck_assert_uint_gt(st[3], 0);
	ck_assert_ptr_null(util_status(&r));
	run_end(&r);
}
END_TEST

static bool util_two_processes(const struct run *r)
{
	return store_series(r->s, (uint32_t)r->util, key(1, pid_of(1, 1, 2))) &&
	       store_series(r->s, (uint32_t)r->util, key(2, pid_of(2, 2, 3)));
}

START_TEST(util_newer_call_refused_falls_back)
{
	unsigned long long st[4];
	struct run r;

	tp_use_fake(0);
	setenv("FAKE_HGML_PUTIL", "new_not_supported", 1);
	opts_for(&r, NULL, NULL, NULL, 100);
	run_until(&r, 10, util_two_processes);
	check_process(&r, 1, 1, 2);
	check_process(&r, 2, 2, 3);
	/* refused once, on the first device; the older call from then on */
	fake_stats(0, 0, st);
	ck_assert_uint_eq(st[2], 1);
	ck_assert_uint_gt(st[3], 0);
	fake_stats(0, 1, st);
	ck_assert_uint_eq(st[2], 0);
	ck_assert_uint_eq(st[1], 0);
	ck_assert_ptr_null(util_status(&r));
	run_end(&r);
}
END_TEST

static bool util_said_processes_seen(const struct run *r)
{
	return util_said(r) && store_entities(r->s, (uint32_t)r->proc, NULL, 0) == 7;
}

START_TEST(util_not_supported_is_said_once)
{
	unsigned long long st[4];
	struct run r;
	const char *s;

	tp_use_fake(0);
	setenv("FAKE_HGML_PUTIL", "not_supported", 1);
	opts_for(&r, NULL, NULL, NULL, 100);
	run_until(&r, 10, util_said_processes_seen);
	s = util_status(&r);
	ck_assert_msg(s && !strcmp(s, "per-process PPU utilisation is not supported on device 0: "
				      "hgmlDeviceGetProcessUtilization answers Not Supported"),
		      "%s", s);
	ck_assert_uint_eq(util_entities(&r), 0);
	/* the device state and processes go on */
	ck_assert_uint_eq(store_entities(r.s, (uint32_t)r.proc, NULL, 0), 7);
	/* a refusing device is asked once */
	fake_stats(0, 0, st);
	ck_assert_uint_eq(st[2], 1);
	ck_assert_uint_eq(st[3], 1);
	fake_stats(0, 3, st);
	ck_assert_uint_eq(st[3], 1);
	run_end(&r);
}
END_TEST

START_TEST(util_buffer_grows_within_its_bound)
{
	unsigned long long st[4];
	struct run r;

	/* 100 processes, 5 library periods a refresh: 500 samples, past 64 */
	tp_use_fake(0);
	setenv("FAKE_HGML_PROCS", "100", 1);
	setenv("FAKE_HGML_DEVICES", "2", 1);
	opts_for(&r, NULL, NULL, NULL, 100);
	run_go(&r, 0.5);
	ck_assert_uint_eq(util_entities(&r), 200);
	check_process(&r, 1, 99, 100);
	check_process(&r, 0, 57, 100);
	fake_stats(0, 1, st);
	ck_assert_msg(st[0] >= 400 && st[1] == 0, "%llu samples, %llu again", st[0], st[1]);
	run_end(&r);
}
END_TEST

START_TEST(util_huge_count_is_refused)
{
	struct run r;
	const char *s;

	tp_use_fake(0);
	setenv("FAKE_HGML_PUTIL", "huge", 1);
	opts_for(&r, NULL, NULL, NULL, 100);
	run_until(&r, 10, util_said);
	s = util_status(&r);
	ck_assert_msg(s && !strcmp(s, "hgmlDeviceGetProcessesUtilizationInfo on device 0 has "
				      "4294967280 samples, more than the 16384 asys reads at "
				      "once: those of this refresh are skipped"),
		      "%s", s);
	ck_assert_uint_eq(util_entities(&r), 0);
	run_end(&r);
}
END_TEST

START_TEST(util_idle_processes_read_zero)
{
	struct run r;

	tp_use_fake(0);
	setenv("FAKE_HGML_PUTIL_IDLE", "2", 1);
	opts_for(&r, NULL, NULL, NULL, 100);
	run_go(&r, 0.4);
	check_process(&r, 2, 0, 3);
	/* left out by the library while device 2 had new samples: idle, 0 */
	for (unsigned int i = 1; i < 3; i++)
		for (int f = 0; f < 4; f++)
			ck_assert_double_eq(last(&r, r.util, key(2, 4000200 + i), util_fields[f]),
					    0);
	run_end(&r);
}
END_TEST

/* Device 2 lost (its state says so) and its processes' series ended, while
 * device 3's go on. */
static bool util_device_2_lost(const struct run *r)
{
	return store_status(r->s, (uint32_t)r->dev, 2) &&
	       !store_series(r->s, (uint32_t)r->util, key(2, 4000200)) &&
	       store_series(r->s, (uint32_t)r->util, key(3, pid_of(3, 0, 1)));
}

START_TEST(util_lost_device_ends_its_series)
{
	struct run r;

	tp_use_fake(0);
	setenv("FAKE_HGML_LOST", "2:300", 1);
	opts_for(&r, NULL, NULL, NULL, 100);
	run_until(&r, 10, util_device_2_lost);
	ck_assert_ptr_null(store_series(r.s, (uint32_t)r.util, key(2, 4000200)));
	ck_assert_ptr_null(store_series(r.s, (uint32_t)r.util, key(2, 4000202)));
	check_process(&r, 3, 0, 1);
	run_end(&r);
}
END_TEST

/* The replay of path into a store of its own, to the end of the file. */
struct replay {
	struct rec_player *pl;
	struct store *st;
	struct bus *b;
	struct ring *ring;
};

static void replay_all(struct replay *p, const char *path)
{
	char msg[256];

	memset(p, 0, sizeof(*p));
	p->pl = rec_player_open(path, msg, sizeof(msg), NULL, 0);
	ck_assert_msg(p->pl != NULL, "%s", msg);
	p->st = store_new(rec_player_streams(p->pl), 100000000ull);
	p->b = bus_new();
	p->ring = ring_new(1 << 22);
	ck_assert(p->st && p->b && p->ring);
	ck_assert_int_eq(bus_add_ring(p->b, p->ring), 0);
	ck_assert_int_ge(bus_attach(p->b, &store_consumer_ops, p->st), 0);
	ck_assert_int_eq(bus_start(p->b, 2000000), 0);
	ck_assert_int_eq(rec_player_start(p->pl, p->ring, p->st, 100000000ull, 64, NULL), 0);
	for (int i = 0; i < 1000 && !rec_player_at_end(p->pl); i++)
		usleep(10000);
	ck_assert(rec_player_at_end(p->pl));
	rec_player_stop(p->pl);
	bus_stop(p->b); /* pumps what the rings still hold before it returns */
}

static void replay_free(struct replay *p)
{
	bus_free(p->b);
	store_free(p->st);
	ring_free(p->ring);
	rec_player_free(p->pl);
}

/* The seven processes and the two shared ones, on devices 0 and 1. */
static bool util_eleven(const struct run *r)
{
	return util_entities(r) == 1 + 2 + 3 + 1 + 4;
}

START_TEST(util_survives_record_and_replay)
{
	char path[PATH_MAX];
	uint64_t ents[16];
	struct replay p;
	struct run r;
	size_t n;
	int rs;

	snprintf(path, sizeof(path), "%s/ppu-util-%d.asys", getenv("TMPDIR") ?: "/tmp",
		 (int)getpid());
	tp_use_fake(0);
	setenv("FAKE_HGML_SHARED", "1", 1);
	opts_for(&r, NULL, NULL, NULL, 100);
	r.rec_path = path;
	run_until(&r, 10, util_eleven);
	n = store_entities(r.s, (uint32_t)r.util, ents, 16);
	ck_assert_uint_eq(n, 11);
	replay_all(&p, path);
	rs = stream_table_find(rec_player_streams(p.pl), "ppu.proc_util");
	ck_assert_int_ge(rs, 0);
	store_lock(p.st);
	ck_assert_uint_eq(store_entities(p.st, (uint32_t)rs, NULL, 0), n);
	for (size_t e = 0; e < n; e++) {
		const struct series *se = store_series(p.st, (uint32_t)rs, ents[e]);

		ck_assert_ptr_nonnull(se);
		for (uint32_t f = 0; f < 4; f++) {
			double live = last(&r, r.util, ents[e], util_fields[f]);
			double back = series_last(se, f);

			ck_assert_msg(live == back || (isnan(live) && isnan(back)),
				      "%llx %s: live %g, replayed %g", (unsigned long long)ents[e],
				      util_fields[f], live, back);
		}
	}
	store_unlock(p.st);
	replay_free(&p);
	run_end(&r);
	unlink(path);
}
END_TEST

TCase *tp_util_tcase(void)
{
	TCase *tc = tcase_create("proc_util");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, util_values_follow_the_fake);
	tcase_add_test(tc, util_old_library_uses_the_older_call);
	tcase_add_test(tc, util_newer_call_refused_falls_back);
	tcase_add_test(tc, util_not_supported_is_said_once);
	tcase_add_test(tc, util_buffer_grows_within_its_bound);
	tcase_add_test(tc, util_huge_count_is_refused);
	tcase_add_test(tc, util_idle_processes_read_zero);
	tcase_add_test(tc, util_lost_device_ends_its_series);
	tcase_add_test(tc, util_survives_record_and_replay);
	return tc;
}
