/* SPDX-License-Identifier: GPL-2.0-only */
/* A test stand-in for NVTX v2's library, libnvToolsExt.so.1: the exported
 * range functions. As the real one does, the first call loads the tool
 * NVTX_INJECTION64_PATH names and hands it the core module's table of
 * function pointers (inject/nvtx_abi.h); each call then goes to the tool's
 * function, or does nothing without one (a start then returns id 0). The
 * probes attach to these exported functions either way. */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "nvtx_abi.h"

#define FAKE_API __attribute__((noinline, used, visibility("default")))

typedef uint64_t nvtxRangeId_t;
typedef struct nvtxEventAttributes_v2 nvtxEventAttributes_t;

enum { FAKE_CORE_SLOTS = NVTX_ABI_CORE_NameOsThreadW + 1 };

static volatile unsigned long fake_nvtx_calls;
static pthread_once_t fake_once = PTHREAD_ONCE_INIT;
/* the tool's functions, written through fake_core_table */
static nvtx_abi_fn fake_core[FAKE_CORE_SLOTS];
static nvtx_abi_fn *fake_core_table[FAKE_CORE_SLOTS];

static int fake_module_table(int module, nvtx_abi_table *out, unsigned int *size)
{
	if (module != NVTX_ABI_MODULE_CORE || !out || !size)
		return 0;
	for (int i = 1; i < FAKE_CORE_SLOTS; i++)
		fake_core_table[i] = &fake_core[i];
	*out = fake_core_table;
	*size = FAKE_CORE_SLOTS;
	return 1;
}

static const struct nvtx_abi_callbacks fake_callbacks = {sizeof(fake_callbacks), fake_module_table};

static const void *fake_export_table(uint32_t id)
{
	return id == NVTX_ABI_ETID_CALLBACKS ? &fake_callbacks : NULL;
}

static void fake_load_tool(void)
{
	const char *path = getenv("NVTX_INJECTION64_PATH");
	int (*init)(nvtx_abi_get_export_table);
	void *h;

	if (!path || !*path || !(h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
		return;
	*(void **)&init = dlsym(h, "InitializeInjectionNvtx2");
	if (!init || !init(fake_export_table)) {
		/* a tool that declines: every call is a no-op, as in NVTX */
		for (int i = 0; i < FAKE_CORE_SLOTS; i++)
			fake_core[i] = NULL;
	}
}

/* The tool's function for callback id, or NULL. */
static nvtx_abi_fn fake_tool(int id)
{
	pthread_once(&fake_once, fake_load_tool);
	return fake_core[id];
}

FAKE_API int nvtxRangePushA(const char *message)
{
	int (*f)(const char *) = (int (*)(const char *))fake_tool(NVTX_ABI_CORE_RangePushA);

	if (f)
		return f(message);
	fake_nvtx_calls += message != 0;
	return (int)(fake_nvtx_calls & 0x7fff);
}
FAKE_API int nvtxRangePushEx(const nvtxEventAttributes_t *attr)
{
	int (*f)(const nvtxEventAttributes_t *) =
	    (int (*)(const nvtxEventAttributes_t *))fake_tool(NVTX_ABI_CORE_RangePushEx);

	if (f)
		return f(attr);
	fake_nvtx_calls += attr != 0;
	return (int)(fake_nvtx_calls & 0x7fff);
}
FAKE_API int nvtxRangePop(void)
{
	int (*f)(void) = (int (*)(void))fake_tool(NVTX_ABI_CORE_RangePop);

	if (f)
		return f();
	fake_nvtx_calls++;
	return 0;
}
FAKE_API nvtxRangeId_t nvtxRangeStartA(const char *message)
{
	nvtxRangeId_t (*f)(const char *) =
	    (nvtxRangeId_t(*)(const char *))fake_tool(NVTX_ABI_CORE_RangeStartA);

	if (f)
		return f(message);
	fake_nvtx_calls += message != 0;
	return 0;
}
FAKE_API nvtxRangeId_t nvtxRangeStartEx(const nvtxEventAttributes_t *attr)
{
	nvtxRangeId_t (*f)(const nvtxEventAttributes_t *) =
	    (nvtxRangeId_t(*)(const nvtxEventAttributes_t *))fake_tool(NVTX_ABI_CORE_RangeStartEx);

	if (f)
		return f(attr);
	fake_nvtx_calls += attr != 0;
	return 0;
}
FAKE_API void nvtxRangeEnd(nvtxRangeId_t id)
{
	void (*f)(nvtxRangeId_t) = (void (*)(nvtxRangeId_t))fake_tool(NVTX_ABI_CORE_RangeEnd);

	if (f) {
		f(id);
		return;
	}
	fake_nvtx_calls += id + 1;
}
