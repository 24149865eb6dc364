#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# Messages a user can act on, read in the real asys top and asys replay at
# 80x24: the missing-library message in one line, what to set, its paths in
# the log (the fake library, and ASYS_HGML_LIBRARY pointing nowhere), the
# whole sentence of the probes' privilege hint and of a recording refused
# in a read-only directory (as nobody); the message log (L) with each
# status in full and its time, saying how to leave it, q quitting there; key
# hints and help that list only what applies; a workload that ended keeps
# its rows, marked exited, and its line to itself; a replay shows the
# recording's host, kernel and date, and its keys on the bottom line.
# lib.sh for copy_for_user; tmux_lib.sh's fail (which prints the screen and
# exits) comes second, so it is the one used
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/tui/tmux_lib.sh"
trap 'user_dir_cleanup; tui_cleanup' EXIT
FAKE="$top_builddir/tests/fakes/.libs/libhgml.so"

# The screen's text with the boxes' side borders taken off and the lines
# joined by single spaces: a sentence wrapped over lines reads whole.
flat() { cap | sed 's/^[│|]//; s/[│|] *$//' | tr '\n' ' ' | tr -s ' '; }
# wait_text TEXT SECONDS: until flat has TEXT, word for word
wait_text() {
	i=0
	while [ "$i" -lt $(($2 * 10)) ]; do
		flat | grep -qF -- "$1" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
bottom() { cap | tail -n 1; }

# 1. no library where ASYS_HGML_LIBRARY points: what to set, in one line
# that says the rest is in the log; where asys looked, in the log (L); no
# count of metrics no device samples
lib="$TDIR/nowhere/libhgml.so"
tui_start 80 24 ASYS_HGML_LIBRARY="$lib" -- -d 0.5 --ppu-metrics-device all
head='no PPU library: set PPU_HOME or ASYS_HGML_LIBRARY  \(details: L\)'
want="no PPU library: set PPU_HOME or ASYS_HGML_LIBRARY; PPU_HOME names the PPU SDK's directory, ASYS_HGML_LIBRARY the library file; asys looked in $lib"
wait_for "^│$head +│\$" 10 || fail "80x24: the missing-library line is not one line"
cap | grep -qF "$lib" && fail "80x24: the paths searched take the PPU pane's lines"
cap | grep -Eq '[0-9]+ metrics' && fail "80x24: the PPU footer counts metrics no device samples"
check_layout 80 24
# no PPU: no o/s; the PPU pane has no table: no sort
bottom | grep -q 'o/s' && fail "80x24: o/s offered with no PPU"
bottom | grep -q '</>' && fail "80x24: </> sort offered for the PPU pane"
bottom | grep -q 'L messages' || fail "80x24: the message log key is not on the bottom line"
if built_with MNL; then
	keys 2
	sleep 1
	bottom | grep -q '</>' && fail "80x24: </> sort offered while NIC is focused"
fi
keys 4
wait_for '</> sort' 5 || fail "80x24: no </> sort while the memory table is focused"
# the PPU pane, only a message now, gives its rows to the focused table:
# one line of the message, the rest in the log (L); the kernels and ranges
# panes, with only a reason to show, give theirs
table_rows() { [ "$(cap | grep -cE '^│ +[0-9]+ +[a-z]')" -ge "$1" ]; }
wait_until 5 table_rows 5 ||
	fail "80x24: the focused process table has $(cap | grep -cE '^│ +[0-9]+ +[a-z]') rows beside the PPU message"
[ "$(cap | grep -c 'PPU_HOME')" = 1 ] || fail "80x24: the unfocused PPU message takes more than its line"
# the help numbers the five panes, and has no PPU metric keys without a PPU
keys h
wait_for '1 \.\. 6 +focus the pane with that number' 5 || fail "help: no '1 .. 6'"
cap | grep -q '1 \.\. 9' && fail "help: says 1 .. 9 with 5 panes"
cap | grep -q 'o, s +PPU metric groups' && fail "help: lists o, s with no PPU"
keys Escape
wait_gone 'asys top help' 5 || fail "Escape did not close the help"
# the log: every status in full, with its time; its title says how to
# leave it, and q quits asys there as it does elsewhere
keys L
wait_for 'Messages \([0-9]+\)  Esc close  q quit' 5 || fail "L did not open the message log, saying how to leave"
cap | grep -Eq '^ [0-9]{2}:[0-9]{2}:[0-9]{2}  ppu\.[a-z]+: no PPU library: set PPU_HOME' ||
	fail "the log has no timestamped library message"
wait_text "$want" 2 || fail "the log does not hold the library message whole"
keys Escape
wait_gone 'Messages \(' 5 || fail "Escape did not close the message log"
keys L
wait_for 'Messages \(' 5 || fail "L did not open the message log again"
keys L
wait_gone 'Messages \(' 5 || fail "L did not close the message log"
keys L
wait_for 'Messages \(' 5 || fail "L did not open the message log a third time"
quit_ok "q in the message log"
tui_stop
echo "ok: the missing-library message at 80x24, hints, help, log"

# the default search through PPU_HOME: one line on screen, focused or not;
# the list of paths whole in the log
tui_start 80 24 ASYS_HGML_LIBRARY= PPU_HOME="$TDIR/sdk" -- --ppu-backend hgml
wait_for "^│$head +│\$" 10 || fail "80x24 PPU_HOME: the missing-library line is not one line"
[ "$(cap | grep -c 'PPU_HOME')" = 1 ] || fail "80x24 PPU_HOME: the message takes more than its line"
check_layout 80 24
keys L
wait_text "asys looked in $TDIR/sdk/lib/libhgml.so, " 5 || fail "80x24 PPU_HOME: the log lacks the paths"
wait_text "$TDIR/sdk/targets/x86_64-linux/lib/libhgml.so" 2 || fail "80x24 PPU_HOME: the list of paths is cut"
keys Escape
wait_gone 'Messages \(' 5 || fail "Escape did not close the message log"
quit_ok "PPU_HOME"
tui_stop
# the fake library found: devices, and no such message
if [ -r "$FAKE" ]; then
	tui_start 80 24 ASYS_HGML_LIBRARY="$FAKE" FAKE_HGML_DEVICES=2 -- --ppu-metrics-device all
	wait_for '1 PPU +2 devices' 10 || fail "fake library: no PPU pane"
	flat | grep -qF 'no PPU library' && fail "fake library: the missing-library message is shown"
	bottom | grep -q 'o/s' || fail "fake library: no o/s with PPU metric groups"
	quit_ok "fake library"
	tui_stop
fi
echo "ok: the library's paths whole"

# 2 and 3. as nobody: the probes' privilege hint; R in a directory nobody
# may not write to (the copy's, root's, mode 0755)
if copy_for_user "$ASYS"; then
	TSESS=np
	tmx new-session -d -s np -x 80 -y 24 -c "$user_dir" \
		"setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all env LC_ALL=$TUI_LOCALE TERM=screen-256color ASYS_HGML_LIBRARY= $(shq "$user_dir/asys") top -d 0.5; sleep 600"
	wait_for 'asys top' 10 || fail "asys top as nobody drew nothing"
	if built_with BPF; then
		wait_text 'run asys with sudo, or once: sudo setcap cap_bpf,cap_perfmon+ep $(command -v asys) (the runtime probes need root or CAP_BPF and CAP_PERFMON)' 10 ||
			fail "80x24: the privilege hint is not whole on screen"
	fi
	keys R
	wait_text 'to record, start asys in a directory it can write to, or give -o FILE: cannot create asys-' 5 ||
		fail "80x24: the refused recording does not say what to do"
	flat | grep -Eq 'cannot create asys-[0-9]{8}-[0-9]{6}\.asys: Permission denied' ||
		fail "80x24: the refused recording lost its reason"
	check_layout 80 24
	keys L
	wait_for 'Messages \(' 5 || fail "nobody: L did not open the log"
	wait_text 'asys: to record, start asys in a directory it can write to' 5 ||
		fail "nobody: the refused recording is not in the log"
	keys Escape q
	tui_stop
	TSESS=asys
	echo "ok: the privilege hint and a refused recording at 80x24"
else
	echo "note: not checked as nobody: $user_dir_why"
fi

# 4. a workload that ends: its rows stay, marked exited, and its line is
# its own
tui_start 80 24 -- -d 0.5 -- sh -c 'sleep 1; sleep 1'
keys 4
wait_for '^ workload: sh \(pid [0-9]+\) exited with status 0; press q to quit *$' 15 ||
	fail "the workload's end is not on a line of its own"
wait_for '\((exited|exit [0-9]+|signal [0-9]+)\) ' 5 || fail "the memory table lost the workload's rows"
cap | grep -q 'waiting for the first process sample' && fail "the memory table is empty after the exit"
check_layout 80 24
quit_ok "workload"
tui_stop
echo "ok: a workload that ended"

# 5. a replay: the recording's host (its own UTS namespace), kernel and
# date, not this machine's uptime; the replay keys on the bottom line
if [ "$(id -u)" = 0 ] && unshare --uts true 2>/dev/null; then
	ASYS="$ASYS" OUT="$TDIR/r.asys" unshare --uts sh -c \
		'hostname asys-rec-host && exec "$ASYS" record -o "$OUT" --duration 5s -s none' \
		>/dev/null 2>&1 || fail "no recording under another host name"
	day=$("$ASYS" replay --info "$TDIR/r.asys" | sed -n 's/^recorded: *\([0-9-]*\) .*/\1/p')
	TUI_SUB=replay TUI_READY='REPLAY r\.asys' tui_start 160 48 -- "$TDIR/r.asys"
	[ -n "$day" ] || fail "replay --info gave no recorded day"
	kern=$(uname -r | sed 's/[.]/\\./g')
	wait_for "^ asys replay  asys-rec-host  $kern  recorded $day " 5 ||
		fail "160x48: the replay header is not the recording's"
	# at once: the recording plays to its end in 5 s, and the checks below
	# take seconds on a busy machine; the glyph of the man page is the screen's
	cap | head -n 1 | grep -q '▶' || fail "no ▶ while playing"
	grep -q '\\\[u25B6\]' "$top_srcdir/man/asys-replay.1" || fail "the man page has another play glyph"
	cap | head -n 1 | grep -q ' up [0-9]' && fail "160x48: the replay header shows an uptime"
	bottom | grep -q 'g go to' || fail "160x48: no replay keys on the bottom line"
	tmx resize-window -t "$TSESS" -x 80 -y 24 >/dev/null 2>&1
	wait_for '^ asys replay  asys-rec-host .*REPLAY r\.asys' 5 || fail "80x24: the replay header"
	for k in 'space pause' '\. , step' '\] \[ speed' 'g go to' 'S-Left/Right 10s'; do
		bottom | grep -q "$k" || fail "80x24: '$k' not on the bottom line"
	done
	# playing, or at the end by now
	cap | head -n 1 | grep -q '[▶■]' || fail "80x24: no play state in the header"
	TUI_SUB=replay quit_ok "replay"
	tui_stop
	echo "ok: the replay header and keys"
else
	echo "note: the replay header is not checked: needs root and a UTS namespace"
fi
echo "ok"
