#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# Ctrl-Z in a shell with job control: the terminal is given back (the
# shell's prompt and its "Stopped" line are on screen, asys is stopped), and
# after fg the whole screen is drawn again and keys work, arrows included.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"
command -v bash >/dev/null 2>&1 || { echo "SKIP: bash is needed for job control"; exit 77; }

# An interactive bash writes its history to $HISTFILE when it ends, and
# reads startup files: the shell gets a home of its own, with no history
# file, so that the user's files are left alone.
mkdir "$TDIR/home" || fail "cannot make $TDIR/home"
tmx new-session -d -s "$TSESS" -x 100 -y 30 \
	"env HOME=$(shq "$TDIR/home") HISTFILE=/dev/null PS1='prompt> ' bash --norc --noprofile -i" ||
	fail "tmux could not start a session"
wait_for 'prompt>' 10 || fail "no shell prompt"
# 32 fake PPUs: their list scrolls with the arrow keys, which shows the
# keypad is back in application mode after fg
FAKE="$top_builddir/tests/fakes/.libs/libhgml.so"
[ -r "$FAKE" ] || { echo "SKIP: fake library not built: $FAKE"; exit 77; }
keys "env LC_ALL=$TUI_LOCALE TERM=screen-256color ASYS_HGML_LIBRARY=$(shq "$FAKE") FAKE_HGML_DEVICES=32 $(shq "$ASYS") top -d 0.5" Enter
wait_for ' asys top ' 10 || fail "asys top drew no header"
# the arrows scroll only a list the pane has drawn: the first frames come
# before the fake's devices are read
wait_for 'more PPUs: 0 above, [1-9][0-9]* below' 10 || fail "the PPU list is not drawn"
# the shell's child (env execs asys): never another test's asys top
shell=$(tmx display-message -p -t "$TSESS" '#{pane_pid}')
pid=$(pgrep -P "$shell" -f "$ASYS top -d 0.5" | head -n 1)
[ -n "$pid" ] || fail "cannot find asys top under the shell (pid $shell)"
keys C-z
wait_for 'Stopped' 10 || fail "Ctrl-Z did not stop asys top"
wait_gone ' asys top .*up ' 5 || fail "the screen was not given back"
st=$(ps -o stat= -p "$pid")
case $st in T*) ;; *) fail "asys top is not stopped after Ctrl-Z (state $st)" ;; esac
keys "fg" Enter
wait_for ' asys top .*up ' 10 || fail "fg did not redraw the screen"
wait_for 'F1 help' 5 || fail "fg did not redraw the bottom line"
# tmux turns an arrow into bytes by the keypad mode it has seen at the time
# it sends the key: wait until the mode asys sets at resume time is there
keypad_on() { [ "$(tmx display-message -p -t "$TSESS" '#{keypad_cursor_flag}')" = 1 ]; }
wait_until 5 keypad_on || fail "fg: the cursor keys are not in application mode"
keys 1 Down Down Down Down Down Down Down Down Down Down Down Down Down Down Down Down Down Down Down Down
wait_for 'more PPUs: [1-9][0-9]* above' 10 || fail "the arrow keys do not work after fg"
keys q
wait_gone ' asys top .*up ' 10 || fail "q after fg did not end asys top"
keys "echo EXIT=\$?" Enter
wait_for 'EXIT=0' 10 || fail "q after fg did not exit 0"
tui_stop
echo "PASS: Ctrl-Z suspends, fg redraws"
