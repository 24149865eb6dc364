/* SPDX-License-Identifier: GPL-2.0-only */
/* A test stand-in for the PPU driver library (libcuda): memory, launches by
 * handle, and the functions that hand out named handles. A handle is a heap
 * block holding the kernel name. Allocations of FAKE_FAIL_MIN bytes or more
 * fail with CUDA_ERROR_OUT_OF_MEMORY. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define FAKE_API __attribute__((noinline, used, visibility("default")))
#define FAKE_FAIL_MIN (1ull << 40)

enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_OUT_OF_MEMORY = 2,
	CUDA_ERROR_NOT_FOUND = 500
};

typedef uint64_t CUdeviceptr;
typedef struct fake_fn {
	char name[128];
} * CUfunction, *CUkernel;
typedef void *CUmodule, *CUlibrary, *CUstream;
typedef struct {
	unsigned gx, gy, gz, bx, by, bz, shmem;
	CUstream stream;
	void *attrs;
	unsigned nattrs;
} CUlaunchConfig;

__attribute__((used, visibility("default"))) unsigned long fake_cuda_launches;

static struct fake_fn *fn_new(const char *name)
{
	struct fake_fn *f = calloc(1, sizeof(*f));
	if (f)
		snprintf(f->name, sizeof(f->name), "%s", name);
	return f;
}

FAKE_API int cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	if (n >= FAKE_FAIL_MIN)
		return CUDA_ERROR_OUT_OF_MEMORY;
	void *b = malloc(16);
	*p = (CUdeviceptr)(uintptr_t)b;
	return b ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
FAKE_API int cuMemFree_v2(CUdeviceptr p)
{
	free((void *)(uintptr_t)p);
	return CUDA_SUCCESS;
}
FAKE_API int cuMemHostAlloc(void **p, size_t n, unsigned flags)
{
	(void)flags;
	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	if (n >= FAKE_FAIL_MIN)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*p = calloc(1, n ? n : 1);
	return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
FAKE_API int cuMemAllocHost_v2(void **p, size_t n)
{
	return cuMemHostAlloc(p, n, 0);
}
FAKE_API int cuMemFreeHost(void *p)
{
	free(p);
	return CUDA_SUCCESS;
}

FAKE_API int cuModuleGetFunction(CUfunction *f, CUmodule mod, const char *name)
{
	(void)mod;
	if (!f || !name)
		return CUDA_ERROR_INVALID_VALUE;
	*f = fn_new(name);
	return *f ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
FAKE_API int cuLibraryGetKernel(CUkernel *k, CUlibrary lib, const char *name)
{
	return cuModuleGetFunction(k, lib, name);
}
FAKE_API int cuKernelGetFunction(CUfunction *f, CUkernel k)
{
	if (!f || !k)
		return CUDA_ERROR_INVALID_VALUE;
	*f = fn_new(k->name); /* a handle of its own, as the real one */
	return *f ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

FAKE_API int cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
			    unsigned by, unsigned bz, unsigned shmem, CUstream s, void **params,
			    void **extra)
{
	(void)gx;
	(void)gy;
	(void)gz;
	(void)bx;
	(void)by;
	(void)bz;
	(void)shmem;
	(void)s;
	(void)params;
	(void)extra;
	if (!f)
		return CUDA_ERROR_INVALID_VALUE;
	__atomic_add_fetch(&fake_cuda_launches, 1, __ATOMIC_RELAXED);
	return CUDA_SUCCESS;
}
FAKE_API int cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params,
			      void **extra)
{
	(void)params;
	(void)extra;
	if (!config || !f)
		return CUDA_ERROR_INVALID_VALUE;
	__atomic_add_fetch(&fake_cuda_launches, 1, __ATOMIC_RELAXED);
	return CUDA_SUCCESS;
}

/* Copies and memsets: nothing is copied (device "memory" is a 16-byte
 * block); the probes see the arguments. */
typedef struct {
	size_t srcXInBytes, srcY;
	int srcMemoryType;
	const void *srcHost;
	CUdeviceptr srcDevice;
	void *srcArray;
	size_t srcPitch;
	size_t dstXInBytes, dstY;
	int dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	void *dstArray;
	size_t dstPitch;
	size_t WidthInBytes, Height;
} CUDA_MEMCPY2D;

static volatile size_t fake_copied;

static int fake_copy(uint64_t dst, uint64_t src, size_t n)
{
	fake_copied += n;
	return dst && src ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FAKE_API int cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
	return fake_copy(dst, src, n);
}
FAKE_API int cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
	return fake_copy(dst, (uint64_t)(uintptr_t)src, n);
}
FAKE_API int cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
	return fake_copy((uint64_t)(uintptr_t)dst, src, n);
}
FAKE_API int cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
	return fake_copy(dst, src, n);
}
FAKE_API int cuMemcpy2D_v2(const CUDA_MEMCPY2D *c)
{
	if (!c)
		return CUDA_ERROR_INVALID_VALUE;
	fake_copied += c->WidthInBytes * c->Height;
	return CUDA_SUCCESS;
}
FAKE_API int cuMemsetD32_v2(CUdeviceptr dst, unsigned value, size_t n)
{
	return fake_copy(dst, dst, n * 4 + value);
}
