/* SPDX-License-Identifier: GPL-2.0-only */
/* The cpu and mem collectors on this machine's real /proc (what the fixture
 * trees cannot show: the real formats, a real child process, real time), and
 * the cpu collector feeding the real store, and real file permissions. */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "procfs.h"
#include "procfs_fixture.h"
#include "ring.h"
#include "store.h"
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

/* Our own utime + stime in seconds, from /proc/self/stat. */
static double self_cpu_s(void)
{
	struct procfs_pid_stat ps;
	char buf[4096];
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	ck_assert_int_eq(procfs_parse_pid_stat(buf, &ps), 0);
	return (double)(ps.utime + ps.stime) / (double)sysconf(_SC_CLK_TCK);
}

START_TEST(mem_real_system)
{
	struct asys_options o;
	struct fx_coll fc;
	const struct fx_rec *r;
	uint32_t proc, cpu;
	size_t rows, labels;
	double before, after;

	sysroot_set(NULL);
	options_defaults(&o);
	o.scope = SCOPE_SYSTEM_WIDE;
	ck_assert_int_eq(fx_coll_init(&fc, &mem_collector, &o), 0);
	proc = fx_stream(&fc, "mem.proc");
	cpu = fx_stream(&fc, "proc.cpu");
	before = self_cpu_s();
	ck_assert_int_eq(fx_coll_sample(&fc, SEC), 0);
	after = self_cpu_s();
	rows = fx_count(&fc.recs, REC_SAMPLE, proc);
	labels = fx_count(&fc.recs, REC_LABEL, proc);
	ck_assert_uint_ge(rows, 2);
	ck_assert_uint_eq(labels, rows);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, cpu), rows);
	/* pid 1 is always there, and so are we */
	ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_SAMPLE, proc, 1));
	r = fx_find(&fc.recs, REC_SAMPLE, cpu, (uint64_t)getpid());
	ck_assert_ptr_nonnull(r);
	ck_assert_msg(r->v[0] + r->v[1] >= before - 1e-9 && r->v[0] + r->v[1] <= after + 1e-9,
		      "our CPU %.2f s, read before %.2f and after %.2f", r->v[0] + r->v[1], before,
		      after);
	ck_assert_double_eq(r->v[2], 'R'); /* we were reading it */
	ck_assert_double_eq(r->v[4], 0);
	for (size_t i = 0; i < fc.recs.n; i++) {
		const struct fx_rec *m = &fc.recs.r[i], *c;

		if (m->kind == REC_LABEL && m->stream == proc)
			ck_assert(m->text[0]);
		if (m->kind != REC_SAMPLE || m->stream != proc)
			continue;
		c = fx_find(&fc.recs, REC_SAMPLE, cpu, m->entity);
		ck_assert_ptr_nonnull(c);
		ck_assert(c->v[0] >= 0 && c->v[1] >= 0 && c->v[5] >= 0);
		ck_assert(c->v[2] >= 'A' && c->v[2] <= 'z');
		ck_assert(c->v[3] >= -20 && c->v[3] <= 19);
		ck_assert(c->v[4] == 0 || c->v[4] == 1);
		ck_assert(!isnan(m->v[2]) && !isnan(m->v[4]));
		if (c->v[4] == 1) /* a kernel thread: no memory of its own, [comm] */
			ck_assert(isnan(m->v[0]) &&
				  fx_find(&fc.recs, REC_LABEL, proc, m->entity)->text[0] == '[');
		else /* NaN for a zombie or one that is exiting */
			ck_assert(isnan(m->v[0]) || m->v[0] > 0);
	}
	fx_coll_fini(&fc);
}
END_TEST

/* System-wide, after reports that may go over the last one's rows instead
 * of listing /proc: a process started since is in the next, and one that
 * left is gone from the next. */
START_TEST(mem_real_newcomer)
{
	struct asys_options o;
	struct fx_coll fc;
	uint32_t proc;
	int go[2];
	pid_t kid;
	char c;

	sysroot_set(NULL);
	options_defaults(&o);
	o.scope = SCOPE_SYSTEM_WIDE;
	ck_assert_int_eq(fx_coll_init(&fc, &mem_collector, &o), 0);
	proc = fx_stream(&fc, "mem.proc");
	for (uint64_t t = 1; t <= 3; t++)
		ck_assert_int_eq(fx_coll_sample(&fc, t * SEC), 0);
	ck_assert_int_eq(pipe(go), 0);
	kid = fork();
	ck_assert_int_ge(kid, 0);
	if (kid == 0)
		_exit(read(go[0], &c, 1) == 1 ? 0 : 1);
	ck_assert_int_eq(fx_coll_sample(&fc, 4 * SEC), 0);
	ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_SAMPLE, proc, (uint64_t)kid));
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	ck_assert_int_eq(waitpid(kid, NULL, 0), kid);
	ck_assert_int_eq(fx_coll_sample(&fc, 5 * SEC), 0);
	ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_GONE, proc, (uint64_t)kid));
	close(go[0]);
	close(go[1]);
	fx_coll_fini(&fc);
}
END_TEST

/* Counters that go backwards, CPUs that vanish: the store never shows a
 * negative rate, and rates resume once two good samples follow. */
START_TEST(cpu_into_store)
{
	static const char *const steps[] = {
	    "cpu  10 0 0 0 0 0 0 0 0 0\ncpu0 10 0 0 0 0 0 0 0 0 0\ncpu1 10 0 0 0 0 0 0 0 0 0\n",
	    "cpu  5 0 0 0 0 0 0 0 0 0\ncpu0 5 0 0 0 0 0 0 0 0 0\ncpu1 20 0 0 0 0 0 0 0 0 0\n",
	    "cpu  8 0 0 0 0 0 0 0 0 0\ncpu0 8 0 0 0 0 0 0 0 0 0\n",
	    "cpu  9 0 0 0 0 0 0 0 0 0\ncpu0 9 0 0 0 0 0 0 0 0 0\ncpu1 30 0 0 0 0 0 0 0 0 0\n",
	    "cpu  9 0 0 0 0 0 0 0 0 0\ncpu0 9 0 0 0 0 0 0 0 0 0\ncpu1 40 0 0 0 0 0 0 0 0 0\n",
	};
	char *root = fx_tmpdir();
	struct asys_options o;
	struct fx_coll fc;
	struct store *st;
	uint32_t core;
	double rate0[5], rate1[5], online1[5];

	fx_write(root, "proc/stat", "%s", steps[0]);
	sysroot_set(root);
	options_defaults(&o);
	ck_assert_int_eq(fx_coll_init(&fc, &cpu_collector, &o), 0);
	core = fx_stream(&fc, "cpu.core");
	st = store_new(fc.t, SEC / 4);
	ck_assert_ptr_nonnull(st);
	for (int i = 0; i < 5; i++) {
		const struct rec *r;
		size_t len;

		fx_write(root, "proc/stat", "%s", steps[i]);
		usleep(2000);
		ck_assert_int_eq(fc.c->sample(fc.state, &fc.em, asys_now_ns()), 0);
		while ((r = ring_peek(fc.ring, &len))) {
			store_consume(st, r);
			ring_pop(fc.ring, len);
		}
		store_lock(st);
		rate0[i] = series_rate(store_series(st, core, 0), 0);
		rate1[i] = series_rate(store_series(st, core, 1), 0);
		online1[i] = series_last(store_series(st, core, 1), 10);
		ck_assert_str_eq(series_label(store_series(st, core, 1)), "cpu1");
		store_unlock(st);
	}
	/* cpu0: 10, 5 (backwards: no rate), 8, 9, 9 */
	ck_assert(isnan(rate0[0]));
	ck_assert(isnan(rate0[1]));
	ck_assert(rate0[2] > 0 && rate0[3] > 0);
	ck_assert_double_eq(rate0[4], 0);
	/* cpu1: 10, 20, offline, 30 (first after the gap: no rate), 40 */
	ck_assert(rate1[1] > 0);
	ck_assert(isnan(rate1[2]));
	ck_assert_double_eq(online1[2], 0);
	ck_assert(isnan(rate1[3]));
	ck_assert_double_eq(online1[3], 1);
	ck_assert(rate1[4] > 0);
	store_lock(st);
	ck_assert_uint_eq(series_resets(store_series(st, core, 0)), 1);
	store_unlock(st);
	store_free(st);
	fx_coll_fini(&fc);
	fx_rmtree(root);
}
END_TEST

/* Runs the system-wide scan over root and reports: 0 = pid 701 skipped and
 * counted; 1.. = what went wrong. Used as a dropped-privilege child. */
static int unreadable_check(const char *root, bool expect_hidden)
{
	struct asys_options o;
	struct fx_coll fc;
	const struct fx_rec *st;
	uint32_t proc;
	int rc = 0;

	sysroot_set(root);
	options_defaults(&o);
	o.scope = SCOPE_SYSTEM_WIDE;
	if (fx_coll_init(&fc, &mem_collector, &o))
		return 10;
	proc = fx_stream(&fc, "mem.proc");
	fx_coll_sample(&fc, SEC);
	st = fx_find(&fc.recs, REC_STATUS, proc, STATUS_STREAM);
	if (!fx_find(&fc.recs, REC_SAMPLE, proc, 700))
		rc = 11;
	else if (expect_hidden && fx_find(&fc.recs, REC_SAMPLE, proc, 701))
		rc = 12;
	else if (expect_hidden &&
		 (!st || strcmp(st->text, "1 process unreadable (run as root to see all)")))
		rc = 13;
	else if (!expect_hidden && (st || !fx_find(&fc.recs, REC_SAMPLE, proc, 701)))
		rc = 14;
	fx_coll_fini(&fc);
	return rc;
}

START_TEST(mem_unreadable)
{
	char *root = fx_tmpdir();
	char path[4096];
	pid_t child;
	int status;

	fx_write(root, "proc/meminfo", "MemTotal: 1000 kB\n");
	fx_write_proc(root, 700, "ok", 1, 0, 100, 100, "ok\0", 3);
	fx_write_proc(root, 701, "secret", 1, 0, 200, 200, "secret\0", 7);
	snprintf(path, sizeof(path), "%s/proc/701/statm", root);
	ck_assert_int_eq(chmod(path, 0), 0);
	snprintf(path, sizeof(path), "%s/proc/701/status", root);
	ck_assert_int_eq(chmod(path, 0), 0);
	ck_assert_int_eq(chmod(root, 0755), 0);

	if (geteuid() != 0) {
		ck_assert_int_eq(unreadable_check(root, true), 0);
		goto done;
	}
	/* root reads a mode-000 file: the row is there and nothing is counted */
	ck_assert_int_eq(unreadable_check(root, false), 0);
	/* and without root's privileges it is skipped and counted */
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(77);
		_exit(unreadable_check(root, true));
	}
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		fprintf(stderr, "mem_unreadable: cannot drop to uid 65534; checked as root only\n");
	else
		ck_assert_int_eq(WEXITSTATUS(status), 0);
done:
	fx_rmtree(root);
}
END_TEST

/* The mem.proc rows of the last report: ours among them, and none of another
 * user's. Tests run beside this one, some of them as nobody too, so a row of
 * another of nobody's processes may come and go. */
static bool hidepid_rows_ok(const struct fx_coll *fc, uint32_t sid)
{
	bool ours = false;

	for (size_t i = 0; i < fc->recs.n; i++) {
		const struct fx_rec *r = &fc->recs.r[i];

		if (r->kind != REC_SAMPLE || r->stream != sid)
			continue;
		if (r->nvals < 3 || r->v[2] != 65534.0) /* uid */
			return false;
		ours |= r->entity == (uint64_t)getpid();
	}
	return ours;
}

/* As nobody on a /proc mounted with hidepid=1: the real kernel refuses other
 * users' files (EPERM); those rows are skipped and counted, ours is shown. */
static int hidepid_check(const char *root)
{
	struct asys_options o;
	struct fx_coll fc;
	const struct fx_rec *st;
	unsigned n = 0, m;
	char tail[128] = "";
	uint32_t sid;
	int rc = 0;

	sysroot_set(root);
	options_defaults(&o);
	o.scope = SCOPE_SYSTEM_WIDE;
	if (fx_coll_init(&fc, &mem_collector, &o))
		return 20;
	sid = fx_stream(&fc, "mem.proc");
	fx_coll_sample(&fc, SEC);
	st = fx_find(&fc.recs, REC_STATUS, sid, STATUS_STREAM);
	if (!st || sscanf(st->text, "%u process%127[^\n]", &n, tail) != 2 || n == 0)
		rc = 21;
	else if (!strstr(tail, "unreadable (run as root to see all)"))
		rc = 22;
	else if (!hidepid_rows_ok(&fc, sid))
		rc = 23;
	/* later reports, perhaps without a listing of /proc: while the count
	 * of the unreadable holds nothing is said again (the processes that
	 * tests beside this one start may change it, and it is said then) */
	for (uint64_t t = 2; t <= 4 && !rc; t++) {
		fx_coll_sample(&fc, t * SEC);
		st = fx_find(&fc.recs, REC_STATUS, sid, STATUS_STREAM);
		if (!hidepid_rows_ok(&fc, sid))
			rc = 24;
		else if (st && (sscanf(st->text, "%u", &m) != 1 || m == n))
			rc = 25;
		else if (st)
			n = m;
	}
	fx_coll_fini(&fc);
	return rc;
}

START_TEST(mem_hidepid)
{
	char *root = fx_tmpdir();
	char procdir[4096];
	pid_t child;
	int status;

	ck_assert_int_eq(chmod(root, 0755), 0);
	snprintf(procdir, sizeof(procdir), "%s/proc", root);
	ck_assert_int_eq(mkdir(procdir, 0755), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		/* a private mount namespace: the mount goes with this process */
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("proc", procdir, "proc", 0, "hidepid=1")) {
			/* EINVAL from the second: / is not a mount point (a chroot) */
			fprintf(stderr, "mem_hidepid: %s\n", strerror(errno));
			_exit(77);
		}
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(77);
		_exit(hidepid_check(root));
	}
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		fprintf(stderr, "mem_hidepid: cannot mount a hidepid /proc in a private mount "
				"namespace (needs root, and / a mount point); not checked\n");
	else
		ck_assert_int_eq(WEXITSTATUS(status), 0);
	fx_rmtree(root);
}
END_TEST

Suite *procfs_real_suite(void)
{
	Suite *s = suite_create("procfs on the real /proc");
	TCase *tc = tcase_create("real");

	tcase_set_timeout(tc, 60);

	tcase_add_test(tc, cpu_real);
	tcase_add_test(tc, mem_real_tree);
	tcase_add_test(tc, mem_real_system);
	tcase_add_test(tc, mem_real_newcomer);
	tcase_add_test(tc, cpu_into_store);
	tcase_add_test(tc, mem_unreadable);
	tcase_add_test(tc, mem_hidepid);
	suite_add_tcase(s, tc);
	return s;
}
