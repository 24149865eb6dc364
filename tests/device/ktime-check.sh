#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Kernel GPU time through the real driver and the real CUPTI: builds asys's
# injection library and the rig (tests/ktime/ktime_rig.c), builds a small CUDA
# program whose kernels take known times, runs it with the region made and
# CUDA_INJECTION64_PATH set (the driver loads the library, which loads
# libcupti.so), and prints asys's count, total, mean and max per kernel and
# copy direction beside the program's own cudaEvent timings and, where nsys
# is installed, nsys's kernel summary of the same program. Then, where this
# asys hands a region to its command, the same through
# `asys record -- program` and `asys export`.
# Self-contained; not part of make check (it needs a GPU). Run from anywhere:
#   sh tests/device/ktime-check.sh
# Exit: 0 when every kernel's count is exact and its total within 10 % of
# nsys's (or 25 % of the program's own events, without nsys), 1 when not,
# 77 when there is no GPU, driver, nvcc or CUPTI here.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/asys-ktime.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP
say() { printf '== %s\n' "$*"; }
skip() { echo "SKIP: $*"; exit 77; }

# ---- a GPU, its driver, the toolkit ----
ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' || ls /usr/lib*/libcuda.so.1 /usr/lib/*/libcuda.so.1 >/dev/null 2>&1 ||
	skip "no libcuda.so.1 (no NVIDIA driver on this machine)"
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L
NVCC=$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || skip "no nvcc (the CUDA toolkit)"
CUDA=$(cd "$(dirname "$NVCC")/.." && pwd)
CUPTI=
for c in "$CUDA/lib64/libcupti.so" "$CUDA/lib/libcupti.so" "$CUDA/extras/CUPTI/lib64/libcupti.so" \
	"$CUDA"/targets/*/lib/libcupti.so; do
	[ -e "$c" ] && { CUPTI=$c; break; }
done
[ -n "$CUPTI" ] || skip "no libcupti.so under $CUDA"
say "CUPTI: $CUPTI"

# ---- asys, the injection library, the rig ----
say "building in $work/build"
if [ ! -x "$src/configure" ]; then
	(cd "$src" && autoreconf -fi) >"$work/autoreconf.log" 2>&1 ||
		{ tail -20 "$work/autoreconf.log"; echo "FAIL: autoreconf"; exit 1; }
fi
mkdir -p "$work/build"
(cd "$work/build" && CUDA_HOME=$CUDA "$src/configure" --enable-bpf=no >"$work/configure.log" 2>&1) ||
	{ tail -20 "$work/configure.log"; echo "FAIL: configure (scripts/deps.sh lists the packages)"; exit 1; }
make -C "$work/build" -j"$(nproc 2>/dev/null || echo 2)" asys libasys-ktime.la tests/ktime/ktime_rig \
	>"$work/make.log" 2>&1 || { tail -30 "$work/make.log"; echo "FAIL: make"; exit 1; }
B=$work/build
LIB=$B/.libs/libasys-ktime.so
[ -e "$B/.libs/libasys-inject.so" ] && LIB=$B/.libs/libasys-inject.so

# ---- the program: known kernels and copies, timed by itself ----
cat >"$work/prog.cu" <<'EOF'
#include <cstdio>
#include <cuda_runtime.h>
__global__ void spin(long long cycles)
{
	long long t0 = clock64();
	while (clock64() - t0 < cycles)
		;
}
__global__ void vec_add(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}
#define CK(x) do { cudaError_t e = (x); if (e) { printf("error %s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
int main(void)
{
	const int n = 1 << 24, reps = 100;
	size_t bytes = (size_t)n * sizeof(float);
	float *a, *b, *c, *h;
	cudaEvent_t e0, e1;
	float ms, spin_ms = 0, add_ms = 0;
	CK(cudaMalloc(&a, bytes)); CK(cudaMalloc(&b, bytes)); CK(cudaMalloc(&c, bytes));
	CK(cudaMallocHost(&h, bytes));
	CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
	for (int i = 0; i < reps; i++) {
		CK(cudaEventRecord(e0));
		spin<<<1, 1>>>(1000000LL);
		CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
		CK(cudaEventElapsedTime(&ms, e0, e1)); spin_ms += ms;
		CK(cudaEventRecord(e0));
		vec_add<<<(n + 255) / 256, 256>>>(a, b, c, n);
		CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
		CK(cudaEventElapsedTime(&ms, e0, e1)); add_ms += ms;
	}
	for (int i = 0; i < 10; i++) {
		CK(cudaMemcpy(a, h, bytes, cudaMemcpyHostToDevice));
		CK(cudaMemcpy(h, c, bytes, cudaMemcpyDeviceToHost));
	}
	CK(cudaDeviceSynchronize());
	printf("own spin %d %.0f\n", reps, spin_ms * 1e6);
	printf("own vec_add %d %.0f\n", reps, add_ms * 1e6);
	printf("own copies HtoD 10 DtoH 10 bytes %zu each\n", bytes);
	return 0;
}
EOF
say "nvcc $work/prog.cu"
"$NVCC" -O2 -o "$work/prog" "$work/prog.cu" >"$work/nvcc.log" 2>&1 ||
	{ cat "$work/nvcc.log"; echo "FAIL: nvcc"; exit 1; }

# ---- under the injection, through the rig's region ----
say "the program under the injection (ktime_rig exec)"
CUDA_INJECTION64_PATH=$LIB ASYS_KACT_LIBS=$CUPTI ASYS_KACT_DEBUG=1 \
	"$B/tests/ktime/ktime_rig" exec "$work/prog" >"$work/rig.out" 2>&1
cat "$work/rig.out"
grep -q '^kernel ' "$work/rig.out" || { echo "FAIL: no kernel rows from the injection"; exit 1; }

# ---- nsys's view of the same program ----
NSYS=$(command -v nsys 2>/dev/null || true)
if [ -n "$NSYS" ]; then
	say "nsys profile (cuda_gpu_kern_sum)"
	"$NSYS" profile -t cuda -o "$work/ns" "$work/prog" >"$work/nsys.log" 2>&1 &&
		"$NSYS" stats -q --report cuda_gpu_kern_sum --format csv "$work/ns.nsys-rep" \
			>"$work/nsys.csv" 2>>"$work/nsys.log" || { tail -20 "$work/nsys.log"; NSYS=; }
	[ -n "$NSYS" ] && cat "$work/nsys.csv"
else
	say "no nsys here: comparing with the program's own cudaEvent timings"
fi

# ---- compare ----
rc=0
for k in spin vec_add; do
	line=$(grep "^kernel [0-9]* .*$k" "$work/rig.out" | head -n 1)
	cnt=$(printf '%s' "$line" | sed -n 's/.*count=\([0-9]*\).*/\1/p')
	tot=$(printf '%s' "$line" | sed -n 's/.*total=\([0-9]*\).*/\1/p')
	own=$(awk -v k="$k" '$1 == "own" && $2 == k { print $4 }' "$work/rig.out")
	ns=
	[ -n "$NSYS" ] && ns=$(awk -F, -v k="$k" 'index($NF, k) { gsub(/"/, "", $2); print $2; exit }' "$work/nsys.csv")
	printf '%-8s asys count %s total %s ns | own events %s ns | nsys %s ns\n' \
		"$k" "${cnt:-?}" "${tot:-?}" "${own:-?}" "${ns:-n/a}"
	[ "$cnt" = 100 ] || { echo "FAIL: $k count ${cnt:-none}, want 100"; rc=1; }
	if [ -n "$ns" ]; then
		awk -v a="$tot" -v b="$ns" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b * 0.10) }' ||
			{ echo "FAIL: $k total $tot ns not within 10 % of nsys's $ns"; rc=1; }
	elif [ -n "$own" ]; then
		awk -v a="$tot" -v b="$own" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b * 0.25) }' ||
			{ echo "FAIL: $k total $tot ns not within 25 % of the events' $own"; rc=1; }
	fi
done
grep -q '^copy [0-9]* HtoD count=10 ' "$work/rig.out" || { echo "FAIL: not 10 HtoD copies"; rc=1; }
grep -q '^copy [0-9]* DtoH count=10 ' "$work/rig.out" || { echo "FAIL: not 10 DtoH copies"; rc=1; }

# ---- and through asys itself, where it hands its command a region ----
say "asys record -- program"
CUDA_INJECTION64_PATH=$LIB ASYS_KACT_LIBS=$CUPTI ASYS_KACT_DEBUG=1 \
	"$B/asys" record -d 0.5 -o "$work/p.asys" --workload-log "$work/p.log" -- "$work/prog" >/dev/null 2>&1
if grep -q 'no region from asys' "$work/p.log" 2>/dev/null; then
	echo "(this asys hands no region to its command yet)"
else
	"$B/asys" export --streams gpurt.ktime,gpurt.kcopy "$work/p.asys" |
		awk -F, 'NR > 1 { last[$10 " " $6] = $8 } END { for (k in last) print k, last[k] }' | sort
fi
[ $rc = 0 ] && echo "OK: kernel counts exact, durations agree"
exit $rc
