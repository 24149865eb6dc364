// SPDX-License-Identifier: GPL-2.0-only
/* Every task's run time and switch count, one record each, for procrun.c:
 * one read(2) of the iterator replaces a schedstat read per process. */
#include "vmlinux.h"

#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* procrun.c reads the same layout */
struct procrun_rec {
	__u32 tgid;
	__u32 tid;
	__u64 run_ns;	/* sum_exec_runtime */
	__u64 switches; /* voluntary and involuntary context switches */
};

SEC("iter/task")
int procrun_task(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	struct procrun_rec r;

	if (!t)
		return 0;
	r.tgid = (__u32)t->tgid;
	r.tid = (__u32)t->pid;
	r.run_ns = t->se.sum_exec_runtime;
	r.switches = t->nvcsw + t->nivcsw;
	bpf_seq_write(ctx->meta->seq, &r, sizeof(r));
	return 0;
}
