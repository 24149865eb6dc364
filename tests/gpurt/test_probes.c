/* The probe table, --hggc-probe-file parsing and demangling, without BPF. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/types.h>

#include "gpurt.h"
#include "gpurt_probes.h"
#include "gpurt_syms.h"
#include "../check_run.h"

static const struct gpurt_probe *find(const struct gpurt_probes *p, const char *lib,
				      const char *sym)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].lib, lib) && !strcmp(p->v[i].sym, sym))
			return &p->v[i];
	return NULL;
}

START_TEST(builtin_table)
{
	struct gpurt_probes p = {0};
	ck_assert_int_eq(gpurt_probes_builtin(&p), 0);
	static const char *const rt[] = {
	    "cudaMalloc",	  "cudaMallocAsync",  "cudaFree",	    "cudaFreeAsync",
	    "cudaHostAlloc",	  "cudaMallocHost",   "cudaFreeHost",	    "cudaHostRegister",
	    "cudaHostUnregister", "cudaLaunchKernel", "cudaLaunchKernelExC"};
	static const char *const drv[] = {
	    "cuMemAlloc_v2",	  "cuMemFree_v2",	"cuMemHostAlloc",   "cuMemAllocHost_v2",
	    "cuMemFreeHost",	  "cuLaunchKernel",	"cuLaunchKernelEx", "cuModuleGetFunction",
	    "cuLibraryGetKernel", "cuKernelGetFunction"};
	for (size_t i = 0; i < sizeof(rt) / sizeof(*rt); i++) {
		ck_assert_msg(find(&p, "libcudart.so*", rt[i]), "%s", rt[i]);
		ck_assert_msg(find(&p, "libhggc*.so*", rt[i]), "%s", rt[i]);
	}
	for (size_t i = 0; i < sizeof(drv) / sizeof(*drv); i++)
		ck_assert_msg(find(&p, "libcuda.so*", drv[i]), "%s", drv[i]);
	const struct gpurt_probe *e = find(&p, "libcudart.so*", "cudaLaunchKernelExC");
	ck_assert_int_eq(e->role, GPURT_LAUNCH_STUB);
	ck_assert_int_eq(e->a1, 2);
	e = find(&p, "libcuda.so*", "cuKernelGetFunction");
	ck_assert_int_eq(e->role, GPURT_NAME_COPY);
	ck_assert(gpurt_probes_lib_wanted(&p, "libcudart.so.13"));
	ck_assert(gpurt_probes_lib_wanted(&p, "libcuda.so.1"));
	ck_assert(gpurt_probes_lib_wanted(&p, "libhggc_rt.so.2"));
	ck_assert(!gpurt_probes_lib_wanted(&p, "libc.so.6"));
	ck_assert(!gpurt_probes_lib_wanted(&p, "libcudnn.so.9"));
	/* the literal head only rules out; fnmatch decides the rest */
	ck_assert(gpurt_lib_match("libcuda.so*", "libcuda.so.1"));
	ck_assert(!gpurt_lib_match("libcuda.so*", "libcudart.so.12"));
	ck_assert(!gpurt_lib_match("libcuda.so*", "libcud"));
	ck_assert(gpurt_lib_match("lib*cuda*", "libfoocuda.so"));
	ck_assert(!gpurt_lib_match("lib*cuda*", "libfoo.so"));
	ck_assert(gpurt_lib_match("libhggc?rt.so*", "libhggc_rt.so.2"));
	ck_assert(gpurt_lib_match("lib[xy]rt.so", "libyrt.so"));
	ck_assert(!gpurt_lib_match("lib[xy]rt.so", "libzrt.so"));
	ck_assert(gpurt_lib_match("a\\*b", "a*b"));
	ck_assert(!gpurt_lib_match("a\\*b", "axb"));
	gpurt_probes_clear(&p);
}
END_TEST

START_TEST(parse_good)
{
	struct gpurt_probes p = {0};
	char err[256] = "";
	const char *text = "# my runtime\n"
			   "\n"
			   "libmyrt.so*  myMalloc   dev-alloc 1 2   # (void **, size_t)\n"
			   "libmyrt.so*\tmyFree\tdev-free 1\n"
			   "libmyrt.so* myLaunch launch-stub 3\n";
	ck_assert_int_eq(gpurt_probes_parse(&p, text, err, sizeof(err)), 0);
	ck_assert_uint_eq(p.n, 3);
	ck_assert_str_eq(p.v[0].sym, "myMalloc");
	ck_assert_int_eq(p.v[0].role, GPURT_DEV_ALLOC);
	ck_assert_int_eq(p.v[0].a2, 2);
	ck_assert_int_eq(p.v[2].a1, 3);
	ck_assert(gpurt_probes_lib_wanted(&p, "libmyrt.so.1"));
	gpurt_probes_clear(&p);
}
END_TEST

START_TEST(parse_bad)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"lib.so f dev-alloc 1\n", "line 1: role dev-alloc takes 2 argument numbers"},
	    {"\n\nlib.so f frob 1\n", "line 3: unknown role 'frob'"},
	    {"lib.so f dev-free 7\n", "line 1: argument number '7' is not 1..6"},
	    {"lib.so f dev-free 0\n", "line 1: argument number '0' is not 1..6"},
	    {"lib.so f\n", "line 1: too few fields"},
	    {"lib.so f@@V1 dev-free 1\n", "line 1: give the plain symbol name"},
	    {"a b dev-alloc 1 2 3\n", "line 1: too many fields"},
	    {"lib.so f dev-free x\n", "line 1: argument number 'x'"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct gpurt_probes p = {0};
		char err[256] = "";
		ck_assert_int_eq(gpurt_probes_parse(&p, cases[i].text, err, sizeof(err)), -EINVAL);
		ck_assert_msg(!strncmp(err, cases[i].want, strlen(cases[i].want)), "'%s' gave '%s'",
			      cases[i].text, err);
		gpurt_probes_clear(&p);
	}
}
END_TEST

START_TEST(probe_file)
{
	char path[] = "/tmp/gpurt-probes.XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	const char *text = "libx.so* xLaunch launch-handle 1\n";
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	struct gpurt_probes p = {0};
	char err[300] = "";
	ck_assert_int_eq(gpurt_probes_load_file(&p, path, err, sizeof(err)), 0);
	ck_assert_uint_eq(p.n, 1);
	gpurt_probes_clear(&p);
	unlink(path);
	ck_assert_int_eq(gpurt_probes_load_file(&p, path, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "probe file ") && strstr(err, "No such file"), "%s", err);
}
END_TEST

START_TEST(demangle)
{
	char buf[256];
	ck_assert_int_eq(gpurt_demangle("_ZN6mykern5saxpyEfPfS0_i", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "mykern::saxpy(float, float*, float*, int)");
	ck_assert_int_eq(gpurt_demangle("_Z6reduceIfEvPT_i", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "void reduce<float>(float*, int)");
	ck_assert_int_ne(gpurt_demangle("plain_c_kernel", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "plain_c_kernel");
	ck_assert_int_ne(gpurt_demangle("_Zgarbage!!", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "_Zgarbage!!");
	/* truncated into a small buffer, still terminated */
	gpurt_demangle("_ZN6mykern5saxpyEfPfS0_i", buf, 8);
	ck_assert_str_eq(buf, "mykern:");
}
END_TEST

/* An address with no mapping, and one in an anonymous mapping, fall back. */
START_TEST(syms_fallback)
{
	struct gpurt_syms *s = gpurt_syms_new();
	char buf[256];
	ck_assert_int_eq(gpurt_syms_name(s, getpid(), 8, buf, sizeof(buf)), -ENOENT);
	ck_assert_str_eq(buf, "0x8");
	/* a function of this very program resolves through its symbol table */
	ck_assert_int_eq(
	    gpurt_syms_name(s, getpid(), (uint64_t)(uintptr_t)&find + 1, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "find");
	ck_assert_uint_eq(gpurt_syms_cached(s), 1);
	gpurt_syms_free(s);
	gpurt_syms_free(NULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gpurt");
	TCase *tc = tcase_create("probes");
	/* past the 4 s default on a loaded 2-core machine under sanitizers */
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, builtin_table);
	tcase_add_test(tc, parse_good);
	tcase_add_test(tc, parse_bad);
	tcase_add_test(tc, probe_file);
	tcase_add_test(tc, demangle);
	tcase_add_test(tc, syms_fallback);
	suite_add_tcase(s, tc);
	return check_run(s, NULL);
}
