#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# Frames keep the refresh, and the sampling thread brings them. At -d 0.5
# the screen's thread wakes about twice a second, once a frame: its voluntary
# context switches are counted over 5 s. A frame clock that drew twice a
# refresh, or waited out its whole window for a pump that never came, reads
# far from 10. While it waits, its poll(2) holds two descriptors, the
# terminal and the wake that the bus's pump writes (bus_notify_after);
# /proc/PID/syscall shows the count as the second number of the call.
# Run at the defaults (a 10 Hz thread pumps) and with host memory sampling
# off (the refresh's thread pumps, once a window).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"

switches() { awk '/^voluntary_ctxt_switches/{print $2}' "/proc/$1/task/$1/status"; }

for extra in "" "--host-memory-sampling false"; do
	# shellcheck disable=SC2086 # two words, or none
	tui_start 120 40 -- -d 0.5 $extra
	wait_for '4 Memory' 10 || fail "no Memory pane (${extra:-defaults})"
	pid=$(tui_pid)
	[ -n "$pid" ] || fail "cannot find asys top"
	[ -r "/proc/$pid/syscall" ] || { echo "SKIP: no /proc/PID/syscall here"; exit 77; }
	sleep 1
	nfds=
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		# shellcheck disable=SC2046 # the call's words
		set -- $(cat "/proc/$pid/syscall" 2>/dev/null)
		# a running thread shows "running" alone
		[ $# -ge 3 ] && nfds=$3 && break
		sleep 0.2
	done
	a=$(switches "$pid")
	sleep 5
	b=$(switches "$pid")
	n=$((b - a))
	echo "${extra:-defaults}: $n wakes of the screen's thread in 5 s at -d 0.5; nfds $nfds"
	[ "$n" -ge 8 ] && [ "$n" -le 14 ] || fail "$n wakes in 5 s, want about 10 (${extra:-defaults})"
	[ "$nfds" = 0x2 ] || fail "the screen waits on ${nfds:-?} descriptors, want 2: terminal and wake"
	quit_ok "${extra:-defaults}"
	tui_stop
done
echo ok
