#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root
# asys export of several hosts' recordings: two real `asys record` runs,
# each in its own UTS namespace under its own host name, overlapping in
# time, merged into one time-ordered export with a host column (CSV, JSON,
# summary); two recordings of one host name told apart; a bad second file
# named in the error.
. "$top_srcdir/tests/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

unshare -u true 2>/dev/null || skip "unshare -u (a UTS namespace, for a host name per recording) needs root"

# rec HOST FILE SECONDS: asys record under host name HOST
rec() {
	unshare -u sh -c 'hostname "$1" && shift && exec "$@"' sh "$1" \
		"$ASYS" record -o "$work/$2" --duration "$3" -d 0.2 -s none \
		2>"$work/$2.err" || fail "asys record as $1 exited $?: $(cat "$work/$2.err")"
}
rec nodeA a.asys 3s &
sleep 1
rec nodeB b.asys 3s &
wait
[ -s "$work/a.asys" ] && [ -s "$work/b.asys" ] || fail "the recordings were not made"

cd "$work" || fail "cd"
TZ=UTC "$ASYS" export a.asys b.asys >m.csv 2>m.err || fail "merged export exited $?: $(cat m.err)"
[ ! -s m.err ] || fail "merged export said: $(cat m.err)"
head -1 m.csv | grep -qx 't_ns,time,stream,entity,label,field,unit,value,pid,name,host' ||
	fail "CSV header: $(head -1 m.csv)"
# every row has one of the two hosts, and both are there
[ "$(sed 1d m.csv | awk -F, '{print $NF}' | sort -u | tr '\n' ' ')" = "nodeA nodeB " ] ||
	fail "hosts in the host column: $(sed 1d m.csv | awk -F, '{print $NF}' | sort -u | tr '\n' ' ')"
pass
# in time order (UTC ISO 8601 of one day compares as text), and interleaved:
# the recordings overlap, so some nodeB row comes before the last nodeA row
sed 1d m.csv | awk -F, 'prev > $2 { print "row " NR ": " $2 " after " prev; bad = 1; exit }
	{ prev = $2 } END { exit bad }' || fail "merged rows out of time order"
sed 1d m.csv | awk -F, '$NF == "nodeB" && !b { b = NR } $NF == "nodeA" { a = NR }
	END { exit !(b && b < a) }' || fail "the rows of the two hosts are not interleaved"
pass
# nothing lost or changed: the merged rows are the two exports' rows
for h in a b; do
	"$ASYS" export $h.asys >$h.csv 2>/dev/null || fail "export $h.asys"
	sed 1d $h.csv | cut -d, -f1-10
done | sort >both.rows
sed 1d m.csv | cut -d, -f1-10 | sort >m.rows
cmp -s both.rows m.rows || fail "merged rows differ from the single exports' ($(wc -l <m.rows) vs $(wc -l <both.rows))"
[ "$(sed 1d a.csv | awk -F, '{print $NF}' | sort -u)" = nodeA ] || fail "single export: host column"
pass

# JSON lines: each has its host, in time order
"$ASYS" export --format json b.asys a.asys >m.json || fail "json export exited $?"
python3 -c '
import json, sys
hosts = {json.loads(l)["host"] for l in open(sys.argv[1])}
sys.exit(0 if hosts == {"nodeA", "nodeB"} else "hosts: %s" % sorted(hosts))' m.json ||
	fail "merged JSON: the host key"
TZ=UTC "$ASYS" export --format json b.asys a.asys | python3 -c '
import json, sys
t = [json.loads(l)["time"] for l in sys.stdin]
bad = [i for i in range(1, len(t)) if t[i] < t[i - 1]]
sys.exit("JSON out of order at line %d" % bad[0] if bad else 0)' || fail "merged JSON out of time order"
pass

# --summary: one table per host, each row naming its host
"$ASYS" export --summary --streams mem.sys a.asys b.asys >sum || fail "summary exited $?"
grep -q '^host:      nodeA ' sum && grep -q '^host:      nodeB ' sum || fail "summary: hosts: $(grep '^host:' sum)"
for h in nodeA nodeB; do
	awk -v h=$h '$1 == "mem.sys" && $2 == "used" && $(NF - 1) == h { n++ } END { exit n != 1 }' sum ||
		fail "summary: no single mem.sys used row of $h: $(grep '^mem.sys *used' sum)"
done
pass

# a second recording of host nodeA: told apart by file name, and said
rec nodeA c.asys 1s
"$ASYS" export --streams mem.sys a.asys b.asys c.asys >d.csv 2>d.err || fail "export of three exited $?"
grep -q "c.asys: another recording here has host 'nodeA' too; this file's rows say host 'nodeA:c.asys'" d.err ||
	fail "no note on the shared host name: $(cat d.err)"
[ "$(sed 1d d.csv | awk -F, '{print $NF}' | sort -u | tr '\n' ' ')" = "nodeA:a.asys nodeA:c.asys nodeB " ] ||
	fail "hosts with a shared name: $(sed 1d d.csv | awk -F, '{print $NF}' | sort -u | tr '\n' ' ')"
pass

# the segments of one rotated recording are one host, with no note
unshare -u sh -c 'hostname nodeC && exec "$@"' sh "$ASYS" record -o "$work/r.asys" --rotate 1s \
	--duration 2500ms -d 0.2 -s none 2>r.err || fail "asys record --rotate: $(cat r.err)"
[ -s r.1.asys ] || fail "no second segment: $(ls)"
"$ASYS" export --streams mem.sys r.asys r.1.asys b.asys >r.csv 2>r.err2 || fail "export of segments exited $?"
[ ! -s r.err2 ] || fail "segments of one recording: $(cat r.err2)"
[ "$(sed 1d r.csv | awk -F, '{print $NF}' | sort -u | tr '\n' ' ')" = "nodeB nodeC " ] ||
	fail "segments: hosts $(sed 1d r.csv | awk -F, '{print $NF}' | sort -u | tr '\n' ' ')"
pass

# hosts booted at different times: merged by wall-clock time, not by the
# monotonic t_ns (b's are 4000 s larger, its rows half a second after a's)
forge=$top_builddir/tests/rec/rec_forge
if [ -x "$forge" ]; then
	"$forge" host-a ha.asys && "$forge" host-b hb.asys || fail "rec_forge host-a/b"
	TZ=UTC "$ASYS" export hb.asys ha.asys >h.csv 2>h.err || fail "export of two boots: $(cat h.err)"
	[ "$(sed 1d h.csv | awk -F, '{printf "%s ", $NF}')" = "$(for i in 0 1 2 3 4 5 6 7 8 9; do
		printf 'host-a host-b '; done)" ] ||
		fail "two boots: hosts in row order: $(sed 1d h.csv | awk -F, '{printf "%s ", $NF}')"
	sed 1d h.csv | awk -F, 'NR > 1 && $2 <= prev { bad = 1 } { prev = $2 } END { exit bad }' ||
		fail "two boots: wall-clock times not increasing: $(sed 1d h.csv | cut -d, -f1,2,11 | head -4)"
	pass
else
	echo "note: no $forge: hosts of different boots not checked"
fi

# a bad second file: the error names it, and nothing is written
head -c 4000 /dev/urandom >junk.asys
"$ASYS" export a.asys junk.asys >j.out 2>j.err
rc=$?
[ $rc -eq 1 ] || fail "export with a junk second file exited $rc, want 1"
grep -q '^asys export: junk.asys: not an asys recording' j.err || fail "junk file: $(cat j.err)"
[ ! -s j.out ] || fail "junk second file: wrote $(wc -c <j.out) bytes"
pass
# damage inside the second file: reported with its name, the rest merged
cp b.asys bad.asys
printf 'XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX' | dd of=bad.asys bs=1 seek=3000 conv=notrunc 2>/dev/null
"$ASYS" export a.asys bad.asys >k.csv 2>k.err || fail "export with a damaged second file exited $?"
grep -q '^asys export: bad.asys: bytes [0-9]*-[0-9]*' k.err || fail "damaged file: $(cat k.err)"
grep -q ',nodeB$' k.csv && grep -q ',nodeA$' k.csv || fail "damaged file: rows of a host are missing"
pass
finish
