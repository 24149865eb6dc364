/* SPDX-License-Identifier: GPL-2.0-only */
/* gpurt, kernel side, included by gpurt.bpf.c: NVTX v2 ranges from uprobes
 * on libnvToolsExt.so.1 (processes not started under asys, which cannot be
 * given the injection library). A push notes its time on the thread's
 * stack, a pop times it and adds it to the (process, name) aggregate: count,
 * total, self (less the time of the ranges pushed inside it), and the
 * shortest and longest of the refresh. A start notes its time under the id
 * the library returns, an end times it. User space reads the aggregates each
 * refresh. */
#ifndef ASYS_GPURT_NVTX_BPF_H
#define ASYS_GPURT_NVTX_BPF_H

struct range_frame {
	__u64 ts, child_ns, hash;
	__u32 color, pad;
};

struct range_stack {
	__u32 depth; /* pushes not popped, also past GPURT_RANGE_DEPTH */
	__u32 pad;
	struct range_frame f[GPURT_RANGE_DEPTH];
};

/* a range started and not ended, under (pid, id) */
struct range_open {
	__u64 ts, hash;
	__u32 color, depth;
};

/* the refresh the min and max slots belong to; user space bumps it */
volatile __u32 range_epoch = 0;

/* per thread (the kernel's pid); deleted at the thread's exit */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct range_stack);
} range_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, struct gpurt_range_key);
	__type(value, struct gpurt_range);
} ranges SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, struct gpurt_range_key);
	__type(value, struct gpurt_range_name);
} range_names SEC(".maps");

/* an id that is never ended is pushed out by newer ones */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct gpurt_range_key);
	__type(value, struct range_open);
} range_ids SEC(".maps");

struct range_scratch {
	struct gpurt_range_name name;
	__u8 attr[48];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct range_stack);
} range_zero SEC(".maps"); /* [0]: a zero stack, never written; [1]: scratch */

/* nvtxEventAttributes_t (v2, 48 bytes): colorType at 8, color at 12,
 * messageType at 32, message at 40 */
#define ATTR_COLOR_TYPE 8
#define ATTR_COLOR 12
#define ATTR_MESSAGE_TYPE 32
#define ATTR_MESSAGE 40
#define COLOR_ARGB 1
#define MESSAGE_ASCII 1

static __always_inline struct range_scratch *range_scratch(void)
{
	__u32 one = 1;
	return bpf_map_lookup_elem(&range_zero, &one);
}

/* FNV-1a over the name read into sc; "?" when it cannot be read. The name
 * is kept per (pid, hash) the first time. */
static __always_inline __u64 range_name(__u32 tgid, struct range_scratch *sc, const void *msg)
{
	long len = msg ? bpf_probe_read_user_str(sc->name.s, sizeof(sc->name.s), msg) : -1;
	__u64 h = 0xcbf29ce484222325ull;

	if (len <= 1) {
		sc->name.s[0] = '?';
		sc->name.s[1] = '\0';
		len = 2;
	}
	for (int i = 0; i < GPURT_RANGE_NAME - 1; i++) {
		if (i >= len - 1)
			break;
		h = (h ^ (__u8)sc->name.s[i]) * 0x100000001b3ull;
	}
	struct gpurt_range_key k = {.pid = tgid, .hash = h};
	if (!bpf_map_lookup_elem(&range_names, &k))
		bpf_map_update_elem(&range_names, &k, &sc->name, BPF_NOEXIST);
	return h;
}

/* The name and colour of a range from its message (MSG) or its attributes
 * (ATTR: only an ASCII message names it). */
static __always_inline __u64 range_ident(__u32 tgid, __u64 p, bool ex, __u32 *color)
{
	struct range_scratch *sc = range_scratch();
	const void *msg = (const void *)p;

	*color = GPURT_NO_COLOR;
	if (!sc)
		return 0;
	if (ex) {
		msg = NULL;
		if (!bpf_probe_read_user(sc->attr, sizeof(sc->attr), (const void *)p)) {
			if (*(__s32 *)(sc->attr + ATTR_COLOR_TYPE) == COLOR_ARGB)
				*color = *(__u32 *)(sc->attr + ATTR_COLOR) & 0xffffff;
			if (*(__s32 *)(sc->attr + ATTR_MESSAGE_TYPE) == MESSAGE_ASCII)
				msg = *(const void **)(sc->attr + ATTR_MESSAGE);
		}
	}
	return range_name(tgid, sc, msg);
}

static __always_inline struct range_stack *stack_of(__u32 tid, bool create)
{
	struct range_stack *s = bpf_map_lookup_elem(&range_stacks, &tid);
	__u32 zero = 0;

	if (s || !create)
		return s;
	s = bpf_map_lookup_elem(&range_zero, &zero);
	if (!s)
		return NULL;
	bpf_map_update_elem(&range_stacks, &tid, s, BPF_NOEXIST);
	return bpf_map_lookup_elem(&range_stacks, &tid);
}

static __always_inline void range_add(__u32 tgid, __u64 hash, __u64 dur, __u64 self, __u32 depth,
				      __u32 color)
{
	struct gpurt_range_key k = {.pid = tgid, .hash = hash};
	struct gpurt_range *r = bpf_map_lookup_elem(&ranges, &k);
	if (!r) {
		/* no slot belongs to an epoch yet */
		struct gpurt_range zero = {.epoch = {~0u, ~0u}, .color = GPURT_NO_COLOR};
		bpf_map_update_elem(&ranges, &k, &zero, BPF_NOEXIST);
		r = bpf_map_lookup_elem(&ranges, &k);
		if (!r)
			return;
	}
	__u32 epoch = range_epoch, slot = epoch & 1;
	__sync_fetch_and_add(&r->count, 1);
	__sync_fetch_and_add(&r->total_ns, dur);
	__sync_fetch_and_add(&r->self_ns, self);
	if (r->epoch[slot] != epoch) {
		r->epoch[slot] = epoch;
		r->min_ns[slot] = dur;
		r->max_ns[slot] = dur;
	} else {
		if (dur < r->min_ns[slot])
			r->min_ns[slot] = dur;
		if (dur > r->max_ns[slot])
			r->max_ns[slot] = dur;
	}
	r->depth = depth;
	r->color = color;
}

static __always_inline void range_push(__u32 tgid, __u32 tid, __u64 p, bool ex)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 color;
	__u64 h = range_ident(tgid, p, ex, &color);
	struct range_stack *s = stack_of(tid, true);
	if (!s)
		return;
	__u32 d = s->depth;
	if (d < GPURT_RANGE_DEPTH) {
		struct range_frame *f = &s->f[d & (GPURT_RANGE_DEPTH - 1)];
		f->ts = now;
		f->child_ns = 0;
		f->hash = h;
		f->color = color;
	}
	s->depth = d + 1;
}

static __always_inline void range_pop(__u32 tgid, __u32 tid)
{
	__u64 now = bpf_ktime_get_ns();
	struct range_stack *s = stack_of(tid, false);
	if (!s || !s->depth)
		return;
	__u32 d = --s->depth;
	if (d >= GPURT_RANGE_DEPTH)
		return; /* pushed past the depth kept: not timed */
	struct range_frame *f = &s->f[d & (GPURT_RANGE_DEPTH - 1)];
	__u64 dur = now - f->ts, self = dur > f->child_ns ? dur - f->child_ns : 0;
	if (d > 0)
		s->f[(d - 1) & (GPURT_RANGE_DEPTH - 1)].child_ns += dur;
	range_add(tgid, f->hash, dur, self, d, f->color);
}

/* The key of a started range. The library returns id 0 when no tool of its
 * own is loaded: such a range is matched with the next end of id 0 on the
 * same thread. */
static __always_inline __u64 range_id_key(__u64 id, __u32 tid)
{
	return id ? id : 1ull << 63 | tid;
}

static __always_inline void range_end(__u32 tgid, __u32 tid, __u64 id)
{
	struct gpurt_range_key k = {.pid = tgid, .hash = range_id_key(id, tid)};
	struct range_open *o = bpf_map_lookup_elem(&range_ids, &k);
	if (!o)
		return;
	__u64 dur = bpf_ktime_get_ns() - o->ts;
	/* a start/end range is not nested in the push stack: all its time is
	 * its own */
	range_add(tgid, o->hash, dur, dur, o->depth, o->color);
	bpf_map_delete_elem(&range_ids, &k);
}

/* At the return of a start: its id, with the time taken at entry. */
static __always_inline void range_start(__u32 tgid, __u32 tid, const struct inflight *in, __u64 id)
{
	struct range_open o = {.ts = in->ts};
	o.hash = range_ident(tgid, in->a1, GPURT_COOKIE_ROLE(in->cookie) == GPURT_RANGE_START_EX,
			     &o.color);
	struct range_stack *s = stack_of(tid, false);
	o.depth = s ? s->depth : 0;
	struct gpurt_range_key k = {.pid = tgid, .hash = range_id_key(id, tid)};
	bpf_map_update_elem(&range_ids, &k, &o, BPF_ANY);
}

SEC("uprobe")
int BPF_KPROBE(gpurt_on_range)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	if (!wanted(tgid))
		return 0;
	__u64 c = bpf_get_attach_cookie(ctx);
	__u32 role = GPURT_COOKIE_ROLE(c);
	__u64 a = arg(ctx, GPURT_COOKIE_A1(c));

	if (role == GPURT_RANGE_PUSH || role == GPURT_RANGE_PUSH_EX)
		range_push(tgid, tid, a, role == GPURT_RANGE_PUSH_EX);
	else if (role == GPURT_RANGE_POP)
		range_pop(tgid, tid);
	else if (role == GPURT_RANGE_END)
		range_end(tgid, tid, a);
	return 0;
}

#endif
