#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux serial
# Ground truth for the process table after a job: `asys top -- /usr/bin/time
# -v CHILD`, where the child touches 64 MiB, holds them 2.5 s and exits with
# status 3, then /usr/bin/time exits with the same status. Once both are gone,
# the table must still show the child, marked exited, with the peak that
# /usr/bin/time measured (its "Maximum resident set size", the kernel's
# high-water mark of the child's RSS at its exit) as HWM, and its CPU time
# ("User time" + "System time") as TIME+, and its exit status (as root:
# the kernel's process events tell it); and /usr/bin/time's row, with the
# same status, and the workload line too.
#
# Tolerance for HWM: the table shows 64 MiB to a tenth of a MiB (0.05 MiB of
# rounding); /usr/bin/time's figure comes from the kernel's rough sum of
# its per-CPU RSS counters, VmHWM from the exact one, and the two differ by
# at most the pages each CPU holds back (max(32, 2 x CPUs) pages a CPU); and
# the child's libc touches a few pages after the table's last reading as it
# exits (0.25 MiB allowed). For TIME+: /usr/bin/time prints hundredths, the
# table shows them, and the child sleeps for its last 2.5 s: 0.02 s.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/tui/tmux_lib.sh"

helper=$top_builddir/tests/truth/truth_helper
[ -x "$helper" ] || {
	echo "SKIP: $helper is not built (make check builds it)"
	exit 77
}
[ -x /usr/bin/time ] || {
	echo "SKIP: no /usr/bin/time to compare with (apt-get install time)"
	exit 77
}
cpus=$(getconf _NPROCESSORS_CONF 2>/dev/null) || cpus=1
page=$(getconf PAGESIZE 2>/dev/null) || page=4096

# In the sanitizer build the helper's leak check would run at its exit, after
# the table's last reading, and add CPU time no reading of /proc can see
# before the process is gone: the child is checked, not the helper's memory.
# env execs /usr/bin/time, so the job's first process is still time.
tui_start 160 48 -- -d 0.5 -- env ASAN_OPTIONS=detect_leaks=0 /usr/bin/time -v -o "$TDIR/time.txt" \
	"$helper" alloc 64 2500 3
keys 4
wait_for 'exited with status' 30 || fail "the job did not end in 30 s"
[ -s "$TDIR/time.txt" ] || fail "/usr/bin/time wrote nothing"
cat "$TDIR/time.txt"
# how they ended comes from the kernel's process events, which only root
# may hear: without them a row says only that it exited
ended='exited'
[ "$(id -u)" = 0 ] && ended='exit 3'
wait_for "^│ +[0-9]+ .* X .*\\($ended\\) .*truth_helper alloc" 5 ||
	fail "the child is not in the table after the job as ($ended) (only: $(cap | grep -oE '\((exit|exited|signal)[^)]*\).*' | tr -s ' '))"
cap | grep -q "($ended) /usr/bin/time" || fail "/usr/bin/time is not in the table after the job as ($ended)"
cap | grep -q 'exited with status 3' || fail "the workload line does not say status 3"

# cell PATTERN TITLE: the value of column TITLE in the row matching PATTERN
cell() {
	cap | awk -v p="$1" -v t="$2" '
		{ sub(/^│/, ""); sub(/│$/, "") }
		/ PID / && /COMMAND/ { for (i = 1; i <= NF; i++) if (index($i, t) == 1) col = i }
		col && $0 ~ p { print $col; exit }'
}
hwm=$(cell 'truth_helper alloc' HWM)
tm=$(cell 'truth_helper alloc' TIME+)
echo "table: HWM $hwm, TIME+ $tm"
if ! msg=$(awk -v hwm="$hwm" -v tm="$tm" -v cpus="$cpus" -v page="$page" '
	function mib(s,   n) {
		n = s + 0
		if (s ~ /G$/) return n * 1024
		if (s ~ /K$/) return n / 1024
		if (s ~ /M$/) return n
		return -1
	}
	/Maximum resident set size/ { maxrss = $NF / 1024 }
	/User time/ { cpu += $NF }
	/System time/ { cpu += $NF }
	END {
		batch = 2 * cpus < 32 ? 32 : 2 * cpus
		tol = 0.05 + cpus * batch * page / 1048576 + 0.25
		split(tm, a, ":"); t = a[1] * 60 + a[2]
		d = mib(hwm) - maxrss; if (d < 0) d = -d
		if (d > tol) {
			printf "HWM %s, /usr/bin/time: maximum RSS %.2f MiB (tolerance %.2f MiB)\n", hwm, maxrss, tol
			bad = 1
		}
		d = t - cpu; if (d < 0) d = -d
		if (tm == "" || d > 0.02) {
			printf "TIME+ %s, /usr/bin/time: %.2f s of CPU\n", tm, cpu
			bad = 1
		}
		exit bad
	}' "$TDIR/time.txt"); then
	fail "$msg"
fi
echo "PASS"
quit_ok "after the job"
exit 0
