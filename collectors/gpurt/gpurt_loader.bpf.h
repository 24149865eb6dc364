/* SPDX-License-Identifier: GPL-2.0-only */
/* gpurt, kernel side, included by gpurt.bpf.c: the programs that tell the
 * discovery thread (gpurt_watch.c) which processes to read, through the
 * `loader` ring. They use gpurt.bpf.c's maps and its wanted(). */
#ifndef ASYS_GPURT_LOADER_BPF_H
#define ASYS_GPURT_LOADER_BPF_H

/* The dynamic loader calls _dl_debug_state (the debuggers' breakpoint,
 * r_brk) before and after it maps the objects of a program at its start and
 * at each dlopen and dlclose. A uprobe there costs a few microseconds per
 * dlopen and nothing per system call, where a tracepoint on mmap's exit
 * would slow every system call of every process.
 *
 * Every process start calls it twice, so the hook decides here whether user
 * space needs to look: only once the list is consistent again, and only
 * when it holds more objects named like a runtime library than at the
 * process's last look. A build that starts a hundred compilers a second
 * then wakes nobody. */

/* file-name heads of the probe table (gpurt.h), set before load */
const volatile struct gpurt_head heads[GPURT_HEADS_MAX] = {};
const volatile __u32 nheads = 0;
const volatile bool heads_all = false; /* a glob starts with a wildcard */

#define LOADER_NAME_MAX 256  /* a path longer than this is cut: its head may not match */
#define LOADER_WALK_MAX 4096 /* objects in one list; past it user space looks */
#define AUXV_WORDS 64

/* The walk's state lives here, not on the stack: the verifier tracks a
 * count on the stack exactly and would check each bpf_loop turn apart. */
struct scratch {
	char name[LOADER_NAME_MAX];
	__u64 auxv[AUXV_WORDS];
	__u64 lm;    /* the next link_map entry */
	__u32 found; /* runtime-named objects so far */
	__u32 lost;  /* an entry could not be read */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

/* the dynamic loader files user space has seen (hooked or not) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, struct gpurt_file);
	__type(value, __u8);
} loaders_known SEC(".maps");

/* reports the ring had no room for; user space then reads every process
 * at its next scan */
volatile __u64 loader_lost = 0;

static __always_inline void loaded_emit(__u32 tgid, __u32 kind)
{
	struct gpurt_loaded ev = {.pid = tgid, .kind = kind};
	if (bpf_ringbuf_output(&loader, &ev, sizeof(ev), 0))
		__sync_fetch_and_add(&loader_lost, 1);
}

/* The file name in s->name[0..n): where its last component starts, then
 * whether that starts with one of the heads. Loops of bpf_loop, whose body
 * the verifier reads once. */
struct name_look {
	const struct scratch *s;
	__u32 n, base;
	bool hit;
};

static long slash_one(__u32 i, struct name_look *l)
{
	if (l->s->name[i & (LOADER_NAME_MAX - 1)] == '/')
		l->base = i + 1;
	return 0;
}

/* Eight bytes at a time under the head's mask: a branch per byte
 * multiplies the verifier's states past its limits. The name's bytes past
 * its end are never compared (base + len < n). */
static long head_one(__u32 h, struct name_look *l)
{
	const volatile struct gpurt_head *hd = &heads[h & (GPURT_HEADS_MAX - 1)];
	__u64 diff = 0;
	if (!hd->len || l->base + hd->len >= l->n) /* n counts the NUL */
		return 0;
#pragma unroll
	for (__u32 k = 0; k < GPURT_HEAD_MAX / 8; k++) {
		__u64 x = *(const __u64 *)&l->s->name[(l->base + 8 * k) & (LOADER_NAME_MAX - 1)];
		diff |= (x ^ hd->s[k]) & hd->mask[k];
	}
	if (diff)
		return 0;
	l->hit = true;
	return 1;
}

static __always_inline bool name_is_runtime(const struct scratch *s, long n)
{
	struct name_look l = {.s = s, .n = (__u32)n};
	if (n <= 1 || n > LOADER_NAME_MAX)
		return false;
	bpf_loop(l.n, slash_one, &l, 0);
	if (l.base + 1 >= l.n) /* "" (the program itself) or a directory */
		return false;
	if (heads_all)
		return true;
	bpf_loop(nheads, head_one, &l, 0);
	return l.hit;
}

/* the first fields of glibc's struct link_map (and musl's struct dso) */
struct user_link_map {
	__u64 l_addr, l_name, l_ld, l_next;
};

static long walk_one(__u32 i, void *unused)
{
	struct user_link_map m;
	__u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);

	if (!s || !s->lm)
		return 1;
	if (bpf_probe_read_user(&m, sizeof(m), (const void *)s->lm)) {
		s->lost = 1;
		return 1;
	}
	s->lm = m.l_next;
	long n = bpf_probe_read_user_str(s->name, sizeof(s->name), (const void *)m.l_name);
	if (n > 0 && name_is_runtime(s, n))
		s->found++;
	return 0;
}

/* glibc's struct r_debug, and r_next of struct r_debug_extended (r_version
 * 2, glibc 2.35 and later) */
struct user_r_debug {
	__s32 r_version;
	__u32 pad;
	__u64 r_map, r_brk;
	__s32 r_state; /* RT_CONSISTENT = 0, RT_ADD = 1, RT_DELETE = 2 */
	__u32 pad2;
	__u64 r_ldbase, r_next;
};

/* Whether the loader's list (its r_debug at addr) has more runtime-named
 * objects than at the process's last look; true whenever it cannot tell. */
static __always_inline bool loader_news(__u32 tgid, __u64 addr)
{
	struct user_r_debug r;
	if (bpf_probe_read_user(&r, sizeof(r), (const void *)addr))
		return true;
	if (r.r_state != 0)
		return false; /* the consistent call that follows is the one to read */
	if (r.r_version >= 2 && r.r_next)
		return true; /* dlmopen namespaces: their lists are not walked here */
	__u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return true;
	s->lm = r.r_map;
	s->found = s->lost = 0;
	bpf_loop(LOADER_WALK_MAX, walk_one, NULL, 0);
	if (s->lm || s->lost)
		return true; /* a list longer than the walk, or unreadable */
	__u32 found = s->found;
	__u32 *old = bpf_map_lookup_elem(&rt_objs, &tgid);
	if (!found) {
		if (old)
			bpf_map_delete_elem(&rt_objs, &tgid);
		return false;
	}
	if (old && *old >= found) {
		*old = found; /* a dlclose */
		return false;
	}
	bpf_map_update_elem(&rt_objs, &tgid, &found, BPF_ANY);
	return true;
}

SEC("uprobe")
int BPF_KPROBE(gpurt_on_loader)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	if (!wanted(tgid))
		return 0;
	__s64 delta = (__s64)bpf_get_attach_cookie(ctx);
	/* at a uprobe the IP is the probed address: _dl_debug_state */
	if (delta && !loader_news(tgid, PT_REGS_IP(ctx) + delta))
		return 0;
	loaded_emit(tgid, GPURT_LOADED_OBJECTS);
	return 0;
}

static long vma_file(struct task_struct *task, struct vm_area_struct *vma, struct gpurt_file *f)
{
	struct file *file = vma->vm_file;
	if (file) {
		f->dev = file->f_inode->i_sb->s_dev;
		f->ino = file->f_inode->i_ino;
	}
	return 0;
}

/* A loader run as the program (`ld.so PROG`, no AT_BASE): true, with its
 * file in f, when the program's file is named like one ("ld-*"). */
static __always_inline bool exe_is_loader(struct mm_struct *mm, struct gpurt_file *f)
{
	struct file *exe = mm->exe_file;
	char head[4] = {};
	if (!exe || bpf_probe_read_kernel(head, 3, exe->f_path.dentry->d_name.name) ||
	    head[0] != 'l' || head[1] != 'd' || head[2] != '-')
		return false;
	f->dev = exe->f_inode->i_sb->s_dev;
	f->ino = exe->f_inode->i_ino;
	return true;
}

/* A program starts: when its dynamic loader (mapped at AT_BASE) is a file
 * user space has not seen (a container's, musl's), user space reads the
 * maps and hooks that loader (also one run as the program itself). A known
 * loader or a static program costs a lookup here and nothing else. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(gpurt_on_exec, struct task_struct *p)
{
	__u32 tgid = p->tgid, zero = 0;
	bpf_map_delete_elem(&rt_objs, &tgid);
	if (!wanted(tgid))
		return 0;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	struct mm_struct *mm = p->mm;
	if (!s || !mm)
		return 0;
	__u32 size =
	    sizeof(mm->saved_auxv) < sizeof(s->auxv) ? sizeof(mm->saved_auxv) : sizeof(s->auxv);
	if (bpf_probe_read_kernel(s->auxv, size, mm->saved_auxv))
		return 0;
	__u64 base = 0;
	for (__u32 i = 0; i + 1 < AUXV_WORDS; i += 2) {
		if (s->auxv[i] == 0) /* AT_NULL */
			break;
		if (s->auxv[i] == 7) { /* AT_BASE */
			base = s->auxv[i + 1];
			break;
		}
	}
	struct gpurt_file f = {};
	if (base) {
		bpf_find_vma(p, base, vma_file, &f, 0);
	} else if (!exe_is_loader(mm, &f)) {
		return 0; /* a static program */
	}
	if (f.ino && bpf_map_lookup_elem(&loaders_known, &f))
		return 0;
	loaded_emit(tgid, GPURT_LOADED_EXEC);
	return 0;
}

#endif
