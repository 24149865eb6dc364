#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# Every figure says what it is and every help entry reads whole, in asys
# demo and live, at 80x24, 132x43 and 200x50: the NIC rows' packet size is
# labelled (/pkt); the help (F1) wraps an entry longer than the screen under
# its description instead of cutting it, and the kernels pane's entry on
# copies is a sentence. The PPU pane, its blocks cut to a share of its rows
# each, leaves no blank line (the rest go to the selected device).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"

# nic_rows_labelled WHAT: every NIC row with a peak ends in a packet size
# that says so
nic_rows_labelled() {
	bad=$(cap | grep -E '(│|\|) .* pk +[0-9.]+ [KMGT]?b/s' | grep -vE ' +(-|[0-9.]+[KMGT]?B?)/pkt +(│|\|)')
	[ -z "$bad" ] || fail "$1: a NIC row ends in a figure without a label: $bad"
}

# the screen under its header (which has a clock)
body() { cap | sed 1d; }
body_is_not() { [ "$(body)" != "$1" ]; }

# help_whole WHAT COLS: the help's entries, scrolled through page by page, are
# never cut at the edge: the longest (the ranges pane's sort keys) ends in
# "or RANGE", and the copies entry reads as a sentence
help_whole() {
	keys F1
	wait_for 'help  \(any key closes it' 5 || fail "$1: F1 did not open the help"
	seen=
	i=0
	while [ "$i" -lt 20 ]; do
		page=$(body)
		seen="$seen
$page"
		keys NPage
		# the last page does not move
		wait_until 2 body_is_not "$page" || break
		i=$((i + 1))
	done
	flat=$(printf '%s\n' "$seen" | tr '\n' ' ' | tr -s ' ')
	printf '%s' "$flat" | grep -qF 'DEPTH, DOMAIN or RANGE' || fail "$1: the help cut the ranges pane's sort entry"
	printf '%s' "$flat" | grep -qF 'from 100 columns calls' && fail "$1: the help has the garbled copies line"
	printf '%s' "$flat" | grep -qF 'bytes/s by direction and calls/s; on a screen of 100 columns or more also CALLS and BYTES so far' ||
		fail "$1: the help lacks the copies entry"
	# a wrapped entry goes on under its description (column 17)
	if [ "$2" -lt 100 ]; then
		printf '%s\n' "$seen" | grep -qE '^ {17}[a-z(]' || fail "$1: no entry wrapped under its description"
	fi
	keys Escape
	wait_gone 'help  \(any key closes it' 5 || fail "$1: Escape did not close the help"
}

# ppu_blank: the blank inner lines of the PPU box
ppu_blank() {
	cap | awk '
		/^(╭|\+)1 PPU/ { inside = 1; next }
		inside && /^(╰|\+)/ { exit }
		inside && /^(│|\|) *(│|\|)( |$|│|\|)/ { n++ }
		END { print n + 0 }'
}

DEMO="$(dirname "$ASYS")/demo.asys"
if [ -r "$DEMO" ]; then
	for size in 80x24 132x43 200x50; do
		cols=${size%x*} rows=${size#*x}
		TUI_SUB=demo TUI_READY='REPLAY demo\.asys' tui_start "$cols" "$rows" ASYS_DEMO_FILE=
		wait_for '^│0 PPU ' 5 || fail "$size demo: no PPU device"
		[ "$(ppu_blank)" = 0 ] || fail "$size demo: $(ppu_blank) blank lines in the PPU pane"
		keys 2
		wait_focus NIC 5 || fail "$size demo: 2 did not focus the NIC pane"
		nic_rows_labelled "$size demo"
		if [ "$size" = 200x50 ]; then
			wait_for '/pkt +│$' 5 || fail "$size demo: no NIC row with its packet size"
		fi
		help_whole "$size demo" "$cols"
		check_layout "$cols" "$rows"
		TUI_SUB=demo quit_ok "$size demo"
		tui_stop
	done
	echo "ok: asys demo at 80x24, 132x43, 200x50"
fi

for size in 80x24 132x43 200x50; do
	cols=${size%x*} rows=${size#*x}
	tui_start "$cols" "$rows" -- -d 0.5 --nic-all
	keys 2
	wait_focus NIC 5 || fail "$size: 2 did not focus the NIC pane"
	if cap | grep -q 'no NICs sampled yet'; then
		wait_gone 'no NICs sampled yet' 10 || fail "$size: no NIC sampled"
	fi
	wait_for '/pkt +│$' 10 || fail "$size: no NIC row with its packet size"
	nic_rows_labelled "$size"
	check_layout "$cols" "$rows"
	quit_ok "$size live"
	tui_stop
done
echo "ok: live at 80x24, 132x43, 200x50"
