#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# Keys: help opens and closes, Tab and the digit hotkeys move focus, < and >
# change the sort order of the process table, space pauses, q exits 0, and
# SIGTERM, SIGINT and SIGHUP restore the terminal and exit 0.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"

# The PID column of the process table, top to bottom.
pids() {
	cap | sed -n '/PID.*USER/,/^[╰+]/p' | sed -n 's/^[│|] *\([0-9][0-9]*\) .*/\1/p'
}
# pids_sorted SORT-FLAG: three rows or more, in that order (-n, -rn). The
# rows come in the frame after the one that shows the new sort label.
pids_sorted() {
	p=$(pids)
	[ "$(printf '%s\n' "$p" | wc -l)" -ge 3 ] && printf '%s\n' "$p" | sort "$1" -c 2>/dev/null
}

tui_start 120 40 -- -d 0.5
wait_for 'PID +USER .*RSS' 10 || fail "no process table"
wait_for '^[│|] +[0-9]+ ' 10 || fail "no process rows"

# help: h opens, any key closes; F1 opens, Escape closes
keys h
wait_for 'asys top help' 5 || fail "h did not open the help screen"
cap | grep -q 'F10' || fail "the help screen does not list q/F10"
# every pane's keys are in the help; the last section is at the end
keys End
wait_for 'Memory pane' 5 || fail "the help screen lacks the Memory pane's keys"
wait_for 'asys top help' 1 || fail "End closed the help screen"
keys h
wait_gone 'asys top help' 5 || fail "h did not close the help screen"
wait_for 'PID +USER' 5 || fail "panes not back after closing help"
keys F1
wait_for 'asys top help' 5 || fail "F1 did not open the help screen"
keys Escape
wait_gone 'asys top help' 5 || fail "Escape did not close the help screen"

# Tab moves focus from CPU to Memory: M sorts by RSS there, < walks left
# (3 first: panes before CPU, such as NIC, take the focus at start; by CPU%
# at start when per-process CPU is sampled)
wait_for 'sort: (RSS|CPU%)' 5 || fail "the table is not sorted by RSS or CPU% at start"
keys 3
wait_focus CPU || fail "3 did not focus the CPU pane"
keys Tab
wait_focus Memory || fail "Tab did not move the focus from CPU to Memory"
keys M
wait_for 'sort: RSS' 5 || fail "Tab + M did not sort by RSS (focus not on Memory?)"
sort_walk '<' USER || fail "< did not reach USER (at '$(sort_label)')"
keys '<'
wait_for 'sort: PID' 5 || fail "< did not move the sort to PID (at '$(sort_label)')"
wait_until 5 pids_sorted -rn || fail "PID sort is not descending, or fewer than 3 rows: $(pids)"
by_pid=$(pids)
keys I
wait_for 'sort: PID ▲|sort: PID \^' 5 || fail "I did not invert the order"
wait_until 5 pids_sorted -n || fail "inverted PID sort is not ascending: $(pids)"

# back to RSS with >: the order differs from the PID order
sort_walk '>' RSS || fail "> did not return to RSS (at '$(sort_label)')"
not_by_pid() { [ "$(pids)" != "$by_pid" ]; }
wait_until 5 not_by_pid || fail "sorting by RSS gave the same order as by PID"

# digit hotkey: 3 focuses CPU, where < is not a table key: the sort stays.
# Keys are read in order: once 4 has moved the focus, < has been read.
keys 3
wait_focus CPU || fail "3 did not focus the CPU pane"
keys '<' 4
wait_focus Memory || fail "4 did not focus Memory"
cap | grep -q 'sort: RSS' || fail "< changed the table while CPU was focused"
keys '<'
wait_for 'sort: (HWM|USER|TIME\+)' 5 || fail "4 did not focus Memory"

# space pauses the view: the CPU figures stand still while a core is busy,
# and move again once space resumes
cpu_pane() { cap | sed -n '/3 CPU/,/^[╰+]/p'; }
sh -c 'end=$(($(date +%s) + 15)); while [ "$(date +%s)" -lt "$end" ]; do :; done' &
burner=$!
trap 'kill $burner 2>/dev/null; tui_cleanup' EXIT
keys Space
wait_for 'PAUSED' 5 || fail "space did not pause"
sleep 0.6
a=$(cpu_pane)
sleep 2
b=$(cpu_pane)
[ "$a" = "$b" ] || fail "the CPU pane changed while paused"
keys Space
wait_gone 'PAUSED' 5 || fail "space did not resume"
cpu_moved() { [ "$(cpu_pane)" != "$b" ]; }
wait_until 6 cpu_moved || fail "the CPU pane did not move after resuming"
kill $burner 2>/dev/null

# arrows and paging do not break anything; h after them, read in order,
# shows when they have been read
keys Down Down NPage End Home Up h
wait_for 'asys top help' 5 || fail "h after scrolling did not open the help screen"
keys h
wait_for 'PID +USER' 5 || fail "the table vanished after scrolling"

quit_ok "at the end"
tui_stop

# a key answers at once, not at the next refresh (here every 10 s)
tui_start 100 30 -- -d 10
wait_for 'PID +USER .*RSS' 10 || fail "-d 10: no process table"
keys h
wait_for 'asys top help' 2 || fail "-d 10: h took more than 2 s to show the help"
keys h
wait_for 'PID +USER' 2 || fail "-d 10: closing the help took more than 2 s"
keys q
# answered at once: the screen is left; the exit after it may take long
wait_gone 'PID +USER' 2 || fail "-d 10: q took more than 2 s to leave the screen"
st=$(wait_exit) || fail "-d 10: asys top did not exit after q"
[ "$st" = 0 ] || fail "-d 10: exit status $st after q"
tui_stop

# SIGTERM, SIGINT, SIGHUP: the handler only sets a flag; the loop restores
# the terminal (tmux leaves the alternate screen: the panes are gone) and
# returns 0
for sig in TERM INT HUP; do
	tui_start 100 30 -- -d 0.5
	wait_for 'PID +USER .*RSS' 10 || fail "SIG$sig: no process table"
	pid=$(tui_pid)
	[ -n "$pid" ] || fail "SIG$sig: cannot find the asys pid"
	kill -"$sig" "$pid"
	st=$(wait_exit) || fail "asys top did not exit on SIG$sig"
	[ "$st" = 0 ] || fail "exit status $st after SIG$sig"
	wait_gone 'PID +USER .*RSS' 5 || fail "panes still on screen after SIG$sig (endwin not called?)"
	tui_stop
done
echo ok
