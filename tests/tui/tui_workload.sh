#!/bin/sh
# `asys top -- sleep 2`: the workload's exit shows on the screen, which stays
# open until q.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"

tui_start 120 40 -- -d 0.5 -- sleep 2
wait_for 'Memory' 10 || fail "no Memory pane"
wait_for 'exited' 15 || fail "the workload's exit is not shown"
sleep 1
[ -s "$TDIR/exit" ] && fail "asys top quit when the workload exited"
cap | grep -q 'Memory' || fail "panes gone after the workload exited"
quit_ok "after the workload's exit"
echo ok
