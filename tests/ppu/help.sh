#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# The PPU help listings and the capacity check through the real binary, with
# the fake libhgml.so: asys top prints them and exits before needing a terminal.
. "$top_srcdir/tests/lib.sh"
FAKE="$top_builddir/tests/fakes/.libs/libhgml.so"
[ -r "$FAKE" ] || skip "fake library not built: $FAKE"
export ASYS_HGML_LIBRARY="$FAKE"
unset FAKE_HGML_DEVICES FAKE_HGML_NO_GPM FAKE_HGML_INIT_FAIL
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT

# --ppu-metrics-device help: the forms, then the fake's devices
FAKE_HGML_DEVICES=2 "$ASYS" top --ppu-metrics-device help >"$out/dev" 2>&1; rc=$?
cat >"$out/dev.want" <<'W'
Possible --ppu-metrics-device values are:
    all: Select all supported PPUs
    none: Disable PPU Metrics [Default]
    device ID list: comma separated device ID list(eg.: 0,1)

Available PPU metrics sampling devices are:
    0: PPU, PCI Bus ID: 00000000:10:00.0
    1: PPU, PCI Bus ID: 00000000:11:00.0
W
if [ $rc -eq 0 ] && cmp -s "$out/dev" "$out/dev.want"; then pass; else
	fail "--ppu-metrics-device help (rc $rc)"; diff "$out/dev.want" "$out/dev"; fi

# device IDs none of which the node has stop the command at start (exit 2),
# and the message names the subcommand
FAKE_HGML_DEVICES=4 "$ASYS" record -o "$out/x.asys" --ppu-metrics-device 4,5 >/dev/null 2>"$out/bad"
rc=$?
if [ $rc -eq 2 ] && [ ! -e "$out/x.asys" ] &&
	grep -q '^asys record: PPU devices 4, 5 of --ppu-metrics-device do not exist: 4 found (IDs 0-3)' "$out/bad"
then pass; else fail "--ppu-metrics-device 4,5 on 4 devices (rc $rc)"; cat "$out/bad"; fi
# some that exist among others that do not: those are sampled, the others named
FAKE_HGML_DEVICES=2 "$ASYS" record -o "$out/some.asys" --duration 1s \
	--ppu-metrics-device 0,1,7 >/dev/null 2>"$out/some"
rc=$?
ents=$("$ASYS" export --streams ppu.metrics "$out/some.asys" 2>/dev/null |
	awk -F, 'NR > 1 { print $4 }' | sort -u | tr '\n' ' ')
if [ $rc -eq 0 ] && [ "$ents" = "0 1 " ] &&
	grep -q '^asys record: PPU device 7 of --ppu-metrics-device does not exist: 2 found (IDs 0-1)' "$out/some" &&
	grep -q 'sampling the other 2$' "$out/some"
then pass; else fail "--ppu-metrics-device 0,1,7 on 2 devices (rc $rc, entities '$ents')"; cat "$out/some"; fi
"$ASYS" top --ppu-metrics-set nosuchset >/dev/null 2>"$out/bad"; rc=$?
if [ $rc -eq 2 ] && grep -q '^asys top: ' "$out/bad"; then pass; else
	fail "a bad metric set: rc $rc, want 2 and 'asys top:'"; cat "$out/bad"; fi

# --ppu-metrics-set help: the table
"$ASYS" top --ppu-metrics-set help >"$out/set" 2>&1; rc=$?
if [ $rc -eq 0 ] && head -4 "$out/set" | tail -1 | grep -q '^ ---------------- -\{40\} -\{44\}$' &&
	grep -q '^  summary          Collect clock / memory / CU activity /   ce__cycles_elapsed.avg.per_second$' "$out/set" &&
	grep -q '^  throughput       Collect DRAM / PCIe / ICN link           kvd__transaction_hit_rate.pct$' "$out/set"
then pass; else fail "--ppu-metrics-set help (rc $rc)"; cat "$out/set"; fi

# --ppu-metrics-list help: name, Display Name, Unit, Description
"$ASYS" top --ppu-metrics-list help >"$out/list" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -A5 '^kvd__transaction_hit_rate.pct$' "$out/list" | tr '\n' '|' |
	grep -q '^kvd__transaction_hit_rate.pct|    Display Name:|        KVD Hit Rate|    Unit: %|    Description:|        (%) hit rate of KVD cacheable requests|$'
then pass; else fail "--ppu-metrics-list help (rc $rc)"; head -20 "$out/list"; fi

# --check-ppu-metrics-list: PASS, FAIL with a split, unknown names
"$ASYS" top --check-ppu-metrics-list ce__cycles_active.avg,kvd__transaction_hit_rate.pct >"$out/ok" 2>&1; rc=$?
printf 'Check sampling metrics list result: PASS.\nMetrics list is suitable for PPU sampling capacity.\n' >"$out/ok.want"
if [ $rc -eq 0 ] && cmp -s "$out/ok" "$out/ok.want"; then pass; else fail "check PASS (rc $rc)"; cat "$out/ok"; fi

links=$(for k in 0 1 2 3 4 5 6 7 8 9 10; do printf 'icnl%drx__bytes.sum.per_second,icnl%dtx__bytes.sum.per_second,' $k $k; done)
"$ASYS" top --check-ppu-metrics-list "${links%,}" >"$out/bad" 2>&1; rc=$?
if [ $rc -eq 1 ] && head -1 "$out/bad" | grep -qx 'Check sampling metrics list result: FAIL.' &&
	[ "$(grep -c '^    --ppu-metrics-list ' "$out/bad")" -eq 2 ]
then pass; else fail "check FAIL (rc $rc)"; cat "$out/bad"; fi

"$ASYS" top --ppu-metrics-list kvd__transaction_hit >"$out/unk" 2>&1; rc=$?
if [ $rc -eq 2 ] && grep -q "unknown PPU metric 'kvd__transaction_hit'; closest: kvd__transaction_hit_rate.pct" "$out/unk"
then pass; else fail "unknown metric (rc $rc)"; cat "$out/unk"; fi

"$ASYS" top --ppu-metrics-set thruput >"$out/unks" 2>&1; rc=$?
if [ $rc -eq 2 ] && grep -q "unknown --ppu-metrics-set 'thruput'" "$out/unks"
then pass; else fail "unknown set (rc $rc)"; cat "$out/unks"; fi

# no library at all
ASYS_HGML_LIBRARY= PPU_HOME=/nonexistent/ppu "$ASYS" top --ppu-backend hgml --ppu-metrics-device help >"$out/nolib" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q "^No PPU metrics sampling devices are available: no PPU library: set PPU_HOME or ASYS_HGML_LIBRARY; PPU_HOME names the PPU SDK's directory, ASYS_HGML_LIBRARY the library file; asys looked in /nonexistent/ppu/lib/libhgml.so, " "$out/nolib"
then pass; else fail "no library (rc $rc)"; cat "$out/nolib"; fi
finish
