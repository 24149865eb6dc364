/* SPDX-License-Identifier: GPL-2.0-only */
/* The rows that repeat without a read of stat, on this machine's real /proc:
 * a sleeping process's CPU after it runs (also a second thread's), its new
 * parent after its parent exits, and the BPF task iterator behind them. */
#include "config.h"

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "procfs_fixture.h"
#include "procrun.h"
#include "sysroot.h"

extern const struct collector mem_collector;

#define SEC 1000000000ull

/* The grandchild of mem_real_idle: sleeps on cmd, and at 's' spins 0.3 s of
 * CPU and says so on done; at anything else it leaves. */
static void idle_kid(int cmd, int done)
{
	char c;

	while (read(cmd, &c, 1) == 1 && c == 's') {
		struct timespec t0, t;

		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
		do
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
		while ((t.tv_sec - t0.tv_sec) * 1e9 + (t.tv_nsec - t0.tv_nsec) < 3e8);
		if (write(done, "d", 1) != 1)
			break;
	}
	_exit(0);
}

/* The mem collector system-wide on the real /proc, after three reports;
 * the streams mem.proc and proc.cpu. */
static void idle_start(struct fx_coll *fc, uint32_t *proc, uint32_t *cpu)
{
	struct asys_options o;

	sysroot_set(NULL);
	options_defaults(&o);
	o.scope = SCOPE_SYSTEM_WIDE;
	ck_assert_int_eq(fx_coll_init(fc, &mem_collector, &o), 0);
	*proc = fx_stream(fc, "mem.proc");
	*cpu = fx_stream(fc, "proc.cpu");
	for (uint64_t t = 1; t <= 3; t++)
		ck_assert_int_eq(fx_coll_sample(fc, t * SEC), 0);
}

/* pid's CPU seconds (user + system) in the last report. */
static double idle_cpu_s(const struct fx_coll *fc, uint32_t cpu, pid_t pid)
{
	const struct fx_rec *r = fx_find(&fc->recs, REC_SAMPLE, cpu, (uint64_t)pid);

	ck_assert_ptr_nonnull(r);
	return r->v[0] + r->v[1];
}

/* Orders a 0.3 s spin on cmd, waits for it on done, and checks that the
 * report at now_s has pid's CPU 0.2 s or more over before. */
static void idle_spin_shows(struct fx_coll *fc, uint32_t cpu, pid_t pid, int cmd, int done,
			    uint64_t now_s, double before)
{
	char c;

	ck_assert_int_eq(write(cmd, "s", 1), 1);
	ck_assert_int_eq(read(done, &c, 1), 1);
	ck_assert_int_eq(fx_coll_sample(fc, now_s * SEC), 0);
	ck_assert_msg(idle_cpu_s(fc, cpu, pid) >= before + 0.2,
		      "CPU %.2f s after a 0.3 s spin from %.2f s", idle_cpu_s(fc, cpu, pid),
		      before);
}

/* System-wide, a process of one thread that sleeps through reports may keep
 * its row (its stat unread): the row still moves as soon as it runs, and
 * shows its new parent once its parent left. */
START_TEST(mem_real_idle)
{
	struct fx_coll fc;
	const struct fx_rec *r;
	uint32_t proc, cpu;
	int cmd[2], done[2], hold[2];
	pid_t mid, kid;
	double before;
	char c;

	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	ck_assert_int_eq(pipe(cmd), 0);
	ck_assert_int_eq(pipe(done), 0);
	ck_assert_int_eq(pipe(hold), 0);
	mid = fork();
	ck_assert_int_ge(mid, 0);
	if (mid == 0) {
		kid = fork();
		if (kid == 0)
			idle_kid(cmd[0], done[1]);
		if (kid < 0 || write(done[1], &kid, sizeof(kid)) != sizeof(kid))
			_exit(1);
		_exit(read(hold[0], &c, 1) == 1 ? 0 : 1);
	}
	ck_assert_int_eq(read(done[0], &kid, sizeof(kid)), sizeof(kid));
	idle_start(&fc, &proc, &cpu);
	r = fx_find(&fc.recs, REC_SAMPLE, proc, (uint64_t)kid);
	ck_assert_ptr_nonnull(r);
	ck_assert_double_eq(r->v[3], mid);
	r = fx_find(&fc.recs, REC_SAMPLE, cpu, (uint64_t)kid);
	ck_assert_ptr_nonnull(r);
	ck_assert_double_eq(r->v[2], 'S');
	before = r->v[0] + r->v[1];

	/* it runs: the next report has its CPU time */
	idle_spin_shows(&fc, cpu, kid, cmd[1], done[0], 4, before);

	/* its parent leaves while it sleeps: we are its parent now */
	for (uint64_t t = 5; t <= 6; t++)
		ck_assert_int_eq(fx_coll_sample(&fc, t * SEC), 0);
	ck_assert_int_eq(write(hold[1], "x", 1), 1);
	ck_assert_int_eq(waitpid(mid, NULL, 0), mid);
	ck_assert_int_eq(fx_coll_sample(&fc, 7 * SEC), 0);
	r = fx_find(&fc.recs, REC_SAMPLE, proc, (uint64_t)kid);
	ck_assert_ptr_nonnull(r);
	ck_assert_double_eq(r->v[3], getpid());
	ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_GONE, proc, (uint64_t)mid));

	ck_assert_int_eq(write(cmd[1], "q", 1), 1);
	ck_assert_int_eq(waitpid(kid, NULL, 0), kid);
	for (int i = 0; i < 2; i++) {
		close(cmd[i]);
		close(done[i]);
		close(hold[i]);
	}
	fx_coll_fini(&fc);
}
END_TEST

/* The spinning thread of mt_kid: at each byte on its fd, 0.3 s of CPU,
 * then a byte back. */
struct mt_pipes {
	int cmd, done;
};

static void *mt_spin(void *arg)
{
	const struct mt_pipes *mp = arg;

	idle_kid(mp->cmd, mp->done);
	return NULL;
}

/* With the task iterator, a process of several threads may keep its row
 * too: the second thread's run must still show at the next report. Without
 * it (no root, no BPF) such a process is read whole, and this holds too. */
START_TEST(mem_real_idle_threads)
{
	struct fx_coll fc;
	const struct fx_rec *r;
	uint32_t proc, cpu;
	int cmd[2], done[2];
	pid_t kid;
	double before;
	char c;

	ck_assert_int_eq(pipe(cmd), 0);
	ck_assert_int_eq(pipe(done), 0);
	kid = fork();
	ck_assert_int_ge(kid, 0);
	if (kid == 0) {
		struct mt_pipes mp = {cmd[0], done[1]};
		pthread_t th;

		if (pthread_create(&th, NULL, mt_spin, &mp) || write(done[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	ck_assert_int_eq(read(done[0], &c, 1), 1);
	idle_start(&fc, &proc, &cpu);
	r = fx_find(&fc.recs, REC_SAMPLE, proc, (uint64_t)kid);
	ck_assert_ptr_nonnull(r);
	ck_assert_double_eq(r->v[4], 2);
	r = fx_find(&fc.recs, REC_SAMPLE, cpu, (uint64_t)kid);
	ck_assert_ptr_nonnull(r);
	before = r->v[0] + r->v[1];
	/* its second thread runs */
	idle_spin_shows(&fc, cpu, kid, cmd[1], done[0], 4, before);
	kill(kid, SIGKILL);
	ck_assert_int_eq(waitpid(kid, NULL, 0), kid);
	for (int i = 0; i < 2; i++) {
		close(cmd[i]);
		close(done[i]);
	}
	fx_coll_fini(&fc);
}
END_TEST

/* Run time summed over a process's threads, from its schedstat files. */
static uint64_t self_run_ns(int *threads)
{
	char path[320], buf[128];
	uint64_t sum = 0;
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;

	*threads = 0;
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", de->d_name);
		f = fopen(path, "r");
		if (f && fgets(buf, sizeof(buf), f))
			sum += strtoull(buf, NULL, 10);
		if (f)
			fclose(f);
		(*threads)++;
	}
	closedir(d);
	return sum;
}

/* The task iterator against this process's own schedstat files: its
 * threads, and a run time between two readings taken around it. */
START_TEST(procrun_real)
{
	struct procrun *pr;
	const struct procrun_sum *sums, *me;
	size_t n;
	uint64_t before, after;
	int threads, t2;
	int rc = procrun_open(&pr);

	if (rc) {
		fprintf(stderr,
			"procrun_real: the task iterator cannot be loaded here (%s); not "
			"checked\n",
			strerror(-rc));
		return;
	}
	before = self_run_ns(&threads);
	ck_assert_int_eq(procrun_read(pr, &sums, &n), 0);
	after = self_run_ns(&t2);
	ck_assert_uint_gt(n, 1);
	for (size_t i = 1; i < n; i++)
		ck_assert_uint_lt(sums[i - 1].tgid, sums[i].tgid);
	me = procrun_find(sums, n, (uint32_t)getpid());
	ck_assert_ptr_nonnull(me);
	ck_assert_int_eq(threads, t2);
	ck_assert_uint_eq(me->threads, (unsigned)threads);
	ck_assert_msg(me->run_ns >= before && me->run_ns <= after,
		      "run time %llu ns, schedstat before %llu and after %llu",
		      (unsigned long long)me->run_ns, (unsigned long long)before,
		      (unsigned long long)after);
	/* a process it misses is read whole; our parent must be there */
	ck_assert_ptr_nonnull(procrun_find(sums, n, (uint32_t)getppid()));
	ck_assert_ptr_null(procrun_find(sums, n, UINT32_MAX));
	procrun_close(pr);
}
END_TEST

Suite *procfs_idle_suite(void)
{
	Suite *s = suite_create("procfs rows that repeat");
	TCase *tc = tcase_create("idle");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, mem_real_idle);
	tcase_add_test(tc, mem_real_idle_threads);
	tcase_add_test(tc, procrun_real);
	suite_add_tcase(s, tc);
	return s;
}
