/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: serial */
/* The PPU metric catalogue, sets, capacity check, help listings and library
 * loading, against the fake libhgml.so built by make check. The collectors
 * themselves run in test_ppu_collect.c. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "options.h"
#include "ppu_cli.h"
#include "ppu_lib.h"
#include "ppu_catalogue.h"
#include "rec_format.h"
#include "stream.h"
#include "test_ppu.h"
#include "../check_run.h"

void tp_fake_path(char *buf, size_t n, int old)
{
	const char *b = getenv("top_builddir");

	snprintf(buf, n, "%s/tests/fakes/.libs/libhgml%s.so", b && *b ? b : ".", old ? "_old" : "");
}

void tp_use_fake(int old)
{
	static const char *const sw[] = {
	    "FAKE_HGML_DEVICES",     "FAKE_HGML_NAME",		 "FAKE_HGML_INIT_FAIL",
	    "FAKE_HGML_LOST",	     "FAKE_HGML_GPM_BUSY",	 "FAKE_HGML_GPM_ERROR",
	    "FAKE_HGML_GPM_BUSY_MS", "FAKE_HGML_NO_GPM",	 "FAKE_HGML_PROCS",
	    "FAKE_HGML_PCIE_X8",     "ASYS_GPM_MIN_INTERVAL_MS", "FAKE_HGML_SHARED",
	    "FAKE_HGML_PUTIL",	     "FAKE_HGML_PUTIL_IDLE"};
	char path[PATH_MAX];

	tp_fake_path(path, sizeof(path), old);
	ck_assert_msg(access(path, R_OK) == 0, "fake library missing: %s", path);
	setenv("ASYS_HGML_LIBRARY", path, 1);
	for (size_t i = 0; i < sizeof(sw) / sizeof(sw[0]); i++)
		unsetenv(sw[i]);
}

char *tp_capture(void (*fn)(void *arg, FILE *f), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	fn(arg, f);
	fclose(f);
	return buf;
}

/* ---- catalogue ---- */

START_TEST(catalogue_is_consistent)
{
	ck_assert_int_gt(ppu_metric_count, 40);
	ck_assert_int_le(ppu_metric_count, PPU_METRIC_MAX);
	for (size_t i = 0; i < ppu_metric_count; i++) {
		const struct ppu_metric *m = &ppu_metric_catalogue[i];

		ck_assert_msg(m->name && *m->display && *m->unit && *m->desc && *m->label,
			      "metric %zu incomplete", i);
		ck_assert_int_lt(m->group, PPU_GROUP_COUNT);
		ck_assert_int_eq(ppu_metric_index(m->name), (int)i); /* unique */
		if (m->src == PPU_SRC_DEV)
			ck_assert_int_eq(m->cost, 0);
		else
			ck_assert_msg(m->cost > 0 && m->id > 0, "%s: GPM metric without cost",
				      m->name);
	}
	ck_assert_int_ge(ppu_set_count, 2);
	for (size_t i = 0; i < ppu_set_count; i++) {
		struct ppu_selection sel;
		char err[512];

		for (size_t k = 0; ppu_sets[i].metrics[k]; k++)
			ck_assert_msg(ppu_metric_index(ppu_sets[i].metrics[k]) >= 0, "%s: %s",
				      ppu_sets[i].name, ppu_sets[i].metrics[k]);
		ck_assert_int_eq(
		    ppu_selection_build(ppu_sets[i].name, NULL, &sel, err, sizeof(err)), 0);
		/* every set fits the smallest device */
		ck_assert_uint_le(ppu_selection_cost(&sel), ppu_profile_for("")->budget);
	}
	ck_assert_ptr_nonnull(ppu_set_find("summary"));
	ck_assert_ptr_nonnull(ppu_set_find("throughput"));
}
END_TEST

/* Every metric as a field of one stream: the table takes it and a recording
 * keeps each name, label and unit whole. */
START_TEST(catalogue_fits_a_recording)
{
	static struct field_desc f[PPU_METRIC_MAX];
	struct stream_desc d = {.name = "ppu.metrics", .version = 1, .fields = f};
	struct stream_table *t = stream_table_new();
	char why[256] = "";

	ck_assert_uint_le(ppu_metric_count, STREAM_MAX_FIELDS);
	for (size_t i = 0; i < ppu_metric_count; i++)
		f[d.nfields++] = ppu_metric_field(&ppu_metric_catalogue[i]);
	ck_assert_int_eq(stream_table_add(t, &d), 0);
	ck_assert_msg(rec_schema_check(&d, why, sizeof(why)) == 0, "%s", why);
	stream_table_free(t);
}
END_TEST

START_TEST(selection_merges_set_and_list)
{
	struct ppu_selection sel;
	char err[512];

	ck_assert_int_eq(ppu_selection_build(NULL, NULL, &sel, err, sizeof(err)), 0);
	ck_assert_uint_eq(sel.n, 9); /* summary by default */
	ck_assert_int_eq(ppu_selection_build("none", NULL, &sel, err, sizeof(err)), 0);
	ck_assert_uint_eq(sel.n, 0);
	/* merged and without duplicates */
	ck_assert_int_eq(ppu_selection_build("summary",
					     "kvd__transaction_hit_rate.pct,"
					     "cu__cycles_active.avg.pct_of_peak_sustained_elapsed",
					     &sel, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(sel.n, 10);
	for (size_t i = 1; i < sel.n; i++)
		ck_assert_uint_lt(sel.idx[i - 1], sel.idx[i]);
}
END_TEST

START_TEST(unknown_names_suggest_the_closest)
{
	struct ppu_selection sel;
	const char *near[3];
	char err[1024];

	ck_assert_int_eq(
	    ppu_selection_build("none", "kvd__transaction_hit_rate", &sel, err, sizeof(err)),
	    -EINVAL);
	ck_assert_msg(strstr(err, "unknown PPU metric 'kvd__transaction_hit_rate'"), "%s", err);
	ck_assert_msg(strstr(err, "closest: kvd__transaction_hit_rate.pct"), "%s", err);
	ck_assert_uint_eq(ppu_metric_suggest("l2__transacton_hit_rate.pct", near, 3), 3);
	ck_assert_str_eq(near[0], "l2__transaction_hit_rate.pct");
	ck_assert_int_eq(ppu_selection_build("sumary", NULL, &sel, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "unknown --ppu-metrics-set 'sumary'") && strstr(err, "summary"),
		      "%s", err);
}
END_TEST

/* ---- capacity ---- */

static struct asys_options opts;
/* the PPU options of opts, to change */
#define PO ((struct ppu_opts *)options_edit(&opts, &ppu_options))

static void run_check(void *arg, FILE *f)
{
	int *rc = arg;

	*rc = ppu_cli_check(ppu_opts_of(&opts), "top", ppu_opts_of(&opts)->check, f);
}

START_TEST(capacity_check_passes)
{
	char *out;
	int rc = -1;

	tp_use_fake(0);
	options_defaults(&opts);
	PO->check = "ce__cycles_active.avg,kvd__transaction_hit_rate.pct,"
		    "pu__we_average_warps_issue_stalled_compute_sfu_raw_per_issue_active.ratio";
	out = tp_capture(run_check, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(out, "Check sampling metrics list result: PASS.\n"
			      "Metrics list is suitable for PPU sampling capacity.\n");
	free(out);
}
END_TEST

START_TEST(capacity_check_fails_and_splits)
{
	char list[8192] = "", *out, *line, *save = NULL;
	int rc = -1, runs = 0;
	size_t used = 0;

	tp_use_fake(0);
	options_defaults(&opts);
	for (size_t i = 0; i < ppu_metric_count; i++)
		if (!strncmp(ppu_metric_catalogue[i].name, "icnl", 4) ||
		    strstr(ppu_metric_catalogue[i].name, "hit_rate"))
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
						 used ? "," : "", ppu_metric_catalogue[i].name);
	PO->check = list;
	out = tp_capture(run_check, &rc);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(!strncmp(out, "Check sampling metrics list result: FAIL.\n", 42), "%s", out);
	ck_assert_msg(strstr(out, "device 0 (PPU) has 16"), "%s", out);
	ck_assert_msg(strstr(out, "Metrics that do not fit:\n    icnl"), "%s", out);
	/* every run of the split passes the same check */
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *run = strstr(line, "--ppu-metrics-list ");
		char *o2;
		int rc2 = -1;

		if (!run)
			continue;
		PO->check = run + strlen("--ppu-metrics-list ");
		o2 = tp_capture(run_check, &rc2);
		ck_assert_msg(rc2 == 0, "run does not fit: %s\n%s", PO->check, o2);
		free(o2);
		runs++;
	}
	ck_assert_int_ge(runs, 2);
	free(out);
}
END_TEST

START_TEST(split_keeps_counters_together)
{
	struct ppu_selection sel, dropped;
	int run_of[PPU_METRIC_MAX];
	char err[512];

	/* the three DRAM metrics read one counter: one unit, one run */
	ck_assert_int_eq(
	    ppu_selection_build("none",
				"dram__exclude_hbm_bytes_read.sum.pct_of_peak_sustained_"
				"elapsed,dram__throughput.avg.pct_of_peak_sustained_"
				"elapsed,dram__bytes_used.sum",
				&sel, err, sizeof(err)),
	    0);
	ck_assert_uint_eq(ppu_selection_cost(&sel), 1);
	ck_assert_int_eq(ppu_selection_split(&sel, 1, run_of), 1);
	ck_assert_int_eq(ppu_selection_split(&sel, 0, run_of), -E2BIG);
	ck_assert_uint_eq(ppu_selection_fit(&sel, 0, &dropped), 2); /* the device field stays */
	ck_assert_uint_eq(sel.n, 1);
	ck_assert_str_eq(ppu_metric_catalogue[sel.idx[0]].name, "dram__bytes_used.sum");
}
END_TEST

/* ---- help listings ---- */

static void print_sets(void *arg, FILE *f)
{
	ppu_cli_print_sets(f);
}

static void print_metrics(void *arg, FILE *f)
{
	ppu_cli_print_metrics(f);
}

static void print_devices(void *arg, FILE *f)
{
	ppu_cli_print_devices(ppu_opts_of(&opts), f);
}

static void early(void *arg, FILE *f)
{
	int *rc = arg;

	*rc = ppu_cli_early(&opts, "top", f);
}

START_TEST(help_sets_table)
{
	char *out = tp_capture(print_sets, NULL);

	/* the layout of asys profile --ppu-metrics-set help */
	ck_assert_msg(
	    strstr(out,
		   "Possible --ppu-metrics-set values are:\n"
		   " ---------------- ---------------------------------------- "
		   "--------------------------------------------\n"
		   "  Identifier       Description                              Enabled Metrics\n"
		   " ---------------- ---------------------------------------- "
		   "--------------------------------------------\n"
		   "  summary          Collect clock / memory / CU activity /   "
		   "ce__cycles_elapsed.avg.per_second\n"
		   "                   Bus throughput information.              "
		   "ce__cycles_active.avg.pct_of_peak_sustained_elapsed\n"
		   "                                                            "
		   "gd__dispatch_count.avg.pct_of_peak_sustained_elapsed\n") == out,
	    "%s", out);
	ck_assert_msg(strstr(out, "\n  throughput       Collect DRAM / PCIe / ICN link           "
				  "kvd__transaction_hit_rate.pct\n"
				  "                   throughput information.                  "
				  "ksd__transaction_hit_rate.pct\n"),
		      "%s", out);
	ck_assert_ptr_null(strstr(out, " \n")); /* no trailing blanks */
	free(out);
}
END_TEST

START_TEST(help_metrics_list)
{
	char *out = tp_capture(print_metrics, NULL), want[512];

	ck_assert_msg(!strncmp(out, "Possible --ppu-metrics-list values are:\n\n", 41), "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "\nce__cycles_active.avg\n"
					  "    Display Name:\n"
					  "        CE Cycles Active\n"
					  "    Unit: cycle\n"
					  "    Description:\n"
					  "        # of cycles active on CE across CEs\n"));
	ck_assert_ptr_nonnull(strstr(out, "\nkvd__transaction_hit_rate.pct\n"
					  "    Display Name:\n"
					  "        KVD Hit Rate\n"
					  "    Unit: %\n"
					  "    Description:\n"
					  "        (%) hit rate of KVD cacheable requests\n"));
	for (size_t i = 0; i < ppu_metric_count; i++) {
		snprintf(want, sizeof(want), "\n%s\n    Display Name:\n",
			 ppu_metric_catalogue[i].name);
		ck_assert_msg(strstr(out, want), "%s not listed", ppu_metric_catalogue[i].name);
	}
	free(out);
}
END_TEST

START_TEST(help_devices_lists_the_fake)
{
	char *out;

	tp_use_fake(0);
	options_defaults(&opts);
	out = tp_capture(print_devices, NULL);
	ck_assert_str_eq(out, "Possible --ppu-metrics-device values are:\n"
			      "    all: Select all supported PPUs\n"
			      "    none: Disable PPU Metrics [Default]\n"
			      "    device ID list: comma separated device ID list(eg.: 0,1)\n"
			      "\n"
			      "Available PPU metrics sampling devices are:\n"
			      "    0: PPU, PCI Bus ID: 00000000:10:00.0\n"
			      "    1: PPU, PCI Bus ID: 00000000:11:00.0\n"
			      "    2: PPU, PCI Bus ID: 00000000:12:00.0\n"
			      "    3: PPU, PCI Bus ID: 00000000:13:00.0\n");
	free(out);
	/* a device without GPM is left out and counted */
	setenv("FAKE_HGML_NO_GPM", "1", 1);
	setenv("FAKE_HGML_DEVICES", "2", 1);
	out = tp_capture(print_devices, NULL);
	ck_assert_msg(
	    strstr(out, "are:\n    0: PPU, PCI Bus ID: 00000000:10:00.0\n(1 of 2 devices"), "%s",
	    out);
	free(out);
}
END_TEST

START_TEST(help_devices_without_library)
{
	char *out;

	unsetenv("ASYS_HGML_LIBRARY");
	setenv("PPU_HOME", "/nonexistent/ppu", 1);
	options_defaults(&opts);
	PO->backend = "hgml";
	out = tp_capture(print_devices, NULL);
	ck_assert_msg(strstr(out,
			     "\nNo PPU metrics sampling devices are available: no PPU library: "
			     "set PPU_HOME or ASYS_HGML_LIBRARY; PPU_HOME names the PPU SDK's "
			     "directory, ASYS_HGML_LIBRARY the library file; asys looked in "
			     "/nonexistent/ppu/lib/libhgml.so, /nonexistent/ppu/lib64/libhgml.so, "
			     "/nonexistent/ppu/targets/x86_64-linux/lib/libhgml.so."),
		      "%s", out);
	free(out);
}
END_TEST

START_TEST(early_dispatch)
{
	char *out;
	int rc = -5;

	tp_use_fake(0);
	options_defaults(&opts);
	out = tp_capture(early, &rc);
	ck_assert_int_eq(rc, -1); /* nothing to do */
	ck_assert_str_eq(out, "");
	free(out);
	PO->set = "help";
	out = tp_capture(early, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_ptr_nonnull(strstr(out, "Possible --ppu-metrics-set values are:"));
	free(out);
	PO->set = NULL;
	PO->list = "ce__cycles_active.avg,nonsense";
	out = tp_capture(early, &rc);
	ck_assert_int_eq(rc, 2);
	free(out);
}
END_TEST

/* ---- library loading ---- */

START_TEST(lib_loads_by_env_and_by_ppu_home)
{
	char fake[PATH_MAX], home[] = "/tmp/asys-ppu-home-XXXXXX", dir[PATH_MAX + 32],
			     link[PATH_MAX + 64], err[1024];
	struct ppu_lib *l = NULL;
	unsigned int n = 0;

	tp_use_fake(0);
	ck_assert_int_eq(ppu_lib_open(&l, NULL, err, sizeof(err)), 0);
	ck_assert_str_eq(l->prefix, "hgml");
	ck_assert_int_eq(l->proc_version, 3);
	ck_assert_ptr_nonnull(l->gpm_metrics_get);
	ck_assert_int_eq(l->device_get_count(&n), PPU_OK);
	ck_assert_uint_eq(n, 4);
	ppu_lib_close(l);
	/* the same file through the nvml names */
	ck_assert_int_eq(ppu_lib_open(&l, "nvml", err, sizeof(err)), 0);
	ck_assert_str_eq(l->prefix, "nvml");
	ppu_lib_close(l);
	/* $PPU_HOME/targets/x86_64-linux/lib, the third place searched */
	tp_fake_path(fake, sizeof(fake), 0);
	if (fake[0] != '/') {
		char *abs = realpath(fake, NULL);

		ck_assert_ptr_nonnull(abs);
		snprintf(fake, sizeof(fake), "%s", abs);
		free(abs);
	}
	ck_assert_ptr_nonnull(mkdtemp(home));
	snprintf(dir, sizeof(dir), "%s/targets", home);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/targets/x86_64-linux", home);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/targets/x86_64-linux/lib", home);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(link, sizeof(link), "%s/libhgml.so", dir);
	ck_assert_int_eq(symlink(fake, link), 0);
	unsetenv("ASYS_HGML_LIBRARY");
	setenv("PPU_HOME", home, 1);
	ck_assert_int_eq(ppu_lib_open(&l, "hgml", err, sizeof(err)), 0);
	ck_assert_str_eq(l->path, link);
	ppu_lib_close(l);
	unlink(link);
	rmdir(dir);
	*strrchr(dir, '/') = '\0';
	rmdir(dir);
	*strrchr(dir, '/') = '\0';
	rmdir(dir);
	rmdir(home);
}
END_TEST

START_TEST(lib_init_failure_and_old_symbols)
{
	struct ppu_lib *l = NULL;
	struct ppu_process_info p[8];
	ppu_device_t d;
	ppu_ret_t r;
	char err[1024];

	tp_use_fake(0);
	setenv("FAKE_HGML_INIT_FAIL", "1", 1);
	ck_assert_int_eq(ppu_lib_open(&l, NULL, err, sizeof(err)), -ENODEV);
	ck_assert_ptr_null(l);
	ck_assert_msg(strstr(err, "hgmlInit failed in ") && strstr(err, "Driver Not Loaded"), "%s",
		      err);
	/* an older library: no _v3 processes, no power limit, no GPM; the rest works */
	tp_use_fake(1);
	ck_assert_int_eq(ppu_lib_open(&l, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(l->proc_version, 1);
	ck_assert_ptr_null(l->gpm_sample_get);
	ck_assert_ptr_null(l->device_get_enforced_power_limit);
	ck_assert_int_eq(l->device_get_handle_by_index(1, &d), PPU_OK);
	ck_assert_int_eq(ppu_lib_processes(l, d, p, 8, &r), 2);
	ck_assert_uint_eq(p[1].pid, 4000101);
	ck_assert_uint_eq(p[1].used_memory, 4ull << 30);
	ppu_lib_close(l);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ppu");
	TCase *cat = tcase_create("catalogue");
	TCase *help = tcase_create("help");
	TCase *lib = tcase_create("lib");
	/* past the 4 s default on a loaded 2-core machine under sanitizers */
	tcase_set_timeout(cat, 30);
	tcase_set_timeout(help, 30);
	tcase_set_timeout(lib, 30);
	tcase_add_test(cat, catalogue_is_consistent);
	tcase_add_test(cat, catalogue_fits_a_recording);
	tcase_add_test(cat, selection_merges_set_and_list);
	tcase_add_test(cat, unknown_names_suggest_the_closest);
	tcase_add_test(cat, capacity_check_passes);
	tcase_add_test(cat, capacity_check_fails_and_splits);
	tcase_add_test(cat, split_keeps_counters_together);
	tcase_add_test(help, help_sets_table);
	tcase_add_test(help, help_metrics_list);
	tcase_add_test(help, help_devices_lists_the_fake);
	tcase_add_test(help, help_devices_without_library);
	tcase_add_test(help, early_dispatch);
	tcase_add_test(lib, lib_loads_by_env_and_by_ppu_home);
	tcase_add_test(lib, lib_init_failure_and_old_symbols);
	suite_add_tcase(s, cat);
	suite_add_tcase(s, help);
	suite_add_tcase(s, lib);
	suite_add_tcase(s, tp_collect_tcase());
	suite_add_tcase(s, tp_util_tcase());
	return check_run(s, NULL);
}
