/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared between gpurt.bpf.c (kernel side) and gpurt.c (user side): map keys,
 * values and the attach-cookie layout. __u32 / __u64 only. */
#ifndef ASYS_GPURT_H
#define ASYS_GPURT_H

/* What one probe does; the role and its argument numbers travel in the
 * 64-bit attach cookie, so one BPF program serves every symbol of a role and
 * the probe table (and --hggc-probe-file) stay data. */
enum gpurt_role {
	GPURT_DEV_ALLOC = 1, /* *OUT = alloc(SIZE): device memory */
	GPURT_PIN_ALLOC,     /* *OUT = alloc(SIZE): pinned host memory */
	GPURT_PIN_REGISTER,  /* register(PTR, SIZE): pinned, pointer given */
	GPURT_DEV_FREE,	     /* free(PTR) */
	GPURT_PIN_FREE,	     /* free(PTR) / unregister(PTR) */
	GPURT_LAUNCH_STUB,   /* launch(..., FUNC = host stub address, ...) */
	GPURT_LAUNCH_HANDLE, /* launch(..., FUNC = function handle, ...) */
	GPURT_NAME_HANDLE,   /* *OUT = handle named by the string NAME */
	GPURT_NAME_COPY,     /* *OUT = handle with the name of handle SRC */
	GPURT_COPY,	     /* copy(DST, SRC, SIZE, KIND = cudaMemcpyKind) */
	GPURT_COPY_2D,	     /* copy(DST, SRC, WIDTH, HEIGHT, KIND) */
	GPURT_COPY_HTOD,     /* copy(DST, SRC, SIZE), direction in the name */
	GPURT_COPY_DTOH,
	GPURT_COPY_DTOD,
	GPURT_COPY_HTOH,
	GPURT_COPY_ANY,	      /* copy(DST, SRC, SIZE), direction from the pointers */
	GPURT_COPY_DESC,      /* copy(DESC = const CUDA_MEMCPY2D *) */
	GPURT_SET,	      /* set(DST, SIZE) */
	GPURT_SET_2D,	      /* set(DST, WIDTH, HEIGHT) */
	GPURT_RANGE_PUSH,     /* nvtxRangePushA(MSG) */
	GPURT_RANGE_PUSH_EX,  /* nvtxRangePushEx(ATTR = const nvtxEventAttributes_t *) */
	GPURT_RANGE_POP,      /* nvtxRangePop() */
	GPURT_RANGE_START,    /* id = nvtxRangeStartA(MSG) */
	GPURT_RANGE_START_EX, /* id = nvtxRangeStartEx(ATTR) */
	GPURT_RANGE_END,      /* nvtxRangeEnd(ID) */
	GPURT_ROLE_MAX,
};

/* cookie = role | a[i] << (8 + 4 * i) for the 1-based argument numbers
 * a[0..4] (0 = unused; 7 and 8 are read from the stack) | the log2 of the
 * element size of the role's size argument << 28 */
#define GPURT_ARGS_MAX 5
#define GPURT_ARG_NMAX 8
#define GPURT_COOKIE_ROLE(c) ((__u32)((c)&0xff))
#define GPURT_COOKIE_ARG(c, i) ((__u32)(((c) >> (8 + 4 * (i))) & 0xf))
#define GPURT_COOKIE_A1(c) GPURT_COOKIE_ARG(c, 0)
#define GPURT_COOKIE_A2(c) GPURT_COOKIE_ARG(c, 1)
#define GPURT_COOKIE_SHIFT(c) ((__u32)(((c) >> 28) & 0x3))

/* Copies per direction. A cudaMemcpyDefault copy (or a copy-any role) is
 * placed by looking both pointers up among the allocations the probes saw;
 * when one is not found it is counted under UNKNOWN. */
enum gpurt_dir {
	GPURT_DIR_HTOD,
	GPURT_DIR_DTOH,
	GPURT_DIR_DTOD,
	GPURT_DIR_HTOH,
	GPURT_DIR_UNKNOWN,
	GPURT_DIR_SET, /* memset of device memory */
	GPURT_DIR_MAX,
};

/* per process (tgid): copies and memsets counted at entry, and of the
 * copies between host and device those whose host buffer is (the start of)
 * a pinned allocation or registration the probes saw, or not */
struct gpurt_copy {
	__u64 calls[GPURT_DIR_MAX];
	__u64 bytes[GPURT_DIR_MAX];
	__u64 pinned_calls, pinned_bytes;
	__u64 pageable_calls, pageable_bytes;
};

/* The driver's CUDA_MEMCPY2D, as copy-desc reads it: byte offsets of the
 * fields it uses (x86-64; CUmemorytype is a 4-byte enum, padded) */
#define GPURT_M2D_SIZE 128
#define GPURT_M2D_SRC_TYPE 16
#define GPURT_M2D_SRC_HOST 24
#define GPURT_M2D_SRC_DEVICE 32
#define GPURT_M2D_DST_TYPE 72
#define GPURT_M2D_DST_HOST 80
#define GPURT_M2D_DST_DEVICE 88
#define GPURT_M2D_WIDTH 112
#define GPURT_M2D_HEIGHT 120

/* NVTX v2 ranges (libnvToolsExt.so.1), per (pid, FNV-1a hash of the name) */
#define GPURT_RANGE_DEPTH 32 /* pushes kept per thread; deeper ones are not timed */
#define GPURT_RANGE_NAME 121 /* bytes read of a name, with its NUL */
#define GPURT_NO_COLOR 0xffffffffu

struct gpurt_range_key {
	__u32 pid;
	__u32 pad;
	__u64 hash;
};

/* min and max are kept per refresh: the slot epoch & 1 of the epoch user
 * space publishes (range_epoch), reset when a range ends in a newer one */
struct gpurt_range {
	__u64 count, total_ns, self_ns;
	__u64 min_ns[2], max_ns[2];
	__u32 epoch[2];
	__u32 depth;
	__u32 color; /* 0xRRGGBB, GPURT_NO_COLOR when none */
};

struct gpurt_range_name {
	char s[GPURT_RANGE_NAME];
};

#define GPURT_NAME_MAX 128
#define GPURT_KIND_DEV 0
#define GPURT_KIND_PIN 1
#define GPURT_LAUNCH_BY_STUB 0
#define GPURT_LAUNCH_BY_HANDLE 1

/* per process (tgid) */
struct gpurt_mem {
	__u64 device_bytes;
	__u64 pinned_bytes;
	__u64 allocs;
	__u64 frees;
	__u64 fails;
	__u64 last_fail_size;
	__u64 last_fail_ns; /* bpf_ktime_get_ns: CLOCK_MONOTONIC; 0 = never */
};

/* a live allocation */
struct gpurt_ptr_key {
	__u32 pid;
	__u32 pad;
	__u64 ptr;
};

struct gpurt_ptr_val {
	__u64 size;
	__u32 kind; /* GPURT_KIND_ */
	__u32 pad;
};

/* launches per (pid, stub address or handle) */
struct gpurt_launch_key {
	__u32 pid;
	__u32 by; /* GPURT_LAUNCH_BY_ */
	__u64 addr;
};

/* a named handle */
struct gpurt_handle_key {
	__u32 pid;
	__u32 pad;
	__u64 handle;
};

/* what a library file has probes for (the value of stub_libs): a call of
 * a launch or a copy made from code in such a file is the runtime's own,
 * already counted at its outer call */
#define GPURT_LIB_STUBS 1
#define GPURT_LIB_COPIES 2

/* a library file, as the kernel names it (dev is the kernel's s_dev:
 * major << 20 | minor) */
struct gpurt_file {
	__u64 dev;
	__u64 ino;
};

struct gpurt_name {
	char name[GPURT_NAME_MAX];
};

/* What a process left when its last thread ended, moved out of the maps by
 * the exit tracepoint into the `exits` ring: one LAUNCHES record per kernel,
 * then one END record (with the memory totals when they were tracked). The
 * collector drains the ring and emits them as the process's last samples. */
#define GPURT_EXIT_LAUNCHES 1
#define GPURT_EXIT_END 2

/* Where a host stub lies: the file mapped at it and the offset in that
 * file, taken at the kernel's first launch, so a stub can be named after its
 * process has ended (its maps gone). file.ino 0 = unknown. */
struct gpurt_where {
	struct gpurt_file file;
	__u64 off;
};

struct gpurt_exit {
	__u32 kind; /* GPURT_EXIT_ */
	__u32 pid;
	struct gpurt_launch_key key; /* LAUNCHES */
	__u64 count;		     /* LAUNCHES */
	struct gpurt_where where;    /* LAUNCHES by stub */
	__u32 has_mem;		     /* END: mem holds the totals */
	__u32 pad;
	struct gpurt_mem mem;
};

/* Why user space should read a process's maps (the `loader` ring). */
#define GPURT_LOADED_OBJECTS 1 /* its loader's list gained a runtime object */
#define GPURT_LOADED_EXEC 2    /* it started with a dynamic loader not yet seen */

struct gpurt_loaded {
	__u32 pid;
	__u32 kind; /* GPURT_LOADED_ */
};

/* The literal start of each probe glob on library file names ("libcudart.so"
 * of "libcudart.so*"): the loader hook counts an object as the runtime's
 * when its file name starts with one of them. A head cut to fit matches
 * more, never less. */
#define GPURT_HEADS_MAX 16
#define GPURT_HEAD_MAX 32

struct gpurt_head {
	__u64 s[GPURT_HEAD_MAX / 8];	/* the bytes, in memory order */
	__u64 mask[GPURT_HEAD_MAX / 8]; /* 0xff for each byte of the head */
	__u32 len;
	__u32 pad;
};

/* The loader hook's attach cookie: the address of the loader's r_debug less
 * the address of _dl_debug_state (both from the loader file's symbol
 * table), as a two's-complement __s64; 0 = not known, every call of the
 * hook is passed on to user space. */

#endif
