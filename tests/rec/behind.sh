#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# A recorder held off the CPU (SIGSTOP for a second, as a starved machine
# would) skips the ticks it is too late for, and says so at the end: per
# sampling thread, how many ticks were skipped. Every tick of the 1 kHz
# thread is then either a sample in the file or one of the skipped: the
# samples plus the skipped ticks span the recording at 1 kHz, however loaded
# the machine is.
. "$top_srcdir/tests/lib.sh"
# shellcheck source=tests/wait_recording.sh
. "$top_srcdir/tests/wait_recording.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/asys-behind.XXXXXX")
rec=
trap '[ -n "$rec" ] && kill -CONT "$rec" 2>/dev/null && kill "$rec" 2>/dev/null; rm -rf "$work"' EXIT
f=$work/b.asys

"$ASYS" record -s none -t none --hggc-memory-usage false --cpu-frequency 1000 -o "$f" \
	2>"$work/log" &
rec=$!
wait_recording "$f" "$work/log"
sleep 0.5
kill -STOP "$rec"
sleep 1
kill -CONT "$rec"
sleep 0.5
kill -TERM "$rec"
wait "$rec" || fail "asys record exited $?: $(cat "$work/log")"
rec=

line=$(grep '^asys record: sampling of cpu at 1000 Hz fell behind: ' "$work/log")
skipped=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) ticks skipped .*/\1/p')
if [ -z "$skipped" ]; then
	fail "no line of skipped ticks: $(cat "$work/log")"
	finish
	exit
fi
# a second stopped is a thousand ticks, and a loaded machine only adds
[ "$skipped" -ge 900 ] && pass || fail "$skipped ticks skipped after a second stopped"
echo "$line" | grep -q 'records lost' && fail "records lost: $line" || pass

"$ASYS" export "$f" >"$work/csv" || fail "asys export exited $?"
# t_ns,time,stream,entity,label,field,unit,value: one entity's one field.
# A tick is stamped when it reads, so the ticks a thread caught up on come
# microseconds apart, each later than its turn but the last, which is the
# tick of that wake: the span is taken between two ticks that came on time,
# those with 0.5 ms or more to the next one (and the last of the file).
awk -F, -v skipped="$skipped" '
$3 == "cpu.core" {
	if (key == "") key = $4 "," $6
	if ($4 "," $6 != key) next
	t[++n] = $1
}
END {
	for (s = 1; s < n && t[s + 1] - t[s] < 5e5; s++) ;
	e = n
	gap = 0
	for (i = s + 1; i <= e; i++) if (t[i] - t[i - 1] > gap) gap = t[i] - t[i - 1]
	ticks = (t[e] - t[s]) / 1e6
	printf "%d samples and %d skipped over %.0f ticks; longest gap %.3f s\n",
		e - s, skipped, ticks, gap / 1e9
	bad = 0
	if (gap < 0.9e9) { print "FAIL: no gap of a second in the samples"; bad = 1 }
	d = e - s + skipped - ticks
	if (d < -3 || d > 3) { print "FAIL: samples and skipped ticks do not add up"; bad = 1 }
	exit bad
}' "$work/csv" && pass || fail "the file does not account for every tick"
finish
