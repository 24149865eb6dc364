#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# Glyphs follow the locale: box drawing and blocks in UTF-8, plain ASCII in
# the C locale. NO_COLOR and --no-color leave no colour on screen.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"

# next_frame: until a later frame is drawn, one with the figures of a
# refresh (its header's clock has moved)
next_frame() {
	head1=$(cap | head -n 1)
	wait_until 5 header_moved
}
header_moved() { [ "$(cap | head -n 1)" != "$head1" ]; }
# any byte >= 0x80 on screen
has_utf8() { cap | LC_ALL=C grep -q '[^ -~]'; }
# SGR colour codes (30-37, 38;..., 90-97) in the captured escapes
ESC=$(printf '\033')
has_color() { cap_e | LC_ALL=C grep -Eq "$ESC\\[([0-9;]*;)?(3[0-8]|9[0-7])[;m]"; }

if locale -a 2>/dev/null | grep -Eqi '^c\.utf-?8$'; then
	TUI_LOCALE=C.UTF-8
	tui_start 100 30 -- -d 0.5
	wait_for '4 Memory' 10 || fail "UTF-8: no Memory pane"
	wait_for '╭3 CPU' 5 || fail "UTF-8: no rounded box around the CPU pane"
	has_color || fail "UTF-8: no colour on screen by default"
	quit_ok "UTF-8"
	tui_stop
	echo "ok: C.UTF-8"
else
	echo "note: no C.UTF-8 locale here; UTF-8 part skipped"
fi

TUI_LOCALE=C
tui_start 100 30 -- -d 0.5
wait_for '4 Memory' 10 || fail "C: no Memory pane"
wait_for '^\+3 CPU' 5 || fail "C: the CPU box is not drawn in ASCII"
next_frame || fail "C: no frame after the first within 5 s"
has_utf8 && fail "C locale: non-ASCII bytes on screen"
check_layout 100 30
quit_ok "C"
tui_stop
echo "ok: C"

# Without UTF-8, curses draws each byte of a UTF-8 sequence as a control:
# ~V, M-b. Text made as UTF-8 (the replay's play state, the REC dot) must
# come as its ASCII form, as the glyphs the panes choose by locale do.
no_controls() {
	cap | LC_ALL=C grep -Eq '~[@A-Z^_?\\]|M-' && fail "$1: a UTF-8 byte drawn as a control (~X or M-x)"
	has_utf8 && fail "$1: non-ASCII bytes on screen"
}
DEMO="$(dirname "$ASYS")/demo.asys"
if [ -r "$DEMO" ]; then
	for size in 80x24 132x43 200x50; do
		cols=${size%x*} rows=${size#*x}
		TUI_SUB=demo TUI_READY='REPLAY demo\.asys' tui_start "$cols" "$rows" ASYS_DEMO_FILE=
		# the play state, a sort arrow, box corners and bars in ASCII
		wait_for '^ asys demo .*REPLAY demo\.asys [0-9:]+ / [0-9:]+ x1 >' 5 ||
			fail "C $size: the replay header has no > while playing"
		wait_for 'sort: [A-Z%/+]+ v -\+$' 5 || fail "C $size: no ASCII sort arrow or corner"
		wait_for '^\|0 PPU [0-9A-F:.]+ #+' 5 || fail "C $size: no ASCII bar"
		no_controls "C $size demo"
		keys 4 t
		wait_for '\|- ' 5 || fail "C $size: the process tree is not in ASCII"
		no_controls "C $size tree"
		keys F1
		wait_for 'asys demo help' 5 || fail "C $size: no help"
		no_controls "C $size help"
		keys Escape L
		wait_for 'Messages \(' 5 || fail "C $size: no message log"
		no_controls "C $size log"
		keys Escape
		TUI_SUB=demo quit_ok "C $size demo"
		tui_stop
	done
	echo "ok: C, asys demo at 80x24, 132x43, 200x50"
fi

# the REC dot, live: R records into the session's directory
mkdir "$TDIR/rec" && cd "$TDIR/rec" || fail "no directory to record into"
tui_start 80 24 -- -d 0.5
keys R
wait_for '^ asys top .*\* REC ' 10 || fail "C: the REC dot is not *"
no_controls "C recording"
keys R
wait_gone '\* REC ' 10 || fail "C: the second R did not stop the recording"
quit_ok "C recording"
tui_stop
cd "$top_builddir" || exit 1
echo "ok: C, the REC dot"

tui_start 100 30 NO_COLOR=1 -- -d 0.5
wait_for '4 Memory' 10 || fail "NO_COLOR: no Memory pane"
next_frame || fail "NO_COLOR: no frame after the first within 5 s"
has_color && fail "NO_COLOR=1: colour on screen"
keys q
wait_exit >/dev/null || fail "NO_COLOR: no exit on q"
tui_stop
echo "ok: NO_COLOR"

tui_start 100 30 -- --no-color -d 0.5
wait_for '4 Memory' 10 || fail "--no-color: no Memory pane"
next_frame || fail "--no-color: no frame after the first within 5 s"
has_color && fail "--no-color: colour on screen"
keys q
wait_exit >/dev/null || fail "--no-color: no exit on q"
echo "ok: --no-color"
