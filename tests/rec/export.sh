#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# asys export through the real binary: a failure writes no byte to standard
# output and leaves no -o file; the time column carries its zone; jq reads
# every JSON entity id whole (the all-CPU entity is 2^64 - 1).
. "$top_srcdir/tests/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
good=$top_srcdir/tests/data/good.asys
f=$work/run.asys

# expect_nothing RC WHAT args...: exit RC, a message, no output, no -o file
expect_nothing() {
	want_rc=$1 what=$2
	shift 2
	"$ASYS" export "$@" >"$work/out" 2>"$work/err"
	rc=$?
	[ $rc -eq "$want_rc" ] || fail "$what: exit $rc, want $want_rc"
	[ -s "$work/err" ] || fail "$what: no message"
	[ ! -s "$work/out" ] || fail "$what: wrote $(wc -c <"$work/out") bytes: $(head -c 80 "$work/out")"
	pass
	"$ASYS" export -o "$work/o.csv" "$@" >/dev/null 2>&1
	rc=$?
	[ $rc -eq "$want_rc" ] || fail "$what -o: exit $rc, want $want_rc"
	[ ! -e "$work/o.csv" ] || fail "$what: -o left $work/o.csv behind"
	pass
}
for fmt in csv json; do
	expect_nothing 2 "$fmt --streams bogus" --format $fmt --streams bogus "$good"
	expect_nothing 2 "$fmt --begin soon" --format $fmt --begin soon "$good"
	expect_nothing 2 "$fmt --end soon, second file" --format $fmt --end soon "$good" "$good"
	expect_nothing 1 "$fmt missing second file" --format $fmt "$good" "$work/missing.asys"
	expect_nothing 1 "$fmt missing first file" --format $fmt "$work/missing.asys" "$good"
done
expect_nothing 2 "summary --streams bogus" --summary --streams bogus "$good"

# an existing -o file is left alone when the export cannot start
echo keep >"$work/keep.csv"
"$ASYS" export -o "$work/keep.csv" --streams bogus "$good" 2>/dev/null
[ "$(cat "$work/keep.csv")" = keep ] || fail "a failed export changed an existing -o file"
pass
# a write that fails (full disk) is a failure, with a message
if [ -w /dev/full ]; then
	"$ASYS" export "$good" >/dev/full 2>"$work/err" && fail "export to a full disk exited 0"
	grep -q "cannot write the output" "$work/err" || fail "full disk: $(cat "$work/err")"
	pass
fi

# the time column: ISO 8601 with the offset of the zone
"$ASYS" record -o "$f" --duration 1s -d 0.25 -s none 2>"$work/err" ||
	fail "asys record exited $?: $(cat "$work/err")"
TZ=Asia/Kolkata "$ASYS" export --streams cpu.core "$f" >"$work/ist.csv" || fail "export (IST)"
TZ=UTC "$ASYS" export --streams cpu.core "$f" >"$work/utc.csv" || fail "export (UTC)"
head -1 "$work/ist.csv" | grep -qx 't_ns,time,stream,entity,label,field,unit,value,pid,name,host' ||
	fail "CSV header: $(head -1 "$work/ist.csv")"
iso='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{9}'
[ "$(sed 1d "$work/ist.csv" | grep -cvE "^[0-9]+,$iso\\+05:30,cpu\\.core,")" -eq 0 ] ||
	fail "IST rows without +05:30: $(sed 1d "$work/ist.csv" | head -1)"
[ "$(sed 1d "$work/utc.csv" | grep -cvE "^[0-9]+,$iso\\+00:00,cpu\\.core,")" -eq 0 ] ||
	fail "UTC rows without +00:00: $(sed 1d "$work/utc.csv" | head -1)"
# the same instant: the IST clock reads 5 h 30 min later
if command -v date >/dev/null && date -d 2026-01-01T00:00:00+00:00 +%s >/dev/null 2>&1; then
	a=$(sed -n 2p "$work/ist.csv" | cut -d, -f2) b=$(sed -n 2p "$work/utc.csv" | cut -d, -f2)
	[ "$(date -d "$a" +%s)" = "$(date -d "$b" +%s)" ] || fail "IST $a and UTC $b differ"
fi
pass

# jq keeps the ids whole: the all-CPU entity is a string of its 20 digits
if ! command -v jq >/dev/null; then
	echo "note: jq is missing: the JSON ids are not read back with jq"
else
	"$ASYS" export --format json --streams cpu.core "$f" >"$work/j" || fail "export json"
	jq -e -s 'map(select(.label == "cpu")) | length > 0 and
		all(.entity == "18446744073709551615")' "$work/j" >/dev/null ||
		fail "all-CPU entity: $(grep -m1 '"label":"cpu"' "$work/j")"
	jq -e -s 'map(select(.label != "cpu")) | length > 0 and
		all(.entity | type == "number")' "$work/j" >/dev/null ||
		fail "core entities are not numbers: $(head -1 "$work/j")"
	jq -e -s 'all(.time | test("T.*[+-][0-9]{2}:[0-9]{2}$"))' "$work/j" >/dev/null ||
		fail "JSON time without its zone"
	pass
fi
finish
