#!/bin/sh
# Ctrl-Z in a shell with job control: the terminal is given back (the
# shell's prompt and its "Stopped" line are on screen, asys is stopped), and
# after fg the whole screen is drawn again and keys work.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"
command -v bash >/dev/null 2>&1 || { echo "SKIP: bash is needed for job control"; exit 77; }

tmx new-session -d -s "$TSESS" -x 100 -y 30 "env PS1='prompt> ' bash --norc --noprofile -i" ||
	fail "tmux could not start a session"
wait_for 'prompt>' 10 || fail "no shell prompt"
keys "env LC_ALL=$TUI_LOCALE TERM=screen-256color $(shq "$ASYS") top -d 0.5" Enter
wait_for ' asys top ' 10 || fail "asys top drew no header"
pid=$(pgrep -n -f "$ASYS top -d 0.5")
[ -n "$pid" ] || fail "cannot find asys top"
keys C-z
wait_for 'Stopped' 10 || fail "Ctrl-Z did not stop asys top"
wait_gone ' asys top .*up ' 5 || fail "the screen was not given back"
st=$(ps -o stat= -p "$pid")
case $st in T*) ;; *) fail "asys top is not stopped after Ctrl-Z (state $st)" ;; esac
keys "fg" Enter
wait_for ' asys top .*up ' 10 || fail "fg did not redraw the screen"
wait_for 'F1 help' 5 || fail "fg did not redraw the bottom line"
keys q
wait_gone ' asys top .*up ' 10 || fail "q after fg did not end asys top"
keys "echo EXIT=\$?" Enter
wait_for 'EXIT=0' 10 || fail "q after fg did not exit 0"
tui_stop
echo "PASS: Ctrl-Z suspends, fg redraws"
