#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/gpurt: cost of the runtime probes (see bench_gpurt.c). Run as root
# from the build tree after `make check` (which builds the fake runtime):
#   sh bench/gpurt/run.sh [SECONDS_PER_RATE]
b=${top_builddir:-.}
make -C "$b" -s bench/gpurt/bench_gpurt tests/gpurt/workload tests/fakes/libcudart.la \
	tests/fakes/libcuda.la >/dev/null || exit 1
GPURT_WORKLOAD="$b/tests/gpurt/workload" FAKE_CUDA_DIR="$b/tests/fakes/.libs" \
	exec "$b/bench/gpurt/bench_gpurt" "$@"
