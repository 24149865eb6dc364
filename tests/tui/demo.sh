#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# asys demo in tmux: the recording made by the build (beside the binary)
# shows all five panes with data at 160x48, draws whole boxes at 80x24, and
# takes the replay keys: space pauses, g moves the clock, the end loops back
# to where the demo began, q exits 0. Its process table fills every column a
# live node fills (S, NI, CPU%, TIME+, PPU%), and R says in one line why it
# does not record. Without the file: exit 1, saying where.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"
DEMO="$(dirname "$ASYS")/demo.asys"
[ -r "$DEMO" ] || fail "no demo recording beside the binary: $DEMO (make builds it)"

# proc_rows_filled: the process table is on screen, and no row of it lacks a
# figure before RSS (S, NI, CPU%, TIME+, those that fit): no '?' for S, no
# n/a. USER is a name or, for the job's uid that no passwd names, a number.
proc_rows_filled() {
	local rows
	rows=$(cap | grep -E '^│ +[0-9]+ +([a-z][a-z0-9_-]*|[0-9]+) ')
	[ -n "$rows" ] || return 1
	! printf '%s\n' "$rows" | sed -E 's/ [0-9.]+[BKMGT] .*//' | grep -Eq 'n/a| \? '
}

# demo_start COLS ROWS [asys demo args...]: tui_start, for asys demo and the
# file beside the binary (an empty ASYS_DEMO_FILE counts as unset)
demo_start() {
	local cols=$1 rows=$2
	shift 2
	TUI_SUB=demo TUI_READY='REPLAY demo\.asys' tui_start "$cols" "$rows" ASYS_DEMO_FILE= -- "$@"
}

# the replay clock of the header, in seconds of the day
clock() {
	cap | head -n 1 | sed -n 's/.*REPLAY demo\.asys \([0-9][0-9]\):\([0-9][0-9]\):\([0-9][0-9]\).*/\1 \2 \3/p' |
		awk '{ print $1 * 3600 + $2 * 60 + $3 }'
}

# wait_clock TEST SECONDS: until the clock passes the awk test on c
wait_clock() {
	local t=$2 i=0 c
	while [ "$i" -lt $((t * 10)) ]; do
		c=$(clock)
		[ -n "$c" ] && awk -v c="$c" "BEGIN { exit !($1) }" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# no recording: exit 1 and where it looked
err=$(ASYS_DEMO_FILE="$TDIR/none.asys" "$ASYS" demo 2>&1 </dev/null)
st=$?
[ "$st" = 1 ] || fail "missing file: exit $st, wanted 1 ($err)"
printf '%s' "$err" | grep -q "no recording at ASYS_DEMO_FILE=$TDIR/none.asys" ||
	fail "missing file: '$err' does not say where it looked"
echo "ok: a missing recording"

# 160x48: every pane, with data
demo_start 160 48
for d in 0 1 2 3 4 5 6 7; do
	wait_for "^│$d PPU 00000000:[0-9A-F]{2}:00\.0 .*[0-9]+% +[0-9.]+G/96\.0G .*MHz" 15 ||
		fail "160x48: no row of PPU $d"
done
wait_for '1 PPU +8 devices' 5 || fail "160x48: the PPU title does not count 8 devices"
# a build without libmnl has no NIC pane, and its demo no NIC data
if grep -q '^#define HAVE_MNL 1' "$top_builddir/config.h" 2>/dev/null; then
	wait_for '2 NIC +9 of 9 active' 15 || fail "160x48: no NIC pane with its 9 NICs"
	wait_for 'mlx5_[0-3]/1 \(ens[12]f[01]np[01]\) +↓ +[0-9.]+ [KMG]b/s' 15 ||
		fail "160x48: no RDMA row with a rate"
	wait_for 'eth0 +↓ +[0-9.]+ [KMG]b/s' 15 || fail "160x48: no eth0 row with a rate"
else
	echo "no NIC pane in this build (no libmnl): its rows are not checked"
fi
wait_for '3 CPU +64 cores +avg [0-9]+%' 15 || fail "160x48: no CPU pane with 64 cores"
wait_for '^│ 0 [▁▂▃▄▅▆▇█]{32}' 15 || fail "160x48: no row of core cells"
wait_for '4 Memory +host 1\.0T: used [0-9]+G' 15 || fail "160x48: no memory pane"
wait_for '5 Top kernels +[0-9.]+k launches/s' 15 || fail "160x48: no kernels pane with launches"
wait_for '^│ +4821[1-8] +[0-9.]+k? +[0-9.]+[kM]? +[0-9]+% [a-z]' 15 || fail "160x48: no kernel row"
check_layout 160 48
# the memory pane focused: processes with their device and pinned memory,
# and rank 5's failed allocation
keys 4
wait_for 'PID USER .*RSS.* HWM +MEM% +THR +(PPU% +)?DEVICE +PINNED +ALLOC/s +FAIL COMMAND' 10 ||
	fail "160x48: no process table with DEVICE and PINNED"
wait_for '^│ +48211 .*[0-9.]+G +[0-9.]+G +[0-9.]+ +94 +([0-9.]+ +|- +)?[0-9.]+G +8\.0G .*python train\.py' 10 ||
	fail "160x48: no device and pinned memory of rank 0"
wait_for '^│ +48216 .* 2\.0G [0-9]+s ago python train\.py' 10 ||
	fail "160x48: no failed allocation of rank 5"
# S, NI, CPU% and TIME+ of every process, as proc.cpu has them live, and the
# PPU share of each rank
wait_for 'PID USER +S +NI +CPU%▼ +TIME\+ ' 10 || fail "160x48: no S, NI, CPU% and TIME+ columns"
wait_for '^│ +48211 +[0-9]+ +[RSD] +0 +[0-9]+\.[0-9] +[0-9]+h[0-9]{2}:[0-9]{2} .* 94 +[0-9]+\.[0-9] ' 10 ||
	fail "160x48: rank 0 has no state, nice, CPU%, TIME+ or PPU%"
proc_rows_filled || fail "160x48: a process row lacks S, NI, CPU% or TIME+"
keys 5
wait_for 'gemm_bf16_tn' 10 || fail "160x48: the kernels pane focused shows no GEMM"
check_layout 160 48
echo "ok: every pane at 160x48"

# keys: space pauses and plays, g moves the clock, the end loops back
keys 1 ' '
wait_for '❚❚' 10 || fail "space did not pause"
c0=$(clock)
[ -n "$c0" ] || fail "no replay clock in the header"
keys g
wait_for 'Go to' 10 || fail "g did not prompt"
keys '+10s' Enter
wait_clock "c == $c0 + 10" 10 || fail "g +10s moved the paused clock from $c0 to $(clock)"
# Shift+Right/Left seek 10 s: tmux sends CSI 1;2 C/D, which the
# screen-256color terminfo of the session does not name
keys S-Right
wait_clock "c == $c0 + 20" 10 || fail "S-Right moved the paused clock from $c0 + 10 to $(clock)"
keys S-Left
wait_clock "c == $c0 + 10" 10 || fail "S-Left moved the paused clock from $c0 + 20 to $(clock)"
keys ' '
wait_for '▶' 10 || fail "space did not play again"
# at the end the demo goes back to where it began, at most c0: the clock
# runs backwards only then
c1=$(clock)
keys g
wait_for 'Go to' 10 || fail "g did not prompt again"
keys '100%' Enter
wait_clock "c >= $c0 - 20 && c < $c1 - 2" 20 ||
	fail "the demo did not loop back after the end (clock $(clock), began before $c0)"
wait_for '▶' 10 || fail "the demo does not play after looping"
TUI_SUB=demo quit_ok "at the end"
tui_stop
echo "ok: keys"

# 80x24: the panes shrink without broken boxes
demo_start 80 24
wait_for '1 PPU +8 devices' 15 || fail "80x24: no PPU pane"
wait_for 'more PPUs: 0 above, [0-9]+ below' 15 || fail "80x24: no PPU scroll hint"
check_layout 80 24
# the process table, busiest first, every figure known
keys 4
wait_for 'PID USER .*CPU%▼ +TIME\+ ' 10 || fail "80x24: no CPU% and TIME+ columns"
wait_for '^│ +[0-9]+ +[0-9a-z]+ +([RSD] +-?[0-9]+ +)?([5-9][0-9]|[1-9][0-9]{2,})\.[0-9] +[0-9]+h[0-9]{2}:[0-9]{2} ' 10 ||
	fail "80x24: the first process sorted by CPU% is not a busy one with its TIME+"
proc_rows_filled || fail "80x24: a process row lacks its CPU% or TIME+"
# R: a replay cannot record; it says so on one line, and in the message log
keys R
wait_for '^ *R records in asys top only: this view plays a recording already *$' 5 ||
	fail "80x24: R said nothing, or not on one line"
keys L
wait_for 'R records in asys top only' 5 || fail "80x24: R's message is not in the message log"
keys Escape
wait_gone '^ Messages \(' 5 || fail "80x24: Esc did not close the message log"
check_layout 80 24
TUI_SUB=demo quit_ok 80x24
tui_stop
echo "ok: 80x24"
