#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# Settings that persist, on the real asys top at 80x24 and 160x48: F2 hides
# a column and changes the units, leaving saves asysrc, and a restarted asys
# top has both; a broken asysrc line gives its file:line message while the
# other lines apply; --no-config reads no file; the themes change the
# colours (mono: attributes only); F2 in a replay saves nothing.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"

CFG="$TDIR/config" # XDG_CONFIG_HOME: never the real home
RC="$CFG/asys/asysrc"
ESC=$(printf '\033')

# The setup line shown selected (reverse video), without escapes.
selected() {
	cap_e | sed -n "3,$(($1 - 2))p" | grep -F "${ESC}[7m" | sed "s/${ESC}\[[0-9;]*m//g" | head -n 1
}
# sel_moved ROWS LINE: the selected line is no longer LINE
sel_moved() { [ "$(selected "$1")" != "$2" ]; }
# pick TEXT ROWS: moves the selection down to the line holding TEXT, a key
# at a time, each once the one before has moved it; where Down no longer
# moves it (the last line), Home goes on from the first
pick() {
	local i=0 now
	while [ "$i" -lt 80 ]; do
		now=$(selected "$2")
		printf '%s\n' "$now" | grep -qF -- "$1" && return 0
		keys Down
		if ! wait_until 2 sel_moved "$2" "$now"; then
			keys Home
			wait_until 2 sel_moved "$2" "$now" ||
				fail "setup: neither Down nor Home moved the selection from '$now'"
		fi
		i=$((i + 1))
	done
	fail "setup: no line '$1' to select"
}
# The memory table's header line.
table_head() { cap | grep -E 'PID.*COMMAND' | head -n 1; }

for size in "80 24" "160 48"; do
	set -- $size
	cols=$1 rows=$2
	rm -rf "$CFG"
	tui_start "$cols" "$rows" XDG_CONFIG_HOME="$CFG" -- -d 0.5
	keys 4
	wait_for 'PID +USER .*RSS' 10 || fail "${cols}x$rows: no process table with USER"
	keys F2
	wait_for 'Changes apply now and are saved on leaving' 5 || fail "${cols}x$rows: F2 opened no setup screen"
	pick '] USER' "$rows"
	keys Space
	wait_for '\[ \] USER' 5 || fail "${cols}x$rows: Space did not hide USER"
	pick 'Rates in' "$rows"
	selected "$rows" | grep -q 'bit/s' || fail "${cols}x$rows: rates are not in bit/s at first"
	keys Right
	wait_for 'Rates in +B/s' 5 || fail "${cols}x$rows: Right did not change the units"
	keys Escape
	wait_for "settings saved to $RC" 5 || fail "${cols}x$rows: leaving setup said no save"
	wait_for 'PID +[^U].*RSS' 5 || fail "${cols}x$rows: USER is still in the table after setup"
	[ -f "$RC" ] || fail "no $RC after setup"
	grep -qx 'columns = PID, -USER, S, NI, CPU%, TIME+, RSS, HWM, MEM%, THR, PPU%, DEVICE, PINNED, ALLOC/s, FAIL, CONTAINER, COMMAND' "$RC" ||
		fail "asysrc lacks the columns: $(cat "$RC")"
	grep -qx 'units = bytes' "$RC" || fail "asysrc lacks the units: $(cat "$RC")"
	[ "$(stat -c %a "$CFG/asys")" = 700 ] || fail "$CFG/asys is not 0700"
	[ "$(stat -c %a "$RC")" = 644 ] || fail "$RC is not 0644"
	quit_ok "${cols}x$rows after setup"
	tui_stop

	# restarted: both settings are there
	tui_start "$cols" "$rows" XDG_CONFIG_HOME="$CFG" -- -d 0.5
	keys 4
	wait_for 'PID +[^U].*RSS' 10 || fail "${cols}x$rows: no process table after the restart"
	table_head | grep -q USER && fail "${cols}x$rows: USER is back after the restart"
	keys F2
	pick 'Rates in' "$rows"
	wait_for 'Rates in +B/s' 5 || fail "${cols}x$rows: the units did not persist"
	keys F10
	wait_gone 'Changes apply now' 5 || fail "${cols}x$rows: F10 did not leave setup"
	quit_ok "${cols}x$rows restarted"
	tui_stop
done

# A broken line: its message names file:line, and the lines around it apply.
printf '[options]\ndelay = 0.5\ndealy = 3\n[display]\ncolumns = -THR\n' >"$RC"
# 120 columns: wide enough that THR would be there if the line had not applied
tui_start 120 24 XDG_CONFIG_HOME="$CFG"
wait_for "$RC:3: unknown key 'dealy' in \[options\]" 10 || fail "no message for the bad line"
keys 4
wait_for 'PID +USER .*RSS[^ ]* +HWM +MEM%[^ ]* +(CONTAINER +)?COMMAND' 10 || fail "the line after the bad one did not apply (THR shown)"
quit_ok "a bad line"
tui_stop

# --no-config: neither file is read (120 columns: THR fits)
tui_start 120 24 XDG_CONFIG_HOME="$CFG" -- --no-config
keys 4
wait_for 'PID +USER .*RSS[^ ]* +HWM +MEM%[^ ]* +THR' 10 || fail "--no-config: the file's columns applied"
cap | grep -q 'dealy' && fail "--no-config: the file was read"
quit_ok "--no-config"
tui_stop

# Themes change the colours: the header's title in each.
theme_head() {
	printf '[display]\ntheme = %s\n' "$1" >"$RC"
	tui_start 80 24 XDG_CONFIG_HOME="$CFG"
	# the frame is whole once the panes below the header are drawn
	wait_for '4 Memory' 10 || fail "theme $1: no Memory pane"
	cap_e | head -n 1
	keys q
	wait_exit >/dev/null
	tui_stop
}
theme_head default | grep -qF "${ESC}[36m" || fail "theme default: the title is not cyan"
theme_head light | grep -qF "${ESC}[34m" || fail "theme light: the title is not blue"
theme_head midnight | grep -qF "${ESC}[44m" || fail "theme midnight: no blue background"
theme_head mono | grep -Eq "${ESC}\[(3|4)[0-7]m" && fail "theme mono: a colour is drawn"

# A replay saves nothing.
if [ -f "$top_builddir/demo.asys" ]; then
	printf '[display]\ntheme = light\n' >"$RC"
	before=$(cat "$RC")
	TUI_SUB=demo TUI_READY='asys demo' tui_start 80 24 XDG_CONFIG_HOME="$CFG" \
		ASYS_DEMO_FILE="$top_builddir/demo.asys"
	keys F2
	TUI_SUB=demo wait_for 'A replay saves no settings' 5 || fail "demo: F2 does not say a replay saves nothing"
	keys Right
	keys Escape
	# a save would come as setup closes, before the panes are drawn again
	TUI_SUB=demo wait_gone 'A replay saves no settings' 5 || fail "demo: Escape did not leave setup"
	[ "$(cat "$RC")" = "$before" ] || fail "demo: asysrc was written: $(cat "$RC")"
	TUI_SUB=demo quit_ok "demo"
fi
echo "PASS: tui_setup"
