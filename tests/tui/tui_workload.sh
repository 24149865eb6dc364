#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# `asys top -- sleep 2`: the workload's exit shows on the screen, which stays
# open until q. On the way out asys says where the output went, or, for a
# command that wrote nothing, that its empty log is gone.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"

mkdir "$TDIR/tmp" || fail "mkdir"
tui_start 120 40 "TMPDIR=$TDIR/tmp" -- -d 0.5 -- sleep 2
wait_for 'Memory' 10 || fail "no Memory pane"
wait_for 'exited' 15 || fail "the workload's exit is not shown"
sleep 1
[ -s "$TDIR/exit" ] && fail "asys top quit when the workload exited"
cap | grep -q 'Memory' || fail "panes gone after the workload exited"
# where the output went stays in the message log after the exit
keys L
wait_for "workload: sleep \(pid [0-9]+\) running, output in $TDIR/tmp/asys-workload\.......\.log" 5 ||
	fail "the message log does not say where the output goes"
keys Escape
wait_gone 'Messages \(' 5 || fail "Esc did not close the message log"
quit_ok "after the workload's exit"
cap | grep -q "removed the workload's empty log $TDIR/tmp/asys-workload\.......\.log" ||
	fail "no word of the empty log on exit: $(cap | tail -n 3)"
[ -z "$(ls "$TDIR/tmp")" ] || fail "files left in TMPDIR: $(ls "$TDIR/tmp")"

tui_stop
tui_start 120 40 "TMPDIR=$TDIR/tmp" -- -d 0.5 -- sh -c 'echo said; sleep 1'
wait_for 'exited' 15 || fail "the second workload's exit is not shown"
quit_ok "after the second workload's exit"
log=$(cap | sed -n "s/^asys top: the workload's output is in //p" | tr -d ' ')
case $log in
"$TDIR"/tmp/asys-workload.??????.log) ;;
*) fail "the path of the output is not said on exit: $(cap | tail -n 3)" ;;
esac
[ "$(cat "$log")" = said ] || fail "the workload's log holds '$(cat "$log")'"
[ "$(stat -c %a "$log")" = 600 ] || fail "the workload's log has mode $(stat -c %a "$log"), not 0600"
echo ok
