/* SPDX-License-Identifier: GPL-2.0-only */
/* The KTIME section of the shared region (asys_inject.h): kernel and copy
 * activity from the runtime's profiling interface (CUPTI's Activity API),
 * aggregated inside the workload by inject_ktime.c and read by asys
 * (collectors/ktime.c).
 *
 * Layout: a head, then `nprocs` process slots of `proc_size` bytes each.
 * A process claims a free slot by a compare-and-swap of its pid on the
 * slot's pid (0 = free) and is its slot's only writer. A slot holds the
 * copy rows (one per direction) and up to `nkernels` kernel rows; the last
 * kernel row is the overflow row that takes every kernel once the others
 * are used. Rows are published by a release store of `nrows`; a row's name
 * and device are written before and never change afterwards.
 *
 * Each row carries a sequence number: odd while its writer updates it.
 * The reader copies a row, then checks that the sequence was even and did
 * not change (a seqlock); a row that stays busy is skipped this refresh.
 *
 * asys sizes the section with KTIME_SECTION_SIZE_DEFAULT and writes the head
 * (ktime_section_init) before the workload runs; the workload can write anything
 * here afterwards, so asys checks every count against the section's size
 * (ktime_section_geometry) and reads each name up to its bound. */
#ifndef ASYS_INJECT_KTIME_H
#define ASYS_INJECT_KTIME_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define KTIME_MAGIC 0x5443414bu /* "KACT", little-endian */
#define KTIME_VERSION 1u
#define KTIME_SEC_NAME_MAX 120 /* bytes of a kernel name, with its NUL */
#define KTIME_PROCS_MAX 64     /* slots a reader accepts */
#define KTIME_KERNELS_MAX 4096 /* rows per slot a reader accepts */
#define KTIME_STATUS_MAX 128
/* The geometry asys gives the section: 16 processes of a job (the ranks of
 * a node and their helpers) of 512 rows each, about 1.4 MiB. */
#define KTIME_PROCS_DEFAULT 16
#define KTIME_KERNELS_DEFAULT 512

/* Copy directions: CUPTI's memcpy kinds folded to what a user asks about. */
enum ktime_sec_copy_dir {
	KTIME_COPY_HTOD = 0,
	KTIME_COPY_DTOH,
	KTIME_COPY_DTOD,
	KTIME_COPY_HTOH,
	KTIME_COPY_PTOP,  /* between devices */
	KTIME_COPY_OTHER, /* arrays, unknown */
	KTIME_COPY_NDIR,
};

/* The slot's state, for asys's status line. */
enum ktime_sec_state {
	KTIME_FREE = 0,
	KTIME_RUNNING = 1, /* activity enabled: records arrive */
	KTIME_FAILED = 2,  /* status[] says why (no CUPTI, an error code) */
};

struct ktime_sec_head {
	uint32_t magic;
	uint32_t version;
	uint32_t head_size; /* sizeof(struct ktime_sec_head) */
	uint32_t nprocs;    /* slots */
	uint32_t nkernels;  /* kernel rows per slot, the overflow row included */
	uint32_t proc_size; /* bytes per slot */
	uint64_t pad[5];
};

struct ktime_sec_kernel {
	uint64_t seq; /* odd while being written */
	uint64_t count;
	uint64_t total_ns;
	uint64_t min_ns;
	uint64_t max_ns;
	uint32_t device;
	uint32_t overflow; /* 1 for the overflow row */
	char name[KTIME_SEC_NAME_MAX];
};

struct ktime_sec_copy {
	uint64_t seq;
	uint64_t count;
	uint64_t bytes;
	uint64_t total_ns;
};

struct ktime_sec_proc {
	uint32_t pid;	/* 0 = free; claimed by CAS */
	uint32_t state; /* enum ktime_sec_state */
	uint32_t nrows; /* kernel rows in use (release store) */
	uint32_t pad;
	uint64_t records; /* activity records taken */
	uint64_t dropped; /* records CUPTI dropped, or unknown kinds */
	uint64_t buffers; /* buffers completed */
	char status[KTIME_STATUS_MAX];
	struct ktime_sec_copy copy[KTIME_COPY_NDIR];
	struct ktime_sec_kernel rows[]; /* nkernels of them */
};

/* Constant expressions, for a table of section sizes. */
#define KTIME_PROC_SIZE(nk)                                                                        \
	((sizeof(struct ktime_sec_proc) + (size_t)(nk) * sizeof(struct ktime_sec_kernel) + 63) &   \
	 ~(size_t)63)
#define KTIME_SECTION_SIZE(np, nk)                                                                 \
	(sizeof(struct ktime_sec_head) + (size_t)(np)*KTIME_PROC_SIZE(nk))
/* The section asys makes: its size in the region's table of sections. */
#define KTIME_SECTION_SIZE_DEFAULT KTIME_SECTION_SIZE(KTIME_PROCS_DEFAULT, KTIME_KERNELS_DEFAULT)

static inline size_t ktime_sec_proc_size(uint32_t nkernels)
{
	return KTIME_PROC_SIZE(nkernels);
}

static inline size_t ktime_section_size(uint32_t nprocs, uint32_t nkernels)
{
	return KTIME_SECTION_SIZE(nprocs, nkernels);
}

/* asys, on the fresh (zeroed) section of len bytes, before the workload
 * runs: -1 when it is too small for the geometry. */
static inline int ktime_section_init(void *sec, size_t len, uint32_t nprocs, uint32_t nkernels)
{
	struct ktime_sec_head *h = (struct ktime_sec_head *)sec;

	if (!sec || nprocs == 0 || nkernels < 2 || nprocs > KTIME_PROCS_MAX ||
	    nkernels > KTIME_KERNELS_MAX || len < ktime_section_size(nprocs, nkernels))
		return -1;
	memset(h, 0, sizeof(*h));
	h->head_size = sizeof(*h);
	h->nprocs = nprocs;
	h->nkernels = nkernels;
	h->proc_size = (uint32_t)ktime_sec_proc_size(nkernels);
	h->version = KTIME_VERSION;
	__atomic_store_n(&h->magic, KTIME_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

/* The geometry of a section of len bytes, checked: 0 and the head's
 * nprocs / nkernels in *np / *nk, or -1 when the head is not one this
 * build reads or does not fit in len. Both sides call it: the workload
 * trusts asys's head no more than asys trusts the workload. */
static inline int ktime_section_geometry(const void *sec, size_t len, uint32_t *np, uint32_t *nk)
{
	struct ktime_sec_head h;

	if (!sec || len < sizeof(h))
		return -1;
	memcpy(&h, sec, sizeof(h));
	if (h.magic != KTIME_MAGIC || h.version != KTIME_VERSION || h.head_size != sizeof(h) ||
	    h.nprocs == 0 || h.nprocs > KTIME_PROCS_MAX || h.nkernels < 2 ||
	    h.nkernels > KTIME_KERNELS_MAX || h.proc_size != ktime_sec_proc_size(h.nkernels) ||
	    ktime_section_size(h.nprocs, h.nkernels) > len)
		return -1;
	*np = h.nprocs;
	*nk = h.nkernels;
	return 0;
}

static inline struct ktime_sec_proc *ktime_sec_proc_at(void *sec, uint32_t i, uint32_t nkernels)
{
	return (struct ktime_sec_proc *)((char *)sec + sizeof(struct ktime_sec_head) +
					 (size_t)i * ktime_sec_proc_size(nkernels));
}

#endif
