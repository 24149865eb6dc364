/* A test stand-in for NVTX v2's library, libnvToolsExt.so.1: the exported
 * range functions, doing nothing, as the real one does with no tool loaded
 * (a start then returns id 0). */
#include "config.h"

#include <stdint.h>

#define FAKE_API __attribute__((noinline, used, visibility("default")))

typedef uint64_t nvtxRangeId_t;
typedef struct nvtxEventAttributes_v2 nvtxEventAttributes_t;

static volatile unsigned long fake_nvtx_calls;

FAKE_API int nvtxRangePushA(const char *message)
{
	fake_nvtx_calls += message != 0;
	return (int)(fake_nvtx_calls & 0x7fff);
}
FAKE_API int nvtxRangePushEx(const nvtxEventAttributes_t *attr)
{
	fake_nvtx_calls += attr != 0;
	return (int)(fake_nvtx_calls & 0x7fff);
}
FAKE_API int nvtxRangePop(void)
{
	fake_nvtx_calls++;
	return 0;
}
FAKE_API nvtxRangeId_t nvtxRangeStartA(const char *message)
{
	fake_nvtx_calls += message != 0;
	return 0;
}
FAKE_API nvtxRangeId_t nvtxRangeStartEx(const nvtxEventAttributes_t *attr)
{
	fake_nvtx_calls += attr != 0;
	return 0;
}
FAKE_API void nvtxRangeEnd(nvtxRangeId_t id)
{
	fake_nvtx_calls += id + 1;
}
