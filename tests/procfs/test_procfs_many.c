/* SPDX-License-Identifier: GPL-2.0-only */
/* The mem collector against a /proc of 10,000 processes generated here
 * (kernel threads, every state, negative nice): every process in mem.proc
 * and proc.cpu with the fixture's exact values, exits, and the kept fds
 * bounded by RLIMIT_NOFILE. And proc.thread (--process-threads). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "cli.h"
#include "memproc_int.h"
#include "procfs_fixture.h"
#include "sysroot.h"
#include "util.h"

extern const struct collector mem_collector;

#define SEC 1000000000ull
#define NPROC 10000
#define PID0 300

/* What process i of the fixture is, at generation gen. */
struct many {
	int pid, ppid, uid, threads, nice;
	bool kthread;
	char state;
	long rss_kb, hwm_kb, pages;
	unsigned long utime, stime, start, minflt;
};

static struct many many_of(int i, int gen)
{
	struct many m = {.pid = PID0 + i, .kthread = i % 10 == 0};

	m.ppid = 1 + i % 97;
	m.uid = m.kthread ? 0 : i % 3000;
	m.threads = 1 + i % 5;
	m.nice = i % 40 - 20;
	m.state = m.kthread ? 'I' : "RSDT"[i % 4];
	m.rss_kb = m.kthread ? 0 : 4 * (1 + i % 5000);
	m.hwm_kb = m.rss_kb + 4 * (i % 3);
	m.pages = m.rss_kb * 1024 / sysconf(_SC_PAGESIZE);
	m.utime = (unsigned long)i * 3 + (unsigned long)gen * 7;
	m.stime = (unsigned long)(i % 1000 + gen);
	m.start = 5000 + (unsigned long)i;
	m.minflt = (unsigned long)(i + gen);
	return m;
}

static void put(const char *dir, const char *name, const char *text, size_t len)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
}

/* Writes (gen 0) or rewrites the stat of every process (others: only the
 * CPU times and faults move). Files are written directly: 30,000 through
 * fx_write take seconds on a slow disk. */
static void many_write(const char *root, int nproc, int gen)
{
	char dir[4096], text[512];
	int n;

	for (int i = 0; i < nproc; i++) {
		struct many m = many_of(i, gen);

		snprintf(dir, sizeof(dir), "%s/proc/%d", root, m.pid);
		if (gen == 0)
			ck_assert_int_eq(mkdir(dir, 0755), 0);
		n = snprintf(text, sizeof(text),
			     "%d (%s%d) %c %d %d %d 0 -1 %u %lu 0 0 0 %lu %lu 0 0 20 %d %d 0 %lu "
			     "1000 %ld 0\n",
			     m.pid, m.kthread ? "kw/" : "p", i, m.state, m.ppid, m.pid, m.pid,
			     m.kthread ? 0x208040u : 0x400100u, m.minflt, m.utime, m.stime, m.nice,
			     m.threads, m.start, m.pages);
		put(dir, "stat", text, (size_t)n);
		if (gen || m.kthread)
			continue;
		n = snprintf(text, sizeof(text),
			     "Name:\tp%d\nState:\t%c\nPPid:\t%d\nUid:\t%d\t%d\t%d\t%d\n"
			     "VmHWM:\t%8ld kB\nVmRSS:\t%8ld kB\nThreads:\t%d\n",
			     i, m.state, m.ppid, m.uid, m.uid, m.uid, m.uid, m.hwm_kb, m.rss_kb,
			     m.threads);
		put(dir, "status", text, (size_t)n);
		n = snprintf(text, sizeof(text), "prog-%d%c--arg%c%d%c", i, 0, 0, i, 0);
		put(dir, "cmdline", text, (size_t)n);
	}
}

/* tmpfs where there is one: 40,000 files on a disk are slow */
static char *many_root(void)
{
	char *dir;

	if (access("/dev/shm", W_OK) != 0)
		return fx_tmpdir();
	dir = strdup("/dev/shm/asys-many-XXXXXX");
	ck_assert_ptr_nonnull(dir);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	return dir;
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* Each process's last record of kind in stream, indexed by pid - PID0. */
static void many_index(const struct fx_recs *recs, int kind, uint32_t stream,
		       const struct fx_rec **out)
{
	memset(out, 0, NPROC * sizeof(*out));
	for (size_t i = 0; i < recs->n; i++) {
		const struct fx_rec *r = &recs->r[i];

		if (r->kind == kind && r->stream == stream && r->entity >= PID0 &&
		    r->entity < PID0 + NPROC)
			out[r->entity - PID0] = r;
	}
}

static void many_check(const struct fx_coll *fc, int nproc, int gen, int gone_every)
{
	static const struct fx_rec *mem[NPROC], *cpu[NPROC], *lab[NPROC];
	uint32_t sp = fx_stream(fc, "mem.proc"), sc = fx_stream(fc, "proc.cpu");
	double hz = (double)sysconf(_SC_CLK_TCK);
	char want[64];

	many_index(&fc->recs, REC_SAMPLE, sp, mem);
	many_index(&fc->recs, REC_SAMPLE, sc, cpu);
	many_index(&fc->recs, REC_LABEL, sp, lab);
	for (int i = 0; i < nproc; i++) {
		struct many m = many_of(i, gen);

		if (gone_every && i % gone_every == 1) {
			ck_assert_msg(!mem[i] && !cpu[i], "pid %d exited but has a row", m.pid);
			ck_assert_ptr_nonnull(fx_find(&fc->recs, REC_GONE, sc, (uint64_t)m.pid));
			continue;
		}
		ck_assert_msg(mem[i] && cpu[i], "pid %d: no mem.proc or proc.cpu sample", m.pid);
		ck_assert_double_eq(cpu[i]->v[PC_UTIME], (double)m.utime / hz);
		ck_assert_double_eq(cpu[i]->v[PC_STIME], (double)m.stime / hz);
		ck_assert_double_eq(cpu[i]->v[PC_STATE], m.state);
		ck_assert_double_eq(cpu[i]->v[PC_NICE], m.nice);
		ck_assert_double_eq(cpu[i]->v[PC_KTHREAD], m.kthread);
		ck_assert_double_eq(cpu[i]->v[PC_START], (double)m.start / hz);
		ck_assert_double_eq(mem[i]->v[MP_PPID], m.ppid);
		ck_assert_double_eq(mem[i]->v[MP_THREADS], m.threads);
		ck_assert_double_eq(mem[i]->v[MP_UID], m.uid);
		if (m.kthread) {
			ck_assert(isnan(mem[i]->v[MP_RSS]) && isnan(mem[i]->v[MP_HWM]));
		} else {
			ck_assert_double_eq(mem[i]->v[MP_RSS], m.rss_kb * 1024.0);
			ck_assert_double_eq(mem[i]->v[MP_HWM], m.hwm_kb * 1024.0);
		}
		if (gen)
			continue;
		if (m.kthread)
			snprintf(want, sizeof(want), "[kw/%d]", i);
		else
			snprintf(want, sizeof(want), "prog-%d --arg %d", i, i);
		ck_assert_msg(lab[i], "pid %d has no label", m.pid);
		ck_assert_str_eq(lab[i]->text, want);
	}
}

static double now_s(void)
{
	return (double)asys_now_ns() / 1e9;
}

/* nproc processes; nofile: the soft RLIMIT_NOFILE to run under (0: as it is). */
static void many_run(int nproc, rlim_t nofile)
{
	char *root = many_root();
	struct asys_options o;
	struct fx_coll fc;
	struct rlimit rl;
	int base, budget;
	double t0, t1;

	fx_write(root, "proc/meminfo", "MemTotal: 1000 kB\n");
	many_write(root, nproc, 0);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (nofile) {
		rl.rlim_cur = nofile;
		ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
	budget = rl.rlim_cur / 2 < MEM_FD_CAP ? (int)(rl.rlim_cur / 2) : MEM_FD_CAP;
	sysroot_set(root);
	options_defaults(&o);
	o.scope = SCOPE_SYSTEM_WIDE;
	ck_assert_int_eq(fx_coll_init(&fc, &mem_collector, &o), 0);
	base = open_fds();
	t0 = now_s();
	ck_assert_int_eq(fx_coll_sample(&fc, SEC), 0);
	t1 = now_s();
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, fx_stream(&fc, "mem.proc")), nproc);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, fx_stream(&fc, "proc.cpu")), nproc);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_LABEL, fx_stream(&fc, "mem.proc")), nproc);
	many_check(&fc, nproc, 0, 0);
	ck_assert_msg(open_fds() - base <= budget, "%d fds kept, budget %d", open_fds() - base,
		      budget);
	ck_assert_int_gt(open_fds() - base, budget / 2); /* and they are kept */

	/* the CPU times move, every 100th process exits */
	many_write(root, nproc, 1);
	for (int i = 1; i < nproc; i += 100)
		fx_kill_proc(root, PID0 + i);
	ck_assert_int_eq(fx_coll_sample(&fc, 2 * SEC), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, fx_stream(&fc, "proc.cpu")),
			  nproc - (nproc + 98) / 100);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_GONE, fx_stream(&fc, "mem.proc")),
			  (nproc + 98) / 100);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_LABEL, fx_stream(&fc, "mem.proc")), 0);
	many_check(&fc, nproc, 1, 100);
	ck_assert_msg(open_fds() - base <= budget, "%d fds kept, budget %d", open_fds() - base,
		      budget);
	printf("many: %d processes, first refresh %.1f us a process (nofile %lu)\n", nproc,
	       (t1 - t0) * 1e6 / nproc, (unsigned long)rl.rlim_cur);
	fx_coll_fini(&fc);
	ck_assert_int_le(open_fds(), base);
	fx_rmtree(root);
}

START_TEST(mem_many)
{
	many_run(NPROC, 0);
}
END_TEST

/* Past the fd budget, the rest is read with open/read/close. */
START_TEST(mem_many_few_fds)
{
	many_run(2000, 64);
}
END_TEST

static void thread_stat(const char *root, int pid, int tid, const char *comm, char state, int utime)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "proc/%d/task/%d/stat", pid, tid);
	fx_write(root, rel, "%d (%s) %c 1 %d %d 0 -1 0 0 0 0 0 %d 3 0 0 20 0 3 0 100 0 25 0\n", tid,
		 comm, state, pid, pid, utime);
}

START_TEST(mem_threads)
{
	char *root = fx_tmpdir();
	struct asys_options o;
	struct fx_coll fc;
	const struct fx_rec *r;
	uint32_t th;
	double hz = (double)sysconf(_SC_CLK_TCK);
	char path[4096];

	fx_write(root, "proc/meminfo", "MemTotal: 1000 kB\n");
	fx_write_proc(root, 50, "multi", 1, 0, 100, 100, "multi\0", 6);
	fx_write(root, "proc/50/stat",
		 "50 (multi) S 1 50 50 0 -1 0 0 0 0 0 9 3 0 0 20 0 3 0 100 0 25 0\n");
	thread_stat(root, 50, 50, "multi", 'S', 4);
	thread_stat(root, 50, 51, "worker 1", 'R', 5);
	thread_stat(root, 50, 52, "io", 'D', 0);
	fx_write_proc(root, 60, "single", 1, 0, 100, 100, "single\0", 7);
	sysroot_set(root);
	options_defaults(&o);
	o.scope = SCOPE_SYSTEM_WIDE;
	ck_assert_int_eq(cli_set(&o, "process-threads", NULL), 0);
	ck_assert_int_eq(fx_coll_init(&fc, &mem_collector, &o), 0);
	th = fx_stream(&fc, "proc.thread");
	ck_assert_uint_eq(stream_table_get(fc.t, th)->nfields, PT_NVALS);
	ck_assert_str_eq(stream_table_get(fc.t, th)->fields[PT_TGID].name, "tgid");
	ck_assert_int_eq(fx_coll_sample(&fc, SEC), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, th), 4);
	r = fx_find(&fc.recs, REC_SAMPLE, th, 51);
	ck_assert_double_eq(r->v[PT_UTIME], 5 / hz);
	ck_assert_double_eq(r->v[PT_STIME], 3 / hz);
	ck_assert_double_eq(r->v[PT_STATE], 'R');
	ck_assert_double_eq(r->v[PT_TGID], 50);
	ck_assert_str_eq(fx_find(&fc.recs, REC_LABEL, th, 51)->text, "worker 1");
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, th, 52)->v[PT_STATE], 'D');
	/* one thread: the process's own stat */
	r = fx_find(&fc.recs, REC_SAMPLE, th, 60);
	ck_assert_double_eq(r->v[PT_TGID], 60);
	ck_assert_double_eq(r->v[PT_UTIME], 1 / hz);
	ck_assert_str_eq(fx_find(&fc.recs, REC_LABEL, th, 60)->text, "single");

	/* thread 52 ends, 51 is renamed */
	snprintf(path, sizeof(path), "%s/proc/50/task/52", root);
	fx_rmtree(strdup(path));
	thread_stat(root, 50, 51, "renamed", 'S', 7);
	ck_assert_int_eq(fx_coll_sample(&fc, 2 * SEC), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, th), 3);
	ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_GONE, th, 52));
	ck_assert_uint_eq(fx_count(&fc.recs, REC_LABEL, th), 1);
	ck_assert_str_eq(fx_find(&fc.recs, REC_LABEL, th, 51)->text, "renamed");
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, th, 51)->v[PT_UTIME], 7 / hz);
	fx_coll_fini(&fc);
	fx_rmtree(root);
}
END_TEST

Suite *procfs_many_suite(void)
{
	Suite *s = suite_create("procfs many processes");
	TCase *tc = tcase_create("many");

	tcase_set_timeout(tc, 120); /* 40,000 files, a loaded machine, sanitizers */
	tcase_add_test(tc, mem_many);
	tcase_add_test(tc, mem_many_few_fds);
	tcase_add_test(tc, mem_threads);
	suite_add_tcase(s, tc);
	return s;
}
