#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# Resizing: below 80x24 the screen asks for a bigger window and nothing
# crashes; back at a usable size the panes return. The refresh is 10 s, so
# every redraw seen here within 2 s comes from SIGWINCH itself.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"

tui_start 120 40 -- -d 10
wait_for 'Memory' 10 || fail "no Memory pane at 120x40"
tmx resize-window -t "$TSESS" -x 70 -y 20 || fail "tmux cannot resize the window"
wait_for 'needs at least 80x24' 2 || fail "no size message at 70x20"
cap | grep -q 'Memory' && fail "panes drawn at 70x20"
# too narrow for the sentence: it goes on two lines, neither of them cut
tmx resize-window -t "$TSESS" -x 40 -y 10
wait_for 'this terminal is 40x10\.' 2 || fail "no whole size at 40x10"
cap | grep -q '^asys top needs at least 80x24;$' || fail "the size it needs cut at 40x10"
cap | grep -q '^Enlarge the window, or press q to quit\.$' || fail "no way out said at 40x10"
tmx resize-window -t "$TSESS" -x 79 -y 40
wait_for 'needs at least 80x24; this terminal is 79x40' 2 || fail "no size message at 79x40"
tmx resize-window -t "$TSESS" -x 80 -y 24
wait_for '4 Memory' 2 || fail "panes not back at 80x24"
check_layout 80 24
tmx resize-window -t "$TSESS" -x 10 -y 3
# the size message, cut to 10 columns: "this terminal is 10x3" on line 2
wait_for '^this termi' 2 || fail "no size message at 10x3"
tmx resize-window -t "$TSESS" -x 100 -y 30
wait_for '4 Memory' 2 || fail "panes not back at 100x30 after 10x3"
check_layout 100 30
quit_ok "at the end"
tui_stop

# a terminal that cannot move the cursor is refused with a clear message
rm -f "$TDIR/exit"
tmx new-session -d -s "$TSESS" -x 100 -y 30 \
	"env TERM=dumb $(shq "$ASYS") top; echo EXIT=\$? > $TDIR/exit; sleep 600"
st=$(wait_exit) || fail "TERM=dumb: asys top did not exit"
[ "$st" = 1 ] || fail "TERM=dumb: exit status $st, wanted 1"
wait_for "terminal type 'dumb' cannot move the cursor" 2 || fail "TERM=dumb: no message"
echo ok
