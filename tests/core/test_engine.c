/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: serial */
/* The engine's timing: over 2 s at 1 kHz the tick count is within 1% of
 * what was asked, and deadlines stay on their grid (no cumulative drift).
 * Also: collectors of one frequency share one thread, slow groups share the
 * fastest slow group's thread, and a collector whose init fails reports why
 * on its streams while the others run; a workload-fed one shares nothing
 * with the host's, so its flood costs them no record. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bus.h"
#include "engine.h"
#include "engine_int.h"
#include "store.h"
#include "stream.h"
#include "../check_run.h"

static _Atomic uint64_t ticks_a, ticks_b, first_ns, last_ns;
static _Atomic int grid_errors;
static double hz_a = 1000, hz_b = 10;

static const struct field_desc f_one[] = {FIELD_DESC("n", "", FIELD_GAUGE)};
static const struct stream_desc s_a = {"t.a", 1, ENTITY_NONE, 1, f_one, NULL, .rate_hz = 0};
static const struct stream_desc s_bad = {"t.bad", 1, ENTITY_NONE, 1, f_one, NULL, .rate_hz = 0};
static const struct stream_desc *const a_streams[] = {&s_a, NULL};
static const struct stream_desc *const bad_streams[] = {&s_bad, NULL};

static double freq_a(const struct asys_options *o)
{
	return hz_a;
}

static double freq_b(const struct asys_options *o)
{
	return hz_b;
}

static int init_ok(const struct coll_ctx *c, void **st)
{
	*st = NULL;
	return 0;
}

static int init_fail(const struct coll_ctx *c, void **st)
{
	*st = NULL;
	return -ENODEV;
}

static int sample_a(void *st, struct emitter *out, uint64_t now)
{
	uint64_t n = atomic_fetch_add(&ticks_a, 1);
	uint64_t period = (uint64_t)(1e9 / hz_a);
	double v = (double)n;

	if (n == 0)
		first_ns = now;
	else if ((now - first_ns) % period)
		grid_errors++;
	last_ns = now;
	emit_sample(out, 0, 0, now, &v, 1);
	return 0;
}

static int sample_b(void *st, struct emitter *out, uint64_t now)
{
	ticks_b++;
	return 0;
}

static void fini_none(void *st)
{
}

static const struct collector c_a = {.name = "a",
				     .streams = a_streams,
				     .frequency = freq_a,
				     .init = init_ok,
				     .sample = sample_a,
				     .fini = fini_none};
static const struct collector c_a2 = {
    .name = "a2", .frequency = freq_a, .init = init_ok, .sample = sample_b, .fini = fini_none};
static const struct collector c_b = {
    .name = "b", .frequency = freq_b, .init = init_ok, .sample = sample_b, .fini = fini_none};
static const struct collector c_bad = {.name = "bad",
				       .streams = bad_streams,
				       .frequency = freq_b,
				       .init = init_fail,
				       .sample = sample_b,
				       .fini = fini_none};

/* A collector asked for 1 kHz whose source refreshes at 100 Hz (its rate
 * hook), and one asked for 100 Hz: they end up on one 100 Hz thread. The
 * first of a tick gets the engine's wake time, the second the clock now. */
static _Atomic uint64_t cap_ticks, cap_late_start, cap2_before;

static double freq_100(const struct asys_options *o)
{
	return 100;
}

static double rate_100(void *st, double asked)
{
	return asked > 100 ? 100 : asked;
}

static _Atomic uint64_t cap_start;

static int sample_cap(void *st, struct emitter *out, uint64_t deadline)
{
	uint64_t t = emit_tick_start(out);

	atomic_fetch_add(&cap_ticks, 1);
	/* woken at or after the deadline, and stamped before this ran */
	if (t < deadline || t > asys_now_ns())
		atomic_fetch_add(&cap_late_start, 1);
	cap_start = t;
	return 0;
}

static int sample_cap2(void *st, struct emitter *out, uint64_t deadline)
{
	if (emit_tick_start(out) <= cap_start)
		atomic_fetch_add(&cap2_before, 1);
	return 0;
}

static const struct collector c_cap = {.name = "cap",
				       .frequency = freq_a,
				       .init = init_ok,
				       .sample = sample_cap,
				       .fini = fini_none,
				       .rate = rate_100};
static const struct collector c_cap2 = {.name = "cap2",
					.frequency = freq_100,
					.init = init_ok,
					.sample = sample_cap2,
					.fini = fini_none};

/* The bus pumps once per its period (2 s here) unless a consumer attached
 * with a shorter latency needs more (the recorder: 50 ms), and goes back to
 * its period when that consumer leaves. Pumps are counted by begin(). */
static _Atomic int pumps;

static void count_begin(void *ctx)
{
	atomic_fetch_add(&pumps, 1);
}

static void count_consume(void *ctx, const struct rec *r)
{
}

static const struct bus_consumer_ops count_ops = {.begin = count_begin, .consume = count_consume};

static int pumps_in(double secs)
{
	struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
	int before = atomic_load(&pumps);

	nanosleep(&ts, NULL);
	return atomic_load(&pumps) - before;
}

START_TEST(bus_pumps_as_often_as_its_consumers_need)
{
	struct bus *b = bus_new();
	int h, n;

	ck_assert_ptr_nonnull(b);
	ck_assert_int_ge(bus_attach(b, &count_ops, NULL), 0);
	ck_assert_int_eq(bus_start(b, 2000000000ull), 0);
	pumps_in(0.1); /* the first pump, at start */
	n = pumps_in(1.0);
	ck_assert_msg(n <= 1, "%d pumps in 1 s at a 2 s period", n);
	h = bus_attach_within(b, &count_ops, NULL, 20000000ull);
	ck_assert_int_ge(h, 0);
	n = pumps_in(1.0);
	/* both consumers' begin() count: 2 a pump; ~50 pumps, 20 on a busy host */
	ck_assert_msg(n >= 2 * 20, "%d begins in 1 s with a 20 ms consumer", n);
	bus_detach(b, h);
	pumps_in(0.1); /* the wait in progress, at most 20 ms */
	n = pumps_in(1.0);
	ck_assert_msg(n <= 1, "%d pumps in 1 s after the 20 ms consumer left", n);
	bus_free(b);
}
END_TEST

/* Slow groups share a thread: a 10 Hz and a 1 Hz collector run on one
 * thread, the 1 Hz one mid-way through its second (550 ms past it, the
 * 10 Hz grid point nearest), and that thread pumps the bus once per bus
 * period, so the bus thread need not wake for it. */
static _Atomic uint64_t fast_ticks, slow_ticks, slow_off_bad;
static pthread_t fast_thread, slow_thread;

static double freq_1(const struct asys_options *o)
{
	return 1;
}

static int sample_fast(void *st, struct emitter *out, uint64_t deadline)
{
	double v = 1;

	fast_thread = pthread_self();
	atomic_fetch_add(&fast_ticks, 1);
	emit_sample(out, 0, 0, emit_tick_start(out), &v, 1);
	return 0;
}

static int sample_slow(void *st, struct emitter *out, uint64_t deadline)
{
	slow_thread = pthread_self();
	atomic_fetch_add(&slow_ticks, 1);
	if (deadline % 1000000000ull != 550000000ull)
		atomic_fetch_add(&slow_off_bad, 1);
	return 0;
}

static const struct collector c_fast = {
    .name = "fast", .frequency = freq_b, .init = init_ok, .sample = sample_fast, .fini = fini_none};
static const struct collector c_slow = {
    .name = "slow", .frequency = freq_1, .init = init_ok, .sample = sample_slow, .fini = fini_none};

/* An engine of list over the one stream s_a, started, with a counting
 * consumer on a bus of a 250 ms period, and 0.6 s for its first pumps. */
static struct engine *pumping_engine(const struct collector *const *list, struct stream_table *t,
				     struct bus *b)
{
	struct asys_options o;
	struct engine *e;

	options_defaults(&o);
	stream_table_add(t, &s_a);
	e = engine_new(&o, t, b, list);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(engine_init(e), 0);
	ck_assert_int_eq(bus_attach(b, &count_ops, NULL), 0);
	ck_assert_int_eq(bus_start(b, 250000000ull), 0);
	ck_assert_int_eq(engine_start(e), 0);
	pumps_in(0.6);
	return e;
}

START_TEST(slow_groups_share_a_thread_and_pump_the_bus)
{
	const struct collector *list[] = {&c_fast, &c_slow, NULL};
	struct stream_table *t = stream_table_new();
	struct bus *b = bus_new();
	struct engine *e = pumping_engine(list, t, b);
	struct engine_group_stats st[ENGINE_MAX_GROUPS];
	int n;

	/* the engine pumps each 250 ms (on 10 Hz ticks: 250-300 ms apart),
	 * the bus thread alone would each 2 s (8 periods) */
	n = pumps_in(2.4);
	ck_assert_msg(n >= 6 && n <= 11, "%d pumps in 2.4 s at a 250 ms bus period", n);
	n = engine_stats(e, st, ENGINE_MAX_GROUPS);
	ck_assert_int_eq(n, 2);
	ck_assert_double_eq_tol(st[0].hz_achieved, 10, 1);
	ck_assert_double_eq_tol(st[1].hz_achieved, 1, 0.5);
	engine_stop(e);
	ck_assert_msg(pthread_equal(fast_thread, slow_thread), "1 Hz ran on a thread of its own");
	ck_assert_msg(fast_ticks >= 25 && fast_ticks <= 32, "%llu 10 Hz ticks in 3 s",
		      (unsigned long long)fast_ticks);
	ck_assert_msg(slow_ticks >= 2 && slow_ticks <= 4, "%llu 1 Hz ticks in 3 s",
		      (unsigned long long)slow_ticks);
	ck_assert_uint_eq(slow_off_bad, 0);
	/* stopped, the bus thread keeps its own period again */
	pumps_in(0.3);
	n = pumps_in(1.0);
	ck_assert_msg(n >= 3 && n <= 5, "%d pumps in 1 s after the engine stopped", n);
	bus_free(b);
	engine_free(e);
	stream_table_free(t);
}
END_TEST

/* A lone group slower than the bus period (host memory at 1 Hz): its
 * thread still pumps after each tick, since no record can be fresher than
 * its ticks, and the bus thread does not wake each period for nothing. */
static _Atomic uint64_t lone_ticks;

static int sample_lone(void *st, struct emitter *out, uint64_t deadline)
{
	double v = 1;

	(void)st;
	(void)deadline;
	atomic_fetch_add(&lone_ticks, 1);
	emit_sample(out, 0, 0, emit_tick_start(out), &v, 1);
	return 0;
}

static const struct collector c_lone = {
    .name = "lone", .frequency = freq_1, .init = init_ok, .sample = sample_lone, .fini = fini_none};

START_TEST(a_lone_slow_group_pumps_after_its_ticks)
{
	const struct collector *list[] = {&c_lone, NULL};
	struct stream_table *t = stream_table_new();
	struct bus *b = bus_new();
	struct engine *e = pumping_engine(list, t, b);
	uint64_t t0 = lone_ticks;
	int n;

	n = pumps_in(3.0);
	/* one pump a tick (3, 4 at a tick's edge), not one each 250 ms (12) */
	ck_assert_msg(n >= 2 && n <= 5, "%d pumps in 3 s for %llu ticks of a lone 1 Hz group", n,
		      (unsigned long long)(lone_ticks - t0));
	engine_stop(e);
	bus_free(b);
	engine_free(e);
	stream_table_free(t);
}
END_TEST

/* A workload-fed collector that floods its ring at the rate of a host
 * collector: they get a group, a ring and a thread each, every host sample
 * goes through, and the loss is counted for the flood's stream alone. */
static _Atomic uint64_t host_ticks, flood_ticks;
static pthread_t host_thread, flood_thread;
static const struct stream_desc s_flood = {"t.flood", 1, ENTITY_NONE, 1, f_one, NULL, .rate_hz = 0};

static int sample_host(void *st, struct emitter *out, uint64_t deadline)
{
	double v = 1;

	host_thread = pthread_self();
	if (emit_sample(out, 0, 0, emit_tick_start(out), &v, 1) == 0)
		atomic_fetch_add(&host_ticks, 1);
	return 0;
}

static int sample_flood(void *st, struct emitter *out, uint64_t deadline)
{
	double v = 1;

	flood_thread = pthread_self();
	atomic_fetch_add(&flood_ticks, 1);
	/* four times what its ring holds, and labels that wait for room */
	for (int i = 0; i < 200000; i++)
		if (emit_sample(out, 1, (uint64_t)i, emit_tick_start(out), &v, 1) < 0 &&
		    emit_label(out, 1, (uint64_t)i, emit_tick_start(out), "x") < 0)
			break;
	return 0;
}

static const struct collector c_host = {
    .name = "host", .frequency = freq_b, .init = init_ok, .sample = sample_host, .fini = fini_none};
static const struct collector c_flood = {.name = "flood",
					 .frequency = freq_b,
					 .init = init_ok,
					 .sample = sample_flood,
					 .fini = fini_none,
					 .workload_fed = true};

START_TEST(a_workload_fed_flood_loses_only_its_own)
{
	const struct collector *list[] = {&c_host, &c_flood, NULL};
	struct stream_table *t = stream_table_new();
	struct bus *b = bus_new();
	struct engine *e;
	struct engine_group_stats st[ENGINE_MAX_GROUPS];
	int n, fed = -1, host = -1;

	stream_table_add(t, &s_a);
	stream_table_add(t, &s_flood);
	e = pumping_engine(list, t, b);
	pumps_in(1.5);
	engine_stop(e);
	n = engine_stats(e, st, ENGINE_MAX_GROUPS);
	ck_assert_int_eq(n, 2);
	for (int i = 0; i < n; i++)
		*(st[i].alone ? &fed : &host) = i;
	ck_assert_msg(fed >= 0 && host >= 0, "the flood shares the host's group");
	ck_assert_msg(!pthread_equal(host_thread, flood_thread),
		      "the flood runs on the host's thread");
	ck_assert_msg(st[host].dropped == 0, "the host lost %llu records: %s",
		      (unsigned long long)st[host].dropped, st[host].lost);
	ck_assert_msg(host_ticks >= 15 && flood_ticks >= 10, "%llu host ticks, %llu flood ticks",
		      (unsigned long long)host_ticks, (unsigned long long)flood_ticks);
	ck_assert_msg(st[fed].dropped > 0 && !strncmp(st[fed].lost, "t.flood ", 8) &&
			  !strstr(st[fed].lost, "t.a"),
		      "the flood's loss: %llu, by stream '%s'", (unsigned long long)st[fed].dropped,
		      st[fed].lost);
	bus_free(b);
	engine_free(e);
	stream_table_free(t);
}
END_TEST

/* The labels a late consumer is given: those of a ring the workload feeds
 * are bounded apart, so 20000 of them leave room for the host's. */
static _Atomic int late_host_labels, late_fed_labels;

static void late_consume(void *ctx, const struct rec *r)
{
	if (r->kind == REC_LABEL)
		atomic_fetch_add(r->stream ? &late_fed_labels : &late_host_labels, 1);
}

static const struct bus_consumer_ops late_ops = {.consume = late_consume};

START_TEST(a_workload_fed_ring_leaves_room_for_the_hosts_labels)
{
	struct bus *b = bus_new();
	struct ring *host = ring_new(1 << 20), *fed = ring_new(1 << 20);
	struct emitter eh = {.ring = host}, ef = {.ring = fed};

	ck_assert_int_eq(bus_add_ring(b, host), 0);
	ck_assert_int_eq(bus_add_ring_fed(b, fed), 0);
	for (uint64_t e = 0; e < 20000; e++) {
		ck_assert_int_eq(emit_label(&ef, 1, e + 1, 1000, "range"), 0);
		if (e % 4096 == 4095)
			bus_pump(b);
	}
	ck_assert_int_eq(emit_label(&eh, 0, 7, 1000, "eth0"), 0);
	bus_pump(b);
	ck_assert_int_ge(bus_attach(b, &late_ops, NULL), 0);
	ck_assert_int_eq(late_host_labels, 1);
	ck_assert_msg(late_fed_labels > 0 && late_fed_labels < 20000, "%d of the job's labels kept",
		      late_fed_labels);
	bus_free(b);
	ring_free(host);
	ring_free(fed);
}
END_TEST

/* A sampling thread's pump never waits for a busy consumer (the store while
 * a scrape or a frame copies out of it): it leaves the pump to the bus
 * thread, woken at once, and the records still arrive. */
static _Atomic int busy, tries_failed, tries_ok, begins_bus, consumed;

static bool busy_try_begin(void *ctx)
{
	if (atomic_load(&busy)) {
		atomic_fetch_add(&tries_failed, 1);
		return false;
	}
	atomic_fetch_add(&tries_ok, 1);
	return true;
}

static void busy_begin(void *ctx)
{
	atomic_fetch_add(&begins_bus, 1);
}

static void busy_consume(void *ctx, const struct rec *r)
{
	atomic_fetch_add(&consumed, 1);
}

static const struct bus_consumer_ops busy_ops = {
    .begin = busy_begin, .consume = busy_consume, .try_begin = busy_try_begin};

START_TEST(sampler_pump_does_not_wait_for_a_busy_consumer)
{
	const struct collector *list[] = {&c_fast, &c_slow, NULL};
	struct asys_options o;
	struct stream_table *t = stream_table_new();
	struct bus *b = bus_new();
	struct engine *e;
	int ok, failed, bus, got;

	options_defaults(&o);
	stream_table_add(t, &s_a);
	e = engine_new(&o, t, b, list);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(engine_init(e), 0);
	ck_assert_int_eq(bus_attach(b, &busy_ops, NULL), 0);
	ck_assert_int_eq(bus_start(b, 250000000ull), 0);
	ck_assert_int_eq(engine_start(e), 0);
	pumps_in(1.0);
	ck_assert_msg(atomic_load(&tries_ok) >= 2, "%d pumps by the sampling thread in 1 s",
		      atomic_load(&tries_ok));
	atomic_store(&busy, 1);
	pumps_in(0.1);
	ok = atomic_load(&tries_ok);
	failed = atomic_load(&tries_failed);
	bus = atomic_load(&begins_bus);
	got = atomic_load(&consumed);
	pumps_in(1.5);
	ck_assert_int_eq(atomic_load(&tries_ok), ok);
	ck_assert_msg(atomic_load(&tries_failed) - failed >= 3, "%d pumps offered in 1.5 s",
		      atomic_load(&tries_failed) - failed);
	/* each offer wakes the bus thread; it alone would pump each 2 s */
	ck_assert_msg(atomic_load(&begins_bus) - bus >= 3, "%d pumps by the bus thread in 1.5 s",
		      atomic_load(&begins_bus) - bus);
	ck_assert_msg(atomic_load(&consumed) - got >= 10, "%d records in 1.5 s at 10 Hz",
		      atomic_load(&consumed) - got);
	engine_stop(e);
	bus_free(b);
	engine_free(e);
	stream_table_free(t);
}
END_TEST

START_TEST(rate_hook_and_tick_start)
{
	const struct collector *list[] = {&c_cap, &c_cap2, NULL};
	struct asys_options o;
	struct stream_table *t = stream_table_new();
	struct bus *b = bus_new();
	struct engine *e;
	struct engine_group_stats st[ENGINE_MAX_GROUPS];
	struct timespec one = {1, 100000000};

	options_defaults(&o);
	e = engine_new(&o, t, b, list);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(engine_init(e), 0);
	ck_assert_int_eq(engine_stats(e, st, ENGINE_MAX_GROUPS), 1);
	ck_assert_str_eq(st[0].names, "cap,cap2");
	ck_assert_double_eq(st[0].hz_requested, 100);
	ck_assert_int_eq(bus_start(b, 5000000), 0);
	ck_assert_int_eq(engine_start(e), 0);
	nanosleep(&one, NULL);
	engine_stop(e);
	bus_stop(b);
	ck_assert_msg(cap_ticks >= 95 && cap_ticks <= 111, "%llu ticks",
		      (unsigned long long)cap_ticks);
	ck_assert_uint_eq(cap_late_start, 0);
	ck_assert_uint_eq(cap2_before, 0);
	engine_free(e);
	bus_free(b);
	stream_table_free(t);
}
END_TEST

START_TEST(engine_1khz_two_seconds)
{
	const struct collector *list[] = {&c_a, &c_a2, &c_b, &c_bad, NULL};
	struct asys_options o;
	struct stream_table *t = stream_table_new();
	struct bus *b = bus_new();
	struct store *s = store_new(t, 100000000ull);
	struct engine *e;
	struct engine_group_stats st[ENGINE_MAX_GROUPS];
	struct timespec two = {2, 0};
	uint64_t expect, got;
	int n, bad;

	options_defaults(&o);
	e = engine_new(&o, t, b, list);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(engine_init(e), 0);
	ck_assert_int_ge(bus_attach(b, &store_consumer_ops, s), 0);
	ck_assert_int_eq(bus_start(b, 5000000), 0);
	ck_assert_int_eq(engine_start(e), 0);
	nanosleep(&two, NULL);
	engine_stop(e);
	got = ticks_a;
	expect = (last_ns - first_ns) / 1000000 + 1;
	/* every tick ran on its grid point: nothing skipped, nothing drifted */
	ck_assert_int_eq(grid_errors, 0);
	ck_assert_msg(got * 100 >= expect * 99 && got * 100 <= expect * 101,
		      "ticks %llu, expected %llu", (unsigned long long)got,
		      (unsigned long long)expect);
	/* 2 s of wall time at 1 kHz, within 1% */
	ck_assert_msg(got >= 1980 && got <= 2020, "ticks %llu in 2 s", (unsigned long long)got);
	n = engine_stats(e, st, ENGINE_MAX_GROUPS);
	ck_assert_int_eq(n, 2); /* a+a2 share one thread; b has its own; bad has none */
	ck_assert_str_eq(st[0].names, "a,a2");
	ck_assert_double_eq_tol(st[0].hz_achieved, 1000, 10);
	bus_stop(b);
	store_lock(s);
	bad = stream_table_find(t, "t.bad");
	ck_assert_int_ge(bad, 0);
	ck_assert_ptr_nonnull(store_status(s, (uint32_t)bad, STATUS_STREAM));
	ck_assert_msg(strstr(store_status(s, (uint32_t)bad, STATUS_STREAM), "No such device"), "%s",
		      store_status(s, (uint32_t)bad, STATUS_STREAM));
	ck_assert_double_eq_tol(series_last(store_series(s, 0, 0), 0), (double)(got - 1), 0.5);
	store_unlock(s);
	bus_free(b);
	engine_free(e);
	store_free(s);
	stream_table_free(t);
}
END_TEST

/* The achieved rate of a 1 Hz group whose first tick came late and whose
 * second came on time: its window is one whole period, read as about 1 Hz
 * at the second tick, not left open (0 Hz) until a third. */
START_TEST(rate_window_takes_an_early_second_tick)
{
	struct engine e;
	struct engine_group *g = &e.groups[0];

	memset(&e, 0, sizeof(e));
	g->e = &e;
	g->host = -1;
	g->period_ns = 1000000000ull;
	pthread_mutex_init(&g->stats_lock, NULL);
	engine_group_account(g, 10050000000ull); /* 50 ms late */
	engine_group_account(g, 11001000000ull); /* 1 ms late */
	ck_assert_double_eq_tol(g->stats.hz_achieved, 1e9 / 951000000.0, 1e-6);
	ck_assert_uint_eq(g->stats.ticks, 2);
	/* a 10 Hz group's window still holds ten periods */
	memset(&g->w, 0, sizeof(g->w));
	g->stats = (struct engine_group_stats){0};
	g->period_ns = 100000000ull;
	for (uint64_t k = 0; k < 10; k++)
		engine_group_account(g, 20000000000ull + k * g->period_ns);
	ck_assert_double_eq_tol(g->stats.hz_achieved, 0, 1e-9);
	engine_group_account(g, 21000000000ull);
	ck_assert_double_eq_tol(g->stats.hz_achieved, 10, 1e-9);
	pthread_mutex_destroy(&g->stats_lock);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("timing");
	TCase *tr = tcase_create("rate");

	tcase_add_test(tr, rate_window_takes_an_early_second_tick);
	suite_add_tcase(s, tr);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, engine_1khz_two_seconds);
	tcase_add_test(tc, rate_hook_and_tick_start);
	tcase_add_test(tc, bus_pumps_as_often_as_its_consumers_need);
	tcase_add_test(tc, sampler_pump_does_not_wait_for_a_busy_consumer);
	tcase_add_test(tc, slow_groups_share_a_thread_and_pump_the_bus);
	tcase_add_test(tc, a_lone_slow_group_pumps_after_its_ticks);
	tcase_add_test(tc, a_workload_fed_flood_loses_only_its_own);
	tcase_add_test(tc, a_workload_fed_ring_leaves_room_for_the_hosts_labels);
	suite_add_tcase(s, tc);
	return check_run(s, NULL);
}
