/* SPDX-License-Identifier: GPL-2.0-only */
/* A test stand-in for the PPU runtime library (libcudart): the exported
 * names and argument layout of the real API, so real uprobes attach to it.
 * Device "memory" is a unique small heap block; an allocation of
 * FAKE_FAIL_MIN bytes or more fails, like running out of device memory. */
#include "config.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define FAKE_API __attribute__((noinline, used, visibility("default")))
#define FAKE_FAIL_MIN (1ull << 40)

enum { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2 };

typedef struct {
	unsigned x, y, z;
} dim3;
typedef void *cudaStream_t;
typedef struct {
	dim3 gridDim, blockDim;
	size_t dynamicSmemBytes;
	cudaStream_t stream;
	void *attrs;
	unsigned numAttrs;
} cudaLaunchConfig_t;

#if defined(__x86_64__)
/* A function no uprobe can go on: its first instruction (push %es) does not
 * exist in 64-bit mode, and the kernel refuses to single-step it. A probe
 * file that names it makes the kernel refuse that one probe
 * (tests/gpurt/links.sh). Never called. */
__asm__(".text\n"
	".globl fake_unprobeable\n"
	".type fake_unprobeable, @function\n"
	"fake_unprobeable:\n"
	".byte 0x06\n"
	"ret\n"
	".size fake_unprobeable, .-fake_unprobeable\n");
#endif

/* launches seen, so a test can tell the calls really happened */
__attribute__((used, visibility("default"))) unsigned long fake_cudart_launches;

static int dev_alloc(void **p, size_t n)
{
	if (!p)
		return cudaErrorInvalidValue;
	if (n >= FAKE_FAIL_MIN)
		return cudaErrorMemoryAllocation;
	*p = malloc(16);
	return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}

static int host_alloc(void **p, size_t n)
{
	if (!p)
		return cudaErrorInvalidValue;
	if (n >= FAKE_FAIL_MIN)
		return cudaErrorMemoryAllocation;
	*p = calloc(1, n ? n : 1);
	return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}

FAKE_API int cudaMalloc(void **p, size_t n)
{
	return dev_alloc(p, n);
}
FAKE_API int cudaMallocAsync(void **p, size_t n, cudaStream_t s)
{
	(void)s;
	return dev_alloc(p, n);
}
FAKE_API int cudaFree(void *p)
{
	free(p);
	return cudaSuccess;
}
FAKE_API int cudaFreeAsync(void *p, cudaStream_t s)
{
	(void)s;
	free(p);
	return cudaSuccess;
}
FAKE_API int cudaHostAlloc(void **p, size_t n, unsigned flags)
{
	(void)flags;
	return host_alloc(p, n);
}
FAKE_API int cudaMallocHost(void **p, size_t n)
{
	return host_alloc(p, n);
}
FAKE_API int cudaFreeHost(void *p)
{
	free(p);
	return cudaSuccess;
}
FAKE_API int cudaHostRegister(void *p, size_t n, unsigned flags)
{
	(void)flags;
	return p && n < FAKE_FAIL_MIN ? cudaSuccess : cudaErrorInvalidValue;
}
FAKE_API int cudaHostUnregister(void *p)
{
	return p ? cudaSuccess : cudaErrorInvalidValue;
}

/* With FAKE_CUDART_NESTED set, a stub launch goes on to the driver's
 * cuLaunchKernel in libcuda.so beside this file, and cudaMemcpy to its
 * cuMemcpy, as a real runtime may. */
typedef int (*cu_launch_fn)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			    unsigned, void *, void **, void **);
typedef int (*cu_memcpy_fn)(uint64_t, uint64_t, size_t);

static void *nested_sym(const char *name)
{
	static void *h;
	static int tried;
	void *fn = NULL;
	if (!getenv("FAKE_CUDART_NESTED"))
		return NULL;
	if (!tried) {
		Dl_info info;
		char path[4096];
		tried = 1;
		if (dladdr((void *)nested_sym, &info) && info.dli_fname) {
			const char *slash = strrchr(info.dli_fname, '/');
			int dirlen = slash ? (int)(slash - info.dli_fname) : 1;
			snprintf(path, sizeof(path), "%.*s/libcuda.so", dirlen,
				 slash ? info.dli_fname : ".");
			h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		}
	}
	if (h)
		fn = dlsym(h, name);
	if (!fn) /* asked for: a test that silently skipped it would prove nothing */
		abort();
	return fn;
}

static cu_launch_fn nested_launch(void)
{
	static cu_launch_fn fn;
	if (!fn)
		*(void **)&fn = nested_sym("cuLaunchKernel");
	return fn;
}

FAKE_API int cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
			      cudaStream_t stream)
{
	(void)args;
	(void)shmem;
	if (!func)
		return cudaErrorInvalidValue;
	__atomic_add_fetch(&fake_cudart_launches, 1, __ATOMIC_RELAXED);
	cu_launch_fn fn = nested_launch();
	if (fn)
		return fn((void *)func, grid.x, grid.y, grid.z, block.x, block.y, block.z, 0,
			  stream, args, NULL);
	return cudaSuccess;
}

FAKE_API int cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args)
{
	(void)args;
	if (!config || !func)
		return cudaErrorInvalidValue;
	__atomic_add_fetch(&fake_cudart_launches, 1, __ATOMIC_RELAXED);
	return cudaSuccess;
}

/* Copies and memsets: device "memory" is a 16-byte block, so nothing is
 * copied; the probes see the arguments. Kinds as cudaMemcpyKind. */
static volatile size_t fake_copied;

FAKE_API int cudaMemcpy(void *dst, const void *src, size_t n, int kind)
{
	static cu_memcpy_fn fn;
	if (!fn)
		*(void **)&fn = nested_sym("cuMemcpy");
	if (fn) {
		/* a call, not a jump: the driver sees this library as its caller */
		int r = fn((uint64_t)(uintptr_t)dst, (uint64_t)(uintptr_t)src, n);
		fake_copied++;
		return r;
	}
	fake_copied += n + (size_t)kind;
	return dst && src && kind >= 0 && kind <= 4 ? cudaSuccess : cudaErrorInvalidValue;
}
FAKE_API int cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, cudaStream_t s)
{
	(void)s;
	fake_copied += n;
	return dst && src && kind >= 0 && kind <= 4 ? cudaSuccess : cudaErrorInvalidValue;
}
FAKE_API int cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
			  size_t height, int kind)
{
	fake_copied += dpitch + spitch + width * height;
	return dst && src && kind >= 0 && kind <= 4 ? cudaSuccess : cudaErrorInvalidValue;
}
FAKE_API int cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
			       size_t width, size_t height, int kind, cudaStream_t s)
{
	(void)s;
	return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
FAKE_API int cudaMemset(void *p, int value, size_t n)
{
	fake_copied += n + (size_t)value;
	return p ? cudaSuccess : cudaErrorInvalidValue;
}
FAKE_API int cudaMemsetAsync(void *p, int value, size_t n, cudaStream_t s)
{
	(void)s;
	return cudaMemset(p, value, n);
}
FAKE_API int cudaMemset2D(void *p, size_t pitch, int value, size_t width, size_t height)
{
	fake_copied += pitch + width * height + (size_t)value;
	return p ? cudaSuccess : cudaErrorInvalidValue;
}
