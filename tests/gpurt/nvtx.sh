#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root probes
# NVTX v2 ranges of a process started outside asys (-p PID), from uprobes on
# the fake libnvToolsExt.so.1, through asys record + asys export: exact
# counts, total and self times within 10 % of the workload's own clock, the
# nesting depth, the colour, and min/max of a refresh.
. "$top_srcdir/tests/gpurt/lib.sh"
gpurt_need_bpf
[ -e "$FAKE_CUDA_DIR/libnvToolsExt.so.1" ] || { echo "FAIL: libnvToolsExt.so.1 was not built"; exit 1; }
T=$(mktemp -d /tmp/gpurt-nvtx.XXXXXX)
P= R=
cleanup() {
	touch "$T/go" "$T/end"
	for p in $P $R; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "$KEEP" ] || rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; nvtx_dump; exit 1; }
wait_for() { i=0; while [ ! -e "$1" ]; do i=$((i+1)); [ $i -gt 3000 ] && fail "no $1"; sleep 0.01; done; }

"$GPURT_WORKLOAD" --lib-dir "$FAKE_CUDA_DIR" --nvtx 1 --ready-file "$T/ready" --go-file "$T/go" \
	--done-file "$T/done" --end-file "$T/end" >"$T/own" &
P=$!
wait_for "$T/ready"
"$ASYS" record -p "$P" -d 0.2 -o "$T/x.asys" 2>"$T/rec.err" &
R=$!
gpurt_wait_nvtx "$R" "$T/rec.err" || fail "asys record did not attach to libnvToolsExt.so.1"
touch "$T/go"
wait_for "$T/done"
sleep 1 # a few refreshes past the last range
kill -TERM "$R"
wait "$R" || { cat "$T/rec.err"; fail "asys record failed"; }
R=
touch "$T/end"
wait "$P" || fail "the workload failed"
P=
"$ASYS" export --streams hgtx.ranges -o "$T/x.csv" "$T/x.asys" || fail "asys export failed"

for n in outer:20:0 inner:40:1 colored:10:0 started:5:0 started_ex:3:0 thread2:10:0; do
	name=${n%%:*} rest=${n#*:} count=${rest%%:*} depth=${rest#*:}
	[ "$(nvtx_last "$name" count)" = "$count" ] || fail "$name: count '$(nvtx_last "$name" count)', want $count"
	[ "$(nvtx_own "$name" count)" = "$count" ] || fail "$name: the workload counted $(nvtx_own "$name" count)"
	[ "$(nvtx_last "$name" depth)" = "$depth" ] || fail "$name: depth '$(nvtx_last "$name" depth)', want $depth"
	[ "$(nvtx_last "$name" pid)" = "$(awk -F, 'NR > 1 && $6=="pid" { print $8; exit }' "$T/x.csv")" ] ||
		fail "$name: pid"
	for f in total_ns self_ns; do
		got=$(nvtx_last "$name" $f) want=$(nvtx_own "$name" $f)
		nvtx_near "$got" "$want" "$count" || fail "$name: $f $got, the workload measured $want"
	done
done
[ "$(nvtx_last colored color)" = $((0x00aa33)) ] || fail "colored: color '$(nvtx_last colored color)'"
[ "$(nvtx_last outer color)" = nan ] || fail "outer: color '$(nvtx_last outer color)', want nan"
# min and max: some refresh saw outer ranges end, each at least 8 ms long
mm=$(awk -F, -v l="${nvtx_us}outer" '$5==l && ($6=="min_ns" || $6=="max_ns") && $8!="nan" { print $8 }' "$T/x.csv")
[ -n "$mm" ] || fail "no min_ns/max_ns for outer in any sample"
for v in $mm; do
	[ "$v" -ge 8000000 ] || fail "outer: a min/max of $v ns, under the 8 ms it sleeps"
done
echo "ok: NVTX v2 counts, times, nesting and colour through record + export"
