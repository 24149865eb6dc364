#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/hgtx: the cost of an NVTX push+pop pair inside a workload that asys
# started, against the same program without the library, and asys's own
# CPU meanwhile. From the build tree after `make`:
#   sh bench/hgtx/run.sh [SECONDS]
# Needs the CUDA toolkit's NVTX v3 headers (NVTX_INC, default
# /usr/local/cuda/include) and a C compiler.
b=$(cd "${top_builddir:-.}" && pwd) || exit 1
src=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
secs=${1:-3}
inc=${NVTX_INC:-/usr/local/cuda/include}
lib="$b/.libs/libasys-inject.so"
[ -r "$inc/nvtx3/nvToolsExt.h" ] || { echo "no NVTX v3 headers in $inc (set NVTX_INC)"; exit 77; }
[ -r "$lib" ] || { echo "no $lib: run make first"; exit 1; }
t=$(mktemp -d "${TMPDIR:-/tmp}/asys-hgtx.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
"${CC:-cc}" -O2 -I"$inc" -o "$t/hgtx_bench" "$src/bench/hgtx/hgtx_bench.c" -ldl || exit 1

# the CPU seconds of process $1 so far
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print ($12 + $13) / hz }' "/proc/$1/stat"; }

# under asys record: asys's CPU from 1 s after the start to 1 s before the end
under_asys() {
	ASYS_INJECT_LIB="$lib" "$b/asys" record -o "$t/r.asys" --workload-log "$t/w.log" \
		-- "$t/hgtx_bench" "$@" >/dev/null 2>&1 &
	apid=$!
	sleep 1
	c0=$(cpu_s "$apid")
	sleep $((secs - 2 > 1 ? secs - 2 : 1))
	c1=$(cpu_s "$apid")
	span=$((secs - 2 > 1 ? secs - 2 : 1))
	wait "$apid"
	rm -f "$t/r.asys"
	awk -v a="$c0" -v z="$c1" -v s="$span" 'BEGIN { printf "asys_cpu=%.2f%%\n", 100 * (z - a) / s }'
	cat "$t/w.log"
}

echo "uptime: $(uptime)"
echo "== flat out, $secs s"
plain=$("$t/hgtx_bench" "$secs")
echo "without the library: $plain"
inj=$(under_asys "$secs" | tr '\n' ' ')
echo "under asys record:   $inj"
p=$(echo "$plain" | sed 's/.*ns_per_pair=\([0-9.]*\).*/\1/')
i=$(echo "$inj" | sed 's/.*ns_per_pair=\([0-9.]*\).*/\1/')
awk -v p="$p" -v i="$i" 'BEGIN { printf "cost of the library: %.1f ns per pair (target <= 100)\n", i - p }'
for rate in 10000 1000000; do
	echo "== $rate pairs/s, $secs s"
	echo "under asys record: $(under_asys "$secs" "$rate" | tr '\n' ' ')"
done
