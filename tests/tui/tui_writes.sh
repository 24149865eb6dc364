#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# A frame reaches the terminal in a few write(2) calls, not one per cursor
# move: each write wakes the terminal and, over SSH, sends a packet. ncurses
# 6 flushes at every move until its screen has been suspended once, which
# asys top does before its first frame. The process's write calls (syscw in
# /proc/PID/io, all threads) are counted over 2 s at 10 frames a second.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"

tui_start 120 40 -- -d 0.1
wait_for '4 Memory' 10 || fail "no Memory pane"
pid=$(tui_pid)
[ -n "$pid" ] || fail "cannot find asys top"
[ -r "/proc/$pid/io" ] || { echo "SKIP: no /proc/PID/io (task I/O accounting) here"; exit 77; }
syscw() { awk '/^syscw:/{print $2}' "/proc/$pid/io"; }
sleep 1
a=$(syscw)
sleep 2
b=$(syscw)
n=$((b - a))
# 20 frames at most: 4 writes a frame on average is room for a frame that
# overflows ncurses' buffer; one write per move was over 300.
echo "write calls in 2 s at 10 frames/s: $n"
[ "$n" -le 80 ] || fail "$n write calls in 2 s: the frames go out a move at a time"
[ "$n" -ge 1 ] || fail "no write calls in 2 s: no frame was drawn"
quit_ok "after the count"
echo ok
