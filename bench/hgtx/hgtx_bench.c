/* SPDX-License-Identifier: GPL-2.0-only */
/* bench/hgtx: NVTX push+pop pairs, as fast as they go or at a set rate,
 * in a program built with the toolkit's header-only NVTX v3. Run plain,
 * NVTX's calls are no-ops; under `asys record -- hgtx_bench` they go to
 * libasys-inject.so. Prints the pairs done, ns per pair and the rate
 * achieved. bench/hgtx/run.sh runs both and asys's own CPU meanwhile.
 *
 * Usage: hgtx_bench SECONDS [PAIRS_PER_SECOND] (0 or none: flat out) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <nvtx3/nvToolsExt.h>

#define BATCH 1000

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2, rate = argc > 2 ? atof(argv[2]) : 0;
	uint64_t t0, end, pairs = 0, busy = 0, next;

	if (secs <= 0 || secs > 3600 || rate < 0) {
		fprintf(stderr, "usage: hgtx_bench SECONDS [PAIRS_PER_SECOND]\n");
		return 2;
	}
	/* NVTX loads its tool at the first call: not inside the timing */
	nvtxRangePushA("warm-up");
	nvtxRangePop();
	t0 = now_ns();
	end = t0 + (uint64_t)(secs * 1e9);
	next = t0;
	for (;;) {
		uint64_t b0 = now_ns(), b1;

		if (b0 >= end)
			break;
		for (int i = 0; i < BATCH; i++) {
			nvtxRangePushA("step");
			nvtxRangePop();
		}
		b1 = now_ns();
		busy += b1 - b0;
		pairs += BATCH;
		if (rate > 0) {
			struct timespec ts;

			next += (uint64_t)(BATCH * 1e9 / rate);
			if (next > b1) {
				ts.tv_sec = (time_t)((next - b1) / 1000000000ull);
				ts.tv_nsec = (long)((next - b1) % 1000000000ull);
				nanosleep(&ts, NULL);
			}
		}
	}
	printf("pairs=%llu ns_per_pair=%.1f rate=%.0f\n", (unsigned long long)pairs,
	       pairs ? (double)busy / (double)pairs : 0.0,
	       (double)pairs / ((double)(now_ns() - t0) / 1e9));
	return 0;
}
