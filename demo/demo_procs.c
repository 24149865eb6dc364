/* SPDX-License-Identifier: GPL-2.0-only */
/* The memory and runtime streams of the demo: host memory (mem.sys) twice a
 * second, and once a second the processes (mem.proc, and their CPU time,
 * state and nice in proc.cpu), their device and
 * pinned memory with rank 5's failed allocations (gpurt.mem), their
 * kernel launches (gpurt.kernels) and memory copies (gpurt.copy). */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "demo.h"
#include "util.h"

#define HOST_TOTAL (1024 * GIB)
#define NWORKERS 2	      /* data-loading workers per rank */
#define FAIL_RANK 5	      /* the rank whose device is nearly full */
#define FAIL_SIZE (2.0 * GIB) /* what it asked for, and did not get */
/* The job's user: a uid that few machines name, since the viewer's own
 * password database names it (uid 1000 would be the viewer) */
#define JOB_UID 1500

/* The job began two hours and a quarter before the first record. */
#define JOB_START_S (DEMO_UPTIME_S - 8100)

struct proc {
	unsigned int pid, ppid, uid, threads;
	double rss; /* bytes, before the job's own growth */
	const char *cmd;
	double user, sys; /* CPU seconds it takes a second, now */
	double start;	  /* seconds after boot, as /proc/PID/stat's */
	char state;	  /* as /proc/PID/stat's: R, S, D */
};

/* The rest of the machine, besides the job. */
static const struct proc others[] = {
    {1, 0, 0, 1, 13.2e6, "/sbin/init", 0.0004, 0.0008, 0.9, 'S'},
    {742, 1, 0, 1, 61.0e6, "/lib/systemd/systemd-journald", 0.002, 0.003, 1.6, 'S'},
    {1318, 1, 0, 1, 9.4e6, "sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups", 2e-5, 1e-5,
     4.2, 'S'},
    {1406, 1, 65534, 9, 38.5e6, "/usr/local/bin/node_exporter", 0.004, 0.002, 4.8, 'S'},
    {2251, 1, 0, 41, 412.0e6, "/usr/bin/dockerd -H fd://", 0.009, 0.004, 5.3, 'S'},
    {48190, 1318, JOB_UID, 6, 583.0e6,
     "torchrun --nproc-per-node 8 train.py --config llama-13b.yaml", 0.003, 0.001, JOB_START_S,
     'S'},
};

struct kernel {
	const char *name;
	double compute, comm, ckpt, input; /* launches per second in each phase */
};

static const struct kernel kernels[] = {
    {"gemm_bf16_tn_128x256x64_warpgroup_persistent", 2600, 120, 0, 0},
    {"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4>>(Flash_fwd_params)", 420, 0, 0,
     0},
    {"void flash_bwd_dq_dk_dv_loop_kernel<Flash_bwd_kernel_traits<128, 64, 128, 8>>"
     "(Flash_bwd_params)",
     840, 0, 0, 0},
    {"void rms_norm_kernel<c10::BFloat16, float>(RMSNormParams)", 1700, 0, 0, 0},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>", 3100,
     400, 10, 200},
    {"pcclAllReduceRingLLKernel_sum_bf16", 0, 160, 0, 0},
    {"void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>>", 0, 0, 0, 900},
    {"void at::native::unrolled_elementwise_kernel<copy_device_to_device>", 30, 0, 320, 0},
};

_Static_assert(ARRAY_SIZE(kernels) == DEMO_NKERNELS, "struct demo counts DEMO_NKERNELS");
_Static_assert(ARRAY_SIZE(others) + DEMO_NRANK * (1 + NWORKERS) == DEMO_NPROCS,
	       "struct demo keeps a high-water mark for DEMO_NPROCS processes");

static void procs_sys(struct demo *d, uint64_t tick)
{
	double t = demo_secs(tick), v[STREAM_MAX_FIELDS];
	/* the page cache grows with each checkpoint written */
	double ckpts = floor((t + 7) / 45), cached = (176 + 38 * ckpts) * GIB;
	double apps = (418 + 3 * sin(t / 7)) * GIB, buffers = 2.3 * GIB, srec = 11.8 * GIB;
	double free = HOST_TOTAL - apps - buffers - cached - srec;
	double available = free + cached * 0.8 + srec;

	demo_clear(v);
	demo_set(d, DS_MEM_SYS, v, MEM_SYS_TOTAL, HOST_TOTAL);
	demo_set(d, DS_MEM_SYS, v, MEM_SYS_FREE, free);
	demo_set(d, DS_MEM_SYS, v, MEM_SYS_AVAILABLE, available);
	demo_set(d, DS_MEM_SYS, v, MEM_SYS_BUFFERS, buffers);
	demo_set(d, DS_MEM_SYS, v, MEM_SYS_CACHED, cached);
	/* as the mem collector counts them, after free(1) */
	demo_set(d, DS_MEM_SYS, v, MEM_SYS_USED, HOST_TOTAL - available);
	demo_set(d, DS_MEM_SYS, v, MEM_SYS_BUFF_CACHE, buffers + cached + srec);
	demo_set(d, DS_MEM_SYS, v, MEM_SYS_SWAP_TOTAL, 0);
	demo_set(d, DS_MEM_SYS, v, MEM_SYS_SWAP_FREE, 0);
	demo_set(d, DS_MEM_SYS, v, MEM_SYS_SHMEM, 46.0 * GIB);
	demo_set(d, DS_MEM_SYS, v, MEM_SYS_SRECLAIMABLE, srec);
	demo_emit(d, DS_MEM_SYS, 0, tick, v);
}

/* proc.cpu: the CPU seconds so far, in the kernel's clock ticks (1/100 s),
 * which at the first record are what the process took since it began. */
static void proc_cpu_emit(struct demo *d, uint64_t tick, int slot, const struct proc *p, bool first)
{
	double v[STREAM_MAX_FIELDS], *t = d->proc_cpu[slot],
				     since = first ? DEMO_UPTIME_S - p->start : 1.0;

	t[0] += p->user * since;
	t[1] += p->sys * since;
	demo_clear(v);
	demo_set(d, DS_PROC_CPU, v, PROC_CPU_UTIME, floor(t[0] * 100) / 100);
	demo_set(d, DS_PROC_CPU, v, PROC_CPU_STIME, floor(t[1] * 100) / 100);
	demo_set(d, DS_PROC_CPU, v, PROC_CPU_STATE, (unsigned char)p->state);
	demo_set(d, DS_PROC_CPU, v, PROC_CPU_NICE, 0);
	demo_set(d, DS_PROC_CPU, v, PROC_CPU_KTHREAD, 0);
	demo_set(d, DS_PROC_CPU, v, PROC_CPU_START, p->start);
	demo_emit(d, DS_PROC_CPU, p->pid, tick, v);
}

static void proc_emit(struct demo *d, uint64_t tick, int slot, const struct proc *p, bool first)
{
	double v[STREAM_MAX_FIELDS], rss = floor(p->rss / 4096) * 4096;

	if (first)
		demo_label(d, DS_MEM_PROC, p->pid, tick, p->cmd);
	if (rss > d->rss_hwm[slot])
		d->rss_hwm[slot] = rss;
	demo_clear(v);
	demo_set(d, DS_MEM_PROC, v, MEM_PROC_RSS, rss);
	demo_set(d, DS_MEM_PROC, v, MEM_PROC_HWM, d->rss_hwm[slot]);
	demo_set(d, DS_MEM_PROC, v, MEM_PROC_UID, p->uid);
	demo_set(d, DS_MEM_PROC, v, MEM_PROC_PPID, p->ppid);
	demo_set(d, DS_MEM_PROC, v, MEM_PROC_THREADS, p->threads);
	demo_emit(d, DS_MEM_PROC, p->pid, tick, v);
	if (demo_has(d, DS_PROC_CPU))
		proc_cpu_emit(d, tick, slot, p, first);
}

/* Whether a sample finds it on a CPU: as often as it keeps one busy. */
static bool running(const struct proc *p, uint64_t tick)
{
	return demo_noise(DS_PROC_CPU * 1000 + 1, p->pid, tick) * 0.5 + 0.5 < p->user + p->sys;
}

/* A rank's CPU time and state: the work of its core in demo_host.c (the
 * first eight cores run the ranks), waiting on the disk while it writes a
 * checkpoint. */
static void rank_cpu(struct proc *p, const struct demo_load *l, uint64_t tick)
{
	double n = demo_noise(DS_PROC_CPU, p->pid, tick);

	p->user = 0.97 * l->compute + 0.75 * l->comm + 0.3 * l->ckpt + 0.5 * l->input + 0.02 * n;
	p->sys = 0.02 + 0.08 * l->comm + 0.25 * l->ckpt;
	p->start = JOB_START_S + 3.1;
	p->state = l->ckpt > 0.5 ? 'D' : running(p, tick) ? 'R' : 'S';
}

/* A data-loading worker's: two of the 32 loader cores, busiest while the
 * next batch comes in. */
static void worker_cpu(struct proc *p, const struct demo_load *l, uint64_t tick, int w)
{
	double n = demo_noise(DS_PROC_CPU, p->pid, tick);

	p->user = 2 * (0.42 + 0.35 * l->input + 0.1 * n);
	p->sys = 2 * 0.06;
	p->start = JOB_START_S + 41.0 + 0.2 * w;
	p->state = running(p, tick) ? 'R' : 'S';
}

/* Each rank holds its model replica and optimizer state in host memory,
 * more while a checkpoint is staged; its workers hold batches. */
static void procs_job(struct demo *d, uint64_t tick, bool first)
{
	double t = demo_secs(tick);
	char cmd[128];
	int slot = (int)ARRAY_SIZE(others);

	for (int r = 0; r < DEMO_NRANK; r++) {
		struct demo_load l;
		struct proc p = {demo_rank_pid(r), 48190, JOB_UID, 94, 0, cmd, 0, 0, 0, 'S'};

		demo_load_at(t, r, &l);
		demo_rank_cmdline(r, cmd, sizeof(cmd));
		p.rss = (38.6 + 0.3 * r + 5.5 * l.ckpt + 0.4 * sin(t / 11 + r)) * GIB;
		rank_cpu(&p, &l, tick);
		proc_emit(d, tick, slot++, &p, first);
		for (int w = 0; w < NWORKERS; w++) {
			p.pid = demo_rank_pid(r) + 100 + (unsigned int)(NWORKERS * r + w);
			p.ppid = demo_rank_pid(r);
			p.threads = 4;
			p.rss = (3.1 + 0.9 * l.input + 0.2 * w) * GIB;
			worker_cpu(&p, &l, tick, w);
			proc_emit(d, tick, slot++, &p, first);
		}
	}
}

/* The runtime's view of a rank: its device pool, pinned staging buffers
 * (doubled while a checkpoint is copied out) and allocator traffic. */
static void gpurt_mem(struct demo *d, uint64_t tick, int r, bool first)
{
	double t = demo_secs(tick), v[STREAM_MAX_FIELDS], fails = 0, fail_at = NAN;
	unsigned int pid = demo_rank_pid(r);
	struct demo_load l;
	char cmd[128];

	demo_load_at(t, r, &l);
	if (first) {
		demo_rank_cmdline(r, cmd, sizeof(cmd));
		demo_label(d, DS_GPURT_MEM, pid, tick, cmd);
	}
	/* one failure before the demo starts and one while it plays */
	if (r == FAIL_RANK && t >= 12)
		fails = 1, fail_at = 12;
	if (r == FAIL_RANK && t >= 64)
		fails = 2, fail_at = 64;
	demo_clear(v);
	demo_set(d, DS_GPURT_MEM, v, GPURT_MEM_DEVICE_BYTES, demo_rank_device_bytes(r, t));
	demo_set(d, DS_GPURT_MEM, v, GPURT_MEM_PINNED_BYTES, (8 + 8 * l.ckpt) * GIB);
	demo_set(d, DS_GPURT_MEM, v, GPURT_MEM_ALLOCS, floor(d->allocs[r]));
	demo_set(d, DS_GPURT_MEM, v, GPURT_MEM_FREES, floor(d->allocs[r] * 0.997));
	demo_set(d, DS_GPURT_MEM, v, GPURT_MEM_FAILS, fails);
	demo_set(d, DS_GPURT_MEM, v, GPURT_MEM_LAST_FAIL_SIZE, fails ? FAIL_SIZE : NAN);
	demo_set(d, DS_GPURT_MEM, v, GPURT_MEM_LAST_FAIL_NS,
		 fails ? (double)demo_ts(d, (uint64_t)(fail_at * 1e9 / DEMO_TICK_NS)) : NAN);
	demo_emit(d, DS_GPURT_MEM, pid, tick, v);
}

static void gpurt_kernels(struct demo *d, uint64_t tick, int r, bool first)
{
	unsigned int pid = demo_rank_pid(r);
	char label[256];

	for (size_t k = 0; k < ARRAY_SIZE(kernels); k++) {
		uint64_t ent = ((uint64_t)pid << 8) | k;
		double v[2] = {floor(d->kern[r][k]), pid};

		if (first) {
			snprintf(label, sizeof(label), "%u\t%s", pid, kernels[k].name);
			demo_label(d, DS_GPURT_KERN, ent, tick, label);
		}
		demo_emit(d, DS_GPURT_KERN, ent, tick, v);
	}
}

/* Copies per rank, by the fields of gpurt.copy: the next batch in
 * from pinned staging buffers (and a little from pageable memory), the
 * checkpoint out to pinned buffers, the all-reduce's packing on the device,
 * memsets of gradients, no host to host copy; per second at full load,
 * calls and bytes. */
static const struct {
	unsigned int calls, bytes;
	double input, ckpt, comm, compute, per_call; /* calls/s by phase; bytes per call */
} copies[] = {
    {GPURT_COPY_HTOD_CALLS, GPURT_COPY_HTOD_BYTES, 96, 0, 0, 0, 4 << 20},
    {GPURT_COPY_DTOH_CALLS, GPURT_COPY_DTOH_BYTES, 0, 48, 0, 2, 32 << 20},
    {GPURT_COPY_DTOD_CALLS, GPURT_COPY_DTOD_BYTES, 0, 0, 220, 12, 16 << 20},
    {GPURT_COPY_SET_CALLS, GPURT_COPY_SET_BYTES, 0, 0, 0, 140, 1 << 20},
    {GPURT_COPY_HTOH_CALLS, GPURT_COPY_HTOH_BYTES, 0, 0, 0, 0, 0},
    {GPURT_COPY_UNKNOWN_CALLS, GPURT_COPY_UNKNOWN_BYTES, 0, 0, 0, 0, 0},
    {GPURT_COPY_PINNED_CALLS, GPURT_COPY_PINNED_BYTES, 90, 48, 0, 2, 0},
    {GPURT_COPY_PAGEABLE_CALLS, GPURT_COPY_PAGEABLE_BYTES, 6, 0, 0, 0, 0},
};

static void gpurt_copy(struct demo *d, uint64_t tick, int r, bool first)
{
	double v[STREAM_MAX_FIELDS];
	unsigned int pid = demo_rank_pid(r);
	char cmd[128];

	if (first) {
		demo_rank_cmdline(r, cmd, sizeof(cmd));
		demo_label(d, DS_GPURT_COPY, pid, tick, cmd);
	}
	demo_clear(v);
	for (size_t i = 0; i < ARRAY_SIZE(copies); i++) {
		demo_set(d, DS_GPURT_COPY, v, copies[i].calls, floor(d->copy[r][2 * i]));
		demo_set(d, DS_GPURT_COPY, v, copies[i].bytes, floor(d->copy[r][2 * i + 1]));
	}
	demo_emit(d, DS_GPURT_COPY, pid, tick, v);
}

/* Launches and allocations happen all the time; they are counted each
 * tick and sampled once a second, as the probes' maps are. */
static void gpurt_count(struct demo *d, uint64_t tick)
{
	double dt = DEMO_TICK_NS / 1e9;

	for (int r = 0; r < DEMO_NRANK; r++) {
		struct demo_load l;

		demo_load_at(demo_secs(tick), r, &l);
		d->allocs[r] += (3 + 14 * l.compute + 40 * l.ckpt) * dt;
		for (size_t k = 0; k < ARRAY_SIZE(kernels); k++) {
			const struct kernel *kn = &kernels[k];

			d->kern[r][k] += (kn->compute * l.compute + kn->comm * l.comm +
					  kn->ckpt * l.ckpt + kn->input * l.input) *
					 dt;
		}
		for (size_t i = 0; i < ARRAY_SIZE(copies); i++) {
			double calls = (copies[i].input * l.input + copies[i].ckpt * l.ckpt +
					copies[i].comm * l.comm + copies[i].compute * l.compute) *
				       dt;
			d->copy[r][2 * i] += calls;
			d->copy[r][2 * i + 1] += calls * copies[i].per_call;
		}
		/* pinned and pageable split the host-device bytes: 4 MiB batches,
		 * 32 MiB checkpoint pieces */
		d->copy[r][9] +=
		    (90 * l.input * 4 + (48 * l.ckpt + 2 * l.compute) * 32) * dt * (1 << 20);
		d->copy[r][15] += 6 * l.input * 4 * dt * (1 << 20);
	}
}

void demo_procs_tick(struct demo *d, uint64_t tick)
{
	bool first = tick == 0;

	gpurt_count(d, tick);
	if (demo_has(d, DS_MEM_SYS) && demo_every(tick, 2))
		procs_sys(d, tick);
	if (!demo_every(tick, 1))
		return;
	for (size_t i = 0; demo_has(d, DS_MEM_PROC) && i < ARRAY_SIZE(others); i++)
		proc_emit(d, tick, (int)i, &others[i], first);
	if (demo_has(d, DS_MEM_PROC))
		procs_job(d, tick, first);
	for (int r = 0; r < DEMO_NRANK; r++) {
		gpurt_mem(d, tick, r, first);
		gpurt_kernels(d, tick, r, first);
		if (demo_has(d, DS_GPURT_COPY))
			gpurt_copy(d, tick, r, first);
	}
}
