#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# Kernel durations from the profiling interface through the collector into
# a recording (tests/ktime/ktime_rig.c, over the CUPTI stand-in): `asys export`
# gives the exact counts and totals, and the kernels pane of `asys replay`,
# at 80x24 and 160x48, says SHARE is of GPU time, sorts by it and shows each
# kernel's share, mean and max.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/ktime/lib.sh"
. "$top_srcdir/tests/tui/tmux_lib.sh"
trap tui_cleanup EXIT
F="$TDIR/k.asys"

# 10 rounds, one each 200 ms: vecAdd 200 x 1.5 us, reduce 20 x 42 us and
# gemm 4 x 250 us a round: 0.3, 0.84 and 1 ms of GPU time a round
FAKE_CUPTI_SCRIPT="k _Z6vecAddPfS_S_i 0 1500 200; k _Z9reduce_v2PfS_ 0 42000 20; k gemm 1 250000 4; m 1 4096 2000 10" \
	FAKE_CUPTI_REPEAT=10 FAKE_CUPTI_PERIOD_MS=200 ASYS_KACT_FLUSH_MS=100 KTIME_RIG_STAY_MS=2600 \
	timeout 120 "$KTIME_RIG" record "$F" >"$TDIR/rig.out" 2>&1 || fail "rig: $(cat "$TDIR/rig.out")"

# the last value of each (kernel, field)
"$ASYS" export --streams gpurt.ktime,gpurt.kcopy "$F" >"$TDIR/x.csv" 2>"$TDIR/x.err" ||
	fail "export: $(cat "$TDIR/x.err")"
last() { # NAME FIELD
	awk -F, -v n="$1" -v f="$2" 'index($0, n) && $6 == f { v = $8 } END { print v }' "$TDIR/x.csv"
}
want() { # NAME FIELD VALUE
	got=$(last "$1" "$2")
	[ "$got" = "$3" ] && pass || fail "export: $1 $2 = '$got', want $3"
}
want reduce_v2 count 200
want reduce_v2 total_ns 8400000
want reduce_v2 max_ns 42000
want gemm count 40
want gemm total_ns 10000000
want gemm device 1
want 'vecAdd' count 2000
want 'vecAdd' total_ns 3000000
want HtoD bytes 409600
want HtoD total_ns 200000

for size in "80 24" "160 48"; do
	set -- $size
	TUI_SUB=replay TUI_READY="asys replay" tui_start "$1" "$2" -- "$F"
	wait_for "Top kernels" 10 || fail "${1}x$2: no kernels pane"
	# paused while the kernels run (at the end they are idle, their
	# shares of no GPU time unknown)
	keys Space
	wait_for '❚❚|PAUSED' 5 || fail "${1}x$2: the replay did not pause"
	keys g
	keys 40% Enter
	wait_for "SHARE of GPU time" 10 || fail "${1}x$2: the pane does not say SHARE is of GPU time"
	wait_for "MEAN +MAX" 5 || fail "${1}x$2: no MEAN and MAX columns"
	# gemm 1 ms of 2.14 ms a round: 47%; reduce 39%; vecAdd 14%; the mangled
	# names demangled, in a build with or without eBPF
	wait_for "4[67]% +250us +250us +(void )?gemm" 10 || fail "${1}x$2: gemm's share, mean, max"
	wait_for "3[89]% +42\.0us +42\.0us +reduce_v2\\(float\\*, float\\*\\)" 5 || fail "${1}x$2: reduce_v2's row"
	wait_for "1[45]% +1\.50us +1\.50us +vecAdd\\(float\\*" 5 || fail "${1}x$2: vecAdd's row"
	# sorted by GPU time once durations are known: gemm first
	[ "$(sort_label)" = SHARE ] || fail "${1}x$2: sorted by $(sort_label), not SHARE"
	cap | grep -A1 'MEAN' | tail -n 1 | grep -q gemm || fail "${1}x$2: gemm is not first"
	pass
	layout_problem "$1" "$2" >/dev/null || fail "${1}x$2: $(layout_problem "$1" "$2")"
	quit_ok "${1}x$2"
	tui_stop
done
finish
