/* SPDX-License-Identifier: GPL-2.0-only */
/* gpurt: uprobe-multi links through the bpf(2) system call. libbpf 1.1 and
 * the uapi headers of the systems asys builds on predate them, so the
 * attach type and the part of BPF_LINK_CREATE's attributes it needs are
 * declared here, with the kernel's layout. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "env.h"
#include "gpurt_umulti.h"

enum {
	UMULTI_ATTACH_TYPE = 48, /* BPF_TRACE_UPROBE_MULTI */
	UMULTI_F_RETURN = 1,	 /* BPF_F_UPROBE_MULTI_RETURN */
	UMULTI_MAX = 1u << 20,	 /* the kernel's own bound on the count */
};

/* union bpf_attr's link_create with its uprobe_multi member */
struct umulti_attr {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t umulti_flags;
	uint32_t pid; /* 0: every process */
	uint32_t pad;
};

_Static_assert(sizeof(struct umulti_attr) == 64, "link_create's uprobe_multi layout");

static int link_create(int prog_fd, const char *path, const uint64_t *off, const uint64_t *cookies,
		       size_t n, bool ret)
{
	struct umulti_attr a;

	if (n == 0 || n > UMULTI_MAX)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)prog_fd;
	a.attach_type = UMULTI_ATTACH_TYPE;
	a.path = (uint64_t)(uintptr_t)path;
	a.offsets = (uint64_t)(uintptr_t)off;
	a.cookies = (uint64_t)(uintptr_t)cookies;
	a.cnt = (uint32_t)n;
	a.umulti_flags = ret ? UMULTI_F_RETURN : 0;
	long fd = syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : (int)fd;
}

/* A kernel that knows the attach type fails a link on "/" (not a regular
 * file) with EBADF; an older one refuses the type itself (EINVAL). */
static bool kernel_has_umulti(void)
{
	const struct bpf_insn insns[] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = (enum bpf_attach_type)UMULTI_ATTACH_TYPE);
	const uint64_t off = 0;
	int prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, 2, &o);
	if (prog < 0)
		return false;
	int fd = link_create(prog, "/", &off, NULL, 1, false);
	if (fd >= 0)
		close(fd);
	close(prog);
	return fd == -EBADF;
}

bool gpurt_umulti_supported(void)
{
	const char *env = env_get("ASYS_UPROBE_MULTI");

	if (env && strcmp(env, "0") == 0)
		return false;
	return kernel_has_umulti();
}

int gpurt_umulti_prepare(struct bpf_program *const *progs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int r = bpf_program__set_expected_attach_type(
		    progs[i], (enum bpf_attach_type)UMULTI_ATTACH_TYPE);
		if (r)
			return r;
	}
	return 0;
}

int gpurt_umulti_attach(const struct bpf_program *prog, const char *path, const uint64_t *off,
			const uint64_t *cookies, size_t n, bool ret)
{
	int pfd = bpf_program__fd(prog);

	if (pfd < 0)
		return pfd;
	return link_create(pfd, path, off, cookies, n, ret);
}
