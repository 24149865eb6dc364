/* SPDX-License-Identifier: GPL-2.0-only */
/* Inside libasys-inject.so: the region as this process sees it, and the
 * aggregation the NVTX callbacks feed. Internal to the library. */
#ifndef ASYS_INJECT_LIB_H
#define ASYS_INJECT_LIB_H

#include <stdbool.h>
#include <stdint.h>

#include "inject_hgtx.h"
#include "nvtx_abi.h"

/* The entry point NVTX calls; 1 when the tables are filled. */
int InitializeInjectionNvtx2(nvtx_abi_get_export_table get);

#define INJ_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define INJ_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

/* The HGTX section and this process's slot in it; NULL before a successful
 * inj_region_init or when the region is missing or bad. */
extern struct inj_hgtx_section *inj_sec;
extern struct inj_hgtx_proc *inj_proc;

/* Maps the region named by ASYS_INJECT_FD once per process and claims a
 * process slot. true when the HGTX section is usable. */
bool inj_region_init(void);
/* This thread's shard, claimed at its first range; NULL when none is free. */
struct inj_hgtx_shard *inj_shard(void);
uint64_t inj_now_ns(void);

/* The name id of (domain, category, text), inserted when new; 0 ("other")
 * when the table has no room. len is at most INJ_HGTX_TEXT. */
uint32_t inj_name(uint32_t domain, uint32_t category, const char *text, uint32_t len);
/* The length kept of s (at most INJ_HGTX_TEXT). */
uint32_t inj_text_len(const char *s);
/* Wide text to ASCII, '?' for the rest, into buf of INJ_HGTX_TEXT + 1. */
uint32_t inj_from_wide(char *buf, const wchar_t *w);
/* The domain's index for a domain name, inserted when new; 0 when full. */
uint32_t inj_domain(const char *name, uint32_t len);

/* One ended range of name at depth into the thread's row. */
void inj_row_add(struct inj_hgtx_shard *sh, uint32_t name, uint32_t depth, uint64_t dur,
		 uint64_t self);

#endif
