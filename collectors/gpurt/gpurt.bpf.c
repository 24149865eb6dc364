// SPDX-License-Identifier: GPL-2.0-only
/* gpurt, kernel side: uprobes on the PPU runtime libraries count device and
 * pinned allocations, failures and kernel launches in hash maps. User space
 * reads the aggregates each refresh; there is no event per call, because a
 * uprobe hit already costs microseconds.
 *
 * One program per kind of work; the role and the argument numbers of each
 * attached symbol come in the attach cookie (see gpurt.h), so the probe
 * table stays data and needs no rebuild.
 *
 * Two rings carry what cannot wait for the next read: the counts of a process
 * whose last thread ended (`exits`), and the news that a followed process
 * loaded a runtime library or started with a dynamic loader not seen yet
 * (`loader`, gpurt_loader.bpf.h), so user space attaches to a runtime
 * library within milliseconds of its dlopen instead of at the next scan of
 * /proc. */
#include <vmlinux.h> /* generated in collectors/gen, else the committed copy */
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "gpurt.h"

char LICENSE[] SEC("license") = "GPL";

const volatile bool filter_pids = false; /* process-tree mode: only `targets` */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct gpurt_mem);
} mem SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1 << 20);
	__type(key, struct gpurt_ptr_key);
	__type(value, struct gpurt_ptr_val);
} ptrs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, struct gpurt_launch_key);
	__type(value, __u64);
} launches SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, struct gpurt_handle_key);
	__type(value, struct gpurt_name);
} names SEC(".maps");

/* processes with keys in `launches`: the exit tracepoint looks there first,
 * so the exit of any other process costs one lookup */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} launch_pids SEC(".maps");

/* per process: the runtime-named objects in its loader's list at its last
 * look (deleted at exec and exit) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u32);
} rt_objs SEC(".maps");

/* struct gpurt_exit records; 1 MiB holds over 10,000 kernels' counts
 * between two drains */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} exits SEC(".maps");

/* struct gpurt_loaded records: 16 bytes each with the header, so 16 KiB
 * holds 1,024, four times what the watch thread takes in one batch (the
 * rest waits for the scan). Mapped for the whole run, twice over. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 10);
} loader SEC(".maps");

/* where each host stub of `launches` lies (same keys) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, struct gpurt_launch_key);
	__type(value, struct gpurt_where);
} stub_where SEC(".maps");

/* Arguments saved at entry for the return probe, per thread. A runtime
 * allocation that calls the driver's on the same thread overwrites the
 * entry, and the inner return consumes it: the pair is counted once. */
struct inflight {
	__u64 a1;
	__u64 a2;
	__u64 cookie;
	__u64 ts; /* at entry: a range's start */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct inflight);
} calls SEC(".maps");

/* Argument n (1..8) of a call at its entry. The six in registers are read
 * first: a switch would let clang compute a variable context offset, which
 * the verifier rejects. The 7th and 8th are on the stack, above the return
 * address. */
static __always_inline __u64 arg(struct pt_regs *ctx, __u32 n)
{
	if (n >= 7 && n <= 8) {
		__u64 v = 0;
		bpf_probe_read_user(&v, sizeof(v), (const void *)(PT_REGS_SP(ctx) + 8 * (n - 6)));
		return v;
	}
	__u64 v1 = PT_REGS_PARM1(ctx), v2 = PT_REGS_PARM2(ctx), v3 = PT_REGS_PARM3(ctx);
	__u64 v4 = PT_REGS_PARM4(ctx), v5 = PT_REGS_PARM5(ctx);
	__u64 v6 = ctx->r9; /* libbpf 1.1 has no PT_REGS_PARM6; x86-64 */
	barrier_var(v1);
	barrier_var(v2);
	barrier_var(v3);
	barrier_var(v4);
	barrier_var(v5);
	barrier_var(v6);
	return n == 1	? v1
	       : n == 2 ? v2
	       : n == 3 ? v3
	       : n == 4 ? v4
	       : n == 5 ? v5
	       : n == 6 ? v6
			: 0;
}

static __always_inline bool wanted(__u32 tgid)
{
	return !filter_pids || bpf_map_lookup_elem(&targets, &tgid);
}

static __always_inline struct gpurt_mem *mem_of(__u32 tgid)
{
	struct gpurt_mem *m = bpf_map_lookup_elem(&mem, &tgid);
	if (m)
		return m;
	struct gpurt_mem zero = {};
	bpf_map_update_elem(&mem, &tgid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&mem, &tgid);
}

SEC("uprobe")
int BPF_KPROBE(gpurt_save_args)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!wanted(id >> 32))
		return 0;
	__u64 c = bpf_get_attach_cookie(ctx);
	struct inflight in = {
	    .a1 = arg(ctx, GPURT_COOKIE_A1(c)),
	    .a2 = arg(ctx, GPURT_COOKIE_A2(c)),
	    .cookie = c,
	    .ts = bpf_ktime_get_ns(),
	};
	bpf_map_update_elem(&calls, &id, &in, BPF_ANY);
	return 0;
}

static __always_inline void on_alloc(__u32 tgid, __u32 role, const struct inflight *in, int rc)
{
	struct gpurt_mem *m = mem_of(tgid);
	if (!m)
		return;
	if (rc != 0) {
		__sync_fetch_and_add(&m->fails, 1);
		m->last_fail_size = in->a2;
		m->last_fail_ns = bpf_ktime_get_ns();
		return;
	}
	struct gpurt_ptr_key k = {.pid = tgid};
	if (role == GPURT_PIN_REGISTER)
		k.ptr = in->a1;
	else if (bpf_probe_read_user(&k.ptr, sizeof(k.ptr), (const void *)in->a1))
		return;
	struct gpurt_ptr_val v = {
	    .size = in->a2,
	    .kind = role == GPURT_DEV_ALLOC ? GPURT_KIND_DEV : GPURT_KIND_PIN,
	};
	/* a pointer handed out twice means we missed its free: count it once */
	struct gpurt_ptr_val *old = bpf_map_lookup_elem(&ptrs, &k);
	if (old) {
		if (old->kind == GPURT_KIND_DEV)
			__sync_fetch_and_sub(&m->device_bytes, old->size);
		else
			__sync_fetch_and_sub(&m->pinned_bytes, old->size);
	}
	if (bpf_map_update_elem(&ptrs, &k, &v, BPF_ANY))
		return;
	if (v.kind == GPURT_KIND_DEV)
		__sync_fetch_and_add(&m->device_bytes, v.size);
	else
		__sync_fetch_and_add(&m->pinned_bytes, v.size);
	__sync_fetch_and_add(&m->allocs, 1);
}

static __always_inline void on_name(__u32 tgid, __u32 role, const struct inflight *in)
{
	struct gpurt_handle_key k = {.pid = tgid};
	if (bpf_probe_read_user(&k.handle, sizeof(k.handle), (const void *)in->a1) || !k.handle)
		return;
	if (role == GPURT_NAME_HANDLE) {
		struct gpurt_name n = {};
		if (bpf_probe_read_user_str(n.name, sizeof(n.name), (const void *)in->a2) <= 0)
			return;
		bpf_map_update_elem(&names, &k, &n, BPF_ANY);
	} else {
		struct gpurt_handle_key src = {.pid = tgid, .handle = in->a2};
		struct gpurt_name *n = bpf_map_lookup_elem(&names, &src);
		if (n)
			bpf_map_update_elem(&names, &k, n, BPF_ANY);
	}
}

/* NVTX v2 ranges (their start is timed from gpurt_save_args) */
#include "gpurt_hgtx.bpf.h"

SEC("uretprobe")
int BPF_KRETPROBE(gpurt_on_return, long ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct inflight *p = bpf_map_lookup_elem(&calls, &id);
	if (!p)
		return 0;
	struct inflight in = *p;
	bpf_map_delete_elem(&calls, &id);
	__u32 role = GPURT_COOKIE_ROLE(in.cookie);
	int rc = (int)ret; /* cudaError_t and CUresult are C enums */
	if (role == GPURT_DEV_ALLOC || role == GPURT_PIN_ALLOC || role == GPURT_PIN_REGISTER)
		on_alloc(id >> 32, role, &in, rc);
	else if ((role == GPURT_NAME_HANDLE || role == GPURT_NAME_COPY) && rc == 0)
		on_name(id >> 32, role, &in);
	else if (role == GPURT_RANGE_START || role == GPURT_RANGE_START_EX)
		range_start(id >> 32, (__u32)id, &in, (__u64)ret);
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(gpurt_on_free)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	if (!wanted(tgid))
		return 0;
	__u64 c = bpf_get_attach_cookie(ctx);
	struct gpurt_ptr_key k = {.pid = tgid, .ptr = arg(ctx, GPURT_COOKIE_A1(c))};
	struct gpurt_ptr_val *v = bpf_map_lookup_elem(&ptrs, &k);
	if (!v)
		return 0;
	struct gpurt_mem *m = mem_of(tgid);
	if (m) {
		if (v->kind == GPURT_KIND_DEV)
			__sync_fetch_and_sub(&m->device_bytes, v->size);
		else
			__sync_fetch_and_sub(&m->pinned_bytes, v->size);
		__sync_fetch_and_add(&m->frees, 1);
	}
	bpf_map_delete_elem(&ptrs, &k);
	return 0;
}

/* A runtime launch (by stub) may call the driver's launch (by handle): that
 * inner launch is the same kernel and is not counted again. It is told apart
 * exactly by where it returns to: into a library with stub-launch probes
 * (user space fills stub_libs with their device and inode). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, struct gpurt_file);
	__type(value, __u8);
} stub_libs SEC(".maps");

static long lib_kinds(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct file *f = vma->vm_file;
	if (!f)
		return 0;
	struct gpurt_file key = {.dev = f->f_inode->i_sb->s_dev, .ino = f->f_inode->i_ino};
	__u8 *k = bpf_map_lookup_elem(&stub_libs, &key);
	*(__u8 *)data = k ? *k : 0;
	return 0;
}

/* Whether the call was made from a library with probes of kind (GPURT_LIB_) */
static __always_inline bool called_from(struct pt_regs *ctx, __u8 kind)
{
	__u64 ret = 0;
	__u8 kinds = 0;
	/* at function entry the return address is on top of the stack */
	if (bpf_probe_read_user(&ret, sizeof(ret), (const void *)PT_REGS_SP(ctx)))
		return false;
	bpf_find_vma(bpf_get_current_task_btf(), ret, lib_kinds, &kinds, 0);
	return kinds & kind;
}

/* memory copies and memsets */
#include "gpurt_copy.bpf.h"

static long stub_file(struct task_struct *task, struct vm_area_struct *vma, struct gpurt_where *w)
{
	struct file *f = vma->vm_file;
	if (!f)
		return 0;
	w->file.dev = f->f_inode->i_sb->s_dev;
	w->file.ino = f->f_inode->i_ino;
	w->off = w->off - vma->vm_start + (vma->vm_pgoff << 12);
	return 0;
}

/* A stub's first launch: note its file and offset. */
static __always_inline void note_where(const struct gpurt_launch_key *k)
{
	struct gpurt_where w = {.off = k->addr};
	bpf_find_vma(bpf_get_current_task_btf(), k->addr, stub_file, &w, 0);
	if (w.file.ino)
		bpf_map_update_elem(&stub_where, k, &w, BPF_ANY);
}

SEC("uprobe")
int BPF_KPROBE(gpurt_on_launch)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	if (!wanted(tgid))
		return 0;
	__u64 c = bpf_get_attach_cookie(ctx);
	bool by_handle = GPURT_COOKIE_ROLE(c) == GPURT_LAUNCH_HANDLE;
	if (by_handle && called_from(ctx, GPURT_LIB_STUBS))
		return 0;
	struct gpurt_launch_key k = {
	    .pid = tgid,
	    .by = by_handle ? GPURT_LAUNCH_BY_HANDLE : GPURT_LAUNCH_BY_STUB,
	    .addr = arg(ctx, GPURT_COOKIE_A1(c)),
	};
	__u64 *n = bpf_map_lookup_elem(&launches, &k);
	if (n) {
		__sync_fetch_and_add(n, 1);
		return 0;
	}
	__u64 one = 1;
	if (bpf_map_update_elem(&launches, &k, &one, BPF_NOEXIST)) {
		n = bpf_map_lookup_elem(&launches, &k); /* another thread made it */
		if (n)
			__sync_fetch_and_add(n, 1);
		return 0;
	}
	__u8 yes = 1;
	bpf_map_update_elem(&launch_pids, &tgid, &yes, BPF_ANY);
	if (!by_handle)
		note_where(&k);
	return 0;
}

/* Process-tree mode: children of a followed process are followed too. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(gpurt_on_fork, struct task_struct *parent, struct task_struct *child)
{
	if (!filter_pids)
		return 0;
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	if (ptgid == ctgid || !bpf_map_lookup_elem(&targets, &ptgid))
		return 0;
	__u8 one = 1;
	bpf_map_update_elem(&targets, &ctgid, &one, BPF_ANY);
	return 0;
}

struct exit_walk {
	__u32 pid;
	__u32 lost;
};

/* Moves one kernel's count of the exiting process into the ring. Without
 * room it stays in the map, where user space reads it before it sweeps. */
static long move_launch(struct bpf_map *map, struct gpurt_launch_key *k, __u64 *n,
			struct exit_walk *w)
{
	if (k->pid != w->pid)
		return 0;
	struct gpurt_exit *e = bpf_ringbuf_reserve(&exits, sizeof(*e), 0);
	if (!e) {
		w->lost = 1;
		return 0;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->kind = GPURT_EXIT_LAUNCHES;
	e->pid = w->pid;
	e->key = *k;
	e->count = *n;
	struct gpurt_where *wh = bpf_map_lookup_elem(&stub_where, k);
	if (wh) {
		e->where = *wh;
		bpf_map_delete_elem(&stub_where, k);
	}
	bpf_ringbuf_submit(e, 0);
	bpf_map_delete_elem(map, k);
	return 0;
}

/* The last thread of a process ends (signal->live has reached 0, so no
 * thread can run a probe again): its counts move to the `exits` ring, read
 * and emitted by user space as the process's last samples. Counts left for
 * user space to find at its next read would be lost when the process ends
 * between two reads, and a recording of `-- cmd` ends with the command. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(gpurt_on_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid, tid = p->pid;
	/* a thread's range stack ends with it */
	bpf_map_delete_elem(&range_stacks, &tid);
	if (p->signal->live.counter != 0)
		return 0;
	bpf_map_delete_elem(&targets, &tgid);
	bpf_map_delete_elem(&rt_objs, &tgid);
	bool had_launches = false;
	if (bpf_map_lookup_elem(&launch_pids, &tgid))
		had_launches = true;
	/* else clang ORs the two pointers, which the verifier refuses */
	barrier_var(had_launches);
	struct gpurt_mem *m = bpf_map_lookup_elem(&mem, &tgid);
	if (!had_launches && !m)
		return 0;
	struct exit_walk w = {.pid = tgid};
	if (had_launches) {
		bpf_for_each_map_elem(&launches, move_launch, &w, 0);
		bpf_map_delete_elem(&launch_pids, &tgid);
	}
	struct gpurt_exit *e = bpf_ringbuf_reserve(&exits, sizeof(*e), 0);
	if (!e)
		return 0; /* user space finds the process gone and reads the maps */
	__builtin_memset(e, 0, sizeof(*e));
	e->kind = GPURT_EXIT_END;
	e->pid = tgid;
	e->count = w.lost;
	if (m) {
		e->mem = *m;
		e->has_mem = 1;
	}
	bpf_ringbuf_submit(e, 0);
	if (m && !w.lost)
		bpf_map_delete_elem(&mem, &tgid);
	return 0;
}

/* the discovery's programs: the loader hook and the exec tracepoint */
#include "gpurt_loader.bpf.h"
