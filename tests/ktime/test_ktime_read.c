/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* The KTIME section's reader against sections a workload could leave: right
 * ones (exact values back), busy rows, and garbage heads, counts, names and
 * sizes, each in a heap block of exactly its length so that the sanitizer
 * build catches any read past it. And the injection table's `inject` lines
 * (ktime_inject.c), good and bad, and the demangler of the kernels' names. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "asys_inject.h"
#include "demangle.h"
#include "ktime_read.h"
#include "inject_host.h"
#include "ktime_inject.h"
#include "options.h"

static int failures;

#define CHECK(c, ...)                                                                              \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                       \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

struct got {
	int nproc, nkern, ncopy;
	struct ktime_kernel k[64];
	struct ktime_copy c[16];
	struct ktime_proc p[8];
};

static void on_proc(void *ctx, const struct ktime_proc *p)
{
	struct got *g = ctx;

	if (g->nproc < 8)
		g->p[g->nproc] = *p;
	g->nproc++;
}

static void on_kernel(void *ctx, const struct ktime_kernel *k)
{
	struct got *g = ctx;

	if (g->nkern < 64)
		g->k[g->nkern] = *k;
	g->nkern++;
	/* a name is always terminated and printable */
	for (const char *s = k->name; *s; s++)
		if ((unsigned char)*s < 32)
			failures++;
}

static void on_copy(void *ctx, const struct ktime_copy *c)
{
	struct got *g = ctx;

	if (g->ncopy < 16)
		g->c[g->ncopy] = *c;
	g->ncopy++;
}

static const struct ktime_visit visit = {on_proc, on_kernel, on_copy};

static void *section(uint32_t np, uint32_t nk, size_t *len)
{
	void *s;

	*len = ktime_section_size(np, nk);
	s = aligned_alloc(64, (*len + 63) & ~(size_t)63);
	if (!s)
		abort();
	memset(s, 0, *len);
	if (ktime_section_init(s, *len, np, nk))
		abort();
	return s;
}

static void put_kernel(struct ktime_sec_proc *p, uint32_t i, const char *name, uint32_t dev,
		       uint64_t count, uint64_t total, uint64_t mn, uint64_t mx)
{
	struct ktime_sec_kernel *r = &p->rows[i];

	r->count = count;
	r->total_ns = total;
	r->min_ns = mn;
	r->max_ns = mx;
	r->device = dev;
	snprintf(r->name, sizeof(r->name), "%s", name);
}

static void test_exact(void)
{
	size_t len;
	void *s = section(4, 8, &len);
	struct ktime_sec_proc *p = ktime_sec_proc_at(s, 1, 8);
	struct got g = {0};

	p->pid = 4242;
	p->state = KTIME_RUNNING;
	p->nrows = 2;
	p->records = 1041;
	put_kernel(p, 0, "_Z6vecAddPfS_S_i", 0, 1000, 1500000, 1500, 1500);
	put_kernel(p, 1, "gemm\x1b[2J", 1, 40, 10000000, 250000, 250000);
	p->copy[KTIME_COPY_DTOH].count = 3;
	p->copy[KTIME_COPY_DTOH].bytes = 3072;
	p->copy[KTIME_COPY_DTOH].total_ns = 2400;
	CHECK(ktime_read(s, len, &visit, &g) == 1, "one slot claimed");
	CHECK(g.nproc == 1 && g.p[0].pid == 4242 && g.p[0].records == 1041, "the slot");
	CHECK(g.nkern == 2, "two kernels, got %d", g.nkern);
	CHECK(!strcmp(g.k[0].name, "_Z6vecAddPfS_S_i") && g.k[0].count == 1000 &&
		  g.k[0].total_ns == 1500000 && g.k[0].min_ns == 1500 && g.k[0].max_ns == 1500,
	      "first kernel exact");
	CHECK(!strcmp(g.k[1].name, "gemm\\e[2J") && g.k[1].device == 1, "escaped: %s", g.k[1].name);
	CHECK(g.ncopy == 1 && g.c[0].dir == KTIME_COPY_DTOH && g.c[0].bytes == 3072 &&
		  g.c[0].total_ns == 2400,
	      "the copy row");
	/* a row being written is skipped, the others read */
	p->rows[0].seq = 7;
	memset(&g, 0, sizeof(g));
	ktime_read(s, len, &visit, &g);
	CHECK(g.nkern == 1 && !strncmp(g.k[0].name, "gemm", 4), "busy row skipped");
	/* the overflow row counts once flagged */
	p->rows[0].seq = 8;
	put_kernel(p, 7, "(other kernels)", UINT32_MAX, 5, 50, 10, 10);
	memset(&g, 0, sizeof(g));
	ktime_read(s, len, &visit, &g);
	CHECK(g.nkern == 2, "unflagged overflow row not read");
	p->rows[7].overflow = 1;
	memset(&g, 0, sizeof(g));
	ktime_read(s, len, &visit, &g);
	CHECK(g.nkern == 3 && g.k[2].overflow && g.k[2].count == 5, "overflow row read");
	free(s);
}

static void test_bad_heads(void)
{
	size_t len;
	void *s = section(2, 4, &len);
	struct ktime_sec_head *h = s;
	struct got g = {0};

	CHECK(ktime_read(s, len - 1, &visit, &g) < 0, "a section shorter than its head says");
	CHECK(ktime_read(s, 3, &visit, &g) < 0, "shorter than a head");
	CHECK(ktime_read(NULL, len, &visit, &g) < 0, "NULL");
	CHECK(ktime_read((char *)s + 4, len - 4, &visit, &g) < 0, "unaligned");
	h->nprocs = 1u << 30;
	CHECK(ktime_read(s, len, &visit, &g) < 0, "huge nprocs");
	h->nprocs = 2;
	h->nkernels = 0xffffffff;
	CHECK(ktime_read(s, len, &visit, &g) < 0, "huge nkernels");
	h->nkernels = 4;
	h->proc_size = 8;
	CHECK(ktime_read(s, len, &visit, &g) < 0, "slots overlapping");
	h->proc_size = (uint32_t)ktime_sec_proc_size(4);
	h->version = 99;
	CHECK(ktime_read(s, len, &visit, &g) < 0, "another version");
	CHECK(g.nproc == 0 && g.nkern == 0, "nothing visited");
	free(s);
}

/* A right head over random bytes, again and again: no crash, no read past
 * the block, every name printable, counts within the geometry. */
static void test_garbage(void)
{
	srand(17);
	for (int it = 0; it < 3000; it++) {
		uint32_t np = 1 + (uint32_t)rand() % 5, nk = 2 + (uint32_t)rand() % 9;
		size_t len;
		void *s = section(np, nk, &len);
		unsigned char *b = s;
		struct got g = {0};
		int n;

		for (size_t i = sizeof(struct ktime_sec_head); i < len; i++)
			b[i] = (unsigned char)rand();
		/* some slots with small pids, so their rows are read */
		for (uint32_t i = 0; i < np; i++)
			if (rand() % 2)
				ktime_sec_proc_at(s, i, nk)->pid = 1 + (uint32_t)rand() % 1000;
		if (it % 3 == 0) /* and even seqs, so that rows are taken */
			for (uint32_t i = 0; i < np; i++)
				for (uint32_t k = 0; k < nk; k++)
					ktime_sec_proc_at(s, i, nk)->rows[k].seq &= ~1ull;
		n = ktime_read(s, len, &visit, &g);
		CHECK(n >= 0 && (uint32_t)n <= np, "slots %d of %u", n, np);
		CHECK(g.nkern <= (int)(np * nk), "kernels %d beyond %u slots x %u", g.nkern, np,
		      nk);
		CHECK(g.ncopy <= (int)(np * KTIME_COPY_NDIR), "copies %d", g.ncopy);
		free(s);
	}
}

/* The host's setter, as this test's own: records what is set, and leaves
 * CUDA_INJECTION64_PATH as "the user's" once user_set is on. */
static char set_vars[8][64], set_vals[8][1200];
static struct job_env job; /* the stand-in setter keeps its own record */
static int nset, user_set;

int inject_host_prepare(struct job_env *env)
{
	(void)env;
	return 0;
}

int inject_host_env(struct job_env *env, uint32_t sec, const char *name, const char *value)
{
	(void)env;
	if (sec != ASYS_INJECT_SEC_KTIME)
		return -EINVAL;
	if (user_set && !strcmp(name, "CUDA_INJECTION64_PATH"))
		return 0;
	if (nset < 8) {
		snprintf(set_vars[nset], sizeof(set_vars[nset]), "%s", name);
		snprintf(set_vals[nset], sizeof(set_vals[nset]), "%s", value);
	}
	nset++;
	return 1;
}

const char *inject_host_lib(uint32_t sec)
{
	(void)sec;
	return "/x/libasys-inject.so";
}

const char *inject_host_note(uint32_t sec)
{
	(void)sec;
	return "";
}

static void test_inject_env(void)
{
	char err[300] = "", path[] = "/tmp/ktime-probes.XXXXXX";
	struct asys_options o;
	int fd;

	options_defaults(&o);
	CHECK(ktime_inject_setup(&o, &job, err, sizeof(err)) == 0 && nset == 2,
	      "built in: %d set, %s", nset, err);
	CHECK(!strcmp(set_vars[0], "CUDA_INJECTION64_PATH") &&
		  !strcmp(set_vals[0], "/x/libasys-inject.so"),
	      "the variable names the injection library");
	CHECK(!strcmp(set_vars[1], KTIME_LIBS_ENV) && !strcmp(set_vals[1], "libcupti.so"),
	      "the profiling libraries: %s", set_vals[1]);
	fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, "inject HGGC_INJECTION64_PATH libhgprof.so\n", 42) == 42,
	      "probe file");
	close(fd);
	nset = 0;
	user_set = 1;
	CHECK(ktime_inject_env(&job, path, "/x/l.so", err, sizeof(err)) == 0 && nset == 2,
	      "the user's variable left: %d set, %s", nset, err);
	CHECK(!strcmp(set_vars[0], "HGGC_INJECTION64_PATH") &&
		  !strcmp(set_vals[1], "libcupti.so:libhgprof.so"),
	      "the site's variable set, its library after CUPTI: %s=%s", set_vars[0], set_vals[1]);
	unlink(path);
	CHECK(ktime_inject_env(&job, path, "/x/l.so", err, sizeof(err)) < 0 &&
		  strstr(err, "probe file"),
	      "a missing probe file: %s", err);
}

static void test_inject_table(void)
{
	struct ktime_inject v[4];
	char err[200] = "";
	int n;

	n = ktime_inject_table(NULL, v, 4, err, sizeof(err));
	CHECK(n == 1 && !strcmp(v[0].var, "CUDA_INJECTION64_PATH") &&
		  !strcmp(v[0].lib, "libcupti.so"),
	      "the built-in pair");
	n = ktime_inject_table("libx.so* f launch-stub 1\n"
			       "inject HGGC_INJECTION64_PATH /opt/hg/lib/libhgprof.so # site\n"
			       "\n  inject   CUDA_INJECTION64_PATH libcupti.so\n",
			       v, 4, err, sizeof(err));
	CHECK(n == 2 && !strcmp(v[1].var, "HGGC_INJECTION64_PATH") &&
		  !strcmp(v[1].lib, "/opt/hg/lib/libhgprof.so"),
	      "a site's line, probe lines passed over, a repeat kept once: %d %s", n, err);
	n = ktime_inject_table("\ninject lower_case libx.so\n", v, 4, err, sizeof(err));
	CHECK(n == -EINVAL && strstr(err, "line 2:"), "a bad variable, by line: %s", err);
	n = ktime_inject_table("inject X a:b\n", v, 4, err, sizeof(err));
	CHECK(n == -EINVAL, "a library with ':'");
	n = ktime_inject_table("inject X\n", v, 4, err, sizeof(err));
	CHECK(n == -EINVAL, "a short line");
	n = ktime_inject_table("inject A l\ninject B l\ninject C l\ninject D l\n", v, 4, err,
			       sizeof(err));
	CHECK(n == -EINVAL && strstr(err, "line 4"), "more lines than room: %s", err);
}

/* The demangler the kernels' names go through, with or without eBPF: the
 * profiling interface's names are mangled; a plain C name and garbage come
 * back as they are. */
static void test_demangle(void)
{
	char buf[256];

	CHECK(demangle_name("_ZN6mykern5saxpyEfPfS0_i", buf, sizeof(buf)) == 0 &&
		  !strcmp(buf, "mykern::saxpy(float, float*, float*, int)"),
	      "saxpy: '%s'", buf);
	CHECK(demangle_name("_Z6reduceIfEvPT_i", buf, sizeof(buf)) == 0 &&
		  !strcmp(buf, "void reduce<float>(float*, int)"),
	      "reduce: '%s'", buf);
	CHECK(demangle_name("_Z6vecAddPfS_S_i", buf, sizeof(buf)) == 0 &&
		  !strcmp(buf, "vecAdd(float*, float*, float*, int)"),
	      "vecAdd: '%s'", buf);
	CHECK(demangle_name("plain_c_kernel", buf, sizeof(buf)) != 0 &&
		  !strcmp(buf, "plain_c_kernel"),
	      "a C name: '%s'", buf);
	CHECK(demangle_name("_Zgarbage!!", buf, sizeof(buf)) != 0 && !strcmp(buf, "_Zgarbage!!"),
	      "garbage: '%s'", buf);
	/* truncated into a small buffer, still terminated */
	demangle_name("_ZN6mykern5saxpyEfPfS0_i", buf, 8);
	CHECK(!strcmp(buf, "mykern:"), "truncated: '%s'", buf);
}

int main(void)
{
	test_demangle();
	test_inject_table();
	test_inject_env();
	test_exact();
	test_bad_heads();
	test_garbage();
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	return failures ? 1 : 0;
}
