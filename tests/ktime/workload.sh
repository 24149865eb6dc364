#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# `asys record -- command` end to end: asys makes the shared region and hands
# it to the command, whose InitializeInjection (called as the driver would,
# by `ktime_rig driver`) reaches the CUPTI stand-in; the export holds the
# exact counts and totals. The injection variables are set here, as a user
# may: asys leaves them.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/ktime/lib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/asys-ktime.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

FAKE_CUPTI_SCRIPT="k _Z4gemmv 0 250000 40; k axpy 0 1000 500; m 2 1024 800 3" \
	FAKE_CUPTI_REPEAT=3 FAKE_CUPTI_PERIOD_MS=100 ASYS_KACT_FLUSH_MS=100 ASYS_KACT_DEBUG=1 \
	timeout 120 "$ASYS" record -s process-tree -d 0.2 -o "$T/w.asys" --workload-log "$T/w.log" -- \
	"$KTIME_RIG" driver 800 >"$T/rec.out" 2>&1 || { fail "asys record: $(cat "$T/rec.out")"; finish; exit 1; }
if grep -q "no region from asys" "$T/w.log"; then
	fail "asys handed its command no shared region: $(grep -m1 'no region' "$T/w.log")"
	finish
	exit 1
fi
grep -q 'init 1' "$T/w.log" && pass || { fail "InitializeInjection did not start: $(cat "$T/w.log")"; finish; exit 1; }
"$ASYS" export --streams gpurt.ktime,gpurt.kcopy "$T/w.asys" >"$T/x.csv" 2>"$T/x.err" ||
	{ fail "export: $(cat "$T/x.err")"; finish; exit 1; }
last() { awk -F, -v n="$1" -v f="$2" 'index($0, n) && $6 == f { v = $8 } END { print v }' "$T/x.csv"; }
want() {
	got=$(last "$1" "$2")
	[ "$got" = "$3" ] && pass || fail "export: $1 $2 = '$got', want $3"
}
want gemm count 120
want gemm total_ns 30000000
want gemm max_ns 250000
want axpy count 1500
want axpy total_ns 1500000
want DtoH bytes 9216
finish
