/* SPDX-License-Identifier: GPL-2.0-only */
/* The gpurt test workload's parts (workload.c, workload_copy.c). */
#ifndef ASYS_TEST_GPURT_WORKLOAD_H
#define ASYS_TEST_GPURT_WORKLOAD_H

#include <stdint.h>

/* Looks up the copy functions in the fake runtime (rt) and driver (drv). */
void wl_copy_load(void *rt, void *drv);
/* The copy pattern at scale k, between the live allocations given: dev1 and
 * dev2 device (driver pointers), pinned (from cudaMallocHost) and
 * registered (cudaHostRegister) host memory. */
void wl_copy_pattern(int k, uint64_t dev1, uint64_t dev2, void *pinned, void *registered);
/* Loads libnvToolsExt.so.1 from dir, then makes the NVTX v2 pattern and
 * prints what it timed itself ("range NAME count N total_ns T self_ns S").
 * 0 or 1. */
int wl_nvtx_load(const char *dir);
int wl_nvtx_run(void);
/* exits with a message when rc is not 0 */
int wl_check(int rc, const char *what);
void *wl_sym(void *h, const char *name);

#endif
