/* The cpu and mem collectors on this machine's real /proc: what the fixture
 * trees cannot show (the real formats, a real child process, real time). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "procfs_fixture.h"
#include "sysroot.h"
#include "util.h"

extern const struct collector cpu_collector;
extern const struct collector mem_collector;

#define SEC 1000000000ull

static double busy_sum(const struct fx_rec *r)
{
	return r->v[0] + r->v[1] + r->v[2]; /* user + nice + system */
}

START_TEST(cpu_real)
{
	struct asys_options o;
	struct fx_coll fc;
	const struct fx_rec *r;
	uint32_t core, perf;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n_on = 0;
	double before;
	bool no_pmu;
	uint64_t end;
	volatile uint64_t spin = 0;

	sysroot_set(NULL);
	options_defaults(&o);
	ck_assert_int_eq(fx_coll_init(&fc, &cpu_collector, &o), 0);
	core = fx_stream(&fc, "cpu.core");
	perf = fx_stream(&fc, "cpu.perf");
	ck_assert_int_eq(fx_coll_sample(&fc, asys_now_ns()), 0);
	for (size_t i = 0; i < fc.recs.n; i++) {
		r = &fc.recs.r[i];
		if (r->kind == REC_SAMPLE && r->stream == core && r->entity != ENTITY_CPU_TOTAL &&
		    r->v[10] == 1)
			n_on++;
	}
	ck_assert_int_eq((long)n_on, online);
	r = fx_find(&fc.recs, REC_SAMPLE, core, ENTITY_CPU_TOTAL);
	ck_assert_ptr_nonnull(r);
	before = busy_sum(r);
	/* hardware counters, or one sentence why not */
	r = fx_find(&fc.recs, REC_STATUS, perf, STATUS_STREAM);
	if (r) {
		ck_assert_msg(!strncmp(r->text, "IPC n/a: ", 9), "perf status: %s", r->text);
		fprintf(stderr, "cpu_real: %s\n", r->text);
	}
	no_pmu = r != NULL;
	/* burn 300 ms of CPU: the total's busy jiffies must move */
	end = asys_now_ns() + 3 * SEC / 10;
	while (asys_now_ns() < end)
		spin++;
	ck_assert_int_eq(fx_coll_sample(&fc, asys_now_ns()), 0);
	ck_assert(busy_sum(fx_find(&fc.recs, REC_SAMPLE, core, ENTITY_CPU_TOTAL)) > before);
	r = fx_find(&fc.recs, REC_SAMPLE, perf, ENTITY_CPU_TOTAL);
	if (no_pmu)
		ck_assert_ptr_null(r);
	else
		ck_assert(r && r->v[0] > 0 && r->v[1] > 0);
	fx_coll_fini(&fc);
}
END_TEST

START_TEST(mem_real_tree)
{
	struct asys_options o;
	struct fx_coll fc;
	const struct fx_rec *r;
	uint32_t proc;
	int go[2], ready[2];
	pid_t kid;
	char c;

	ck_assert_int_eq(pipe(go), 0);
	ck_assert_int_eq(pipe(ready), 0);
	kid = fork();
	ck_assert_int_ge(kid, 0);
	if (kid == 0) {
		/* 32 MiB of touched memory, then wait to be told to go */
		size_t sz = 32u << 20;
		char *m = malloc(sz);

		if (!m)
			_exit(1);
		memset(m, 1, sz);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) < 0)
			_exit(2);
		_exit(m[sz - 1] == 1 ? 0 : 3);
	}
	ck_assert_int_eq(read(ready[0], &c, 1), 1);

	sysroot_set(NULL);
	options_defaults(&o);
	o.pids[o.npids++] = getpid();
	ck_assert_int_eq(fx_coll_init(&fc, &mem_collector, &o), 0);
	proc = fx_stream(&fc, "mem.proc");
	ck_assert_int_eq(fx_coll_sample(&fc, SEC), 0);
	r = fx_find(&fc.recs, REC_SAMPLE, proc, (uint64_t)kid);
	ck_assert_msg(r, "the forked child %d was not found in the tree", (int)kid);
	ck_assert_double_ge(r->v[0], 32.0 * 1024 * 1024);
	ck_assert_double_ge(r->v[1], r->v[0]);
	ck_assert_double_eq(r->v[3], getpid());
	ck_assert_double_eq(r->v[2], getuid());
	ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_SAMPLE, proc, (uint64_t)getpid()));
	r = fx_find(&fc.recs, REC_LABEL, proc, (uint64_t)kid);
	ck_assert_ptr_nonnull(r);
	ck_assert_msg(strstr(r->text, "test_procfs"), "label '%s'", r->text);
	r = fx_find(&fc.recs, REC_SAMPLE, fx_stream(&fc, "mem.sys"), 0);
	ck_assert(r->v[0] > 0 && r->v[2] > 0 && r->v[5] > 0 && r->v[5] < r->v[0]);

	/* the child exits: its row goes at the next tick */
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	ck_assert_int_eq(waitpid(kid, NULL, 0), kid);
	ck_assert_int_eq(fx_coll_sample(&fc, SEC + SEC / 10), 0);
	ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_GONE, proc, (uint64_t)kid));
	ck_assert_ptr_null(fx_find(&fc.recs, REC_SAMPLE, proc, (uint64_t)kid));
	fx_coll_fini(&fc);
}
END_TEST

START_TEST(mem_real_system)
{
	struct asys_options o;
	struct fx_coll fc;
	uint32_t proc;
	size_t rows, labels;

	sysroot_set(NULL);
	options_defaults(&o);
	o.scope = SCOPE_SYSTEM_WIDE;
	ck_assert_int_eq(fx_coll_init(&fc, &mem_collector, &o), 0);
	proc = fx_stream(&fc, "mem.proc");
	ck_assert_int_eq(fx_coll_sample(&fc, SEC), 0);
	rows = fx_count(&fc.recs, REC_SAMPLE, proc);
	labels = fx_count(&fc.recs, REC_LABEL, proc);
	ck_assert_uint_ge(rows, 1);
	ck_assert_uint_le(rows, 64);
	ck_assert_uint_eq(labels, rows);
	for (size_t i = 0; i < fc.recs.n; i++) {
		const struct fx_rec *r = &fc.recs.r[i];

		if (r->kind == REC_SAMPLE && r->stream == proc)
			ck_assert(r->v[0] > 0 && !isnan(r->v[2]) && !isnan(r->v[4]));
		if (r->kind == REC_LABEL && r->stream == proc)
			ck_assert(r->text[0]);
	}
	fx_coll_fini(&fc);
}
END_TEST

Suite *procfs_real_suite(void)
{
	Suite *s = suite_create("procfs on the real /proc");
	TCase *tc = tcase_create("real");

	tcase_add_test(tc, cpu_real);
	tcase_add_test(tc, mem_real_tree);
	tcase_add_test(tc, mem_real_system);
	suite_add_tcase(s, tc);
	return s;
}
