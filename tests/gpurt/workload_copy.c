/* SPDX-License-Identifier: GPL-2.0-only */
/* The gpurt test workload's copies and NVTX ranges (see workload.c).
 *
 * Copies at scale K, through the fake runtime (rt) and driver (drv):
 *
 *   HtoD  rt cudaMemcpy 4K x 4096 B from pinned, 2K x 1000 B from pageable;
 *         rt cudaMemcpy2D K x (64 x 8) from pinned (kind, the 7th argument,
 *         on the stack); drv cuMemcpyHtoD_v2 K x 256 from pageable;
 *         drv cuMemcpy2D_v2 K x (16 x 4) from pageable host
 *         => 9K calls, 19216K B; pinned 5K / 16896K B, pageable 4K / 2320K B
 *   DtoH  rt cudaMemcpyAsync 3K x 2048 to pageable, K x 512 to registered;
 *         rt cudaMemcpy Default K x 300 from device to pinned;
 *         drv cuMemcpyDtoH_v2 K x 128 to pinned
 *         => 6K calls, 7084K B; pinned 3K / 940K B, pageable 3K / 6144K B
 *   DtoD  rt cudaMemcpy 5K x 8192; drv cuMemcpyDtoD_v2 K x 64; drv cuMemcpy
 *         K x 32 between two device allocations => 7K calls, 41056K B
 *   HtoH  rt cudaMemcpy K x 100 => K calls, 100K B
 *   ?     rt cudaMemcpy Default K x 70 from pageable to device (the maps
 *         cannot place a pageable pointer) => K calls, 70K B
 *   set   rt cudaMemset 2K x 1024, cudaMemset2D K x (32 x 4); drv
 *         cuMemsetD32_v2 K x 10 elements => 4K calls, 2216K B
 *
 * NVTX (wl_nvtx), one process, two threads:
 *   main    "warmup" x 1, untimed (its call loads the tool), then
 *           "outer" x 20 (nvtxRangePushA), each 2 ms then two "inner"
 *           (depth 1) of 3 ms; "colored" x 10 (nvtxRangePushEx, ARGB
 *           0xff00aa33) of 1 ms; "started" x 5 (nvtxRangeStartA/End) of
 *           4 ms; "started_ex" x 3 (nvtxRangeStartEx/End) of 2 ms
 *   second  "thread2" x 10 of 1 ms */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

enum { HtoH, HtoD, DtoH, DtoD, Default };

typedef struct {
	size_t srcXInBytes, srcY;
	int srcMemoryType;
	const void *srcHost;
	uint64_t srcDevice;
	void *srcArray;
	size_t srcPitch;
	size_t dstXInBytes, dstY;
	int dstMemoryType;
	void *dstHost;
	uint64_t dstDevice;
	void *dstArray;
	size_t dstPitch;
	size_t WidthInBytes, Height;
} memcpy2d;

static int (*p_cudaMemcpy)(void *, const void *, size_t, int);
static int (*p_cudaMemcpyAsync)(void *, const void *, size_t, int, void *);
static int (*p_cudaMemcpy2D)(void *, size_t, const void *, size_t, size_t, size_t, int);
static int (*p_cudaMemset)(void *, int, size_t);
static int (*p_cudaMemset2D)(void *, size_t, int, size_t, size_t);
static int (*p_cuMemcpy)(uint64_t, uint64_t, size_t);
static int (*p_cuMemcpyHtoD_v2)(uint64_t, const void *, size_t);
static int (*p_cuMemcpyDtoH_v2)(void *, uint64_t, size_t);
static int (*p_cuMemcpyDtoD_v2)(uint64_t, uint64_t, size_t);
static int (*p_cuMemcpy2D_v2)(const memcpy2d *);
static int (*p_cuMemsetD32_v2)(uint64_t, unsigned, size_t);

void wl_copy_load(void *rt, void *drv)
{
	*(void **)&p_cudaMemcpy = wl_sym(rt, "cudaMemcpy");
	*(void **)&p_cudaMemcpyAsync = wl_sym(rt, "cudaMemcpyAsync");
	*(void **)&p_cudaMemcpy2D = wl_sym(rt, "cudaMemcpy2D");
	*(void **)&p_cudaMemset = wl_sym(rt, "cudaMemset");
	*(void **)&p_cudaMemset2D = wl_sym(rt, "cudaMemset2D");
	*(void **)&p_cuMemcpy = wl_sym(drv, "cuMemcpy");
	*(void **)&p_cuMemcpyHtoD_v2 = wl_sym(drv, "cuMemcpyHtoD_v2");
	*(void **)&p_cuMemcpyDtoH_v2 = wl_sym(drv, "cuMemcpyDtoH_v2");
	*(void **)&p_cuMemcpyDtoD_v2 = wl_sym(drv, "cuMemcpyDtoD_v2");
	*(void **)&p_cuMemcpy2D_v2 = wl_sym(drv, "cuMemcpy2D_v2");
	*(void **)&p_cuMemsetD32_v2 = wl_sym(drv, "cuMemsetD32_v2");
}

#define REP(n) for (int i_ = 0; i_ < (n); i_++)

void wl_copy_pattern(int k, uint64_t dev1, uint64_t dev2, void *pinned, void *registered)
{
	void *d1 = (void *)(uintptr_t)dev1, *d2 = (void *)(uintptr_t)dev2;
	char *host = malloc(8192);
	if (!host)
		exit(1);
	REP(4 * k) wl_check(p_cudaMemcpy(d1, pinned, 4096, HtoD), "cudaMemcpy");
	REP(2 * k) wl_check(p_cudaMemcpy(d1, host, 1000, HtoD), "cudaMemcpy");
	REP(k) wl_check(p_cudaMemcpy2D(d1, 64, pinned, 64, 64, 8, HtoD), "cudaMemcpy2D");
	REP(k) wl_check(p_cuMemcpyHtoD_v2(dev1, host, 256), "cuMemcpyHtoD_v2");
	memcpy2d c = {.srcMemoryType = 1,
		      .srcHost = host,
		      .dstMemoryType = 2,
		      .dstDevice = dev1,
		      .WidthInBytes = 16,
		      .Height = 4};
	REP(k) wl_check(p_cuMemcpy2D_v2(&c), "cuMemcpy2D_v2");

	REP(3 * k) wl_check(p_cudaMemcpyAsync(host, d1, 2048, DtoH, NULL), "cudaMemcpyAsync");
	REP(k) wl_check(p_cudaMemcpyAsync(registered, d1, 512, DtoH, NULL), "cudaMemcpyAsync");
	REP(k) wl_check(p_cudaMemcpy(pinned, d1, 300, Default), "cudaMemcpy");
	REP(k) wl_check(p_cuMemcpyDtoH_v2(pinned, dev1, 128), "cuMemcpyDtoH_v2");

	REP(5 * k) wl_check(p_cudaMemcpy(d2, d1, 8192, DtoD), "cudaMemcpy");
	REP(k) wl_check(p_cuMemcpyDtoD_v2(dev2, dev1, 64), "cuMemcpyDtoD_v2");
	REP(k) wl_check(p_cuMemcpy(dev2, dev1, 32), "cuMemcpy");

	REP(k) wl_check(p_cudaMemcpy(host + 4096, host, 100, HtoH), "cudaMemcpy");
	REP(k) wl_check(p_cudaMemcpy(d1, host, 70, Default), "cudaMemcpy");

	REP(2 * k) wl_check(p_cudaMemset(d1, 0, 1024), "cudaMemset");
	REP(k) wl_check(p_cudaMemset2D(d1, 64, 0, 32, 4), "cudaMemset2D");
	REP(k) wl_check(p_cuMemsetD32_v2(dev1, 0, 10), "cuMemsetD32_v2");
	free(host);
}

/* NVTX v2 */
typedef struct {
	uint16_t version, size;
	uint32_t category;
	int32_t colorType;
	uint32_t color;
	int32_t payloadType, reserved0;
	uint64_t payload;
	int32_t messageType;
	const char *message;
} nvtx_attr;

static int (*p_push)(const char *);
static int (*p_push_ex)(const nvtx_attr *);
static int (*p_pop)(void);
static uint64_t (*p_start)(const char *);
static uint64_t (*p_start_ex)(const nvtx_attr *);
static void (*p_end)(uint64_t);

struct own {
	const char *name;
	unsigned long count;
	uint64_t total, child;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void own_add(struct own *o, uint64_t t0, uint64_t child)
{
	uint64_t d = now_ns() - t0;
	o->count++;
	o->total += d;
	o->child += child;
}

static void own_print(const struct own *o)
{
	printf("range %s count %lu total_ns %llu self_ns %llu\n", o->name, o->count,
	       (unsigned long long)o->total, (unsigned long long)(o->total - o->child));
}

static struct own own_t2 = {"thread2", 0, 0, 0};

static void *second(void *arg)
{
	(void)arg;
	REP(10)
	{
		uint64_t t = now_ns();
		p_push("thread2");
		usleep(1000);
		p_pop();
		own_add(&own_t2, t, 0);
	}
	return NULL;
}

int wl_nvtx_load(const char *dir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/libnvToolsExt.so.1", dir);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "workload: cannot load %s: %s\n", path, dlerror());
		return 1;
	}
	*(void **)&p_push = wl_sym(h, "nvtxRangePushA");
	*(void **)&p_push_ex = wl_sym(h, "nvtxRangePushEx");
	*(void **)&p_pop = wl_sym(h, "nvtxRangePop");
	*(void **)&p_start = wl_sym(h, "nvtxRangeStartA");
	*(void **)&p_start_ex = wl_sym(h, "nvtxRangeStartEx");
	*(void **)&p_end = wl_sym(h, "nvtxRangeEnd");
	return 0;
}

int wl_nvtx_run(void)
{
	struct own outer = {"outer", 0, 0, 0}, inner = {"inner", 0, 0, 0};
	struct own colored = {"colored", 0, 0, 0}, started = {"started", 0, 0, 0};
	struct own started_ex = {"started_ex", 0, 0, 0};
	pthread_t th;

	/* The first call loads the tool NVTX_INJECTION64_PATH names (a dlopen
	 * and its set-up, tens of ms on a busy machine), which the tool's
	 * clock does not see: made here, outside every range the workload
	 * times and before the second thread's first call would wait on it. */
	p_push("warmup");
	p_pop();
	if (pthread_create(&th, NULL, second, NULL))
		return 1;
	REP(20)
	{
		uint64_t t = now_ns(), child = 0;
		p_push("outer");
		usleep(2000);
		for (int j = 0; j < 2; j++) {
			uint64_t ti = now_ns();
			p_push("inner");
			usleep(3000);
			p_pop();
			own_add(&inner, ti, 0);
			child += now_ns() - ti;
		}
		p_pop();
		own_add(&outer, t, child);
	}
	nvtx_attr a = {.version = 2,
		       .size = sizeof(a),
		       .colorType = 1,
		       .color = 0xff00aa33,
		       .messageType = 1,
		       .message = "colored"};
	REP(10)
	{
		uint64_t t = now_ns();
		p_push_ex(&a);
		usleep(1000);
		p_pop();
		own_add(&colored, t, 0);
	}
	REP(5)
	{
		uint64_t t = now_ns(), id = p_start("started");
		usleep(4000);
		p_end(id);
		own_add(&started, t, 0);
	}
	a.colorType = 0;
	a.message = "started_ex";
	REP(3)
	{
		uint64_t t = now_ns(), id = p_start_ex(&a);
		usleep(2000);
		p_end(id);
		own_add(&started_ex, t, 0);
	}
	pthread_join(th, NULL);
	own_print(&outer);
	own_print(&inner);
	own_print(&colored);
	own_print(&started);
	own_print(&started_ex);
	own_print(&own_t2);
	return 0;
}
