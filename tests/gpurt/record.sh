#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root probes serial
# asys record + asys export with real uprobes: two workloads at once give the
# exact byte totals, failures, launches per demangled name, copies per
# direction (gpurt.copy) and the per-pid split in the exported recording; a
# workload that exits leaves the stream. The probes are uprobe-multi links
# where the kernel has them, perf-event uprobes with ASYS_UPROBE_MULTI=0
# (record_perf.sh) or before kernel 6.6.
. "$top_srcdir/tests/gpurt/lib.sh"
gpurt_need_bpf
T=$(mktemp -d /tmp/gpurt-rec.XXXXXX)
P1= P2= R=
cleanup() {
	touch "$T/go" "$T/e1" "$T/e2"
	for p in $P1 $P2 $R; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "$KEEP" ] || rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
wait_for() { i=0; while [ ! -e "$1" ]; do i=$((i+1)); [ $i -gt 2000 ] && fail "no $1"; sleep 0.01; done; }

W="$GPURT_WORKLOAD"
"$W" --scale 1 --ready-file "$T/r1" --go-file "$T/go" --done-file "$T/d1" --end-file "$T/e1" &
P1=$! PID1=$!
"$W" --scale 2 --ready-file "$T/r2" --go-file "$T/go" --done-file "$T/d2" --end-file "$T/e2" &
P2=$! PID2=$!
wait_for "$T/r1"; wait_for "$T/r2"
# recorded until SIGTERM, not for a fixed time: attaching can take seconds
# on a loaded machine, and all that follows must fall inside the recording
"$ASYS" record -s system-wide -d 0.2 -o "$T/x.asys" 2>"$T/rec.err" &
R=$!
gpurt_wait_attached "$R" || fail "asys record did not attach to the fake runtime"
why=$(gpurt_check_link_kind "$R") || fail "$why"
touch "$T/go"
wait_for "$T/d1"; wait_for "$T/d2"
# the first workload may exit only once its totals are recorded: read the
# file being written until they are there (30 s at most)
i=0
until [ "$("$ASYS" export --streams gpurt.mem "$T/x.asys" 2>/dev/null |
	awk -F, -v e="$PID1" '$4==e && $6=="device_bytes" { v=$8 } END { print v }')" = 7340032 ]; do
	i=$((i + 1))
	[ $i -gt 150 ] && break # the checks below say what is missing
	sleep 0.2
done
touch "$T/e1"; wait "$P1"; P1=
# the other is sampled on for 3 s (15 refreshes), well past the 1 s checked below
sleep 3
kill -TERM "$R"
wait "$R" || { cat "$T/rec.err"; fail "asys record failed"; }
R=
touch "$T/e2"; wait "$P2"; P2=
"$ASYS" export --streams gpurt.mem,gpurt.kernels,gpurt.copy -o "$T/x.csv" "$T/x.asys" ||
	fail "asys export failed"

# the last value of FIELD for ENTITY in STREAM
last() { awk -F, -v s="$1" -v e="$2" -v f="$3" '$3==s && $4==e && $6==f { v=$8 } END { print v }' "$T/x.csv"; }
# the last launches of the kernel NAME of process PID, by the pid and name
# columns that end each row before the host (CSV quotes a name that has a
# comma)
launches() {
	awk -v q=",$1,\"$2\"" -v p=",$1,$2" '
	function ends(s, t) { return length(s) >= length(t) && substr(s, length(s) - length(t) + 1) == t }
	{ l = $0; sub(/,[^,]*$/, "", l) }
	/,launches,,/ && (ends(l, q) || ends(l, p)) { v = l }
	END { sub(/.*,launches,,/, "", v); sub(/,.*/, "", v); print v }' "$T/x.csv"
}

check_pid() {
	pid=$1 k=$2
	[ "$(last gpurt.mem "$pid" device_bytes)" = $((k * 7340032)) ] ||
		fail "pid $pid device_bytes $(last gpurt.mem "$pid" device_bytes), want $((k * 7340032))"
	[ "$(last gpurt.mem "$pid" pinned_bytes)" = $((k * 1277952)) ] ||
		fail "pid $pid pinned_bytes $(last gpurt.mem "$pid" pinned_bytes)"
	[ "$(last gpurt.mem "$pid" allocs)" = $((k * 21)) ] || fail "pid $pid allocs"
	[ "$(last gpurt.mem "$pid" frees)" = $((k * 8)) ] || fail "pid $pid frees"
	[ "$(last gpurt.mem "$pid" fails)" = 3 ] || fail "pid $pid fails $(last gpurt.mem "$pid" fails)"
	[ "$(last gpurt.mem "$pid" last_fail_size)" = $((5 * 1099511627776 + k)) ] ||
		fail "pid $pid last_fail_size $(last gpurt.mem "$pid" last_fail_size)"
	for kn in "mykern::saxpy(float, float*, float*, int):100" \
		"void reduce<float>(float*, int):50" \
		"vecadd(int const*, int const*, int*, int):25" \
		"handle_kernel(float*):7" "lib_kernel_b:3"; do
		name=${kn%:*} n=${kn##*:}
		got=$(launches "$pid" "$name")
		[ "$got" = $((n * k)) ] || fail "pid $pid '$name': '$got' launches, want $((n * k))"
	done
	# copies per unit of scale (tests/gpurt/workload_copy.c)
	for fv in htod_calls:9 htod_bytes:19216 dtoh_calls:6 dtoh_bytes:7084 dtod_calls:7 \
		dtod_bytes:41056 htoh_calls:1 htoh_bytes:100 unknown_calls:1 unknown_bytes:70 \
		set_calls:4 set_bytes:2216 pinned_calls:8 pinned_bytes:17836 pageable_calls:7 \
		pageable_bytes:8464; do
		f=${fv%:*} n=${fv#*:}
		got=$(last gpurt.copy "$pid" "$f")
		[ "$got" = $((n * k)) ] || fail "pid $pid gpurt.copy $f '$got', want $((n * k))"
	done
}
check_pid "$PID1" 1
check_pid "$PID2" 2

# the one that exited stops well before the end; the other runs on
tlast() { awk -F, -v e="$1" '$3=="gpurt.mem" && $4==e { t=$1 } END { print t }' "$T/x.csv"; }
t1=$(tlast "$PID1") t2=$(tlast "$PID2")
[ -n "$t1" ] && [ -n "$t2" ] || fail "no samples"
[ $(( (t2 - t1) / 1000000 )) -gt 1000 ] ||
	fail "pid $PID1 exited but was sampled until $t1 (the other until $t2)"
echo "ok: ${ASYS_UPROBE_MULTI:+ASYS_UPROBE_MULTI=$ASYS_UPROBE_MULTI: }totals, failures, launches per name, copies and the per-pid split survive record + export"
