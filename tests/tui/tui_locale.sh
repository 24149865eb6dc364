#!/bin/sh
# Glyphs follow the locale: box drawing and blocks in UTF-8, plain ASCII in
# the C locale. NO_COLOR and --no-color leave no colour on screen.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"

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
sleep 1.2
has_utf8 && fail "C locale: non-ASCII bytes on screen"
check_layout 100 30
quit_ok "C"
tui_stop
echo "ok: C"

tui_start 100 30 NO_COLOR=1 -- -d 0.5
wait_for '4 Memory' 10 || fail "NO_COLOR: no Memory pane"
sleep 1.2
has_color && fail "NO_COLOR=1: colour on screen"
keys q
wait_exit >/dev/null || fail "NO_COLOR: no exit on q"
tui_stop
echo "ok: NO_COLOR"

tui_start 100 30 -- --no-color -d 0.5
wait_for '4 Memory' 10 || fail "--no-color: no Memory pane"
sleep 1.2
has_color && fail "--no-color: colour on screen"
keys q
wait_exit >/dev/null || fail "--no-color: no exit on q"
echo "ok: --no-color"
