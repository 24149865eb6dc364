#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# Both panes are drawn at 120x40 and at 80x24, nothing overlaps, and the
# figures move between two captures while a core is kept busy.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"

# keep one core busy so the CPU figures have something to show
sh -c 'end=$(($(date +%s) + 40)); while [ "$(date +%s)" -lt "$end" ]; do :; done' &
burner=$!
trap 'kill $burner 2>/dev/null; tui_cleanup' EXIT

for size in 120x40 80x24; do
	cols=${size%x*}
	rows=${size#*x}
	tui_start "$cols" "$rows" -- -d 0.5
	wait_for '3 CPU +[0-9]+ cores' 10 || fail "$size: no CPU pane title with the core count"
	wait_for '4 Memory +host' 10 || fail "$size: no Memory pane title with the host total"
	# focused, the Memory pane shows its process table (unfocused at
	# 80x24 it may shrink to its bars)
	keys 4
	wait_for 'PID +USER .*RSS' 10 || fail "$size: no process table header"
	wait_for 'Mem *\[' 10 || fail "$size: no system memory bar"
	wait_for 'avg [0-9]+%' 10 || fail "$size: no CPU average in the title"
	# the process table lists this test's tmux server by its command line
	wait_for ' [0-9]+ +[^ ]+ .*[0-9.]+[BKMG] ' 10 || fail "$size: no process row with RSS"
	check_layout "$cols" "$rows"

	# numbers change: compare everything below the header (the clock does
	# not count) over a few refreshes
	first=$(cap | tail -n +2)
	changed=no
	for i in 1 2 3 4 5 6; do
		sleep 1
		now=$(cap | tail -n +2)
		if [ "$now" != "$first" ]; then
			changed=yes
			break
		fi
	done
	[ "$changed" = yes ] || fail "$size: the panes did not change in 6 s"
	check_layout "$cols" "$rows"
	quit_ok "$size"
	tui_stop
	echo "ok: $size"
done

# -s none: no process table, the system bars stay
tui_start 80 24 -- -d 0.5 -s none
wait_for 'no processes followed' 10 || fail "-s none: no note in the Memory footer"
wait_for 'Mem *\[' 10 || fail "-s none: no system memory bar"
cap | grep -Eq 'PID +USER' && fail "-s none: a process table is drawn"
check_layout 80 24
quit_ok "-s none"
echo "ok: -s none"
