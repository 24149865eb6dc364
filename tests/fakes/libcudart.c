/* A test stand-in for the PPU runtime library (libcudart): the exported
 * names and argument layout of the real API, so real uprobes attach to it.
 * Device "memory" is a unique small heap block; an allocation of
 * FAKE_FAIL_MIN bytes or more fails, like running out of device memory. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_API __attribute__((noinline, used, visibility("default")))
#define FAKE_FAIL_MIN (1ull << 40)

enum { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2 };

typedef struct { unsigned x, y, z; } dim3;
typedef void *cudaStream_t;
typedef struct { dim3 gridDim, blockDim; size_t dynamicSmemBytes; cudaStream_t stream;
		 void *attrs; unsigned numAttrs; } cudaLaunchConfig_t;

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

FAKE_API int cudaMalloc(void **p, size_t n) { return dev_alloc(p, n); }
FAKE_API int cudaMallocAsync(void **p, size_t n, cudaStream_t s) { (void)s; return dev_alloc(p, n); }
FAKE_API int cudaFree(void *p) { free(p); return cudaSuccess; }
FAKE_API int cudaFreeAsync(void *p, cudaStream_t s) { (void)s; free(p); return cudaSuccess; }
FAKE_API int cudaHostAlloc(void **p, size_t n, unsigned flags) { (void)flags; return host_alloc(p, n); }
FAKE_API int cudaMallocHost(void **p, size_t n) { return host_alloc(p, n); }
FAKE_API int cudaFreeHost(void *p) { free(p); return cudaSuccess; }
FAKE_API int cudaHostRegister(void *p, size_t n, unsigned flags)
{
	(void)flags;
	return p && n < FAKE_FAIL_MIN ? cudaSuccess : cudaErrorInvalidValue;
}
FAKE_API int cudaHostUnregister(void *p) { return p ? cudaSuccess : cudaErrorInvalidValue; }

FAKE_API int cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
			      cudaStream_t stream)
{
	(void)grid; (void)block; (void)args; (void)shmem; (void)stream;
	if (!func)
		return cudaErrorInvalidValue;
	__atomic_add_fetch(&fake_cudart_launches, 1, __ATOMIC_RELAXED);
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
