#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# R in `asys top` at 80x24: the header keeps the recording's size and time
# whole (the file's name only where it fits, as at 132 columns), and the
# message lines and the message log say the file's whole path when the
# recording starts and when the second R saves it.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"

# the REC figures: a size, then mm:ss under an hour
REC_SHORT='(●|\*) REC [0-9.]+[BKMGT]? [0-9]{2}:[0-9]{2}$'
header() { cap | head -n 1 | sed 's/ *$//'; }
# rec_short_ok: the header ends in REC's size and time, or a loaded machine
# made a sampling thread fall short, whose warning ("cpu 7.1/10 Hz 3% CPU")
# then takes the header's room first
rec_short_ok() {
	header | grep -Eq -- "$REC_SHORT" && return 0
	header | grep -Eq ' [0-9.]+/[0-9]+ Hz ' && echo "note: a sampling shortfall fills the header: '$(header)'"
}
# wait_flat TEXT: until TEXT is on the screen, its wrapped lines joined
wait_flat() {
	local i=0
	while [ "$i" -lt 50 ]; do
		cap | tr '\n' ' ' | tr -s ' ' | grep -qF -- "$1" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

cd "$TDIR" || fail "cd $TDIR"
dir=$(pwd -P)
tui_start 80 24 -- -d 0.5
wait_for 'R: record' 10 || fail "80x24: no R: record in the header"
keys R
wait_for "^ recording to $dir/asys-[0-9]{8}-[0-9]{6}\\.asys; R stops *\$" 10 ||
	fail "80x24: the start of the recording does not say its whole path on one line"
wait_for "$REC_SHORT" 10 || rec_short_ok || fail "80x24: the header cuts REC's size or time: '$(header)'"
f=$(ls "$dir"/asys-*.asys 2>/dev/null | head -n 1)
[ -n "$f" ] || fail "R made no file in $dir"
check_layout 80 24

# wider: the file's name and the clock to the second
tmx resize-window -t "$TSESS" -x 132 -y 43 >/dev/null 2>&1 || fail "tmux cannot resize the window"
wait_for "REC ${f##*/} [0-9.]+[BKMGT]? [0-9]{2}:[0-9]{2}:[0-9]{2} *\$" 10 ||
	fail "132x43: the header does not name the file: '$(header)'"
tmx resize-window -t "$TSESS" -x 80 -y 24 >/dev/null 2>&1
wait_for "$REC_SHORT" 10 || rec_short_ok || fail "80x24 again: the header cuts REC: '$(header)'"

keys R
wait_for "^ saved $f \\([0-9.]+[BKMGT]?\\) *\$" 10 ||
	fail "80x24: the second R does not say the saved file's whole path on one line"
wait_for '^ asys top .*R: record *$' 10 || fail "80x24: the header still records: '$(header)'"
check_layout 80 24
keys L
wait_for 'Messages \(' 5 || fail "L did not open the message log"
wait_flat "asys: recording to $f; R stops" || fail "the message log lacks the recording's start"
wait_flat "asys: saved $f (" || fail "the message log lacks the saved path"
keys Escape
wait_gone 'Messages \(' 5 || fail "Esc did not close the message log"
quit_ok "after a recording"
"$ASYS" replay --info "$f" >/dev/null 2>&1 || fail "the recording cannot be read: $f"
echo ok
