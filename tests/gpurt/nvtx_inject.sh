#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root probes
# NVTX v2 ranges of a command asys starts (`asys record -- workload`): the
# fake libnvToolsExt.so.1 loads libasys-inject.so, as the real one loads the
# tool NVTX_INJECTION64_PATH names, and the probes on it see the same calls.
# Each range must be counted once: one hgtx.ranges series per name, with the
# workload's exact count and its times within 10 %.
. "$top_srcdir/tests/gpurt/lib.sh"
gpurt_need_bpf
INJECT_LIB="$top_builddir/.libs/libasys-inject.so"
[ -e "$FAKE_CUDA_DIR/libnvToolsExt.so.1" ] || { echo "FAIL: libnvToolsExt.so.1 was not built"; exit 1; }
[ -r "$INJECT_LIB" ] || { echo "FAIL: $INJECT_LIB was not built"; exit 1; }
T=$(mktemp -d /tmp/gpurt-nvtxi.XXXXXX)
R=
cleanup() {
	touch "$T/go" "$T/end"
	[ -n "$R" ] && kill "$R" 2>/dev/null
	wait 2>/dev/null
	[ -n "$KEEP" ] || rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; nvtx_dump; exit 1; }
wait_for() { i=0; while [ ! -e "$1" ]; do i=$((i+1)); [ $i -gt 3000 ] && fail "no $1"; sleep 0.01; done; }

ASYS_INJECT_LIB="$INJECT_LIB" "$ASYS" record -d 0.2 -o "$T/x.asys" --workload-log "$T/own" -- \
	"$GPURT_WORKLOAD" --lib-dir "$FAKE_CUDA_DIR" --nvtx 1 --ready-file "$T/ready" \
	--go-file "$T/go" --done-file "$T/done" --end-file "$T/end" 2>"$T/rec.err" &
R=$!
wait_for "$T/ready"
# both producers in place before the first range: the probes, and the region
gpurt_wait_nvtx "$R" "$T/rec.err" || fail "asys record did not attach to libnvToolsExt.so.1"
touch "$T/go"
wait_for "$T/done"
sleep 1 # a few refreshes past the last range
touch "$T/end"
wait "$R" || { cat "$T/rec.err"; fail "asys record failed"; }
R=
"$ASYS" export --streams hgtx.ranges -o "$T/x.csv" "$T/x.asys" || fail "asys export failed"

# the series (entities) labelled NAME in the default domain
series() { awk -F, -v l="$nvtx_us$1" '$5==l { print $4 }' "$T/x.csv" | sort -u | wc -l; }

head -1 "$T/x.csv" | grep -q '^[^,]*,[^,]*,[^,]*,entity,label,field,[^,]*,value' ||
	fail "the export's columns changed: $(head -1 "$T/x.csv")"
for n in outer:20 inner:40 colored:10 started:5 started_ex:3 thread2:10; do
	name=${n%%:*} count=${n#*:}
	[ "$(nvtx_own "$name" count)" = "$count" ] || fail "$name: the workload counted $(nvtx_own "$name" count)"
	[ "$(series "$name")" = 1 ] || fail "$name: $(series "$name") series, want 1 (counted by two producers)"
	[ "$(nvtx_last "$name" count)" = "$count" ] || fail "$name: count '$(nvtx_last "$name" count)', want $count"
	# thread2's ranges are 1 ms each, on a second thread: on a busy machine
	# a time slice between its clock and its call is most of one (31 against
	# 18 ms for ten once, beside a test run)
	[ "$name" = thread2 ] && continue
	got=$(nvtx_last "$name" total_ns) want=$(nvtx_own "$name" total_ns)
	nvtx_near "$got" "$want" "$count" || fail "$name: total_ns $got, the workload measured $want"
done
echo "ok: the ranges of a command asys started are counted once"
