/* SPDX-License-Identifier: GPL-2.0-only */
/* The mem collector in process-tree mode, through its descriptor, against
 * fixture sysroots: the tree of the roots, found through the children files
 * or a ppid scan, growing, shrinking and ending. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "memproc_int.h"
#include "procfs_fixture.h"
#include "sysroot.h"
#include "util.h"

extern const struct collector mem_collector;

#define SEC 1000000000ull
#define KB 1024.0

static void opts(struct asys_options *o, enum sample_scope scope)
{
	options_defaults(o);
	o->scope = scope;
}

START_TEST(mem_tree)
{
	struct asys_options o;
	struct fx_coll fc;
	const struct fx_rec *r;
	uint32_t proc;

	sysroot_set(fx_fixture("basic"));
	opts(&o, SCOPE_DEFAULT);
	o.pids[o.npids++] = 100; /* -p 100: the default scope becomes the tree */
	ck_assert_int_eq(fx_coll_init(&fc, &mem_collector, &o), 0);
	proc = fx_stream(&fc, "mem.proc");
	for (int tick = 0; tick < 3; tick++) {
		/* every tick, not once per refresh */
		ck_assert_int_eq(fx_coll_sample(&fc, SEC + (uint64_t)tick * SEC / 10), 0);
		ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, proc), 4);
		ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_SAMPLE, proc, 100));
		ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_SAMPLE, proc, 101));
		ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_SAMPLE, proc, 102));
		/* a child forked by a thread (task 103) */
		ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_SAMPLE, proc, 104));
		ck_assert_uint_eq(fx_count(&fc.recs, REC_LABEL, proc), tick == 0 ? 4 : 0);
		/* and their CPU times, at the same rate */
		ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, fx_stream(&fc, "proc.cpu")), 4);
		r = fx_find(&fc.recs, REC_SAMPLE, fx_stream(&fc, "proc.cpu"), 100);
		ck_assert_double_eq(r->v[0], 10 / (double)sysconf(_SC_CLK_TCK));
		ck_assert_double_eq(r->v[2], 'S');
	}
	fx_coll_fini(&fc);

	/* a kernel thread: no VmRSS, no VmHWM */
	opts(&o, SCOPE_PROCESS_TREE);
	o.pids[o.npids++] = 2;
	ck_assert_int_eq(fx_coll_init(&fc, &mem_collector, &o), 0);
	ck_assert_int_eq(fx_coll_sample(&fc, SEC), 0);
	r = fx_find(&fc.recs, REC_SAMPLE, fx_stream(&fc, "mem.proc"), 2);
	ck_assert_ptr_nonnull(r);
	ck_assert(isnan(r->v[0]));
	ck_assert(isnan(r->v[1]));
	ck_assert_double_eq(r->v[4], 1);
	ck_assert_str_eq(fx_find(&fc.recs, REC_LABEL, fx_stream(&fc, "mem.proc"), 2)->text,
			 "[kthreadd]");
	fx_coll_fini(&fc);
}
END_TEST

START_TEST(mem_tree_ppid_fallback)
{
	char *root = fx_tmpdir();
	struct asys_options o;
	struct fx_coll fc;
	uint32_t proc;
	char path[4096];
	static const int pids[] = {500, 501, 502, 600};

	fx_write(root, "proc/meminfo", "MemTotal: 1000 kB\n");
	fx_write_proc(root, 500, "root", 1, 0, 100, 100, "root\0", 5);
	fx_write_proc(root, 501, "kid", 500, 0, 100, 100, "kid\0", 4);
	fx_write_proc(root, 502, "grandkid", 501, 0, 100, 100, "grandkid\0", 9);
	fx_write_proc(root, 600, "other", 1, 0, 100, 100, "other\0", 6);
	/* a kernel without CONFIG_PROC_CHILDREN */
	for (size_t i = 0; i < ARRAY_SIZE(pids); i++) {
		snprintf(path, sizeof(path), "%s/proc/%d/task/%d/children", root, pids[i], pids[i]);
		ck_assert_int_eq(unlink(path), 0);
	}
	sysroot_set(root);
	opts(&o, SCOPE_PROCESS_TREE);
	o.pids[o.npids++] = 500;
	ck_assert_int_eq(fx_coll_init(&fc, &mem_collector, &o), 0);
	proc = fx_stream(&fc, "mem.proc");
	ck_assert_int_eq(fx_coll_sample(&fc, SEC), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, proc), 3);
	ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_SAMPLE, proc, 502));
	ck_assert_ptr_null(fx_find(&fc.recs, REC_SAMPLE, proc, 600));
	/* between ppid scans the members are still read at the full rate; one exits */
	fx_kill_proc(root, 502);
	ck_assert_int_eq(fx_coll_sample(&fc, SEC + SEC / 10), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, proc), 2);
	ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_GONE, proc, 502));
	ck_assert_uint_eq(fx_count(&fc.recs, REC_STATUS, proc), 0);
	fx_coll_fini(&fc);
	fx_rmtree(root);
}
END_TEST

START_TEST(mem_tree_growth)
{
	char *root = fx_tmpdir();
	struct asys_options o;
	struct fx_coll fc;
	uint32_t proc;

	fx_write(root, "proc/meminfo", "MemTotal: 1000 kB\n");
	fx_write_proc(root, 500, "root", 1, 0, 100, 100, "root\0", 5);
	fx_write_proc(root, 501, "kid", 500, 0, 100, 100, "kid\0", 4);
	fx_write(root, "proc/500/task/500/children", "501 ");
	sysroot_set(root);
	opts(&o, SCOPE_PROCESS_TREE);
	o.pids[o.npids++] = 500;
	ck_assert_int_eq(fx_coll_init(&fc, &mem_collector, &o), 0);
	proc = fx_stream(&fc, "mem.proc");
	ck_assert_int_eq(fx_coll_sample(&fc, SEC), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, proc), 2);

	/* 501 forks 502 from its main thread: seen at the next tick */
	fx_write_proc(root, 502, "grandkid", 501, 0, 100, 100, "grandkid\0", 9);
	fx_write(root, "proc/501/task/501/children", "502\n");
	ck_assert_int_eq(fx_coll_sample(&fc, SEC + SEC / 10), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, proc), 3);
	ck_assert_str_eq(fx_find(&fc.recs, REC_LABEL, proc, 502)->text, "grandkid");

	/* a thread of 500 forks 503: found when the tree is rebuilt at the refresh */
	fx_write_proc(root, 503, "threadkid", 510, 0, 100, 100, "threadkid\0", 10);
	fx_write(root, "proc/500/task/510/children", "503");
	ck_assert_int_eq(fx_coll_sample(&fc, SEC + 2 * SEC / 10), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, proc), 3);
	ck_assert_int_eq(fx_coll_sample(&fc, 2 * SEC), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, proc), 4);
	ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_SAMPLE, proc, 503));

	/* the root exits (the workload ended): every row goes */
	fx_kill_proc(root, 500);
	fx_kill_proc(root, 501);
	fx_kill_proc(root, 502);
	fx_kill_proc(root, 503);
	ck_assert_int_eq(fx_coll_sample(&fc, 2 * SEC + SEC / 10), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, proc), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_GONE, proc), 4);
	fx_coll_fini(&fc);
	fx_rmtree(root);
}
END_TEST

/* A tree larger than the first allocation: rows grow, kept fds move along. */
START_TEST(mem_tree_big)
{
	char *root = fx_tmpdir();
	char kids[1024] = "";
	struct asys_options o;
	struct fx_coll fc;
	uint32_t proc;
	size_t off = 0;

	fx_write(root, "proc/meminfo", "MemTotal: 1000 kB\n");
	fx_write_proc(root, 900, "root", 1, 0, 100, 100, "root\0", 5);
	for (int i = 901; i <= 1000; i++) {
		fx_write_proc(root, i, "kid", 900, 0, i, i, "kid\0", 4);
		off += (size_t)snprintf(kids + off, sizeof(kids) - off, "%d ", i);
	}
	/* half of them first, so the rows grow while a report is held */
	fx_write(root, "proc/900/task/900/children", "%.200s", kids);
	sysroot_set(root);
	opts(&o, SCOPE_PROCESS_TREE);
	o.pids[o.npids++] = 900;
	ck_assert_int_eq(fx_coll_init(&fc, &mem_collector, &o), 0);
	proc = fx_stream(&fc, "mem.proc");
	ck_assert_int_eq(fx_coll_sample(&fc, SEC), 0);
	ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, proc), 51);
	/* newcomers listed first: at the refresh the rows grow in the middle of
	 * the known ones */
	fx_write(root, "proc/900/task/900/children", "%s%.200s", kids + 200, kids);
	for (int tick = 1; tick < 4; tick++) {
		ck_assert_int_eq(fx_coll_sample(&fc, SEC + (uint64_t)tick * SEC), 0);
		ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, proc), 101);
		ck_assert_double_eq(fx_find(&fc.recs, REC_SAMPLE, proc, 1000)->v[0], 1000 * KB);
	}
	fx_coll_fini(&fc);
	fx_rmtree(root);
}
END_TEST

/* A children file longer than any one read: every child is followed, and a
 * tree past the collector's cap says so instead of dropping rows silently. */
static void tree_of(const char *root, int parent, int nkids)
{
	size_t cap = (size_t)nkids * 8 + 1, off = 0;
	char *kids = malloc(cap);

	ck_assert_ptr_nonnull(kids);
	kids[0] = '\0';
	fx_write_proc(root, parent, "root", 1, 0, 100, 100, "root\0", 5);
	for (int i = 1; i <= nkids; i++) {
		char dir[4096];
		FILE *f;

		/* only what the tree reads of a member: thousands of whole
		 * fixture processes take a minute on a slow disk */
		snprintf(dir, sizeof(dir), "%s/proc/%d", root, parent + i);
		ck_assert_int_eq(mkdir(dir, 0755), 0);
		strcat(dir, "/status");
		f = fopen(dir, "w");
		ck_assert_ptr_nonnull(f);
		fprintf(f, "Name:\tkid\nPPid:\t%d\nUid:\t0\t0\t0\t0\nVmHWM:\t4 kB\nVmRSS:\t4 kB\n",
			parent);
		fclose(f);
		strcpy(strrchr(dir, '/'), "/stat");
		f = fopen(dir, "w");
		ck_assert_ptr_nonnull(f);
		fprintf(f, "%d (kid) S %d 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 100 0 1 0\n",
			parent + i, parent);
		fclose(f);
		off += (size_t)snprintf(kids + off, cap - off, "%d ", parent + i);
	}
	fx_write(root, "proc/10000/task/10000/children", "%s\n", kids);
	free(kids);
}

START_TEST(mem_tree_many_children)
{
	static const int nkids[] = {1000, MEM_TREE_MAX + 100};

	for (size_t k = 0; k < ARRAY_SIZE(nkids); k++) {
		char *root = fx_tmpdir();
		struct asys_options o;
		struct fx_coll fc;
		const struct fx_rec *st;
		uint32_t proc;
		bool capped = nkids[k] + 1 > MEM_TREE_MAX;

		fx_write(root, "proc/meminfo", "MemTotal: 1000 kB\n");
		tree_of(root, 10000, nkids[k]);
		sysroot_set(root);
		opts(&o, SCOPE_PROCESS_TREE);
		o.pids[o.npids++] = 10000;
		ck_assert_int_eq(fx_coll_init(&fc, &mem_collector, &o), 0);
		proc = fx_stream(&fc, "mem.proc");
		ck_assert_int_eq(fx_coll_sample(&fc, SEC), 0);
		ck_assert_uint_eq(fx_count(&fc.recs, REC_SAMPLE, proc),
				  capped ? MEM_TREE_MAX : (unsigned)nkids[k] + 1);
		ck_assert_ptr_nonnull(fx_find(&fc.recs, REC_SAMPLE, proc, 10001));
		st = fx_find(&fc.recs, REC_STATUS, proc, STATUS_STREAM);
		if (capped) {
			ck_assert_ptr_nonnull(st);
			ck_assert_ptr_nonnull(strstr(st->text, "only the first 4096"));
		} else {
			ck_assert_ptr_nonnull(
			    fx_find(&fc.recs, REC_SAMPLE, proc, 10000 + nkids[k]));
			ck_assert_ptr_null(st);
		}
		fx_coll_fini(&fc);
		fx_rmtree(root);
	}
}
END_TEST

Suite *procfs_tree_suite(void)
{
	Suite *s = suite_create("procfs process tree");
	TCase *tc = tcase_create("tree");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, mem_tree);
	tcase_add_test(tc, mem_tree_ppid_fallback);
	tcase_add_test(tc, mem_tree_growth);
	tcase_add_test(tc, mem_tree_big);
	tcase_add_test(tc, mem_tree_many_children);
	suite_add_tcase(s, tc);
	return s;
}
