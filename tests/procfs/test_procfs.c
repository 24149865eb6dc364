/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* Unit tests of the /proc parsers (collectors/procfs.c) over odd content,
 * plus the collector tests of test_procfs_coll.c. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "procfs.h"
#include "procfs_fixture.h"
#include "sysroot.h"
#include "util.h"
#ifdef HAVE_PFM
#include "perfctr.h"
#include "../check_run.h"
#endif

static char *slurp(const char *fixture, const char *rel)
{
	char path[4096];
	static char buf[1 << 16];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", fx_fixture(fixture), rel);
	f = fopen(path, "r");
	ck_assert_msg(f, "fixture %s missing", path);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

START_TEST(stat_basic)
{
	struct procfs_cpu_line l[8];
	int n = procfs_parse_stat(slurp("basic", "proc/stat"), l, 8);

	ck_assert_int_eq(n, 5);
	ck_assert_int_eq(l[0].cpu, PROCFS_CPU_TOTAL);
	ck_assert_double_eq(l[0].v[0], 4000);
	ck_assert_double_eq(l[0].v[7], 7);
	ck_assert_int_eq(l[3].cpu, 2);
	ck_assert_double_eq(l[3].v[3], 22500);
	ck_assert_double_eq(l[4].v[9], 0);
}
END_TEST

START_TEST(stat_odd)
{
	struct procfs_cpu_line l[16];
	int n = procfs_parse_stat(slurp("odd", "proc/stat"), l, 16);

	/* total, cpu0..cpu4, cpu6; not cpufreq, cpu99999999 or cpu5x */
	ck_assert_int_eq(n, 7);
	/* u64 max survives as the nearest double */
	ck_assert_double_eq(l[0].v[0], (double)UINT64_MAX);
	ck_assert_double_eq(l[1].v[0], (double)UINT64_MAX);
	ck_assert_double_eq(l[1].v[9], 8);
	/* an overflowing number is unknown, the rest of the line still reads */
	ck_assert_int_eq(l[2].cpu, 1);
	ck_assert(isnan(l[2].v[0]));
	ck_assert_double_eq(l[2].v[1], 1);
	ck_assert_double_eq(l[2].v[9], 9);
	/* an old kernel's four fields: the others are unknown, not 0 */
	ck_assert_int_eq(l[3].cpu, 2);
	ck_assert_double_eq(l[3].v[3], 40);
	for (int i = 4; i < PROCFS_CPU_NFIELDS; i++)
		ck_assert(isnan(l[3].v[i]));
	/* garbage mid-line: what came before stays, the rest is unknown */
	ck_assert_int_eq(l[4].cpu, 3);
	ck_assert_double_eq(l[4].v[1], 2);
	ck_assert(isnan(l[4].v[2]));
	ck_assert(isnan(l[4].v[9]));
	/* a negative number is garbage */
	ck_assert_int_eq(l[5].cpu, 4);
	ck_assert(isnan(l[5].v[0]));
	/* the last line has no newline */
	ck_assert_int_eq(l[6].cpu, 6);
	ck_assert_double_eq(l[6].v[9], 10);
}
END_TEST

START_TEST(stat_192)
{
	struct procfs_cpu_line *l = calloc(200, sizeof(*l));
	const char *buf = slurp("cpu192", "proc/stat");
	double sum = 0;
	int n;

	/* too small an array: the count says how big it must be */
	ck_assert_int_eq(procfs_parse_stat(buf, l, 4), 193);
	n = procfs_parse_stat(buf, l, 200);
	ck_assert_int_eq(n, 193);
	for (int i = 1; i < n; i++) {
		ck_assert_int_eq(l[i].cpu, i - 1);
		for (int k = 0; k < PROCFS_CPU_NFIELDS; k++)
			ck_assert(!isnan(l[i].v[k]));
		sum += l[i].v[0];
	}
	ck_assert_double_eq(sum, l[0].v[0]);
	free(l);
}
END_TEST

START_TEST(stat_garbage)
{
	struct procfs_cpu_line l[4];

	ck_assert_int_eq(procfs_parse_stat("", l, 4), -EINVAL);
	ck_assert_int_eq(procfs_parse_stat("intr 1 2\nctxt 5\n", l, 4), -EINVAL);
	ck_assert_int_eq(procfs_parse_stat(NULL, l, 4), -EINVAL);
	ck_assert_int_eq(procfs_parse_stat("cpu\n", l, 4), -EINVAL);
	ck_assert_int_eq(procfs_parse_stat("cpu \n", l, 4), 1);
	ck_assert(isnan(l[0].v[0]));
	ck_assert_int_eq(procfs_parse_stat("cpu16384 1 2\ncpu16383 1 2\n", l, 4), 1);
	ck_assert_int_eq(l[0].cpu, 16383);
}
END_TEST

START_TEST(cpulist)
{
	uint8_t set[16] = {0};

	ck_assert_int_eq(procfs_parse_cpulist("0-3,5,8-10\n", set, 16), 11);
	ck_assert(set[0] && set[3] && !set[4] && set[5] && !set[7] && set[8] && set[10]);
	ck_assert(!set[11]);
	memset(set, 0, sizeof(set));
	/* CPUs past the array are counted, not written */
	ck_assert_int_eq(procfs_parse_cpulist("2,30-40", set, 4), 41);
	ck_assert(set[2] && !set[3]);
	ck_assert_int_eq(procfs_parse_cpulist("\n", set, 4), 0);
	ck_assert_int_eq(procfs_parse_cpulist("3-1\n", set, 4), -EINVAL);
	ck_assert_int_eq(procfs_parse_cpulist("garbage\n", set, 4), -EINVAL);
	ck_assert_int_eq(procfs_parse_cpulist("0-99999999\n", set, 4), -EINVAL);
	ck_assert_int_eq(procfs_parse_cpulist("1,,2\n", set, 4), -EINVAL);
	ck_assert_int_eq(procfs_parse_cpulist("0-191", NULL, 0), 192);
}
END_TEST

START_TEST(meminfo_basic)
{
	struct procfs_meminfo m;

	ck_assert_int_eq(procfs_parse_meminfo(slurp("basic", "proc/meminfo"), &m), 9);
	ck_assert_double_eq(m.total, 16000000.0 * 1024);
	ck_assert_double_eq(m.available, 9000000.0 * 1024);
	ck_assert_double_eq(m.sreclaimable, 600000.0 * 1024);
	ck_assert_double_eq(m.swap_free, 1500000.0 * 1024);
	/* free(1) of procps-ng 4: MemTotal - MemAvailable = 16000000 - 9000000 */
	ck_assert_double_eq(procfs_mem_used(&m), 7000000.0 * 1024);
	/* buff/cache: Buffers + Cached + SReclaimable = 500000 + 3000000 + 600000 */
	ck_assert_double_eq(procfs_mem_buff_cache(&m), 4100000.0 * 1024);
}
END_TEST

START_TEST(meminfo_missing)
{
	struct procfs_meminfo m;

	/* MemFree is garbage, Buffers has no unit, most lines are missing */
	ck_assert_int_eq(procfs_parse_meminfo(slurp("odd", "proc/meminfo"), &m), 3);
	ck_assert_double_eq(m.total, 8000000.0 * 1024);
	ck_assert(isnan(m.free));
	ck_assert(isnan(m.buffers));
	ck_assert(isnan(m.available));
	ck_assert(isnan(m.shmem));
	ck_assert_double_eq(m.swap_total, 0);
	ck_assert(isnan(procfs_mem_used(&m)));
	/* Buffers without a unit is not understood and counts as 0 */
	ck_assert_double_eq(procfs_mem_buff_cache(&m), 2000000.0 * 1024);
	/* without MemAvailable, SReclaimable and Buffers (old kernels): total -
	 * free - cached, as free(1) counts it there */
	procfs_parse_meminfo("MemTotal: 100 kB\nMemFree: 10 kB\nCached: 20 kB\n", &m);
	ck_assert_double_eq(procfs_mem_used(&m), 70.0 * 1024);
	ck_assert_double_eq(procfs_mem_buff_cache(&m), 20.0 * 1024);
	procfs_parse_meminfo("MemTotal: 100 kB\nBuffers: 5 kB\n", &m);
	ck_assert(isnan(procfs_mem_buff_cache(&m))); /* no Cached line */
	/* without MemAvailable: Buffers and SReclaimable come off too */
	procfs_parse_meminfo("MemTotal: 100 kB\nMemFree: 10 kB\nBuffers: 5 kB\nCached: 20 kB\n"
			     "SReclaimable: 3 kB\n",
			     &m);
	ck_assert_double_eq(procfs_mem_used(&m), 62.0 * 1024);
	ck_assert_double_eq(procfs_mem_buff_cache(&m), 28.0 * 1024);
	/* nonsense that would make it negative is unknown */
	procfs_parse_meminfo("MemTotal: 10 kB\nMemFree: 10 kB\nCached: 20 kB\n", &m);
	ck_assert(isnan(procfs_mem_used(&m)));
	/* with MemAvailable, the other lines do not matter */
	procfs_parse_meminfo("MemTotal: 100 kB\nMemAvailable: 40 kB\n", &m);
	ck_assert_double_eq(procfs_mem_used(&m), 60.0 * 1024);
	/* a container showing the host's MemAvailable above its MemTotal: free
	 * takes MemFree instead */
	procfs_parse_meminfo("MemTotal: 100 kB\nMemFree: 30 kB\nMemAvailable: 900 kB\n", &m);
	ck_assert_double_eq(procfs_mem_used(&m), 70.0 * 1024);
	/* ...and without MemFree that is unknown */
	procfs_parse_meminfo("MemTotal: 100 kB\nMemAvailable: 900 kB\n", &m);
	ck_assert(isnan(procfs_mem_used(&m)));
	ck_assert_int_eq(procfs_parse_meminfo("", &m), 0);
	ck_assert(isnan(m.total));
	/* a value that overflows bytes */
	ck_assert_int_eq(procfs_parse_meminfo("MemTotal: 18446744073709551615 kB\n", &m), 0);
}
END_TEST

START_TEST(status_basic)
{
	struct procfs_status s;

	ck_assert_int_ge(procfs_parse_status(slurp("basic", "proc/100/status"), &s), 6);
	ck_assert_str_eq(s.name, "python");
	ck_assert_double_eq(s.rss, 800000.0 * 1024);
	ck_assert_double_eq(s.hwm, 950000.0 * 1024);
	ck_assert_double_eq(s.uid, 1000);
	ck_assert_double_eq(s.ppid, 1);
	ck_assert_double_eq(s.threads, 3);
}
END_TEST

START_TEST(status_kthread)
{
	struct procfs_status s;

	/* kernel threads have no Vm* lines: unknown, not zero */
	ck_assert_int_eq(procfs_parse_status(slurp("basic", "proc/2/status"), &s), 4);
	ck_assert_str_eq(s.name, "kthreadd");
	ck_assert(isnan(s.rss));
	ck_assert(isnan(s.hwm));
	ck_assert_double_eq(s.ppid, 0);
	ck_assert_double_eq(s.threads, 1);
}
END_TEST

START_TEST(status_odd)
{
	struct procfs_status s;

	ck_assert_int_eq(procfs_parse_status("", &s), 0);
	ck_assert_int_eq(procfs_parse_status("garbage\n\n\n", &s), 0);
	procfs_parse_status("Name:\ta\tb\x01"
			    "c\nVmRSS: lots kB\nVmHWM: 5 MB\nPPid: -1\n"
			    "Threads: 3x\nUid: 7 8 9 10\n",
			    &s);
	ck_assert_str_eq(s.name, "a b c");
	ck_assert(isnan(s.rss));
	ck_assert(isnan(s.hwm));
	ck_assert(isnan(s.ppid));
	ck_assert(isnan(s.threads));
	ck_assert_double_eq(s.uid, 7);
	/* a comm longer than the buffer is cut, not overflowed */
	procfs_parse_status(
	    "Name:\txxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n", &s);
	ck_assert_uint_eq(strlen(s.name), PROCFS_COMM_MAX - 1);
}
END_TEST

START_TEST(pid_stat)
{
	struct procfs_pid_stat s;

	/* the comm holds ") (": it ends at the last ')' */
	ck_assert_int_eq(procfs_parse_pid_stat(slurp("basic", "proc/104/stat"), &s), 0);
	ck_assert_int_eq(s.pid, 104);
	ck_assert_str_eq(s.comm, "grand) (child");
	ck_assert_int_eq(s.state, 'S');
	ck_assert_int_eq(s.ppid, 103);
	ck_assert_uint_eq(s.flags, 4194560);
	ck_assert_uint_eq(s.utime, 10);
	ck_assert_uint_eq(s.stime, 5);
	ck_assert_int_eq(s.num_threads, 1);
	ck_assert_uint_eq(s.starttime, 1000);
	ck_assert_int_eq(s.rss_pages, 1000);
	ck_assert_uint_eq(s.minflt, 100);
	ck_assert_uint_eq(s.majflt, 0);
	ck_assert_int_eq(s.nice, 0);
	/* nice keeps its sign; a nice no kernel has is garbage */
	ck_assert_int_eq(procfs_parse_pid_stat("9 (n) R 1 9 9 0 -1 0 7 0 3 0 250 40 0 0 "
					       "39 -19 2 0 500 0 10 0\n",
					       &s),
			 0);
	ck_assert_int_eq(s.nice, -19);
	ck_assert_uint_eq(s.minflt, 7);
	ck_assert_uint_eq(s.majflt, 3);
	ck_assert_uint_eq(s.utime, 250);
	ck_assert_int_eq(s.state, 'R');
	ck_assert_int_eq(procfs_parse_pid_stat("9 (n) R 1 9 9 0 -1 0 7 0 3 0 250 40 0 0 "
					       "39 -99 2 0 500 0 10 0\n",
					       &s),
			 -EINVAL);
	ck_assert_int_eq(procfs_parse_pid_stat("", &s), -EINVAL);
	ck_assert_int_eq(procfs_parse_pid_stat("12 (x) S\n", &s), -EINVAL);
	ck_assert_int_eq(procfs_parse_pid_stat("12 x) S 1 2 3\n", &s), -EINVAL);
	ck_assert_int_eq(procfs_parse_pid_stat("12 (x S 1 2 3\n", &s), -EINVAL);
	ck_assert_int_eq(procfs_parse_pid_stat("(x) 12 S 1 2 3\n", &s), -EINVAL);
}
END_TEST

START_TEST(statm)
{
	uint64_t pages;

	ck_assert_int_eq(procfs_parse_statm_resident("100 42 3 4 0 5 0\n", &pages), 0);
	ck_assert_uint_eq(pages, 42);
	ck_assert_int_eq(procfs_parse_statm_resident("", &pages), -EINVAL);
	ck_assert_int_eq(procfs_parse_statm_resident("100\n", &pages), -EINVAL);
	ck_assert_int_eq(procfs_parse_statm_resident("1 x\n", &pages), -EINVAL);
}
END_TEST

START_TEST(cmdline)
{
	char out[32];

	procfs_format_cmdline("python\0train.py\0", 16, "python", out, sizeof(out));
	ck_assert_str_eq(out, "python train.py");
	procfs_format_cmdline("", 0, "kthreadd", out, sizeof(out));
	ck_assert_str_eq(out, "[kthreadd]");
	procfs_format_cmdline("\0\0\0", 3, "", out, sizeof(out));
	ck_assert_str_eq(out, "[?]");
	procfs_format_cmdline("a\tb\nc\x1b", 6, "x", out, sizeof(out));
	ck_assert_str_eq(out, "a b c");
	procfs_format_cmdline("0123456789012345678901234567890123456789", 40, "x", out, 8);
	ck_assert_str_eq(out, "0123456");
}
END_TEST

START_TEST(pidlist)
{
	pid_t p[4];

	ck_assert_int_eq(procfs_parse_pidlist("12 345 6789 \n", p, 4), 3);
	ck_assert_int_eq(p[0], 12);
	ck_assert_int_eq(p[2], 6789);
	ck_assert_int_eq(procfs_parse_pidlist("", p, 4), 0);
	ck_assert_int_eq(procfs_parse_pidlist("1 2 3 4 5 6", p, 4), 6);
	ck_assert_int_eq(p[3], 4);
	ck_assert_int_eq(procfs_parse_pidlist("1 x", p, 4), -EINVAL);
	ck_assert_int_eq(procfs_parse_pidlist("0", p, 4), -EINVAL);
	ck_assert_int_eq(procfs_parse_pidlist("99999999999", p, 4), -EINVAL);
	ck_assert_int_eq(procfs_pid_from_name("123"), 123);
	ck_assert_int_eq(procfs_pid_from_name("0"), -1);
	ck_assert_int_eq(procfs_pid_from_name("self"), -1);
	ck_assert_int_eq(procfs_pid_from_name("12a"), -1);
	ck_assert_int_eq(procfs_pid_from_name("99999999999"), -1);
	ck_assert_int_eq(procfs_pid_from_name(""), -1);
}
END_TEST

/* Random bytes and random cuts of real files: no parser may read past the
 * buffer (ASan build) or make up a negative count. */
START_TEST(parsers_fuzz)
{
	static const char *const seeds[] = {"proc/stat", "proc/meminfo", "proc/100/status",
					    "proc/104/stat"};
	char *files[4];
	uint32_t x = 12345;
	struct procfs_cpu_line l[8];

	for (size_t i = 0; i < ARRAY_SIZE(seeds); i++)
		files[i] = strdup(slurp("basic", seeds[i]));
	for (int iter = 0; iter < 10000; iter++) {
		char buf[600];
		const char *src = files[iter % 4];
		size_t len = strlen(src), n;
		struct procfs_meminfo m;
		struct procfs_status s;
		struct procfs_pid_stat ps;
		uint8_t set[8];
		pid_t pids[4];
		uint64_t pg;
		int rc;

		x = x * 1103515245 + 12345;
		n = (x >> 8) % sizeof(buf);
		if (n > len)
			n = len;
		memcpy(buf, src, n);
		for (int k = 0; k < 4 && n; k++) { /* a few flipped bytes */
			x = x * 1103515245 + 12345;
			buf[(x >> 8) % n] = (char)(x >> 24);
		}
		buf[n] = '\0';
		rc = procfs_parse_stat(buf, l, 8);
		ck_assert(rc == -EINVAL || rc > 0);
		for (int k = 0; k < rc && k < 8; k++)
			for (int f = 0; f < PROCFS_CPU_NFIELDS; f++)
				ck_assert(isnan(l[k].v[f]) || l[k].v[f] >= 0);
		procfs_parse_meminfo(buf, &m);
		procfs_parse_status(buf, &s);
		ck_assert_uint_lt(strlen(s.name), PROCFS_COMM_MAX);
		procfs_parse_pid_stat(buf, &ps);
		procfs_parse_statm_resident(buf, &pg);
		procfs_parse_cpulist(buf, set, sizeof(set));
		procfs_parse_pidlist(buf, pids, 4);
	}
	for (size_t i = 0; i < ARRAY_SIZE(seeds); i++)
		free(files[i]);
}
END_TEST

#ifdef HAVE_PFM
START_TEST(perf_explain)
{
	char buf[256];

	perfctr_explain(ENOENT, buf, sizeof(buf));
	ck_assert_str_eq(buf, "IPC n/a: no hardware PMU on this machine "
			      "(perf_event_open: No such file or directory)");
	perfctr_explain(EACCES, buf, sizeof(buf));
	ck_assert_str_eq(buf, "IPC n/a: not permitted; run as root or set "
			      "kernel.perf_event_paranoid=0");
	perfctr_explain(EOPNOTSUPP, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "no hardware PMU"));
	perfctr_explain(EINVAL, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "IPC n/a"));
}
END_TEST

/* The group open / read / scale / reopen path on the real kernel, with
 * software events where there is no PMU (per-CPU counting needs root or
 * perf_event_paranoid <= 0, like the real thing). */
START_TEST(perf_software_group)
{
	static const char *const ev[2] = {"cpu-clock", "task-clock"};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint8_t on[64] = {0};
	struct perfctr *p = NULL;
	char why[256] = "";
	double a0, b0, a1, b1;
	int rc;

	if (ncpu > 64)
		ncpu = 64;
	for (long c = 0; c < ncpu; c++)
		on[c] = 1;
	rc = perfctr_open_events(ev, on, (int)ncpu, &p, why, sizeof(why));
	if (rc == -EACCES || rc == -EPERM) {
		/* what a user without privileges would be told */
		ck_assert_str_eq(why, "IPC n/a: not permitted; run as root or set "
				      "kernel.perf_event_paranoid=0");
		return;
	}
	ck_assert_msg(rc == 0, "perfctr_open_events: %d %s", rc, why);
	ck_assert(perfctr_is_open(p, 0));
	ck_assert_int_eq(perfctr_read(p, 0, &a0, &b0), 0);
	usleep(20000);
	ck_assert_int_eq(perfctr_read(p, 0, &a1, &b1), 0);
	ck_assert(a1 > a0); /* cpu-clock counts wall time, idle included */
	ck_assert(!isnan(b1));
	/* a CPU outside the set reads unknown, and one can be reopened */
	ck_assert_int_eq(perfctr_read(p, (int)ncpu + 5, &a1, &b1), 0);
	ck_assert(isnan(a1) && isnan(b1));
	ck_assert_int_eq(perfctr_reopen(p, 0), 0);
	ck_assert_int_eq(perfctr_reopen(p, -1), -EINVAL);
	perfctr_free(p);
	perfctr_free(NULL);
}
END_TEST
#endif

static Suite *procfs_parser_suite(void)
{
	Suite *s = suite_create("procfs parsers");
	TCase *tc = tcase_create("parsers");

	tcase_set_timeout(tc, 60);

	tcase_add_test(tc, stat_basic);
	tcase_add_test(tc, stat_odd);
	tcase_add_test(tc, stat_192);
	tcase_add_test(tc, stat_garbage);
	tcase_add_test(tc, cpulist);
	tcase_add_test(tc, meminfo_basic);
	tcase_add_test(tc, meminfo_missing);
	tcase_add_test(tc, status_basic);
	tcase_add_test(tc, status_kthread);
	tcase_add_test(tc, status_odd);
	tcase_add_test(tc, pid_stat);
	tcase_add_test(tc, statm);
	tcase_add_test(tc, cmdline);
	tcase_add_test(tc, pidlist);
	tcase_add_test(tc, parsers_fuzz);
#ifdef HAVE_PFM
	tcase_add_test(tc, perf_explain);
	tcase_add_test(tc, perf_software_group);
#endif
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(procfs_parser_suite(), procfs_coll_suite(), procfs_tree_suite(),
			 procfs_real_suite(), procfs_idle_suite(), procfs_many_suite(), NULL);
}
