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
	GPURT_ROLE_MAX,
};

/* cookie = role | a1 << 8 | a2 << 16, a1/a2 = 1-based argument numbers */
#define GPURT_COOKIE(role, a1, a2) ((__u64)(role) | (__u64)(a1) << 8 | (__u64)(a2) << 16)
#define GPURT_COOKIE_ROLE(c) ((__u32)((c)&0xff))
#define GPURT_COOKIE_A1(c) ((__u32)(((c) >> 8) & 0xff))
#define GPURT_COOKIE_A2(c) ((__u32)(((c) >> 16) & 0xff))

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
