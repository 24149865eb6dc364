/* SPDX-License-Identifier: GPL-2.0-only */
/* The cpu and mem collectors driven through their descriptors against
 * fixture sysroots: init, sample into a ring, and the records that come out. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "cli.h"
#include "procfs_fixture.h"
#include "sysroot.h"
#include "util.h"

extern const struct collector cpu_collector;
extern const struct collector mem_collector;

#define SEC 1000000000ull
#define KB 1024.0

static const char *const stat4 = "cpu  40 0 20 400 0 0 0 0 0 0\n"
				 "cpu0 10 0 5 100 0 0 0 0 0 0\n"
				 "cpu1 10 0 5 100 0 0 0 0 0 0\n"
				 "cpu2 10 0 5 100 0 0 0 0 0 0\n"
				 "cpu3 10 0 5 100 0 0 0 0 0 0\n"
				 "intr 5 0 0\nctxt 10\n";

static void opts(struct asys_options *o, enum sample_scope scope)
{
	options_defaults(o);
	o->scope = scope;
}

/* ---- cpu ----------------------------------------------------------------- */

START_TEST(cpu_basic)
{
	struct asys_options o;
	struct fx_coll fc;
	const struct fx_rec *r;
	uint32_t core, perf;
	uint64_t before = asys_now_ns();

	sysroot_set(fx_fixture("basic"));
	opts(&o, SCOPE_DEFAULT);
	ck_assert_int_eq(fx_coll_init(&fc, &cpu_collector, &o), 0);
	ck_assert_ptr_null(cpu_collector.last_error(fc.state));
	core = fx_stream(&fc, "cpu.core");
	perf = fx_stream(&fc, "cpu.perf");
	{
		const struct stream_desc *d = stream_table_get(fc.t, core);

		ck_assert_uint_eq(d->nfields, 11);
		ck_assert_str_eq(d->fields[7].name, "steal");
		ck_assert_str_eq(d->fields[10].name, "online");
		ck_assert_int_eq(d->fields[0].kind, FIELD_COUNTER);
		ck_assert_int_eq(d->fields[10].kind, FIELD_GAUGE);
		ck_assert_int_eq(d->entity, ENTITY_CPU);
	}
	ck_assert_int_eq(fx_coll_sample(&fc, before), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, core), 5);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_LABEL, core), 5);
	r = fx_find(&fc.recs, REC_LABEL, core, ENTITY_CPU_TOTAL);
	ck_assert_str_eq(r->text, "cpu");
	ck_assert_str_eq(fx_find(&fc.recs, REC_LABEL, core, 3)->text, "cpu3");
	r = fx_find(&fc.recs, REC_SAMPLE, core, 2);
	ck_assert_uint_eq(r->nvals, 11);
	ck_assert_double_eq(r->v[0], 900);
	ck_assert_double_eq(r->v[2], 450);
	ck_assert_double_eq(r->v[3], 22500);
	ck_assert_double_eq(r->v[10], 1);
	ck_assert_uint_ge(r->ts_ns, before);
	ck_assert_uint_le(r->ts_ns, asys_now_ns());
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, core, ENTITY_CPU_TOTAL)->v[0], 4000);
	/* the PMU: counters per CPU, or one sentence saying why not */
	r = fx_find(&fc.recs, REC_STATUS, perf, STATUS_STREAM);
	if (r) {
		ck_assert_msg(!strncmp(r->text, "IPC n/a: ", 9), "perf status: %s", r->text);
		ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, perf), 0);
	} else {
		ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, perf), 5);
	}
	/* labels and the perf status go out once */
	ck_assert_int_eq(fx_coll_sample(&fc, before + SEC / 4), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_LABEL, core), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_STATUS, perf), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, core), 5);
	fx_coll_fini(&fc);
}
END_TEST

START_TEST(cpu_hotplug)
{
	char *root = fx_tmpdir();
	struct asys_options o;
	struct fx_coll fc;
	const struct fx_rec *r;
	uint32_t core;

	fx_write(root, "proc/stat", "%s", stat4);
	fx_write(root, "sys/devices/system/cpu/online", "0-3\n");
	fx_write(root, "sys/devices/system/cpu/present", "0-4\n"); /* cpu4 offline from boot */
	sysroot_set(root);
	opts(&o, SCOPE_DEFAULT);
	ck_assert_int_eq(fx_coll_init(&fc, &cpu_collector, &o), 0);
	core = fx_stream(&fc, "cpu.core");

	ck_assert_int_eq(fx_coll_sample(&fc, 1), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, core), 6);
	r = fx_find(&fc.recs, REC_SAMPLE, core, 4);
	ck_assert_double_eq(r->v[10], 0);
	ck_assert(isnan(r->v[0]));
	ck_assert_str_eq(fx_find(&fc.recs, REC_LABEL, core, 4)->text, "cpu4");

	/* cpu2 goes offline: it leaves /proc/stat and the online list */
	fx_write(root, "proc/stat",
		 "cpu  60 0 30 600 0 0 0 0 0 0\ncpu0 20 0 5 100 0 0 0 0 0 0\n"
		 "cpu1 20 0 5 100 0 0 0 0 0 0\ncpu3 20 0 5 100 0 0 0 0 0 0\nintr 1\n");
	fx_write(root, "sys/devices/system/cpu/online", "0-1,3\n");
	ck_assert_int_eq(fx_coll_sample(&fc, 2), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, core), 6);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_LABEL, core), 0);
	r = fx_find(&fc.recs, REC_SAMPLE, core, 2);
	ck_assert_double_eq(r->v[10], 0);
	for (int i = 0; i < 10; i++)
		ck_assert(isnan(r->v[i]));
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, core, 3)->v[0], 20);

	/* it comes back */
	fx_write(root, "proc/stat", "%s", stat4);
	fx_write(root, "sys/devices/system/cpu/online", "0-3\n");
	ck_assert_int_eq(fx_coll_sample(&fc, 3), 0);
	r = fx_find(&fc.recs, REC_SAMPLE, core, 2);
	ck_assert_double_eq(r->v[10], 1);
	ck_assert_double_eq(r->v[0], 10);

	/* cpu1 leaves and the online list is already ahead for cpu2: offline wins */
	fx_write(root, "proc/stat",
		 "cpu  60 0 30 600 0 0 0 0 0 0\ncpu0 20 0 5 100 0 0 0 0 0 0\n"
		 "cpu2 20 0 5 100 0 0 0 0 0 0\ncpu3 20 0 5 100 0 0 0 0 0 0\nintr 1\n");
	fx_write(root, "sys/devices/system/cpu/online", "0,3\n");
	ck_assert_int_eq(fx_coll_sample(&fc, 4), 0);
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, core, 1)->v[10], 0);
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, core, 2)->v[10], 0);

	/* /proc/stat's CPUs did not change: the online list is not read again,
	 * and cpu2, still in /proc/stat, is online */
	ck_assert_int_eq(fx_coll_sample(&fc, 5), 0);
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, core, 1)->v[10], 0);
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, core, 2)->v[10], 1);

	/* a CPU never seen before is hot-added */
	fx_write(root, "proc/stat", "%scpu5 1 2 3 4 5 6 7 8 9 10\n", stat4);
	fx_write(root, "sys/devices/system/cpu/online", "0-3,5\n");
	ck_assert_int_eq(fx_coll_sample(&fc, 6), 0);
	ck_assert_str_eq(fx_find(&fc.recs, REC_LABEL, core, 5)->text, "cpu5");
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, core, 5)->v[9], 10);
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, core, 5)->v[10], 1);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, core), 7);
	fx_coll_fini(&fc);
	fx_rmtree(root);
}
END_TEST

START_TEST(cpu_huge_backwards)
{
	char *root = fx_tmpdir();
	struct asys_options o;
	struct fx_coll fc;
	const struct fx_rec *r;
	uint32_t core;

	fx_write(root, "proc/stat",
		 "cpu  18446744073709551615 0 0 0 0 0 0 0 0 0\n"
		 "cpu0 18446744073709551615 18446744073709551614 0 0 0 0 0 0 0 0\n");
	sysroot_set(root); /* no /sys: every CPU in /proc/stat counts as online */
	opts(&o, SCOPE_DEFAULT);
	ck_assert_int_eq(fx_coll_init(&fc, &cpu_collector, &o), 0);
	core = fx_stream(&fc, "cpu.core");
	ck_assert_int_eq(fx_coll_sample(&fc, 1), 0);
	r = fx_find(&fc.recs, REC_SAMPLE, core, 0);
	ck_assert_double_eq(r->v[0], (double)UINT64_MAX);
	ck_assert_double_eq(r->v[10], 1);

	/* a counter that goes backwards is emitted as read: the store clamps */
	fx_write(root, "proc/stat", "cpu  5 0 0 0 0 0 0 0 0 0\ncpu0 5 0 0 0 0 0 0 0 0 0\n");
	ck_assert_int_eq(fx_coll_sample(&fc, 2), 0);
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, core, 0)->v[0], 5);

	/* garbage on the line: unknown values, the CPU is still there */
	fx_write(root, "proc/stat", "cpu  5 0 0 0 0 0 0 0 0 0\ncpu0 x y z\n");
	ck_assert_int_eq(fx_coll_sample(&fc, 3), 0);
	r = fx_find(&fc.recs, REC_SAMPLE, core, 0);
	ck_assert(isnan(r->v[0]));
	ck_assert_double_eq(r->v[10], 1);

	/* nothing readable: a status that says so, cleared when it comes back */
	fx_write(root, "proc/stat", "%s", "");
	ck_assert_int_lt(fx_coll_sample(&fc, 4), 0);
	r = fx_find(&fc.recs, REC_STATUS, core, STATUS_STREAM);
	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_nonnull(strstr(r->text, "/proc/stat"));
	fx_write(root, "proc/stat", "cpu  5 0 0 0 0 0 0 0 0 0\ncpu0 5 0 0 0 0 0 0 0 0 0\n");
	ck_assert_int_eq(fx_coll_sample(&fc, 5), 0);
	ck_assert_str_eq(fx_find(&fc.recs, REC_STATUS, core, STATUS_STREAM)->text, "");
	fx_coll_fini(&fc);
	fx_rmtree(root);
}
END_TEST

START_TEST(cpu_192)
{
	struct asys_options o;
	struct fx_coll fc;
	uint32_t core;

	sysroot_set(fx_fixture("cpu192"));
	opts(&o, SCOPE_DEFAULT);
	ck_assert_int_eq(fx_coll_init(&fc, &cpu_collector, &o), 0);
	core = fx_stream(&fc, "cpu.core");
	ck_assert_int_eq(fx_coll_sample(&fc, 1), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, core), 193);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_LABEL, core), 193);
	ck_assert_str_eq(fx_find(&fc.recs, REC_LABEL, core, 191)->text, "cpu191");
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, core, 191)->v[0], 9840284);
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, core, 191)->v[10], 1);
	fx_coll_fini(&fc);
}
END_TEST

START_TEST(cpu_frequency_and_errors)
{
	struct asys_options o;
	struct fx_coll fc;
	char *root = fx_tmpdir();

	options_defaults(&o);
	ck_assert_double_eq(cpu_collector.frequency(&o), 1);
	o.delay_s = 0.25;
	ck_assert_double_eq(cpu_collector.frequency(&o), 4);
	o.delay_s = 0.001;
	ck_assert_double_eq(cpu_collector.frequency(&o), 100);
	o.delay_s = 3600;
	ck_assert_double_eq(cpu_collector.frequency(&o), 1);
	ck_assert_int_eq(cli_set(&o, "cpu-frequency", "250"), 0);
	ck_assert_double_eq(cpu_collector.frequency(&o), 250);

	/* no /proc/stat: init fails with a sentence, fini still cleans up */
	sysroot_set(root);
	options_defaults(&o);
	ck_assert_int_eq(fx_coll_init(&fc, &cpu_collector, &o), -ENOENT);
	ck_assert_ptr_nonnull(strstr(cpu_collector.last_error(fc.state), "/proc/stat"));
	fx_coll_fini(&fc);
	fx_rmtree(root);
}
END_TEST

/* ---- mem ----------------------------------------------------------------- */

START_TEST(mem_sys)
{
	struct asys_options o;
	struct fx_coll fc;
	const struct fx_rec *r;
	uint32_t sys;

	sysroot_set(fx_fixture("basic"));
	opts(&o, SCOPE_NONE);
	ck_assert_int_eq(fx_coll_init(&fc, &mem_collector, &o), 0);
	sys = fx_stream(&fc, "mem.sys");
	/* -s none: no mem.proc stream, so panes and recordings know no
	 * process was followed */
	ck_assert_int_lt(stream_table_find(fc.t, "mem.proc"), 0);
	ck_assert_str_eq(stream_table_get(fc.t, sys)->fields[5].name, "used");
	ck_assert_int_eq(fx_coll_sample(&fc, SEC), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, sys), 1);
	r = fx_find(&fc.recs, REC_SAMPLE, sys, 0);
	ck_assert_uint_eq(r->nvals, 11);
	ck_assert_uint_eq(stream_table_get(fc.t, sys)->version, 2);
	ck_assert_str_eq(stream_table_get(fc.t, sys)->fields[10].name, "buff_cache");
	ck_assert_double_eq(r->v[0], 16000000 * KB);
	ck_assert_double_eq(r->v[2], 9000000 * KB);
	ck_assert_double_eq(r->v[5], 7000000 * KB); /* total - available */
	ck_assert_double_eq(r->v[9], 600000 * KB);
	ck_assert_double_eq(r->v[10], 4100000 * KB); /* buffers + cached + sreclaimable */
	/* -s none: no per-process rows at all */
	for (size_t i = 0; i < fc.recs.n; i++)
		ck_assert_uint_eq(fc.recs.r[i].stream, sys);
	fx_coll_fini(&fc);

	sysroot_set(fx_fixture("odd"));
	ck_assert_int_eq(fx_coll_init(&fc, &mem_collector, &o), 0);
	ck_assert_int_eq(fx_coll_sample(&fc, SEC), 0);
	r = fx_find(&fc.recs, REC_SAMPLE, fx_stream(&fc, "mem.sys"), 0);
	ck_assert_double_eq(r->v[0], 8000000 * KB);
	ck_assert(isnan(r->v[1]));		     /* garbage */
	ck_assert(isnan(r->v[2]));		     /* missing */
	ck_assert(isnan(r->v[5]));		     /* used needs available or free */
	ck_assert_double_eq(r->v[10], 2000000 * KB); /* Buffers has no unit: not counted */
	ck_assert_double_eq(r->v[6], 0);
	fx_coll_fini(&fc);

	options_defaults(&o);
	ck_assert_double_eq(mem_collector.frequency(&o), 10);
	ck_assert_int_eq(cli_set(&o, "host-memory-sampling", "false"), 0);
	o.delay_s = 2;
	ck_assert_double_eq(mem_collector.frequency(&o), 0.5);
}
END_TEST

START_TEST(mem_system_wide)
{
	struct asys_options o;
	struct fx_coll fc;
	const struct fx_rec *r;
	uint32_t proc, cpu;
	double hz = (double)sysconf(_SC_CLK_TCK);
	static const int want[] = {1, 2, 100, 101, 102, 104, 200};

	sysroot_set(fx_fixture("basic"));
	opts(&o, SCOPE_SYSTEM_WIDE);
	ck_assert_int_eq(fx_coll_init(&fc, &mem_collector, &o), 0);
	proc = fx_stream(&fc, "mem.proc");
	cpu = fx_stream(&fc, "proc.cpu");
	/* proc.thread only with --process-threads */
	ck_assert_int_lt(stream_table_find(fc.t, "proc.thread"), 0);
	{
		const struct stream_desc *d = stream_table_get(fc.t, cpu);
		static const char *const names[] = {"utime", "stime",	"state",
						    "nice",  "kthread", "start"};

		ck_assert_uint_eq(d->nfields, 6);
		for (size_t i = 0; i < ARRAY_SIZE(names); i++)
			ck_assert_str_eq(d->fields[i].name, names[i]);
		ck_assert_int_eq(d->fields[0].kind, FIELD_COUNTER);
		ck_assert_int_eq(d->fields[1].kind, FIELD_COUNTER);
		ck_assert_int_eq(d->fields[2].kind, FIELD_ATTR);
		ck_assert_int_eq(d->fields[5].kind, FIELD_ATTR);
		ck_assert_str_eq(d->fields[0].unit, "s");
		ck_assert_int_eq(d->entity, ENTITY_PID);
	}
	ck_assert_int_eq(fx_coll_sample(&fc, SEC), 0);
	/* every process, kthreadd too; not 77 (gone), no status */
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, proc), 7);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, cpu), 7);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_SAMPLE, proc, (uint64_t)want[i]));
		ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_SAMPLE, cpu, (uint64_t)want[i]));
	}
	ck_assert_uint_eq(fx_count(&fc.recs, REC_STATUS, proc), 0);
	r = fx_find(&fc.recs, REC_SAMPLE, proc, 100);
	ck_assert_uint_eq(r->nvals, 5);
	ck_assert_double_eq(r->v[0], 800000 * KB);
	ck_assert_double_eq(r->v[1], 950000 * KB);
	ck_assert_double_eq(r->v[2], 1000);
	ck_assert_double_eq(r->v[3], 1);
	ck_assert_double_eq(r->v[4], 3);
	r = fx_find(&fc.recs, REC_SAMPLE, cpu, 100);
	ck_assert_uint_eq(r->nvals, 6);
	ck_assert_double_eq(r->v[0], 10 / hz);
	ck_assert_double_eq(r->v[1], 5 / hz);
	ck_assert_double_eq(r->v[2], 'S');
	ck_assert_double_eq(r->v[3], 0);
	ck_assert_double_eq(r->v[4], 0);
	ck_assert_double_eq(r->v[5], 1000 / hz);
	/* a kernel thread: no memory of its own, root, its comm in brackets */
	r = fx_find(&fc.recs, REC_SAMPLE, proc, 2);
	ck_assert(isnan(r->v[0]) && isnan(r->v[1]));
	ck_assert_double_eq(r->v[2], 0);
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, cpu, 2)->v[4], 1);
	ck_assert_str_eq(fx_find(&fc.recs, REC_LABEL, proc, 2)->text, "[kthreadd]");
	ck_assert_str_eq(fx_find(&fc.recs, REC_LABEL, proc, 100)->text, "python train.py");
	ck_assert_str_eq(fx_find(&fc.recs, REC_LABEL, proc, 1)->text, "/sbin/init splash");
	ck_assert_str_eq(fx_find(&fc.recs, REC_LABEL, proc, 102)->text, "[worker2]");
	ck_assert_str_eq(fx_find(&fc.recs, REC_LABEL, proc, 200)->text, "-bash");
	/* proc.cpu's label is the container's, which this collector does not know */
	ck_assert_uint_eq(fx_count(&fc.recs, REC_LABEL, cpu), 0);

	/* between refreshes only the host totals are read */
	ck_assert_int_eq(fx_coll_sample(&fc, SEC + SEC / 10), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, proc), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, cpu), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, fx_stream(&fc, "mem.sys")), 1);
	/* the next refresh: the same rows, no labels again */
	ck_assert_int_eq(fx_coll_sample(&fc, 2 * SEC), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, proc), 7);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, cpu), 7);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_LABEL, proc), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_GONE, proc), 0);
	fx_coll_fini(&fc);
}
END_TEST

START_TEST(mem_all_and_vanish)
{
	char *root = fx_tmpdir();
	struct asys_options o;
	struct fx_coll fc;
	const struct fx_rec *r;
	uint32_t proc, cpu;

	fx_write(root, "proc/meminfo", "MemTotal: 1000 kB\n");
	for (int i = 0; i < 70; i++)
		fx_write_proc(root, 1000 + i, "p", 1, 0, (i + 1) * 1000, (i + 1) * 1000, "p\0", 2);
	/* listed, but gone before its stat was read */
	fx_write(root, "proc/1070/statm", "999999 999999 0 0 0 0 0\n");
	/* a zombie: no memory of its own, but listed */
	fx_write(root, "proc/1071/stat",
		 "1071 (z) Z 1 1071 1071 0 -1 4227084 0 0 0 0 3 4 0 0 20 0 1 0 100 0 0 0\n");
	fx_write(root, "proc/1071/status",
		 "Name:\tz\nState:\tZ (zombie)\nPPid:\t1\n"
		 "Uid:\t7\t7\t7\t7\nThreads:\t1\n");
	sysroot_set(root);
	opts(&o, SCOPE_SYSTEM_WIDE);
	ck_assert_int_eq(fx_coll_init(&fc, &mem_collector, &o), 0);
	proc = fx_stream(&fc, "mem.proc");
	cpu = fx_stream(&fc, "proc.cpu");
	ck_assert_int_eq(fx_coll_sample(&fc, SEC), 0);
	/* every process, not the 64 largest */
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, proc), 71);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, cpu), 71);
	ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_SAMPLE, proc, 1000));
	ck_assert_ptr_null(fx_find(&fc.recs, REC_SAMPLE, proc, 1070));
	r = fx_find(&fc.recs, REC_SAMPLE, proc, 1071);
	ck_assert(isnan(r->v[0]) && isnan(r->v[1]));
	ck_assert_double_eq(r->v[2], 7);
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, cpu, 1071)->v[2], 'Z');
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, cpu, 1071)->v[4], 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_STATUS, proc), 0); /* vanishing is silent */

	/* 1000 execs and grows, 1069 exits */
	fx_write_proc(root, 1000, "big", 1, 0, 10000000, 10000000, "big\0", 4);
	fx_kill_proc(root, 1069);
	ck_assert_int_eq(fx_coll_sample(&fc, 2 * SEC), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, proc), 70);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_GONE, proc), 1);
	ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_GONE, proc, 1069));
	ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_GONE, cpu, 1069));
	ck_assert_str_eq(fx_find(&fc.recs, REC_LABEL, proc, 1000)->text, "big");
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, proc, 1000)->v[0], 10000000 * KB);
	fx_coll_fini(&fc);
	fx_rmtree(root);
}
END_TEST

/* A stat line of pid with the given faults, utime and start. */
static void kt_stat(const char *root, int pid, const char *comm, unsigned flags, int minflt,
		    int utime, int start, long pages)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	fx_write(root, rel, "%d (%s) S 1 %d %d 0 -1 %u %d 0 0 0 %d 2 0 0 20 0 1 0 %d 0 %ld 0\n",
		 pid, comm, pid, pid, flags, minflt, utime, start, pages);
}

/* A kernel thread whose schedstat says it has not run keeps its row; one
 * that ran is read from stat, and so is every one each MEM_STATUS_REFRESH
 * (16) reports, for what changes without a run (nice). */
START_TEST(mem_kthread_idle)
{
	char *root = fx_tmpdir();
	struct asys_options o;
	struct fx_coll fc;
	uint32_t cpu;
	double hz = (double)sysconf(_SC_CLK_TCK);
	uint64_t t = SEC;

	fx_write(root, "proc/meminfo", "MemTotal: 1000 kB\n");
	kt_stat(root, 3, "kworker", 0x00200000, 0, 5, 10, 0);
	fx_write(root, "proc/3/schedstat", "1000 0 7\n");
	sysroot_set(root);
	opts(&o, SCOPE_SYSTEM_WIDE);
	ck_assert_int_eq(fx_coll_init(&fc, &mem_collector, &o), 0);
	cpu = fx_stream(&fc, "proc.cpu");
	/* the first schedstat is read after stat: the second report reads both */
	for (; t <= 2 * SEC; t += SEC)
		ck_assert_int_eq(fx_coll_sample(&fc, t), 0);
	kt_stat(root, 3, "kworker", 0x00200000, 0, 9, 10, 0);
	ck_assert_int_eq(fx_coll_sample(&fc, t += SEC), 0);
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, cpu, 3)->v[0], 5 / hz);
	fx_write(root, "proc/3/schedstat", "2000 0 8\n");
	ck_assert_int_eq(fx_coll_sample(&fc, t += SEC), 0);
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, cpu, 3)->v[0], 9 / hz);
	kt_stat(root, 3, "kworker", 0x00200000, 0, 11, 10, 0);
	for (int i = 0; i < 16; i++) {
		ck_assert_int_eq(fx_coll_sample(&fc, t += SEC), 0);
		ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, cpu, 3)->v[0], 9 / hz);
	}
	ck_assert_int_eq(fx_coll_sample(&fc, t += SEC), 0);
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, cpu, 3)->v[0], 11 / hz);
	fx_coll_fini(&fc);
	fx_rmtree(root);
}
END_TEST

/* Kernel threads are read through stat alone; status is read again unless
 * the process is known not to have run; a pid taken by another process is
 * a new row. */
START_TEST(mem_kthread_and_status)
{
	char *root = fx_tmpdir();
	char from[4096], to[4096];
	struct asys_options o;
	struct fx_coll fc;
	uint32_t proc, cpu;
	long pages = 100 * 1024 / sysconf(_SC_PAGESIZE);
	double hz = (double)sysconf(_SC_CLK_TCK);

	fx_write(root, "proc/meminfo", "MemTotal: 1000 kB\n");
	fx_write(root, "proc/2/stat",
		 "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 1 1 0 0 20 0 1 "
		 "0 100 0 0 0\n");
	/* what a kernel thread's status and cmdline would say is never read */
	fx_write(root, "proc/2/status", "Name:\tnot-read\nUid:\t5\t5\t5\t5\n");
	fx_write(root, "proc/2/cmdline", "not-read");
	fx_write_proc(root, 10, "normal", 1, 0, 100, 100, "normal\0", 7);
	sysroot_set(root);
	opts(&o, SCOPE_SYSTEM_WIDE);
	ck_assert_int_eq(fx_coll_init(&fc, &mem_collector, &o), 0);
	proc = fx_stream(&fc, "mem.proc");
	cpu = fx_stream(&fc, "proc.cpu");
	ck_assert_int_eq(fx_coll_sample(&fc, SEC), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, proc), 2);
	ck_assert_str_eq(fx_find(&fc.recs, REC_LABEL, proc, 2)->text, "[kthreadd]");
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, proc, 2)->v[2], 0);
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, cpu, 2)->v[4], 1);
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, proc, 10)->v[1], 100 * KB);

	/* status changes but stat does not: whether the process ran is not
	 * known (no schedstat, and a fixture's reclaim counters say nothing),
	 * so status is read again, not stat's rough RSS taken for VmRSS */
	fx_write_proc(root, 10, "normal", 1, 0, 100, 300, "normal\0", 7);
	ck_assert_int_eq(fx_coll_sample(&fc, 2 * SEC), 0);
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, proc, 10)->v[0], 100 * KB);
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, proc, 10)->v[1], 300 * KB);
	/* a fault: status is read again; CPU times come from stat every time */
	kt_stat(root, 10, "normal", 0, 1, 50, 100, pages);
	ck_assert_int_eq(fx_coll_sample(&fc, 3 * SEC), 0);
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, proc, 10)->v[1], 300 * KB);
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, cpu, 10)->v[0], 50 / hz);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_LABEL, proc), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_GONE, proc), 0);

	/* pid 10 exits and is reused by another process: its kept fds read
	 * nothing, as on a real /proc, and the newcomer starts later */
	fx_write_proc(root, 99, "reuser", 1, 0, 300, 300, "reuser\0", 7);
	kt_stat(root, 99, "reuser", 0, 0, 0, 900, pages);
	fx_kill_proc(root, 10);
	snprintf(from, sizeof(from), "%s/proc/99", root);
	snprintf(to, sizeof(to), "%s/proc/10", root);
	ck_assert_int_eq(rename(from, to), 0);
	ck_assert_int_eq(fx_coll_sample(&fc, 4 * SEC), 0);
	ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_GONE, cpu, 10));
	ck_assert_str_eq(fx_find(&fc.recs, REC_LABEL, proc, 10)->text, "reuser");
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, proc, 10)->v[0], 300 * KB);
	ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, cpu, 10)->v[5], 900 / hz);
	fx_coll_fini(&fc);
	fx_rmtree(root);
}
END_TEST

START_TEST(mem_label_change)
{
	char *root = fx_tmpdir();
	struct asys_options o;
	struct fx_coll fc;
	uint32_t proc;

	fx_write(root, "proc/meminfo", "MemTotal: 1000 kB\n");
	fx_write_proc(root, 800, "sh", 1, 0, 100, 100, "sh\0-c\0x\0", 8);
	sysroot_set(root);
	opts(&o, SCOPE_SYSTEM_WIDE);
	ck_assert_int_eq(fx_coll_init(&fc, &mem_collector, &o), 0);
	proc = fx_stream(&fc, "mem.proc");
	ck_assert_int_eq(fx_coll_sample(&fc, SEC), 0);
	ck_assert_str_eq(fx_find(&fc.recs, REC_LABEL, proc, 800)->text, "sh -c x");
	/* it execs: comm and cmdline change */
	fx_write_proc(root, 800, "python3", 1, 0, 100, 100, "python3\0y.py\0", 13);
	ck_assert_int_eq(fx_coll_sample(&fc, 2 * SEC), 0);
	ck_assert_str_eq(fx_find(&fc.recs, REC_LABEL, proc, 800)->text, "python3 y.py");
	fx_coll_fini(&fc);
	fx_rmtree(root);
}
END_TEST

Suite *procfs_coll_suite(void)
{
	Suite *s = suite_create("procfs collectors");
	TCase *tc = tcase_create("collectors");

	tcase_set_timeout(tc, 60); /* a loaded 2-core machine, sanitizers */

	tcase_add_test(tc, cpu_basic);
	tcase_add_test(tc, cpu_hotplug);
	tcase_add_test(tc, cpu_huge_backwards);
	tcase_add_test(tc, cpu_192);
	tcase_add_test(tc, cpu_frequency_and_errors);
	tcase_add_test(tc, mem_sys);
	tcase_add_test(tc, mem_system_wide);
	tcase_add_test(tc, mem_all_and_vanish);
	tcase_add_test(tc, mem_kthread_and_status);
	tcase_add_test(tc, mem_kthread_idle);
	tcase_add_test(tc, mem_label_change);
	suite_add_tcase(s, tc);
	return s;
}
