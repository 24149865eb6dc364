#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# Every pane the setup shows is reached by its key. Live on a machine where
# no process uses the PPU runtime and no command runs after --, 5 and 6
# focus the kernels and ranges panes, which say in one line that there is
# nothing yet and why; at 80x24 such a pane gives its rows to a focused
# process table, and its key brings it back. In asys demo, 6 reaches the
# ranges pane the recording has no range for. At 80x24, 132x43 and 200x50.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"

# box_lines TITLE: the inner lines with text of the box whose top border
# has TITLE (the bottom pane may reach down to the hint line, blank)
box_lines() {
	cap | awk -v t="$1" '
		index($0, t) && /^(╭|\+)/ { inside = 1; next }
		inside && /^(╰|\+)/ { exit }
		inside && !/^(│|\|) *(│|\|)$/ { n++ }
		END { print n + 0 }'
}

# reach KEY TITLE WHY SIZE: KEY focuses the pane TITLE, which says WHY
# (an ERE) in one line
reach() {
	keys "$1"
	wait_focus "$2" 5 || fail "$4: $1 did not focus the $2 pane"
	wait_for "^│ $3 +│\$" 5 || fail "$4: the $2 pane does not say why it is empty in a line"
	[ "$(box_lines "$2")" = 1 ] || fail "$4: the empty $2 pane takes more than one line"
}

# a reason the user can act on (rebuild, sudo) is kept whole over its lines
kern_why='no kernel launch seen yet: none by a process using the PPU runtime'
kern_text=
if ! grep -q '^#define HAVE_BPF 1' "$top_builddir/config.h" 2>/dev/null; then
	kern_why= kern_text='built without eBPF'
elif [ "$(id -u)" != 0 ]; then
	kern_why= kern_text='run asys with sudo'
fi
ranges_why='no HGTX/NVTX ranges: counted only in a command asys starts \(asys top -- CMD\)'

for size in 80x24 132x43 200x50; do
	cols=${size%x*} rows=${size#*x}
	tui_start "$cols" "$rows" -- -d 0.5
	if [ -n "$kern_why" ]; then
		reach 5 'Top kernels' "$kern_why" "$size"
	else
		keys 5
		wait_focus 'Top kernels' 5 || fail "$size: 5 did not focus the kernels pane"
		wait_for "$kern_text" 5 || fail "$size: the kernels pane does not say why"
	fi
	reach 6 'Top ranges' "$ranges_why" "$size"
	check_layout "$cols" "$rows"
	if [ "$size" = 80x24 ]; then
		# the process table, focused, takes the rows of the panes that
		# have only a reason; 5 brings the kernels pane back
		keys 4
		wait_focus Memory 5 || fail "$size: 4 did not focus Memory"
		wait_gone 'Top ranges' 5 || fail "$size: the empty ranges pane kept rows from the process table"
		n=$(cap | grep -cE '^│ +[0-9]+ +[a-z0-9]+ +[A-Z?] ')
		# (a hint to act on keeps the kernels pane's lines)
		[ "$n" -ge 5 ] || [ -z "$kern_why" ] || fail "$size: the focused process table has $n rows"
		keys 5
		wait_focus 'Top kernels' 5 || fail "$size: 5 did not bring the kernels pane back"
		check_layout "$cols" "$rows"
	fi
	quit_ok "$size live"
	tui_stop
done
echo "ok: 5 and 6 live at 80x24, 132x43, 200x50"

DEMO="$(dirname "$ASYS")/demo.asys"
if [ -r "$DEMO" ]; then
	for size in 80x24 132x43 200x50; do
		cols=${size%x*} rows=${size#*x}
		TUI_SUB=demo TUI_READY='REPLAY demo\.asys' tui_start "$cols" "$rows" ASYS_DEMO_FILE=
		reach 6 'Top ranges' 'no HGTX/NVTX range recorded so far' "$size demo"
		keys 5
		wait_focus 'Top kernels' 5 || fail "$size demo: 5 did not focus the kernels pane"
		wait_for '^│ +[0-9]+ +[0-9.]+k? +[0-9.]+k? +[0-9]+% ' 5 || fail "$size demo: no kernel rows"
		check_layout "$cols" "$rows"
		TUI_SUB=demo quit_ok "$size demo"
		tui_stop
	done
	echo "ok: 5 and 6 in asys demo at 80x24, 132x43, 200x50"
fi
echo "ok"
