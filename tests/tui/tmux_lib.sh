# SPDX-License-Identifier: GPL-2.0-only
# Drives the real `asys top` inside a private tmux server.
# Source it: . "$top_srcdir/tests/tui/tmux_lib.sh"; then tui_start W H [asys top args...].
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${ASYS:=$top_builddir/asys}"
[ -n "$TMUX_BIN" ] && [ "$TMUX_BIN" != no ] || TMUX_BIN=$(command -v tmux 2>/dev/null)

if [ -z "$TMUX_BIN" ] || ! [ -x "$TMUX_BIN" ]; then
	echo "SKIP: tmux is not installed (apt-get install tmux)"
	exit 77
fi
if ! [ -x "$ASYS" ]; then
	echo "FAIL: no asys binary at $ASYS (run make first)"
	exit 1
fi

TSOCK="asys-test-$$"
TDIR=$(mktemp -d "${TMPDIR:-/tmp}/asys-tui.XXXXXX") || exit 1
TSESS=asys
# Locale for the session: a UTF-8 one when the system has it.
TUI_LOCALE=${TUI_LOCALE:-C.UTF-8}
# The test's own grep, sed, awk and cut read that screen: in the C locale (a
# root login with LANG unset) a bracket expression such as [│|] matches one
# byte at a time, never the three bytes of │, and cut -c counts bytes. So
# the test runs in a UTF-8 locale whatever the caller's.
LC_ALL=C.UTF-8
export LC_ALL
unset TMUX # a test run inside tmux must still use its own server

tmx() { "$TMUX_BIN" -L "$TSOCK" "$@"; }
# Quotes one word for sh.
shq() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

tui_cleanup() {
	tmx kill-server >/dev/null 2>&1
	rm -rf "$TDIR"
}
trap tui_cleanup EXIT
trap 'exit 1' INT TERM HUP

# Prints the screen.
cap() { tmx capture-pane -p -t "$TSESS" 2>/dev/null; }
# Prints the screen with colours and attributes as escape sequences.
cap_e() { tmx capture-pane -p -e -t "$TSESS" 2>/dev/null; }

fail() {
	echo "FAIL: $*"
	echo "---- screen ----"
	cap
	echo "----------------"
	exit 1
}

# tui_start COLS ROWS [ENV=VAL ...] -- [asys top args...]: starts asys top in
# a fresh session and records its exit status in $TDIR/exit. Waits until the
# first frame is drawn. TUI_SUB runs another subcommand (demo, replay), and
# TUI_READY is then the header to wait for. TUI_WRAP is a command put before
# asys (`unshare -n`: a network namespace of its own).
tui_start() {
	local cols=$1 rows=$2 envs="" args="" a
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		envs="$envs $(shq "$1")"
		shift
	done
	[ "$1" = -- ] && shift
	for a in "$@"; do
		args="$args $(shq "$a")"
	done
	rm -f "$TDIR/exit"
	tmx new-session -d -s "$TSESS" -x "$cols" -y "$rows" \
		"env LC_ALL=$TUI_LOCALE TERM=screen-256color $envs ${TUI_WRAP:-} $(shq "$ASYS") ${TUI_SUB:-top}$args; echo EXIT=\$? > $TDIR/exit; sleep 600" ||
		fail "tmux could not start a session"
	tmx set-option -t "$TSESS" remain-on-exit on >/dev/null 2>&1
	wait_for "${TUI_READY:-asys top}" 15 ||
		fail "${cols}x$rows: asys ${TUI_SUB:-top} drew no header (${TUI_READY:-asys top}) within 15 s"
}

# re_ok REGEX: grep -E takes the pattern. A pattern it refuses would end a
# wait_gone at once and run a wait_for to its limit, both in silence: this
# says so and returns 1.
re_ok() {
	local err
	printf '' | grep -Eq -- "$1" 2>/dev/null
	[ $? -ne 2 ] && return 0
	err=$(printf '' | grep -E -- "$1" 2>&1)
	echo "FAIL: a wait on a pattern grep -E refuses: '$1': $err"
	fails=$((${fails:-0} + 1))
	return 1
}

# wait_for REGEX [SECONDS]: until the screen matches (grep -E).
wait_for() {
	local re=$1 t=${2:-10} i=0
	re_ok "$re" || return 1
	while [ "$i" -lt $((t * 10)) ]; do
		cap | grep -Eq -- "$re" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# wait_gone REGEX [SECONDS]: until the screen no longer matches. A screen
# that cannot be read (the session is gone) is not one without REGEX.
wait_gone() {
	local re=$1 t=${2:-10} i=0 s
	re_ok "$re" || return 1
	while [ "$i" -lt $((t * 10)) ]; do
		if ! s=$(cap); then
			echo "wait_gone '$re': the tmux session is gone, there is no screen to read"
			return 1
		fi
		printf '%s\n' "$s" | grep -Eq -- "$re" || return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# wait_until SECONDS CMD [ARG...]: until CMD succeeds, asked every 0.1 s.
wait_until() {
	local t=$1 i=0
	shift
	while [ "$i" -lt $((t * 10)) ]; do
		"$@" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# pane_focused NAME: the pane titled NAME has the focus (its title is drawn
# in reverse video).
pane_focused() {
	local e
	e=$(printf '\033')
	cap_e | grep -Eq "$e\[([0-9]+;)*7(;[0-9]+)*m($e\[[0-9;]*m)* $1"
}

# wait_focus NAME [SECONDS]: until the pane titled NAME has the focus.
wait_focus() { wait_until "${2:-5}" pane_focused "$1"; }

# ere_quote TEXT: TEXT as a grep -E pattern that matches it literally.
ere_quote() { printf '%s' "$1" | sed 's/[][\\.*+?^$(){}|]/\\&/g'; }

keys() { tmx send-keys -t "$TSESS" "$@"; }

# sort_label: the table's "sort: NAME" from the screen.
sort_label() { cap | grep -oE 'sort: [^ ]+' | head -n 1 | cut -c7-; }

# sort_walk KEY NAME: presses KEY (< or >) until the table sorts by NAME,
# one press at a time, each after the previous one shows, so that a slow
# frame on a loaded machine cannot make the walk overshoot (12 steps at most).
sort_walk() {
	local key=$1 want=$2 i=0 now
	while [ "$i" -lt 12 ]; do
		now=$(sort_label)
		[ "$now" = "$want" ] && return 0
		if [ -z "$now" ]; then
			echo "sort_walk: no 'sort: NAME' on the screen"
			return 1
		fi
		keys "$key"
		if ! wait_gone "sort: $(ere_quote "$now") " 5; then
			echo "sort_walk: $key left the table sorted by $now for 5 s"
			return 1
		fi
		i=$((i + 1))
	done
	echo "sort_walk: 12 presses of $key did not reach $want"
	return 1
}

# wait_exit: prints asys top's exit status once it has exited (60 s at most).
# Leaving the screen is quick, the exit can be slow: as root asys top has
# uprobes on every process that loaded the runtime (here the test workloads
# of whatever else runs), and the kernel detaches each one after an RCU grace
# period, which on a loaded VM took 0.1 to 0.4 s. When it has not
# exited, tells on stderr where its threads wait, for the log.
wait_exit() {
	local t=60 i=0 pid
	while [ "$i" -lt $((t * 10)) ]; do
		if [ -s "$TDIR/exit" ]; then
			sed -n 's/^EXIT=//p' "$TDIR/exit"
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	pid=$(tui_pid)
	if [ -n "$pid" ]; then
		echo "asys top (pid $pid) still runs after $t s; its threads:" >&2
		ps -L -o lwp=,stat=,wchan:32=,comm= -p "$pid" >&2
	fi
	return 1
}

# quit_ok WHAT: q ends it with exit status 0; WHAT names the case.
quit_ok() {
	local st
	keys q
	st=$(wait_exit) || fail "$1: asys ${TUI_SUB:-top} did not exit on q"
	[ "$st" = 0 ] || fail "$1: exit status $st after q"
}

# tui_stop: ends the session. With it the last, the server exits, and a
# session started while it is still going away fails ("server exited
# unexpectedly", 1 in 30 here): so this returns once the server is gone, or
# holds other sessions (5 s at most).
tui_stop() {
	local i=0
	tmx kill-session -t "$TSESS" >/dev/null 2>&1
	while [ "$i" -lt 50 ]; do
		case $(tmx list-sessions 2>&1) in
		*"no server running"* | *"error connecting"*) return 0 ;;
		esac
		[ -n "$(tmx list-sessions 2>/dev/null)" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
}

# The pid of asys top in the session.
tui_pid() {
	local shell
	shell=$(tmx display-message -p -t "$TSESS" '#{pane_pid}')
	pgrep -P "$shell" -x asys 2>/dev/null || pgrep -P "$shell" 2>/dev/null | head -n 1
}

# layout_problem COLS ROWS: prints what is wrong with the screen and returns 1,
# or returns 0 when it is exactly the size, every box that is opened is
# closed, no line is longer than the screen, and the hint line is last.
layout_problem() {
	local cols=$1 rows=$2 s open close
	s=$(cap)
	if [ "$(printf '%s\n' "$s" | wc -l)" -ne "$rows" ]; then
		echo "screen is not $rows lines"
		return 1
	fi
	if [ "$(printf '%s\n' "$s" | LC_ALL=C.UTF-8 wc -L)" -gt "$cols" ]; then
		echo "a line is wider than $cols columns"
		return 1
	fi
	open=$(printf '%s\n' "$s" | grep -Ec '^(╭|\+)[0-9]')
	close=$(printf '%s\n' "$s" | grep -Ec '^(╰|\+)[-─]')
	if [ "$open" -lt 2 ]; then
		echo "fewer than two panes drawn"
		return 1
	fi
	if [ "$open" -ne "$close" ]; then
		echo "$open boxes opened but $close closed (overlap?)"
		return 1
	fi
	if ! printf '%s\n' "$s" | tail -n 1 | grep -q 'quit'; then
		echo "the hint line is not the last line"
		return 1
	fi
	return 0
}

# check_layout COLS ROWS: fails the test unless layout_problem finds nothing.
check_layout() {
	local why
	why=$(layout_problem "$1" "$2") || fail "$why"
}
