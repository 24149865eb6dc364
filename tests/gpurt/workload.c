/* SPDX-License-Identifier: GPL-2.0-only */
/* Test workload for the runtime probes: loads the fake libcudart and libcuda
 * with dlopen (as frameworks do), waits for a go file, then makes a known
 * pattern of calls, scaled by --scale K:
 *
 *   device  cudaMalloc 10K x 1 MiB, cudaFree 4K; cudaMallocAsync 2K x 512 KiB,
 *           cudaFreeAsync K; cuMemAlloc_v2 3K x 256 KiB, cuMemFree_v2 K
 *           => K * 7340032 B live, 15K allocs, 6K frees
 *   pinned  cudaHostAlloc 2K x 1 MiB, cudaFreeHost K; cudaMallocHost K x 64 KiB;
 *           cudaHostRegister K x 128 KiB; cuMemHostAlloc K x 32 KiB;
 *           cuMemAllocHost_v2 K x 16 KiB, cuMemFreeHost K
 *           => K * 1277952 B live, 6K allocs, 2K frees
 *   fails   cudaMalloc(3 TiB) twice, then cudaHostAlloc(5 TiB + K): 3 fails
 *   stubs   mykern::saxpy x 100K (cudaLaunchKernel), reduce<float> x 50K
 *           (cudaLaunchKernelExC), vecadd x 25K (cudaLaunchKernel)
 *   handles handle_kernel(float*) x 7K (cuModuleGetFunction + cuLaunchKernel),
 *           lib_kernel_b x 3K (cuLibraryGetKernel, cuKernelGetFunction,
 *           cuLaunchKernelEx)
 *
 * The host stubs carry C++ mangled names (asm labels), as nvcc's stubs do, so
 * the collector's demangling is exercised without a C++ compiler.
 * then the copies of workload_copy.c, between live allocations of the above.
 * --nvtx instead makes the NVTX v2 ranges of workload_copy.c.
 * --rate N --seconds S instead launches saxpy at N per second and prints
 * the mean ns per cudaLaunchKernel call (bench/gpurt). Either way it prints
 * "launches N", its own count of launch calls that returned success, and
 * --sleep S waits S seconds between loading the runtime and the first call
 * (a job that sets up, then computes). */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

typedef struct {
	unsigned x, y, z;
} dim3;
typedef struct {
	dim3 g, b;
	size_t shmem;
	void *stream;
	void *attrs;
	unsigned nattrs;
} rt_cfg;
typedef struct {
	unsigned gx, gy, gz, bx, by, bz, shmem;
	void *stream;
	void *attrs;
	unsigned nattrs;
} drv_cfg;

static int (*p_cudaMalloc)(void **, size_t);
static int (*p_cudaMallocAsync)(void **, size_t, void *);
static int (*p_cudaFree)(void *);
static int (*p_cudaFreeAsync)(void *, void *);
static int (*p_cudaHostAlloc)(void **, size_t, unsigned);
static int (*p_cudaMallocHost)(void **, size_t);
static int (*p_cudaFreeHost)(void *);
static int (*p_cudaHostRegister)(void *, size_t, unsigned);
static int (*p_cudaLaunchKernel)(const void *, dim3, dim3, void **, size_t, void *);
static int (*p_cudaLaunchKernelExC)(const rt_cfg *, const void *, void **);
static int (*p_cuMemAlloc_v2)(uint64_t *, size_t);
static int (*p_cuMemFree_v2)(uint64_t);
static int (*p_cuMemHostAlloc)(void **, size_t, unsigned);
static int (*p_cuMemAllocHost_v2)(void **, size_t);
static int (*p_cuMemFreeHost)(void *);
static int (*p_cuModuleGetFunction)(void **, void *, const char *);
static int (*p_cuLibraryGetKernel)(void **, void *, const char *);
static int (*p_cuKernelGetFunction)(void **, void *);
static int (*p_cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			       unsigned, void *, void **, void **);
static int (*p_cuLaunchKernelEx)(const drv_cfg *, void *, void **, void **);

/* host stubs: mykern::saxpy(float, float*, float*, int), void reduce<float>(float*, int),
 * vecadd(int const*, int const*, int*, int) */
void stub_saxpy(float a, float *x, float *y, int n) __asm__("_ZN6mykern5saxpyEfPfS0_i");
void stub_reduce(float *x, int n) __asm__("_Z6reduceIfEvPT_i");
void stub_vecadd(const int *a, const int *b, int *c, int n) __asm__("_Z6vecaddPKiS0_Pii");

static unsigned long launched; /* launch calls that returned success */

int wl_check(int rc, const char *what)
{
	if (rc) {
		fprintf(stderr, "workload: %s returned %d\n", what, rc);
		exit(1);
	}
	return rc;
}

static void launch_ok(int rc, const char *what)
{
	wl_check(rc, what);
	launched++;
}

__attribute__((noinline)) void stub_saxpy(float a, float *x, float *y, int n)
{
	void *args[] = {&a, &x, &y, &n};
	launch_ok(p_cudaLaunchKernel((const void *)stub_saxpy, (dim3){1, 1, 1}, (dim3){32, 1, 1},
				     args, 0, NULL),
		  "cudaLaunchKernel");
}

__attribute__((noinline)) void stub_reduce(float *x, int n)
{
	void *args[] = {&x, &n};
	rt_cfg c = {{1, 1, 1}, {64, 1, 1}, 0, NULL, NULL, 0};
	launch_ok(p_cudaLaunchKernelExC(&c, (const void *)stub_reduce, args),
		  "cudaLaunchKernelExC");
}

__attribute__((noinline)) void stub_vecadd(const int *a, const int *b, int *c, int n)
{
	void *args[] = {&a, &b, &c, &n};
	launch_ok(p_cudaLaunchKernel((const void *)stub_vecadd, (dim3){2, 1, 1}, (dim3){32, 1, 1},
				     args, 0, NULL),
		  "cudaLaunchKernel");
}

void *wl_sym(void *h, const char *name)
{
	void *p = dlsym(h, name);
	if (!p) {
		fprintf(stderr, "workload: %s missing: %s\n", name, dlerror());
		exit(1);
	}
	return p;
}

static void load(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/libcudart.so", dir);
	void *rt = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	snprintf(path, sizeof(path), "%s/libcuda.so", dir);
	void *drv = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!rt || !drv) {
		fprintf(stderr, "workload: cannot load the fake runtime: %s\n", dlerror());
		exit(1);
	}
	*(void **)&p_cudaMalloc = wl_sym(rt, "cudaMalloc");
	*(void **)&p_cudaMallocAsync = wl_sym(rt, "cudaMallocAsync");
	*(void **)&p_cudaFree = wl_sym(rt, "cudaFree");
	*(void **)&p_cudaFreeAsync = wl_sym(rt, "cudaFreeAsync");
	*(void **)&p_cudaHostAlloc = wl_sym(rt, "cudaHostAlloc");
	*(void **)&p_cudaMallocHost = wl_sym(rt, "cudaMallocHost");
	*(void **)&p_cudaFreeHost = wl_sym(rt, "cudaFreeHost");
	*(void **)&p_cudaHostRegister = wl_sym(rt, "cudaHostRegister");
	*(void **)&p_cudaLaunchKernel = wl_sym(rt, "cudaLaunchKernel");
	*(void **)&p_cudaLaunchKernelExC = wl_sym(rt, "cudaLaunchKernelExC");
	*(void **)&p_cuMemAlloc_v2 = wl_sym(drv, "cuMemAlloc_v2");
	*(void **)&p_cuMemFree_v2 = wl_sym(drv, "cuMemFree_v2");
	*(void **)&p_cuMemHostAlloc = wl_sym(drv, "cuMemHostAlloc");
	*(void **)&p_cuMemAllocHost_v2 = wl_sym(drv, "cuMemAllocHost_v2");
	*(void **)&p_cuMemFreeHost = wl_sym(drv, "cuMemFreeHost");
	*(void **)&p_cuModuleGetFunction = wl_sym(drv, "cuModuleGetFunction");
	*(void **)&p_cuLibraryGetKernel = wl_sym(drv, "cuLibraryGetKernel");
	*(void **)&p_cuKernelGetFunction = wl_sym(drv, "cuKernelGetFunction");
	*(void **)&p_cuLaunchKernel = wl_sym(drv, "cuLaunchKernel");
	*(void **)&p_cuLaunchKernelEx = wl_sym(drv, "cuLaunchKernelEx");
	wl_copy_load(rt, drv);
}

static void wait_file(const char *f)
{
	while (f && access(f, F_OK))
		usleep(5000);
}

static void touch(const char *f)
{
	FILE *fp = f ? fopen(f, "w") : NULL;
	if (fp)
		fclose(fp);
}

#define MIB (1u << 20)
#define KIB (1u << 10)

static void pattern(int k)
{
	void *p[64];
	uint64_t d[64];
	float x[4] = {0};
	int ia[4] = {0};
	if (k < 1 || k > 6)
		exit(2);
	for (int i = 0; i < 10 * k; i++)
		wl_check(p_cudaMalloc(&p[i], MIB), "cudaMalloc");
	for (int i = 0; i < 4 * k; i++)
		wl_check(p_cudaFree(p[i]), "cudaFree");
	for (int i = 0; i < 2 * k; i++)
		wl_check(p_cudaMallocAsync(&p[i], 512 * KIB, NULL), "cudaMallocAsync");
	for (int i = 0; i < k; i++)
		wl_check(p_cudaFreeAsync(p[i], NULL), "cudaFreeAsync");
	for (int i = 0; i < 3 * k; i++)
		wl_check(p_cuMemAlloc_v2(&d[i], 256 * KIB), "cuMemAlloc_v2");
	for (int i = 0; i < k; i++)
		wl_check(p_cuMemFree_v2(d[i]), "cuMemFree_v2");

	for (int i = 0; i < 2 * k; i++)
		wl_check(p_cudaHostAlloc(&p[i], MIB, 0), "cudaHostAlloc");
	for (int i = 0; i < k; i++)
		wl_check(p_cudaFreeHost(p[i]), "cudaFreeHost");
	for (int i = 0; i < k; i++)
		wl_check(p_cudaMallocHost(&p[i], 64 * KIB), "cudaMallocHost");
	void *pinned = p[0], *registered = NULL;
	for (int i = 0; i < k; i++) {
		void *buf = malloc(128 * KIB);
		wl_check(p_cudaHostRegister(buf, 128 * KIB, 0), "cudaHostRegister");
		registered = buf;
	}
	for (int i = 0; i < k; i++)
		wl_check(p_cuMemHostAlloc(&p[i], 32 * KIB, 0), "cuMemHostAlloc");
	for (int i = 0; i < k; i++)
		wl_check(p_cuMemAllocHost_v2(&p[i], 16 * KIB), "cuMemAllocHost_v2");
	for (int i = 0; i < k; i++)
		wl_check(p_cuMemFreeHost(p[i]), "cuMemFreeHost");

	void *f;
	if (p_cudaMalloc(&f, 3ull << 40) == 0 || p_cudaMalloc(&f, 3ull << 40) == 0 ||
	    p_cudaHostAlloc(&f, (5ull << 40) + (unsigned)k, 0) == 0) {
		fprintf(stderr, "workload: a forced failure succeeded\n");
		exit(1);
	}

	for (int i = 0; i < 100 * k; i++)
		stub_saxpy(2.0f, x, x, 4);
	for (int i = 0; i < 50 * k; i++)
		stub_reduce(x, 4);
	for (int i = 0; i < 25 * k; i++)
		stub_vecadd(ia, ia, ia, 4);

	void *h1, *kern, *h2;
	wl_check(p_cuModuleGetFunction(&h1, NULL, "_Z13handle_kernelPf"), "cuModuleGetFunction");
	wl_check(p_cuLibraryGetKernel(&kern, NULL, "lib_kernel_b"), "cuLibraryGetKernel");
	wl_check(p_cuKernelGetFunction(&h2, kern), "cuKernelGetFunction");
	drv_cfg c = {1, 1, 1, 32, 1, 1, 0, NULL, NULL, 0};
	for (int i = 0; i < 7 * k; i++)
		launch_ok(p_cuLaunchKernel(h1, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL),
			  "cuLaunchKernel");
	for (int i = 0; i < 3 * k; i++)
		launch_ok(p_cuLaunchKernelEx(&c, h2, NULL, NULL), "cuLaunchKernelEx");

	/* d[k] and d[k + 1] are live: the first k were freed */
	wl_copy_pattern(k, d[k], d[k + 1], pinned, registered);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Launches at rate per second for seconds; prints ns per launch call. */
static void rate(double per_s, double seconds)
{
	float x[4] = {0};
	double t0 = now_s(), spent = 0;
	unsigned long n = 0;
	const unsigned long batch = per_s >= 1000 ? (unsigned long)(per_s / 1000) : 1;
	while (now_s() - t0 < seconds) {
		double a = now_s();
		for (unsigned long i = 0; i < batch; i++)
			stub_saxpy(1.0f, x, x, 4);
		spent += now_s() - a;
		n += batch;
		double next = t0 + n / per_s, t = now_s();
		if (next > t)
			usleep((useconds_t)((next - t) * 1e6));
	}
	printf("launches %lu ns_per_launch %.1f rate %.0f\n", n, spent * 1e9 / n,
	       n / (now_s() - t0));
}

int main(int argc, char **argv)
{
	const char *dir = getenv("FAKE_CUDA_DIR"), *go = NULL, *done = NULL, *end = NULL,
		   *ready = NULL;
	int k = 1;
	double per_s = 0, seconds = 1, hold = 0, pause = 0;
	int nvtx = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			break;
		i++;
		if (!strcmp(a, "--lib-dir"))
			dir = v;
		else if (!strcmp(a, "--scale"))
			k = atoi(v);
		else if (!strcmp(a, "--go-file"))
			go = v;
		else if (!strcmp(a, "--done-file"))
			done = v;
		else if (!strcmp(a, "--ready-file"))
			ready = v;
		else if (!strcmp(a, "--end-file"))
			end = v;
		else if (!strcmp(a, "--hold"))
			hold = atof(v);
		else if (!strcmp(a, "--sleep"))
			pause = atof(v);
		else if (!strcmp(a, "--rate"))
			per_s = atof(v);
		else if (!strcmp(a, "--seconds"))
			seconds = atof(v);
		else if (!strcmp(a, "--nvtx"))
			nvtx = atoi(v);
		else {
			fprintf(stderr, "workload: unknown option %s\n", a);
			return 2;
		}
	}
	if (!dir) {
		fprintf(stderr, "workload: give --lib-dir DIR or FAKE_CUDA_DIR\n");
		return 2;
	}
	if (nvtx ? wl_nvtx_load(dir) : (load(dir), 0))
		return 1;
	touch(ready);
	wait_file(go);
	if (pause > 0)
		usleep((useconds_t)(pause * 1e6));
	if (nvtx) {
		if (wl_nvtx_run())
			return 1;
	} else if (per_s > 0)
		rate(per_s, seconds);
	else
		pattern(k);
	printf("launches %lu\n", launched);
	fflush(stdout);
	touch(done);
	wait_file(end);
	if (hold > 0)
		usleep((useconds_t)(hold * 1e6));
	return 0;
}
