/* SPDX-License-Identifier: GPL-2.0-only */
/* gpurt, kernel side, included by gpurt.bpf.c: memory copies and memsets
 * per process and direction, counted at entry (whether the call succeeds or
 * not: a return probe would double the cost of every copy). Uses
 * gpurt.bpf.c's maps (ptrs: the live allocations) and helpers. */
#ifndef ASYS_GPURT_COPY_BPF_H
#define ASYS_GPURT_COPY_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct gpurt_copy);
} copies SEC(".maps");

#define SIDE_UNKNOWN 0
#define SIDE_DEV 1
#define SIDE_PIN 2

/* cudaMemcpyKind */
#define KIND_HTOH 0
#define KIND_HTOD 1
#define KIND_DTOH 2
#define KIND_DTOD 3
#define KIND_DEFAULT 4

/* CUmemorytype */
#define MT_HOST 1
#define MT_DEVICE 2
#define MT_ARRAY 3
#define MT_UNIFIED 4

/* What the probes know of a pointer: the start of a device allocation, of
 * a pinned host one (or registration), or nothing. */
static __always_inline __u32 side_of(__u32 tgid, __u64 p)
{
	struct gpurt_ptr_key k = {.pid = tgid, .ptr = p};
	struct gpurt_ptr_val *v = bpf_map_lookup_elem(&ptrs, &k);

	if (!v)
		return SIDE_UNKNOWN;
	return v->kind == GPURT_KIND_DEV ? SIDE_DEV : SIDE_PIN;
}

/* A copy between unified addresses: placed when the maps know both sides. */
static __always_inline __u32 dir_of_pointers(__u32 tgid, __u64 dst, __u64 src)
{
	__u32 d = side_of(tgid, dst), s = side_of(tgid, src);

	if (d == SIDE_UNKNOWN || s == SIDE_UNKNOWN)
		return GPURT_DIR_UNKNOWN;
	if (s == SIDE_DEV)
		return d == SIDE_DEV ? GPURT_DIR_DTOD : GPURT_DIR_DTOH;
	return d == SIDE_DEV ? GPURT_DIR_HTOD : GPURT_DIR_HTOH;
}

/* kind is a C enum: its register or stack slot's upper half is undefined */
static __always_inline __u32 dir_of_kind(__u32 tgid, __u32 kind, __u64 dst, __u64 src)
{
	switch (kind) {
	case KIND_HTOH:
		return GPURT_DIR_HTOH;
	case KIND_HTOD:
		return GPURT_DIR_HTOD;
	case KIND_DTOH:
		return GPURT_DIR_DTOH;
	case KIND_DTOD:
		return GPURT_DIR_DTOD;
	case KIND_DEFAULT:
		return dir_of_pointers(tgid, dst, src);
	default:
		return GPURT_DIR_UNKNOWN;
	}
}

/* One side of a CUDA_MEMCPY2D: host, device, or a unified address to look
 * up (an array is device memory without a pointer). */
static __always_inline __u32 desc_side(__u32 tgid, __u32 type, __u64 host, __u64 dev, __u64 *p)
{
	switch (type) {
	case MT_HOST:
		*p = host;
		return SIDE_PIN; /* host; pinned or not is looked up later */
	case MT_DEVICE:
	case MT_ARRAY:
		*p = dev;
		return SIDE_DEV;
	case MT_UNIFIED:
		*p = dev;
		return side_of(tgid, dev);
	default:
		return SIDE_UNKNOWN;
	}
}

static __always_inline __u64 m2d_u64(const __u8 *d, __u32 off)
{
	return *(const __u64 *)(d + off);
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8[GPURT_M2D_SIZE]);
} m2d_buf SEC(".maps");

static __always_inline __u32 copy_desc(__u32 tgid, __u64 desc, __u64 *dst, __u64 *src, __u64 *bytes)
{
	__u32 zero = 0;
	__u8 *d = bpf_map_lookup_elem(&m2d_buf, &zero);

	if (!d || bpf_probe_read_user(d, GPURT_M2D_SIZE, (const void *)desc))
		return GPURT_DIR_MAX;
	*bytes = m2d_u64(d, GPURT_M2D_WIDTH) * m2d_u64(d, GPURT_M2D_HEIGHT);
	__u32 s = desc_side(tgid, *(const __u32 *)(d + GPURT_M2D_SRC_TYPE),
			    m2d_u64(d, GPURT_M2D_SRC_HOST), m2d_u64(d, GPURT_M2D_SRC_DEVICE), src);
	__u32 t = desc_side(tgid, *(const __u32 *)(d + GPURT_M2D_DST_TYPE),
			    m2d_u64(d, GPURT_M2D_DST_HOST), m2d_u64(d, GPURT_M2D_DST_DEVICE), dst);
	if (s == SIDE_UNKNOWN || t == SIDE_UNKNOWN)
		return GPURT_DIR_UNKNOWN;
	if (s == SIDE_DEV)
		return t == SIDE_DEV ? GPURT_DIR_DTOD : GPURT_DIR_DTOH;
	return t == SIDE_DEV ? GPURT_DIR_HTOD : GPURT_DIR_HTOH;
}

static __always_inline struct gpurt_copy *copy_of(__u32 tgid)
{
	struct gpurt_copy *c = bpf_map_lookup_elem(&copies, &tgid);
	if (c)
		return c;
	struct gpurt_copy zero = {};
	bpf_map_update_elem(&copies, &tgid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&copies, &tgid);
}

SEC("uprobe")
int BPF_KPROBE(gpurt_on_copy)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	if (!wanted(tgid))
		return 0;
	/* the runtime's copy that calls the driver's is counted once, at the
	 * outer call */
	if (called_from(ctx, GPURT_LIB_COPIES))
		return 0;
	__u64 c = bpf_get_attach_cookie(ctx);
	__u32 role = GPURT_COOKIE_ROLE(c), shift = GPURT_COOKIE_SHIFT(c), dir;
	__u64 dst = arg(ctx, GPURT_COOKIE_ARG(c, 0)), b = arg(ctx, GPURT_COOKIE_ARG(c, 1));
	__u64 x = arg(ctx, GPURT_COOKIE_ARG(c, 2)), y = arg(ctx, GPURT_COOKIE_ARG(c, 3));
	__u64 src = b, bytes = x;

	if (role == GPURT_COPY) {
		dir = dir_of_kind(tgid, (__u32)y, dst, src);
	} else if (role == GPURT_COPY_2D) {
		bytes = x * y;
		dir = dir_of_kind(tgid, (__u32)arg(ctx, GPURT_COOKIE_ARG(c, 4)), dst, src);
	} else if (role >= GPURT_COPY_HTOD && role <= GPURT_COPY_HTOH) {
		dir = GPURT_DIR_HTOD + (role - GPURT_COPY_HTOD);
	} else if (role == GPURT_COPY_ANY) {
		dir = dir_of_pointers(tgid, dst, src);
	} else if (role == GPURT_COPY_DESC) {
		dir = copy_desc(tgid, dst, &dst, &src, &bytes);
	} else if (role == GPURT_SET) {
		bytes = b << shift;
		dir = GPURT_DIR_SET;
	} else if (role == GPURT_SET_2D) {
		bytes = (b << shift) * x;
		dir = GPURT_DIR_SET;
	} else {
		return 0;
	}
	if (dir >= GPURT_DIR_MAX)
		return 0;
	struct gpurt_copy *m = copy_of(tgid);
	if (!m)
		return 0;
	__sync_fetch_and_add(&m->calls[dir], 1);
	__sync_fetch_and_add(&m->bytes[dir], bytes);
	if (dir != GPURT_DIR_HTOD && dir != GPURT_DIR_DTOH)
		return 0;
	if (side_of(tgid, dir == GPURT_DIR_HTOD ? src : dst) == SIDE_PIN) {
		__sync_fetch_and_add(&m->pinned_calls, 1);
		__sync_fetch_and_add(&m->pinned_bytes, bytes);
	} else {
		__sync_fetch_and_add(&m->pageable_calls, 1);
		__sync_fetch_and_add(&m->pageable_bytes, bytes);
	}
	return 0;
}

#endif
