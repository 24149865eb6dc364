/* SPDX-License-Identifier: GPL-2.0-only */
/* The few NVTX v3 types and numbers the injection library needs, declared
 * here so that it builds without the CUDA toolkit. They are the ABI of the
 * header-only NVTX (nvtx3/nvtxDetail/nvtxTypes.h and nvToolsExt.h): a
 * program built with those headers calls InitializeInjectionNvtx2 with its
 * export-table getter, the tool asks for NVTX_ETID_CALLBACKS, then for each
 * module's table of pointers to the program's function pointers, and writes
 * its own functions through them. tests/inject builds a program with the
 * real headers against this library, which checks the two agree. */
#ifndef ASYS_NVTX_ABI_H
#define ASYS_NVTX_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#define NVTX_ABI_ETID_CALLBACKS 1u

enum nvtx_abi_module {
	NVTX_ABI_MODULE_CORE = 1,
	NVTX_ABI_MODULE_CORE2 = 5,
};

enum nvtx_abi_cbid_core {
	NVTX_ABI_CORE_MarkEx = 1,
	NVTX_ABI_CORE_MarkA = 2,
	NVTX_ABI_CORE_MarkW = 3,
	NVTX_ABI_CORE_RangeStartEx = 4,
	NVTX_ABI_CORE_RangeStartA = 5,
	NVTX_ABI_CORE_RangeStartW = 6,
	NVTX_ABI_CORE_RangeEnd = 7,
	NVTX_ABI_CORE_RangePushEx = 8,
	NVTX_ABI_CORE_RangePushA = 9,
	NVTX_ABI_CORE_RangePushW = 10,
	NVTX_ABI_CORE_RangePop = 11,
	NVTX_ABI_CORE_NameCategoryA = 12,
	NVTX_ABI_CORE_NameCategoryW = 13,
	NVTX_ABI_CORE_NameOsThreadA = 14,
	NVTX_ABI_CORE_NameOsThreadW = 15,
};

enum nvtx_abi_cbid_core2 {
	NVTX_ABI_CORE2_DomainMarkEx = 1,
	NVTX_ABI_CORE2_DomainRangeStartEx = 2,
	NVTX_ABI_CORE2_DomainRangeEnd = 3,
	NVTX_ABI_CORE2_DomainRangePushEx = 4,
	NVTX_ABI_CORE2_DomainRangePop = 5,
	NVTX_ABI_CORE2_DomainResourceCreate = 6,
	NVTX_ABI_CORE2_DomainResourceDestroy = 7,
	NVTX_ABI_CORE2_DomainNameCategoryA = 8,
	NVTX_ABI_CORE2_DomainNameCategoryW = 9,
	NVTX_ABI_CORE2_DomainRegisterStringA = 10,
	NVTX_ABI_CORE2_DomainRegisterStringW = 11,
	NVTX_ABI_CORE2_DomainCreateA = 12,
	NVTX_ABI_CORE2_DomainCreateW = 13,
	NVTX_ABI_CORE2_DomainDestroy = 14,
};

typedef void (*nvtx_abi_fn)(void);
/* an array of pointers to the program's function pointers */
typedef nvtx_abi_fn **nvtx_abi_table;

struct nvtx_abi_callbacks {
	size_t struct_size;
	int (*get_module_table)(int module, nvtx_abi_table *out_table, unsigned int *out_size);
};

typedef const void *(*nvtx_abi_get_export_table)(uint32_t id);

enum nvtx_abi_color_type { NVTX_ABI_COLOR_ARGB = 1 };
enum nvtx_abi_message_type {
	NVTX_ABI_MESSAGE_ASCII = 1,
	NVTX_ABI_MESSAGE_UNICODE = 2,
	NVTX_ABI_MESSAGE_REGISTERED = 3,
};

/* nvtxEventAttributes_v2 */
struct nvtx_abi_attr {
	uint16_t version;
	uint16_t size;
	uint32_t category;
	int32_t color_type;
	uint32_t color;
	int32_t payload_type;
	int32_t reserved0;
	uint64_t payload;
	int32_t message_type;
	union {
		const char *ascii;
		const wchar_t *unicode;
		const void *registered;
	} message;
};

#endif
