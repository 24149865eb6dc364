#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# A 192-core machine fits: a fixture /proc/stat (through ASYS_SYSROOT) with
# 192 CPUs whose counters move. At 80x24 the CPU pane shows one cell per
# core; focused at 120x40 it shows bars in several columns. The first row
# of the pane is the history line (tui_history.sh).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"

root=$TDIR/root
mkdir -p "$root/proc" "$root/sys/devices/system/cpu"
echo 0-191 > "$root/sys/devices/system/cpu/online"
echo 0-191 > "$root/sys/devices/system/cpu/present"
cat > "$root/proc/meminfo" <<'MEM'
MemTotal:       263921180 kB
MemFree:        101230000 kB
MemAvailable:   201230000 kB
Buffers:          1230000 kB
Cached:          90230000 kB
SwapCached:             0 kB
Shmem:             123000 kB
SReclaimable:     2300000 kB
SwapTotal:        8388604 kB
SwapFree:         8000000 kB
MEM

# one process, so the table has a row: python train.py, 780M resident
mkdir -p "$root/proc/4711"
printf 'python\0train.py\0' > "$root/proc/4711/cmdline"
echo '4711 (python) S 1 4711 4711 0 -1 4194560 100 0 0 0 10 5 0 0 20 0 3 0 1000 12345678 200000 18446744073709551615 1 1 0 0 0 0' > "$root/proc/4711/stat"
echo '200100 200000 300 20 0 500 0' > "$root/proc/4711/statm"
printf 'Name:\tpython\nPid:\t4711\nPPid:\t1\nUid:\t0\t0\t0\t0\nVmHWM:\t  950000 kB\nVmRSS:\t  800000 kB\nThreads:\t3\n' > "$root/proc/4711/status"

# stat TICK: cores differ in load and state, and every counter grows
stat() {
	awk -v t="$1" 'BEGIN {
		for (c = 0; c < 192; c++) {
			u[c] = t * (c % 10) * 8; s[c] = t * (c % 3) * 5
			w[c] = t * (c % 4 == 0) * 3; st[c] = t * (c % 16 == 0) * 6
			id[c] = t * 100 - u[c] - s[c] - w[c] - st[c]
			U += u[c]; S += s[c]; W += w[c]; ST += st[c]; ID += id[c]
		}
		printf "cpu  %d 0 %d %d %d 0 0 %d 0 0\n", U, S, ID, W, ST
		for (c = 0; c < 192; c++)
			printf "cpu%d %d 0 %d %d %d 0 0 %d 0 0\n", c, u[c], s[c], id[c], w[c], st[c]
		print "intr 0"; print "ctxt 0"; print "btime 1700000000"
		print "processes 1"; print "procs_running 1"; print "procs_blocked 0"
	}'
}
stat 1 > "$root/proc/stat"
(
	i=2
	while [ "$i" -lt 400 ]; do
		stat "$i" > "$TDIR/stat.new"
		# same inode (the collector keeps the file open), and no truncation:
		# a reader must never see the file empty. Counters only grow, so
		# the new text is never shorter than the old.
		cat "$TDIR/stat.new" 1<> "$root/proc/stat"
		sleep 0.2
		i=$((i + 1))
	done
) &
feeder=$!
trap 'kill $feeder 2>/dev/null; tui_cleanup' EXIT

tui_start 80 24 "ASYS_SYSROOT=$root" -- -d 0.5
wait_for '3 CPU +192 cores' 10 || fail "80x24: the CPU title does not count 192 cores"
wait_for 'one cell per core' 10 || fail "80x24: no one-cell-per-core strip"
wait_for 'host 252G' 10 || fail "80x24: the fixture's memory total is not shown"
keys 4
wait_for '4711 +root .*781M +0\.3 .*python train' 10 || fail "80x24: no row for the fixture's process"
check_layout 80 24
# every core is on screen: the strip rows (under the history line) carry
# the first core of each row
strip=$(cap | sed -n '/3 CPU/,/one cell per core/p' | sed -n '3,$p' | sed '$d')
n=$(printf '%s\n' "$strip" | wc -l)
[ "$n" -ge 3 ] || fail "80x24: the strip has $n rows, 192 cores need 3"
printf '%s\n' "$strip" | grep -q '^│ *0 ' || fail "80x24: the strip does not start at core 0"
cap | grep -q 'not shown' && fail "80x24: some cores are not shown"
quit_ok "80x24"
tui_stop
echo "ok: 80x24 strip"

tui_start 120 40 "ASYS_SYSROOT=$root" -- -d 0.5
wait_for '3 CPU +192 cores' 10 || fail "120x40: the CPU title does not count 192 cores"
keys 3
# focused, the CPU pane has room for bars, several columns of them
wait_for '│ +0 .* 1[0-9][0-9] ' 10 || fail "120x40: no row of bars from core 0"
wait_for ' 191 ' 10 || fail "120x40: no bar for core 191"
cells=$(cap | sed -n '/3 CPU/{n;n;p;}' | grep -o '[0-9][0-9]*' | wc -l)
[ "$cells" -ge 4 ] || fail "120x40: only $cells bars in a row, wanted several columns"
cap | grep -q 'one cell per core' && fail "120x40: a strip although the focused pane has room for bars"
check_layout 120 40
# Memory focused: the CPU pane gives its rows back and becomes a strip
keys 4
wait_for 'one cell per core' 5 || fail "120x40: no strip once Memory has the focus"
check_layout 120 40
quit_ok 120x40
echo "ok: 120x40 bars and strip"
