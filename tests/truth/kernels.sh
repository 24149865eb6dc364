#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root probes serial
# Ground truth for kernel launch counts: the real `asys record --trace hggc`
# and `asys export`, against the workload's own count of launch calls that
# returned success (tests/gpurt/workload.c prints "launches N"), with real
# uprobes on the fake runtime (tests/fakes/libcudart.c, libcuda.c).
#
# Tolerance: none, every total must be exact. Launches are counted in BPF at
# every call (no sampling); the probes are in place before the first call
# (attached in init, before the command is let go to exec, or within
# milliseconds of a dlopen, well before a job that sleeps first calls); and
# the counts a process holds when it exits move into a ring that the
# recorder drains after its last tick. Any difference is a lost launch.
#
#   1. a command that dlopens the runtime (found on LD_LIBRARY_PATH) and
#      launches at once, then exits 1 ms after its last launch: per-kernel
#      counts of the known pattern, and the total;
#   2. the reported job, smaller: the runtime is loaded from a directory no
#      search names (found by the mmap hook), sleeps 1 s, launches 2,500
#      kernels over 1 s, exits 1 ms later;
#   3. -p PID of a process that has the runtime loaded already, released
#      once asys has attached, which exits 1 ms after its last launch.
. "$top_srcdir/tests/gpurt/lib.sh"
gpurt_need_bpf
T=$(mktemp -d /tmp/truth-kernels.XXXXXX)
R= P=
cleanup() {
	touch "$T/go" "$T/end"
	for p in $R $P; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "$KEEP" ] || rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
W="$GPURT_WORKLOAD"
D=$(cd "$FAKE_CUDA_DIR" && pwd -P) || fail "no $FAKE_CUDA_DIR"

# The last launches value of every kernel entity, one a line. A kernel row
# has an empty label, and its pid and name (which may hold commas) before the host:
# field and value are the 6th and 8th columns.
counts() {
	"$ASYS" export --streams gpurt.kernels "$1" |
		awk -F, 'NR > 1 && $6 == "launches" { v[$4] = $8 }
			END { for (e in v) print v[e] }' | sort -n | tr '\n' ' '
}
total() { counts "$1" | awk '{ for (i = 1; i <= NF; i++) s += $i } END { print s + 0 }'; }
own() { awk '/^launches / { n = $2 } END { print n }' "$1"; }

# 1. launches at once, exits 1 ms after the last
LD_LIBRARY_PATH="$D" timeout 120 "$ASYS" record -t hggc -o "$T/1.asys" \
	--workload-log "$T/1.log" -- "$W" --lib-dir "$D" --scale 2 --hold 0.001 \
	2>"$T/1.err" || { cat "$T/1.err"; fail "asys record (1) failed"; }
[ "$(own "$T/1.log")" = 370 ] || fail "(1) the workload says $(own "$T/1.log") launches, want 370"
got=$(counts "$T/1.asys")
# saxpy 100k, reduce 50k, vecadd 25k, handle_kernel 7k, lib_kernel_b 3k; k=2
[ "$got" = "6 14 50 100 200 " ] || fail "(1) per-kernel launches '$got', want '6 14 50 100 200'"
[ "$(total "$T/1.asys")" = 370 ] || fail "(1) total $(total "$T/1.asys"), want 370"
echo "ok 1: launching at once and exiting 1 ms after: 370 of 370, per kernel exact"

# 2. the reported job: load, sleep, many launches, exit
env -u LD_LIBRARY_PATH timeout 120 "$ASYS" record -t hggc -o "$T/2.asys" \
	--workload-log "$T/2.log" -- "$W" --lib-dir "$D" --sleep 1 --rate 2500 --seconds 1 \
	--hold 0.001 2>"$T/2.err" || { cat "$T/2.err"; fail "asys record (2) failed"; }
n=$(own "$T/2.log")
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "(2) the workload printed no count"
[ "$(total "$T/2.asys")" = "$n" ] || fail "(2) total $(total "$T/2.asys"), the workload made $n"
echo "ok 2: sleep, then $n launches, exit: $n of $n"

# 3. -p: the runtime is loaded before asys starts
"$W" --lib-dir "$D" --scale 1 --ready-file "$T/ready" --go-file "$T/go" --hold 0.001 \
	>"$T/3.log" &
P=$!
i=0
while [ ! -e "$T/ready" ]; do
	i=$((i + 1)); [ $i -gt 2000 ] && fail "(3) the workload did not start"; sleep 0.01
done
"$ASYS" record -t hggc -p "$P" -o "$T/3.asys" 2>"$T/3.err" &
R=$!
gpurt_wait_attached "$R" || fail "(3) asys record did not attach"
touch "$T/go"
wait "$P" || fail "(3) the workload failed"
P=
kill -TERM "$R"
wait "$R" || { cat "$T/3.err"; fail "asys record (3) failed"; }
R=
[ "$(own "$T/3.log")" = 185 ] || fail "(3) the workload says $(own "$T/3.log"), want 185"
got=$(counts "$T/3.asys")
[ "$got" = "3 7 25 50 100 " ] || fail "(3) per-kernel launches '$got', want '3 7 25 50 100'"
echo "ok 3: -p, exiting 1 ms after the last launch: 185 of 185, per kernel exact"
