/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* The probe table, --hggc-probe-file parsing and demangling, without BPF. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/types.h>

#include "gpurt.h"
#include "gpurt_ldso.h"
#include "gpurt_libpath.h"
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
	/* copies: cudaMemcpy2D's kind is its 7th argument, on the stack */
	const struct gpurt_probe *c = find(&p, "libcudart.so*", "cudaMemcpy2D");
	ck_assert(c && c->role == GPURT_COPY_2D && c->a[4] == 7);
	c = find(&p, "libcuda.so*", "cuMemsetD32_v2");
	ck_assert(c && c->role == GPURT_SET && c->shift == 2);
	ck_assert(find(&p, "libhggc*.so*", "cuMemcpyDtoH_v2"));
	c = find(&p, "libnvToolsExt.so*", "nvtxRangePop");
	ck_assert(c && c->role == GPURT_RANGE_POP);
	ck_assert(!find(&p, "libhggc*.so*", "nvtxRangePop"));
	ck_assert(gpurt_probes_lib_wanted(&p, "libnvToolsExt.so.1"));
	const struct gpurt_probe *e = find(&p, "libcudart.so*", "cudaLaunchKernelExC");
	ck_assert_int_eq(e->role, GPURT_LAUNCH_STUB);
	ck_assert_int_eq(e->a[0], 2);
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
			   "libmyrt.so* myLaunch launch-stub 3\n"
			   "libmyrt.so* myMemcpy2D copy-2d 1 3 5 6 7\n"
			   "libmyrt.so* myMemsetD32 set 1 3*4\n"
			   /* the injection table's line: not a probe */
			   "inject HGGC_INJECTION64_PATH libhgprof.so\n"
			   "libmyTx.so* myPop range-pop\n";
	ck_assert_int_eq(gpurt_probes_parse(&p, text, err, sizeof(err)), 0);
	ck_assert_uint_eq(p.n, 6);
	ck_assert_int_eq(p.v[3].role, GPURT_COPY_2D);
	ck_assert_int_eq(p.v[3].a[4], 7);
	/* cookie: role, then 4 bits per argument, the element size's log2 at 28 */
	ck_assert_uint_eq(gpurt_probe_cookie(&p.v[3]),
			  GPURT_COPY_2D | 1u << 8 | 3u << 12 | 5u << 16 | 6u << 20 | 7u << 24);
	ck_assert_int_eq(p.v[4].shift, 2);
	ck_assert_uint_eq(GPURT_COOKIE_SHIFT(gpurt_probe_cookie(&p.v[4])), 2);
	ck_assert_uint_eq(GPURT_COOKIE_ARG(gpurt_probe_cookie(&p.v[4]), 1), 3);
	ck_assert_int_eq(p.v[5].role, GPURT_RANGE_POP);
	ck_assert(gpurt_role_has_return(GPURT_RANGE_START));
	ck_assert(!gpurt_role_has_return(GPURT_COPY));
	ck_assert(gpurt_role_is_mem(GPURT_SET_2D) && !gpurt_role_is_mem(GPURT_RANGE_END));
	ck_assert_str_eq(p.v[0].sym, "myMalloc");
	ck_assert_int_eq(p.v[0].role, GPURT_DEV_ALLOC);
	ck_assert_int_eq(p.v[0].a[1], 2);
	ck_assert_int_eq(p.v[2].a[0], 3);
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
	    {"lib.so f dev-free 9\n", "line 1: argument number '9' is not 1..8"},
	    {"lib.so f dev-free 0\n", "line 1: argument number '0' is not 1..8"},
	    {"lib.so f\n", "line 1: too few fields"},
	    {"lib.so f@@V1 dev-free 1\n", "line 1: give the plain symbol name"},
	    {"a b dev-alloc 1 2 3\n", "line 1: role dev-alloc takes 2 argument numbers"},
	    {"a b copy 1 2 3 4 5 6\n", "line 1: too many fields"},
	    {"a b range-pop 1\n", "line 1: role range-pop takes 0 argument numbers"},
	    {"a b set 1*2 3\n", "line 1: '1*2': only the size argument takes an element size"},
	    {"a b set 1 3*3\n", "line 1: element size in '3*3' is not 1, 2, 4 or 8"},
	    {"a b copy-2d 1 3 5 6\n", "line 1: role copy-2d takes 5 argument numbers"},
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

struct seen_paths {
	char v[8][256];
	int n;
};

static void note_path(const char *path, void *arg)
{
	struct seen_paths *s = arg;
	if (s->n < 8)
		snprintf(s->v[s->n], sizeof(s->v[0]), "%s", path);
	s->n++;
}

static void put_u32(unsigned char *b, uint32_t v)
{
	memcpy(b, &v, sizeof(v));
}

/* A new-format cache image at off: nlibs claims more entries than fit; one
 * good path a probe wants, one it does not, one string past the end, one
 * string without its NUL at the end of the image. */
static size_t cache_image(unsigned char *buf, size_t off)
{
	static const char *const strs[] = {"/opt/rt/lib/libcudart.so.12", "/usr/lib/libz.so.1"};
	unsigned char *h = buf + off;
	size_t str = 48 + 4 * 24, pos = str;
	memcpy(h, "glibc-ld.so.cache1.1", 20);
	put_u32(h + 20, 1000);
	for (int i = 0; i < 2; i++) {
		put_u32(h + 48 + i * 24 + 8, (uint32_t)pos);
		memcpy(h + pos, strs[i], strlen(strs[i]) + 1);
		pos += strlen(strs[i]) + 1;
	}
	put_u32(h + 48 + 2 * 24 + 8, 0xfffffff0u);
	put_u32(h + 48 + 3 * 24 + 8, (uint32_t)pos);
	memcpy(h + pos, "/x/libcuda.so", 13); /* no NUL: the image ends here */
	return off + pos + 13;
}

START_TEST(libpath_cache)
{
	struct gpurt_probes p = {0};
	unsigned char buf[1024] = {0};
	struct seen_paths got = {0};
	ck_assert_int_eq(gpurt_probes_builtin(&p), 0);
	size_t len = cache_image(buf, 0);
	ck_assert_uint_eq(gpurt_libpath_cache(&p, buf, len, note_path, &got), 1);
	ck_assert_str_eq(got.v[0], "/opt/rt/lib/libcudart.so.12");
	/* behind the old format's table (2 entries of 12 bytes, then aligned) */
	memset(buf, 0, sizeof(buf));
	memcpy(buf, "ld.so-1.7.0", 11);
	put_u32(buf + 12, 2);
	len = cache_image(buf, 40);
	got.n = 0;
	ck_assert_uint_eq(gpurt_libpath_cache(&p, buf, len, note_path, &got), 1);
	/* an old-format count that points past the end, and cut headers */
	put_u32(buf + 12, 0xffffffffu);
	ck_assert_uint_eq(gpurt_libpath_cache(&p, buf, len, note_path, &got), 0);
	for (size_t cut = 0; cut < 60; cut++)
		ck_assert_uint_eq(gpurt_libpath_cache(&p, buf + 40, cut, note_path, &got), 0);
	/* random bytes after the magic: no read outside the image */
	srand(7);
	for (int round = 0; round < 2000; round++) {
		size_t n = 48 + (size_t)(rand() % 200);
		unsigned char *r = malloc(n);
		ck_assert_ptr_nonnull(r);
		for (size_t i = 0; i < n; i++)
			r[i] = (unsigned char)rand();
		memcpy(r, "glibc-ld.so.cache1.1", 20);
		gpurt_libpath_cache(&p, r, n, note_path, &got);
		free(r);
	}
	gpurt_probes_clear(&p);
}
END_TEST

/* LD_LIBRARY_PATH's directories (split on ':' and ';', empty and missing
 * ones skipped) and the SDK's: only the names a probe wants. */
START_TEST(libpath_dirs)
{
	char dir[] = "/tmp/gpurt-libpath.XXXXXX", sdk[300], lib[300], f[400], llp[700];
	struct gpurt_probes p = {0};
	struct seen_paths got = {0};
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(gpurt_probes_builtin(&p), 0);
	snprintf(sdk, sizeof(sdk), "%s/sdk", dir);
	snprintf(lib, sizeof(lib), "%s/sdk/lib64", dir);
	ck_assert_int_eq(mkdir(sdk, 0700), 0);
	ck_assert_int_eq(mkdir(lib, 0700), 0);
	static const char *const names[] = {"libcudart.so.12", "libfoo.so", ".libcuda.so"};
	for (size_t i = 0; i < 3; i++) {
		snprintf(f, sizeof(f), "%s/%s", dir, names[i]);
		fclose(fopen(f, "w"));
	}
	snprintf(f, sizeof(f), "%s/libhggc_rt.so.1", lib);
	fclose(fopen(f, "w"));
	snprintf(llp, sizeof(llp), "/nonexistent::%s;", dir);
	gpurt_libpath_each(&p, llp, sdk, "/nonexistent/ld.so.cache", note_path, &got);
	ck_assert_int_eq(got.n, 2);
	snprintf(f, sizeof(f), "%s/libcudart.so.12", dir);
	ck_assert_str_eq(got.v[0], f);
	snprintf(f, sizeof(f), "%s/libhggc_rt.so.1", lib);
	ck_assert_str_eq(got.v[1], f);
	snprintf(f, sizeof(f), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(f), 0);
	gpurt_probes_clear(&p);
}
END_TEST

/* The index of the head equal to text among v[0..n), or -1. */
static int head_find(const struct gpurt_head *v, int n, const char *text)
{
	for (int i = 0; i < n; i++) {
		const unsigned char *m = (const unsigned char *)v[i].mask;
		size_t len = strlen(text);
		if (v[i].len != len || memcmp(v[i].s, text, len))
			continue;
		for (size_t j = 0; j < GPURT_HEAD_MAX; j++)
			ck_assert_uint_eq(m[j], j < len ? 0xff : 0);
		return i;
	}
	return -1;
}

START_TEST(heads)
{
	struct gpurt_probes p = {0};
	struct gpurt_head v[GPURT_HEADS_MAX];
	char err[256] = "", line[128];

	ck_assert_int_eq(gpurt_probes_builtin(&p), 0);
	ck_assert_int_eq(gpurt_probes_heads(&p, v, GPURT_HEADS_MAX), 4);
	ck_assert_int_ge(head_find(v, 4, "libcudart.so"), 0);
	ck_assert_int_ge(head_find(v, 4, "libcuda.so"), 0);
	ck_assert_int_ge(head_find(v, 4, "libhggc"), 0);
	ck_assert_int_ge(head_find(v, 4, "libnvToolsExt.so"), 0);
	/* a shorter head covers a longer one, whichever comes first */
	ck_assert_int_eq(gpurt_probes_parse(&p, "libcud* myFree dev-free 1\n", err, sizeof(err)),
			 0);
	ck_assert_int_eq(gpurt_probes_heads(&p, v, GPURT_HEADS_MAX), 3);
	ck_assert_int_ge(head_find(v, 3, "libcud"), 0);
	ck_assert_int_ge(head_find(v, 3, "libhggc"), 0);
	/* a head longer than the BPF side compares is cut: it matches more */
	ck_assert_int_eq(
	    gpurt_probes_parse(&p,
			       "libaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.so myFree dev-free 1\n",
			       err, sizeof(err)),
	    0);
	ck_assert_int_eq(gpurt_probes_heads(&p, v, GPURT_HEADS_MAX), 4);
	ck_assert_int_ge(head_find(v, 4, "libaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), 0);
	/* more heads than fit, or a glob that starts with a wildcard: any name */
	for (int i = 0; i < GPURT_HEADS_MAX; i++) {
		snprintf(line, sizeof(line), "libx%d.so myFree dev-free 1\n", i);
		ck_assert_int_eq(gpurt_probes_parse(&p, line, err, sizeof(err)), 0);
	}
	ck_assert_int_eq(gpurt_probes_heads(&p, v, GPURT_HEADS_MAX), -1);
	gpurt_probes_clear(&p);
	ck_assert_int_eq(gpurt_probes_parse(&p, "*cuda* myFree dev-free 1\n", err, sizeof(err)), 0);
	ck_assert_int_eq(gpurt_probes_heads(&p, v, GPURT_HEADS_MAX), -1);
	gpurt_probes_clear(&p);
}
END_TEST

/* The loader this test runs under (glibc's) names _r_debug; a file that is
 * no ELF, or none, gives no offset. */
START_TEST(ldso_delta)
{
	FILE *fp = fopen("/proc/self/maps", "r");
	char line[4352], ldso[4096] = "";
	int64_t d = 1;

	ck_assert_ptr_nonnull(fp);
	while (fgets(line, sizeof(line), fp)) {
		char *path = strchr(line, '/');
		if (path && strstr(path, "/ld-linux")) {
			path[strcspn(path, "\n")] = '\0';
			snprintf(ldso, sizeof(ldso), "%s", path);
		}
	}
	fclose(fp);
	if (ldso[0]) {
		ck_assert_int_eq(gpurt_ldso_rdebug_delta(ldso, &d), 0);
		ck_assert(d != 0);
	}
	ck_assert_int_eq(gpurt_ldso_rdebug_delta("/proc/self/status", &d), -ENOENT);
	ck_assert_int_eq(d, 0);
	ck_assert_int_eq(gpurt_ldso_rdebug_delta("/nonexistent/ld.so", &d), -ENOENT);
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
	tcase_add_test(tc, syms_fallback);
	tcase_add_test(tc, libpath_cache);
	tcase_add_test(tc, libpath_dirs);
	tcase_add_test(tc, heads);
	tcase_add_test(tc, ldso_delta);
	suite_add_tcase(s, tc);
	return check_run(s, NULL);
}
