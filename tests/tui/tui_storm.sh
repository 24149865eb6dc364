#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux serial syswide
# A storm of keys and resizes (tiny, huge, below 80x24 and back) at a fast
# refresh: asys top must stay up, draw a sane screen afterwards, and exit 0.
# The sequence is pseudo-random with a fixed seed, so a failure repeats.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"

tui_start 100 30 -- -d 0.1
wait_for '4 Memory' 10 || fail "no Memory pane"

awk 'BEGIN {
	srand(4711)
	n = split("Tab BTab Up Down NPage PPage Home End < > I Space u o s 3 4 9 h F1 Escape x ? Left Right Enter BSpace", k, " ")
	for (i = 0; i < 300; i++) {
		if (i % 15 == 14)
			printf "resize %d %d\n", 10 + int(rand() * 200), 3 + int(rand() * 60)
		else
			printf "key %s\n", k[1 + int(rand() * n)]
	}
}' > "$TDIR/storm"

while read -r what a b; do
	case $what in
	key) keys "$a" ;;
	resize) tmx resize-window -t "$TSESS" -x "$a" -y "$b" ;;
	esac
	[ -s "$TDIR/exit" ] && fail "asys top exited during the storm after '$what $a $b': $(cat "$TDIR/exit")"
done < "$TDIR/storm"

tmx resize-window -t "$TSESS" -x 100 -y 30
# asys top may still be catching up on the storm's last keys and resizes:
# the screen can hold a frame drawn for an earlier size (one drawn taller
# than the terminal scrolls it, so a box loses its top), or the help screen
# that a late key opened. Close the help each time it shows, until a whole
# frame for 100x30 is on the screen; 20 s at most, and the reason the last
# frame was wrong if none comes.
i=0
until why=$(layout_problem 100 30) && ! cap | grep -q 'asys top help'; do
	cap | grep -q 'asys top help' && keys Escape
	i=$((i + 1))
	[ $i -lt 200 ] || fail "no whole frame for 100x30 within 20 s after the storm: ${why:-help shown}"
	sleep 0.1
done
[ -s "$TDIR/exit" ] && fail "asys top exited: $(cat "$TDIR/exit")"
quit_ok "after the storm"
echo ok
