#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux serial
# Ground truth for CPU% beside TIME+ in the process table: a helper is busy
# for 1.5 s and asleep for 1.5 s, over and over, so that its share changes
# from one refresh to the next (100, 50, 0 %). `asys top -d 1` shows it, in
# process-tree mode (-p: its CPU times sampled at 10 Hz) and system-wide
# (once a refresh); this test reads the row at every new frame and
# /proc/PID/stat at the same moment. In each pair of frames:
# - the TIME+ change is CPU% times the time between the frames: a CPU%
#   taken from other samples than the TIME+ beside it (a refresh late)
#   shows 100 where TIME+ moved by half a second, or 0 where it moved by 1;
# - TIME+ is what /proc's utime + stime said at some moment between the
#   two frames: a frame shows a sample taken after the frame before it.
#
# Tolerance: the time between two frames is read from the test's own clock
# when it sees them, not the samples' instants: each frame is seen up to
# 0.1 s after its sample in the tree (sampled at 10 Hz) and up to a
# refresh after it system-wide (the refresh's scan may end after the
# frame), but the samples of two frames are as far apart as the frames
# give or take their scans and the test's 0.05 s poll: 0.35 s is allowed
# either way. TIME+ shows hundredths and /proc counts clock ticks: two of
# each.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/tui/tmux_lib.sh"

helper=$top_builddir/tests/truth/truth_helper
[ -x "$helper" ] || {
	echo "SKIP: $helper is not built (make check builds it)"
	exit 77
}
hz=$(getconf CLK_TCK 2>/dev/null) || hz=100
"$helper" pulse 1500 1500 &
PULSE=$!
frame_cleanup() {
	kill "$PULSE" 2>/dev/null
	tui_cleanup
}
trap frame_cleanup EXIT

# row: "CPU% TIME+" of the helper's row, by the header's words (the sort
# column's has an arrow)
row() {
	cap | awk -v p="$PULSE" '
		{ sub(/^│/, ""); sub(/│$/, "") }
		/ PID / && /COMMAND/ { for (i = 1; i <= NF; i++) { if (index($i, "CPU%") == 1) c = i; if (index($i, "TIME+") == 1) t = i } }
		c && t && $1 == p { print $c, $t; exit }'
}

# observe N: N frames of the row, one line each: "t_ns CPU% TIME+ ticks",
# ticks being /proc/PID/stat's utime + stime read as the frame is seen. A
# frame is a change of the screen (the CPU pane moves at every refresh).
observe() {
	n=0 i=0 last=
	while [ $n -lt "$1" ] && [ $i -lt 600 ]; do
		scr=$(cap | cksum)
		if [ "$scr" != "$last" ]; then
			t=$("$helper" now)
			ticks=$(awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$PULSE/stat")
			r=$(row)
			last=$scr
			[ -n "$r" ] && echo "$t $r $ticks" && n=$((n + 1))
		fi
		sleep 0.05
		i=$((i + 1))
	done
}

# check WHAT: the pairs of frames in $TDIR/frames
check() {
	awk -v hz="$hz" -v what="$1" '
	function secs(s,   a, n) {	# TIME+: m:ss.cc, or Hh:mm:ss
		if (index(s, "h")) { split(s, a, /[h:]/); return a[1] * 3600 + a[2] * 60 + a[3] }
		n = split(s, a, ":")
		return a[1] * 60 + a[2]
	}
	function abs(x) { return x < 0 ? -x : x }
	{
		t = $1 / 1e9; c = $2 / 100; tm = secs($3); k = $4 / hz
		if (NR > 1) {
			dt = t - pt; d = tm - ptm; pairs++; slack = 2 / hz + 0.01
			lo = c * (dt - 0.35) - 0.011; hi = c * (dt + 0.35) + 0.011
			if (d < lo || d > hi) {
				printf "%s: TIME+ %s -> %s (%.2f s) in %.2f s, but CPU%% says %.1f\n",
					what, ptime, $3, d, dt, c * 100
				bad++
			}
			if (tm < pk - slack || tm > k + slack) {
				printf "%s: TIME+ %s, but /proc/PID/stat said %.2f s at the frame " \
					"before and %.2f s at this one\n", what, $3, pk, k
				bad++
			}
		}
		pt = t; ptm = tm; pk = k; ptime = $3
	}
	END {
		if (pairs < 6) { printf "%s: only %d pairs of frames\n", what, pairs; exit 1 }
		exit bad > 0
	}' "$TDIR/frames"
}

# run WHAT ARGS...: asys top ARGS, the helper's row in the table, 10 frames
run() {
	what=$1
	shift
	for try in 1 2; do
		tui_start 160 48 -- -d 1 "$@"
		keys 4
		[ "$what" = system-wide ] && keys / t r u t h _ h e l p e r Enter
		wait_for "^│ +$PULSE " 15 || fail "$what: no row for the helper $PULSE"
		observe 11 >"$TDIR/frames"
		tui_stop
		if msg=$(check "$what"); then
			echo "$what: $(wc -l <"$TDIR/frames") frames agree"
			return 0
		fi
		echo "$msg"
		cat "$TDIR/frames"
	done
	fail "$what: $msg"
}

run process-tree -p "$PULSE"
run system-wide
echo "PASS"
exit 0
