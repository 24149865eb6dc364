#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# In tmux: R in `asys top` creates a file and R stops it; `asys replay` of
# that file shows the same panes; pause, step, speed and seek work.
. "$top_srcdir/tests/lib.sh"
tmux=${TMUX_BIN:-tmux}
[ -n "$tmux" ] && [ "$tmux" != no ] && command -v "$tmux" >/dev/null || skip "tmux is missing"
work=$(mktemp -d)
sock=$work/sock
T() { "$tmux" -S "$sock" "$@"; }
trap 'T kill-server 2>/dev/null; rm -rf "$work"' EXIT
screen() { T capture-pane -t s -p; }
header() { T capture-pane -t s -p | head -1; }
clock() { header | grep -o 'REPLAY [^ ]* [0-9:]*' | awk '{print $3}'; }
# clock_after OLD: prints the replay clock once it differs from OLD (10 s)
clock_after() {
	j=0
	while c=$(clock) && [ "$c" = "$1" ]; do
		j=$((j + 1))
		[ $j -gt 100 ] && return 1
		sleep 0.1
	done
	printf '%s\n' "$c"
}
wait_for() { # wait_for TEXT SECONDS
	i=0
	while ! screen | grep -qF -- "$1"; do
		i=$((i + 1))
		[ $i -gt $(($2 * 10)) ] && return 1
		sleep 0.1
	done
}

T new-session -d -s s -x 150 -y 40 "cd '$work' && LANG=C.UTF-8 '$ASYS' top -d 0.5; sleep 10"
wait_for "R: record" 10 || { fail "top did not start: $(screen | head -3)"; finish; exit 1; }
T send-keys -t s R
wait_for "REC asys-" 5 || fail "R did not start recording: $(header)"
sleep 3
T send-keys -t s R
wait_for "saved $(cd "$work" && pwd -P)/asys-" 5 || fail "R did not stop recording: $(header)"
top_screen=$(screen)
T send-keys -t s q
sleep 0.5
f=$(ls "$work"/asys-*.asys 2>/dev/null | head -1)
[ -n "$f" ] || { fail "no file from R"; finish; exit 1; }
"$ASYS" replay --info "$f" >"$work/info" || fail "--info"
grep -q "complete" "$work/info" || fail "no trailer: $(cat "$work/info")"
pass

T kill-server 2>/dev/null
# a server still shutting down makes new-session fail with "server exited
# unexpectedly": wait for it to go, and try again if it still races
for try in 1 2 3; do
	i=0
	while T has-session 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	T new-session -d -s s -x 150 -y 40 "LANG=C.UTF-8 '$ASYS' replay -d 0.5 '$f'; sleep 10" && break
	sleep 0.5
done
wait_for "REPLAY" 10 || fail "replay did not start: $(screen | head -3)"
# the same panes as live: every pane title of top is on the replay screen
for title in CPU Memory; do
	echo "$top_screen" | grep -q "$title" || continue
	wait_for "$title" 10 || fail "pane '$title' missing in replay"
done
pass
T send-keys -t s ' '
wait_for "❚❚" 10 || fail "space did not pause: $(header)"
t1=$(clock)
sleep 1.2
t2=$(clock)
[ "$t1" = "$t2" ] || fail "paused clock moved: $t1 -> $t2"
T send-keys -t s . . .
t3=$(clock_after "$t2") || fail "three steps of 0.5 s did not move the clock from $t2"
pass
T send-keys -t s ']'
wait_for "x2" 10 || fail "] did not double the speed: $(header)"
T send-keys -t s '[' '['
wait_for "x1/2" 10 || fail "[ did not halve the speed: $(header)"
pass
# paused, the clock moves only when a seek lands: wait for each to land
T send-keys -t s g
wait_for "Go to (" 10 || fail "g did not ask where to go: $(header)"
T send-keys -t s '0%' Enter
t4=$(clock_after "$t3") || fail "g 0% did not move the clock from $t3"
T send-keys -t s g
wait_for "Go to (" 10 || fail "g did not ask where to go: $(header)"
T send-keys -t s '100%' Enter
t5=$(clock_after "$t4") || fail "g 100% did not move the clock from $t4"
[ -n "$t4" ] && [ "$t4" \< "$t5" ] || fail "g 0% ($t4) is not before g 100% ($t5)"
T send-keys -t s g
wait_for "Go to (" 10 || fail "g did not ask where to go: $(header)"
T send-keys -t s 'whenever' Enter
wait_for "cannot go to 'whenever'" 10 || fail "a bad time was not explained: $(header)"
pass
T send-keys -t s q
finish
