#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# PPU streams through asys record and asys export, with the fake
# libhgml.so: the exported values follow the fake's patterns.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }
TDIR=$(mktemp -d) || exit 1
trap 'rm -rf "$TDIR"' EXIT
FAKE="$top_builddir/tests/fakes/.libs/libhgml.so"
[ -r "$FAKE" ] || { echo "SKIP: fake library not built: $FAKE"; exit 77; }
F="$TDIR/ppu.asys"

ASYS_HGML_LIBRARY="$FAKE" FAKE_HGML_DEVICES=3 "$ASYS" record -s none -d 0.5 --duration 1500ms \
	--ppu-metrics-device 0,2 --ppu-metrics-set none --ppu-metrics-frequency 100 \
	--ppu-metrics-list kvd__transaction_hit_rate.pct,ce__cycles_active.avg.pct_of_peak_sustained_elapsed \
	-o "$F" >"$TDIR/rec.out" 2>&1 || { cat "$TDIR/rec.out"; fail "asys record failed"; }

"$ASYS" export --streams ppu.metrics,ppu.dev "$F" >"$TDIR/x.csv" 2>"$TDIR/x.err" ||
	{ cat "$TDIR/x.err"; fail "asys export failed"; }
# GPM 1 on device d: (10 d + 1 + s) % 100 for consecutive s from 2; KVD: 50 + d + 1
awk -F, '
$3 == "ppu.metrics" && $6 ~ /^ce__cycles_active/ {
	d = $4; n[d]++
	want = (d in last) ? (last[d] + 1) % 100 : 10 * d + 3
	if ($8 != want) { printf "device %s sample %d: %s, want %s\n", d, n[d], $8, want; bad = 1 }
	last[d] = $8
}
$3 == "ppu.metrics" && $6 == "kvd__transaction_hit_rate.pct" && $8 != 51 + $4 {
	printf "device %s KVD %s\n", $4, $8; bad = 1 }
$3 == "ppu.metrics" && $4 == 1 { print "device 1 was not asked for"; bad = 1 }
$3 == "ppu.dev" && $6 == "clock_sm" && $8 != 1000 + 10 * $4 { printf "clock %s\n", $8; bad = 1 }
$3 == "ppu.dev" && $4 == 2 && $5 != "2: PPU 00000000:12:00.0 PPU-00000002-0000-4000-8000-00000000a502" {
	printf "label %s\n", $5; bad = 1 }
END {
	if (n[0] < 100 || n[0] > 160 || n[2] < 100 || n[2] > 160) {
		printf "samples: %d and %d in 1.5 s at 100 Hz\n", n[0], n[2]; bad = 1 }
	exit bad
}' "$TDIR/x.csv" || fail "exported PPU values do not follow the fake's pattern"
echo "ok: record and export"

"$ASYS" export --summary "$F" >"$TDIR/sum" 2>/dev/null
grep -Eq '^  ppu\.metrics +v1 +2 fields +2 series' "$TDIR/sum" || { cat "$TDIR/sum"; fail "summary: ppu.metrics"; }
# one row per device
[ "$(grep -Ec '^ppu\.dev +clock_sm +[1-9][0-9]* +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +MHz .*PPU' "$TDIR/sum")" = 3 ] ||
	{ cat "$TDIR/sum"; fail "summary: clock_sm of 3 devices"; }
echo "ok: summary"

