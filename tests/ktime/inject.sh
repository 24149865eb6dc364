#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# The injection library in a process that starts it as the driver does
# (tests/ktime/ktime_rig.c), over the CUPTI stand-in: exact counts, totals,
# min and max per kernel and device, copies per direction, records the
# library lost, the overflow row of a full table, the periodic flush while
# the process runs, and a profiling library that refuses to start.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/ktime/lib.sh"

check() { # OUTPUT WORD LABEL WANT
	got=$(ktime_line "$1" "$2" "$3")
	case "$got" in
	*"$4"*) pass ;;
	*) fail "$2 $3: want '$4', got '${got:-nothing}'" ;;
	esac
}

# kernels of two devices over many buffers (64 records each), copies, losses,
# records without an end
out=$(FAKE_CUPTI_SCRIPT="k _Z6vecAddPfS_S_i 0 1500 1000; k gemm 1 250000 40; k gemm 1 50000 10; k gemm 0 7 3; m 1 4096 2000 10; m 2 1024 800 3; m 8 1 5 1; d 2; i gemm 1 2" \
	timeout 120 "$KTIME_RIG" print 2>&1) || fail "rig: $out"
pid=$(printf '%s\n' "$out" | awk '$1 == "kernel" { print $2; exit }')
[ -n "$pid" ] || fail "no kernel rows: $out"
printf '%s\n' "$out" | grep -qx 'init 1' && pass || fail "InitializeInjection did not return 1: $out"
if printf '%s\n' "$out" | grep -q 'vecAdd(float\*, float\*, float\*, int)'; then
	name='vecAdd(float*, float*, float*, int)' # demangled (eBPF build)
else
	name=_Z6vecAddPfS_S_i
fi
check "$out" kernel "$pid $name" "dev=0 count=1000 total=1500000 min=1500 max=1500"
check "$out" kernel "$pid gemm dev=1" "count=50 total=10500000 min=50000 max=250000"
check "$out" kernel "$pid gemm dev=0" "count=3 total=21 min=7 max=7"
check "$out" copy "$pid HtoD" "count=10 bytes=40960 total=20000"
check "$out" copy "$pid DtoH" "count=3 bytes=3072 total=2400"
check "$out" copy "$pid DtoD" "count=1 bytes=1 total=5"
[ "$(printf '%s\n' "$out" | grep -c '^kernel ')" = 3 ] && pass || fail "not 3 kernel rows: $out"
# 2 dropped by the library, 2 handed over still running (no duration)
check "$out" status "kernel GPU time:" "lost 4 records"

# a table of 4 rows: 3 kernels, then the overflow row takes the rest, exactly
out=$(FAKE_CUPTI_SCRIPT="k k1 0 10 1;k k2 0 10 2;k k3 0 10 3;k k4 0 20 4;k k5 0 30 5" \
	timeout 120 "$KTIME_RIG" print 4 2>&1) || fail "rig: $out"
pid=$(printf '%s\n' "$out" | awk '$1 == "kernel" { print $2; exit }')
check "$out" kernel "$pid k3" "count=3 total=30"
check "$out" kernel "$pid (other kernels)" "count=9 total=230 min=20 max=30"

# durations arrive while the process runs: the library flushes every 100 ms
out=$(FAKE_CUPTI_SCRIPT="k a 0 100 5" FAKE_CUPTI_REPEAT=4 FAKE_CUPTI_PERIOD_MS=50 \
	ASYS_KACT_FLUSH_MS=100 timeout 120 "$KTIME_RIG" live 2>&1) || fail "rig: $out"
printf '%s\n' "$out" | grep -qx 'live running' || fail "the child ended before the sample: $out"
pid=$(printf '%s\n' "$out" | awk '$1 == "kernel" { print $2; exit }')
check "$out" kernel "$pid a" "count=20 total=2000 min=100 max=100"

# a child forked after the start (a data loader's worker) that exits: its
# copy of the unflushed buffers is not handed over again, and it does not
# wait on the parent's profiling thread
out=$(KTIME_RIG_FORK=1 FAKE_CUPTI_SCRIPT="k a 0 100 5" timeout 120 "$KTIME_RIG" print 2>&1) ||
	fail "rig with a forked child: $out"
pid=$(printf '%s\n' "$out" | awk '$1 == "kernel" { print $2; exit }')
check "$out" kernel "$pid a" "count=5 total=500 min=100 max=100"

# one slot, two processes: the first is timed, the status says why the
# second is not
out=$(KTIME_RIG_PROCS=1 KTIME_RIG_CHILDREN=2 FAKE_CUPTI_SCRIPT="k a 0 100 5" \
	timeout 120 "$KTIME_RIG" print 2>&1) || fail "rig with two children: $out"
[ "$(printf '%s\n' "$out" | grep -c '^kernel .* count=5 total=500 ')" = 1 ] && pass ||
	fail "not one process timed: $out"
check "$out" status "kernel GPU time:" "first 1 processes took every slot"

# the profiling library refuses: the status says which call and why
out=$(FAKE_CUPTI_FAIL=enable FAKE_CUPTI_SCRIPT="k a 0 100 5" timeout 120 "$KTIME_RIG" print 2>&1) ||
	fail "rig: $out"
printf '%s\n' "$out" | grep -qx 'init 0' && pass || fail "InitializeInjection did not return 0: $out"
check "$out" status "kernel GPU time in process" "cuptiActivityEnable(10): CUPTI_ERROR_NOT_INITIALIZED"
printf '%s\n' "$out" | grep -q '^kernel ' && fail "kernel rows from a failed start: $out"

# the profiling library named does not load: the next of the built-in list
# does, or none. Where the toolkit's real CUPTI is found, it starts through
# the same calls and, without a driver, says why in CUPTI's own words.
out=$(ASYS_KACT_LIBS=/nonexistent/libcupti.so FAKE_CUPTI_SCRIPT="k a 0 100 5" \
	timeout 120 "$KTIME_RIG" print 2>&1)
case "$out" in
*"no profiling library (CUPTI) loads: tried /nonexistent/libcupti.so"*) pass ;;
*"cuptiActivity"*"CUPTI_ERROR"*) pass ;; # the real CUPTI, no driver
*"init 1"*) pass ;;                       # the real CUPTI with a driver
*) fail "no profiling library: $out" ;;
esac
finish
