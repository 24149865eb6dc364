#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# `asys record` then `asys export`: the command-line path end to end. (The
# exact sample-for-sample check of live collectors is roundtrip_live in
# test_rec.)
. "$top_srcdir/tests/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
f=$work/run.asys

"$ASYS" record -o "$f" --duration 3s -d 0.5 2>"$work/err" || fail "asys record exited $?: $(cat "$work/err")"
grep -q "records" "$work/err" || fail "no closing summary line: $(cat "$work/err")"
[ "$(stat -c %a "$f")" = 640 ] || fail "mode is $(stat -c %a "$f"), want 640"
pass

"$ASYS" record -o "$f" --duration 1s 2>"$work/err" && fail "an existing file was overwritten"
grep -q -- "already exists: choose another name or add --force" "$work/err" || fail "message: $(cat "$work/err")"
pass

"$ASYS" replay --info "$f" >"$work/info" 2>&1 || fail "--info exited $?"
grep -q "complete" "$work/info" || fail "no trailer: $(cat "$work/info")"
grep -q "cpu.core" "$work/info" || fail "no cpu.core stream: $(cat "$work/info")"
grep -q "damage:    none" "$work/info" || fail "damage: $(cat "$work/info")"
pass

# csv: one row per value; json: one object per sample; both agree
"$ASYS" export "$f" --streams mem.sys >"$work/csv" || fail "export csv exited $?"
"$ASYS" export "$f" --streams mem.sys --format json >"$work/json" || fail "export json exited $?"
rows=$(($(wc -l <"$work/csv") - 1))
objs=$(wc -l <"$work/json")
fields=$(head -1 "$work/json" | tr ',' '\n' | grep -c '":[-0-9n]')
[ "$objs" -ge 4 ] || fail "only $objs mem.sys samples in 3 s"
# every json object has t_ns, entity and a null label besides the values
[ "$rows" -eq $((objs * (fields - 3))) ] || fail "csv rows $rows vs json $objs x $((fields - 3)) values"
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$work/json" ||
		fail "export json is not JSON lines"
fi
pass

# time window: the second half has fewer samples than the whole
half=$("$ASYS" export "$f" --streams mem.sys --begin 50% | wc -l)
[ "$half" -lt "$rows" ] && [ "$half" -gt 1 ] || fail "--begin 50% gave $half rows of $rows"
pass

"$ASYS" export --summary "$f" >"$work/sum" || fail "--summary exited $?"
grep -q "p99" "$work/sum" && grep -Eq '^mem\.sys +used .* -$' "$work/sum" || fail "summary: $(cat "$work/sum")"
pass

# --rotate: several segments, each one a whole recording
"$ASYS" record -o "$work/seg.asys" --duration 3s --rotate 1s -d 0.25 2>/dev/null || fail "rotate run"
[ -f "$work/seg.1.asys" ] || fail "no second segment: $(ls "$work")"
"$ASYS" replay --info "$work/seg.1.asys" | grep -q "segment:   1" || fail "segment 1 has no META"
pass

# --rotate SIZE and --max-size: segments of about the size, and a recording
# that stops before all of them together pass the limit, each whole and
# readable (the NIC at 10 kHz writes the 256KB in a few seconds)
"$ASYS" record -o "$work/sz.asys" --duration 20s --rotate 64KB --max-size 256KB -d 0.1 \
	--host-memory-sampling-frequency 1000 --cpu-frequency 1000 \
	--nic-metrics true --nic-metrics-frequency 10000 2>"$work/err" ||
	fail "size run: $(cat "$work/err")"
total=$(cat "$work"/sz*.asys | wc -c)
[ -f "$work/sz.1.asys" ] || fail "--rotate 64KB made one segment: $(ls "$work")"
[ "$total" -le 262144 ] || fail "--max-size 256KB: the segments hold $total bytes"
for seg in "$work"/sz*.asys; do
	[ "$(wc -c <"$seg")" -le 65536 ] || fail "--rotate 64KB: $seg holds $(wc -c <"$seg") bytes"
done
grep -q -- "--max-size reached" "$work/err" || fail "no --max-size stop: $(cat "$work/err")"
for seg in "$work"/sz*.asys; do
	"$ASYS" replay --info "$seg" >"$work/info" 2>&1 || fail "$seg does not open: $(cat "$work/info")"
	grep -q "damage:    none, 0 holes" "$work/info" || fail "$seg is damaged: $(cat "$work/info")"
done
pass
finish
