#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The ppu collector against a real NVIDIA GPU through libnvidia-ml.so.1: builds
# asys (when there is no ./asys yet), keeps the GPU busy with a small CUDA
# program, records 20 s with --ppu-metrics-device all and prints
# `asys export --summary`, with nvidia-smi's view of the same moment beside it.
# Self-contained; not part of make check (it needs a GPU). Run from anywhere:
#   sh tests/device/nvml-check.sh [SECONDS]
# Exit: 0 when device state and GPM metrics were recorded, 1 when something
# that should work did not, 77 when there is no GPU or driver here.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-20}
work=$(mktemp -d "${TMPDIR:-/tmp}/asys-nvml.XXXXXX") || exit 1
load_pid=
cleanup() {
	[ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
say() { printf '== %s\n' "$*"; }

# ---- a GPU and its driver ----
have_nvml() {
	ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml\.so\.1' && return 0
	ls /usr/lib*/libnvidia-ml.so.1 /usr/lib/*/libnvidia-ml.so.1 >/dev/null 2>&1 && return 0
	for d in $(echo "${LD_LIBRARY_PATH:-}" | tr ':' ' '); do
		[ -e "$d/libnvidia-ml.so.1" ] && return 0
	done
	return 1
}
if ! have_nvml; then
	echo "SKIP: no libnvidia-ml.so.1 (no NVIDIA driver on this machine)"
	exit 77
fi
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L || true

# ---- build asys ----
ASYS=${ASYS:-}
if [ -z "$ASYS" ]; then
	if [ -x "$src/asys" ]; then
		ASYS="$src/asys"
	else
		say "building asys in $work/build"
		if [ ! -x "$src/configure" ]; then
			(cd "$src" && autoreconf -fi) >"$work/autoreconf.log" 2>&1 ||
				{ tail -20 "$work/autoreconf.log"; echo "FAIL: autoreconf"; exit 1; }
		fi
		mkdir -p "$work/build"
		(cd "$work/build" && "$src/configure" --enable-bpf=no >"$work/configure.log" 2>&1) ||
			{ tail -20 "$work/configure.log"; echo "FAIL: configure (scripts/deps.sh lists the packages)"; exit 1; }
		make -C "$work/build" -j"$(nproc 2>/dev/null || echo 2)" asys >"$work/make.log" 2>&1 ||
			{ tail -30 "$work/make.log"; echo "FAIL: make"; exit 1; }
		ASYS="$work/build/asys"
	fi
fi
say "asys: $ASYS"

# ---- the library as asys sees it ----
unset ASYS_HGML_LIBRARY
say "asys top --ppu-backend nvml --ppu-metrics-device help"
"$ASYS" top --ppu-backend nvml --ppu-metrics-device help
say "asys top --check-ppu-metrics-list (the summary set)"
"$ASYS" top --ppu-backend nvml --check-ppu-metrics-list \
	ce__cycles_elapsed.avg.per_second,cu__cycles_active.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed

# ---- a CUDA load: FMA loops and PCIe copies, for the whole recording ----
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
	NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
	cat >"$work/load.cu" <<'EOF'
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>
__global__ void burn(float *a, int n, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float x = a[i];
	for (int k = 0; k < iters; k++)
		x = x * 1.000001f + 0.5f;
	a[i] = x;
}
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 25;
	int n = 1 << 24, ndev = 0;
	cudaGetDeviceCount(&ndev);
	if (ndev <= 0) { fprintf(stderr, "load: no CUDA device\n"); return 1; }
	float *h, *d[16];
	cudaMallocHost(&h, n * sizeof(float));
	for (int g = 0; g < ndev && g < 16; g++) {
		cudaSetDevice(g);
		cudaMalloc(&d[g], n * sizeof(float));
	}
	time_t end = time(NULL) + (time_t)secs;
	while (time(NULL) < end) {
		for (int g = 0; g < ndev && g < 16; g++) {
			cudaSetDevice(g);
			cudaMemcpyAsync(d[g], h, n * sizeof(float), cudaMemcpyHostToDevice);
			burn<<<(n + 255) / 256, 256>>>(d[g], n, 2000);
			cudaMemcpyAsync(h, d[g], n * sizeof(float), cudaMemcpyDeviceToHost);
		}
		for (int g = 0; g < ndev && g < 16; g++) {
			cudaSetDevice(g);
			cudaDeviceSynchronize();
		}
	}
	printf("load: done on %d devices\n", ndev);
	return 0;
}
EOF
	say "building the CUDA load with $NVCC"
	if "$NVCC" -O2 -o "$work/load" "$work/load.cu" >"$work/nvcc.log" 2>&1; then
		"$work/load" $((secs + 4)) >"$work/load.log" 2>&1 &
		load_pid=$!
		sleep 2
		if ! kill -0 "$load_pid" 2>/dev/null; then
			cat "$work/load.log"
			echo "WARN: the CUDA load stopped at once; recording an idle GPU"
			load_pid=
		fi
	else
		tail -20 "$work/nvcc.log"
		echo "WARN: the CUDA load did not build; recording an idle GPU"
	fi
else
	echo "WARN: no nvcc; recording an idle GPU"
fi

# ---- NVML's per-process utilisation, asked directly ----
# One line per device and call: "dev D NAME rc R n N pids PID:SM,..." (rc 0
# answers, 3 not supported, 6 no sample since, -1 no such symbol).
util_probe() {
	command -v python3 >/dev/null 2>&1 || { echo "probe: no python3"; return 0; }
	python3 - <<'PY'
import ctypes as C, time
nv = C.CDLL("libnvidia-ml.so.1")
class Info(C.Structure):
    _fields_ = [("ts", C.c_ulonglong), ("pid", C.c_uint), ("sm", C.c_uint), ("mem", C.c_uint),
                ("enc", C.c_uint), ("dec", C.c_uint), ("jpg", C.c_uint), ("ofa", C.c_uint)]
class Infos(C.Structure):
    _fields_ = [("version", C.c_uint), ("count", C.c_uint), ("last_seen", C.c_ulonglong),
                ("array", C.POINTER(Info))]
class Sample(C.Structure):
    _fields_ = [("pid", C.c_uint), ("ts", C.c_ulonglong), ("sm", C.c_uint), ("mem", C.c_uint),
                ("enc", C.c_uint), ("dec", C.c_uint)]
def newest(arr, n):
    """pid:sm of each process's newest sample"""
    last = {}
    for k in range(min(n, 1024)):
        if arr[k].pid not in last or arr[k].ts >= last[arr[k].pid][0]:
            last[arr[k].pid] = (arr[k].ts, arr[k].sm)
    return ",".join("%d:%d" % (p, v[1]) for p, v in sorted(last.items()))
nv.nvmlInit_v2()
time.sleep(1)  # a sample period or more, for a library that starts counting at init
n = C.c_uint(0)
nv.nvmlDeviceGetCount_v2(C.byref(n))
for d in range(n.value):
    h = C.c_void_p()
    nv.nvmlDeviceGetHandleByIndex_v2(d, C.byref(h))
    if hasattr(nv, "nvmlDeviceGetProcessesUtilizationInfo"):
        arr = (Info * 1024)()
        i = Infos(C.sizeof(Infos) | (1 << 24), 1024, 0, arr)
        r = nv.nvmlDeviceGetProcessesUtilizationInfo(h, C.byref(i))
        pids = newest(arr, i.count) if r == 0 else ""
        print("dev %d GetProcessesUtilizationInfo rc %d n %d pids %s" % (d, r, i.count, pids))
    else:
        print("dev %d GetProcessesUtilizationInfo rc -1" % d)
    arr = (Sample * 1024)()
    c = C.c_uint(1024)
    r = nv.nvmlDeviceGetProcessUtilization(h, arr, C.byref(c), C.c_ulonglong(0))
    pids = newest(arr, c.value) if r == 0 else ""
    print("dev %d GetProcessUtilization rc %d n %d pids %s" % (d, r, c.value, pids))
nv.nvmlShutdown()
PY
}

# ---- record, with nvidia-smi's view in the middle ----
say "asys record --ppu-backend nvml --ppu-metrics-device all --duration ${secs}s"
"$ASYS" record --ppu-backend nvml --ppu-metrics-device all --duration "${secs}s" -s none \
	-o "$work/gpu.asys" >"$work/record.log" 2>&1 &
rec_pid=$!
sleep $((secs / 2))
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi --format=csv \
	--query-gpu=index,name,pci.bus_id,utilization.gpu,utilization.memory,memory.used,memory.total,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,pcie.link.gen.current,pcie.link.width.current
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi pmon -c 1 -s u
util_probe >"$work/probe.out" 2>&1
cat "$work/probe.out"
wait "$rec_pid"
rc=$?
cat "$work/record.log"
[ "$rc" -eq 0 ] || { echo "FAIL: asys record exited with $rc"; exit 1; }

say "asys export --summary"
"$ASYS" export --summary "$work/gpu.asys" | tee "$work/summary"
say "asys replay --info"
"$ASYS" replay --info "$work/gpu.asys" 2>&1 | tail -n +1

# ---- below NVIDIA's documented 100 ms: what GPM gives at 1 kHz ----
# asys keeps NVML's GPM samples 100 ms apart (10 Hz); this lifts the floor for
# 5 s to show, for the note, whether closer samples really read as zeros.
if [ -n "$load_pid" ] && kill -0 "$load_pid" 2>/dev/null; then
	say "ASYS_GPM_MIN_INTERVAL_MS=0 asys record --ppu-metrics-frequency 1000 --duration 5s"
	ASYS_GPM_MIN_INTERVAL_MS=0 "$ASYS" record --ppu-backend nvml --ppu-metrics-device all \
		--ppu-metrics-frequency 1000 --duration 5s -s none -o "$work/fast.asys" \
		>"$work/fast.log" 2>&1 && "$ASYS" export --summary "$work/fast.asys" | grep -E '^ *ppu\.metrics'
fi

# ---- verdict ----
ok=0
grep -Eq '^  ppu\.dev +v[0-9]+ +[0-9]+ fields +[1-9][0-9]* series +[1-9]' "$work/summary" ||
	{ echo "FAIL: no ppu.dev samples"; ok=1; }
grep -Eq '^  ppu\.metrics +v[0-9]+ +[0-9]+ fields +[1-9][0-9]* series +[1-9]' "$work/summary" ||
	{ echo "FAIL: no ppu.metrics samples (GPM refused or not supported: see the statuses with asys replay)"; ok=1; }
if [ -n "$load_pid" ]; then
	grep -Eq '^ppu\.proc +mem_used' "$work/summary" || { echo "FAIL: the CUDA load's device memory was not seen"; ok=1; }
	# one row per device: stream field values min avg max p99 host series
	awk '$1 == "ppu.dev" && $2 == "util_gpu" && $6 + 0 > 50 { hot = 1 } END { exit !hot }' "$work/summary" ||
		{ echo "FAIL: util_gpu never above 50% under load"; ok=1; }
fi
# Per-process utilisation: what NVML answered decides what asys must show.
say "per-process utilisation (ppu.proc_util)"
grep -E '^  ppu\.proc_util ' "$work/summary" || echo "no ppu.proc_util in the summary"
if grep -Eq 'rc 0 n [1-9]' "$work/probe.out"; then
	grep -Eq '^  ppu\.proc_util +v[0-9]+ +[0-9]+ fields +[1-9][0-9]* series +[1-9]' "$work/summary" ||
		{ echo "FAIL: NVML answers per-process utilisation but asys recorded none"; ok=1; }
	if [ -n "$load_pid" ]; then
		# the load's own SM share, on some device, above 0
		"$ASYS" export --streams ppu.proc_util "$work/gpu.asys" 2>/dev/null |
			awk -F, -v pid="$load_pid" '$6 == "sm" && $4 % 4294967296 == pid && $8 + 0 > 0 { hot = 1 }
				END { exit !hot }' ||
			{ echo "FAIL: the CUDA load (pid $load_pid) never had an SM share in ppu.proc_util"; ok=1; }
	fi
	say "per-process utilisation: works"
elif grep -q 'rc 3 n' "$work/probe.out"; then
	say "per-process utilisation: NVML says Not Supported on this GPU or driver (asys records that as the stream's status)"
else
	say "per-process utilisation: NVML gave no samples (see the probe lines above)"
fi
[ "$ok" -eq 0 ] && say "PASS: device state, processes and GPM metrics recorded from NVML"
exit "$ok"
