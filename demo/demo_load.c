/* SPDX-License-Identifier: GPL-2.0-only */
/* The story the demo tells: eight processes of one training job, one per
 * PPU, in steps of 5 s (3.6 s of forward and backward, then the gradient
 * all-reduce, then the next batch), and a checkpoint every 45 s that
 * stops the steps for 6 s while it is written to storage. Rank 5 runs
 * close to its device's memory and has allocations fail. */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "demo.h"
#include "util.h"

#define STEP_S 5.0
#define COMPUTE_S 3.6
#define INPUT_S 0.25 /* the batch arrives at the end of a step */
#define CKPT_EVERY_S 45.0
#define CKPT_AT_S 38.0 /* into each period: one checkpoint soon after the demo starts */
#define CKPT_S 6.0

static uint64_t mix(uint64_t x)
{
	return util_mix64(x + 0x9e3779b97f4a7c15ull);
}

double demo_noise(uint32_t what, uint64_t who, uint64_t when)
{
	uint64_t h = mix(mix(mix(what) ^ who) ^ when);

	return (double)(h >> 11) / (double)(1ull << 52) - 1.0;
}

double demo_secs(uint64_t tick)
{
	return (double)tick * (double)DEMO_TICK_NS / 1e9;
}

void demo_load_at(double t, int dev, struct demo_load *l)
{
	/* the ranks drift apart a little within a step, as real ones do */
	double ph = fmod(t + 0.03 * dev, STEP_S);
	double ck = fmod(t, CKPT_EVERY_S);

	*l = (struct demo_load){0};
	if (ck >= CKPT_AT_S && ck < CKPT_AT_S + CKPT_S) {
		l->ckpt = 1.0;
		l->compute = 0.04;
		return;
	}
	if (ph < COMPUTE_S) {
		l->compute = 0.96 - 0.03 * (dev == 7);
	} else if (ph < STEP_S - INPUT_S) {
		l->compute = 0.35;
		/* the ring all-reduce ramps up and down */
		l->comm = sin(M_PI * (ph - COMPUTE_S) / (STEP_S - INPUT_S - COMPUTE_S)) * 0.5 + 0.5;
	} else {
		l->compute = 0.15;
		l->input = 1.0;
	}
}

unsigned int demo_rank_pid(int rank)
{
	return 48211u + (unsigned int)rank;
}

/* The caching allocator's pool: it grows in the first steps and stays. */
double demo_rank_device_bytes(int rank, double t)
{
	double base = rank == 5 ? 91.5 : 62.0 + 0.7 * rank;
	double warm = t < 8 ? t / 8 : 1.0;

	return (base * (0.8 + 0.2 * warm)) * GIB;
}

void demo_rank_cmdline(int rank, char *buf, size_t n)
{
	snprintf(buf, n, "python train.py --config llama-13b.yaml --local-rank %d", rank);
}
