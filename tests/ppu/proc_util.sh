#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# ppu.proc_util through asys record and asys export, with the fake
# libhgml.so and its two processes shared by devices 0 and 1: every exported
# value is the fake's pattern, n/a included, and a process has one sample
# per refresh. The replay of the stream is checked in test_ppu_util.c.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }
TDIR=$(mktemp -d) || exit 1
trap 'rm -rf "$TDIR"' EXIT
FAKE="$top_builddir/tests/fakes/.libs/libhgml.so"
[ -r "$FAKE" ] || { echo "SKIP: fake library not built: $FAKE"; exit 77; }
F="$TDIR/util.asys"

ASYS_HGML_LIBRARY="$FAKE" FAKE_HGML_DEVICES=3 FAKE_HGML_SHARED=1 "$ASYS" record -s none -d 0.25 \
	--duration 1500ms --ppu-metrics-set none -o "$F" >"$TDIR/rec.out" 2>&1 ||
	{ cat "$TDIR/rec.out"; fail "asys record failed"; }
"$ASYS" export --streams ppu.proc_util "$F" >"$TDIR/x.csv" 2>"$TDIR/x.err" ||
	{ cat "$TDIR/x.err"; fail "asys export failed"; }

# Process i of device d (entity d << 32 | pid): sm = 1 + (10 d + i) % 100,
# mem = sm / 2, enc = d + i, dec = 2 d for even i, n/a for odd i. Device d
# has 1 + d % 3 processes, then pids 4000900 and 4000901 on devices 0 and 1;
# device 0's first is asys itself.
awk -F, '
function index_of(d, pid, n) {
	n = 1 + d % 3
	if (pid >= 4000900) return n + pid - 4000900
	if (pid >= 4000000) return pid - 4000000 - 100 * d
	return 0
}
NR > 1 && $3 == "ppu.proc_util" {
	d = int($4 / 4294967296); pid = $4 - d * 4294967296; i = index_of(d, pid)
	sm = 1 + (10 * d + i) % 100
	want["sm"] = sm; want["mem"] = int(sm / 2); want["enc"] = d + i
	want["dec"] = i % 2 ? "nan" : 2 * d
	if ($8 != want[$6]) { printf "device %d pid %d %s: %s, want %s\n", d, pid, $6, $8, want[$6]; bad = 1 }
	if ($5 !~ "^" pid " ") { printf "device %d pid %d: label %s\n", d, pid, $5; bad = 1 }
	k = $4 SUBSEP $6 SUBSEP $1
	if (k in seen) { printf "%s %s twice at %s\n", $4, $6, $1; bad = 1 }
	seen[k] = 1; ents[$4] = 1; if ($6 == "sm") n[$4]++
	if ($6 == "sm") { last[$4] = $8; pid_of[$4] = pid }
}
END {
	for (e in ents) { ne++; if (n[e] < 4 || n[e] > 8) { printf "%s: %d samples in 1.5 s at 4 Hz\n", e, n[e]; bad = 1 } }
	if (ne != 1 + 2 + 3 + 4) { printf "%d processes, want 10\n", ne; bad = 1 }
	# PPU% of a process: its latest sm summed over devices
	for (e in last) sum[pid_of[e]] += last[e]
	if (sum[4000900] != 15 || sum[4000901] != 17) {
		printf "PPU%%: %s and %s, want 15 and 17\n", sum[4000900], sum[4000901]; bad = 1 }
	exit bad
}' "$TDIR/x.csv" || fail "exported ppu.proc_util does not follow the fake's pattern"
echo "ok: record and export follow the pattern"

"$ASYS" export --summary "$F" >"$TDIR/sum" 2>/dev/null
grep -Eq '^  ppu\.proc_util +v1 +4 fields +10 series' "$TDIR/sum" ||
	{ cat "$TDIR/sum"; fail "summary: ppu.proc_util"; }
echo "ok: summary"
