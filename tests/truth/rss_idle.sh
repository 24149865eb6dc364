#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: system
# Ground truth for the RSS of an idle process in the system-wide table: a
# helper touches 32 MiB and then wakes every 20 ms to do nothing, as a
# daemon's timer does: top shows it at 0.0 % CPU, and its CPU times move
# while its memory and fault counts do not. `asys record -s system-wide
# -d 0.1` runs 60 reports and more; this test reads /proc/PID/status before
# and after them, and every mem.proc sample of the helper in between must
# show exactly the VmRSS and VmHWM of those reads (so never an RSS above its
# HWM).
#
# Tolerance: none. Nothing the helper does moves its memory, and both reads
# must agree before a sample is judged (they differ only when the kernel
# reclaims its pages: the test then tries again). /proc/PID/stat's RSS is
# not VmRSS: the kernel sums its per-CPU counters only roughly there, by as
# much as a few hundred KiB; a table showing it for a process whose stat
# moved but whose fault counts did not is what this test catches.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/truth/truth_lib.sh"

hog=
cleanup() {
	[ -z "$hog" ] || kill "$hog" 2>/dev/null
	truth_cleanup
}
trap cleanup EXIT

"$truth_helper" tick "$truth_work" 32 20 &
hog=$!
truth_wait_file "$truth_work/phase1" || { fail "the helper did not hold its memory in 60 s"; finish; exit; }
truth_record -s system-wide -d 0.1 --nic-metrics false
truth_wait_sample mem.proc "\$2 == $hog && \$4 == \"rss\"" ||
	{ fail "no mem.proc sample of pid $hog in 60 s: $(tail -n 3 "$truth_work/record.log")"; finish; exit; }

# a window of 60 reports or more in which the helper's status did not move
tries=0
while :; do
	rss=$(truth_status_b "$hog" VmRSS)
	hwm=$(truth_status_b "$hog" VmHWM)
	t0=$(truth_now)
	truth_wait_sample mem.proc "\$2 == $hog && \$4 == \"rss\" && \$1 > $t0" 60 ||
		{ fail "fewer than 60 samples of pid $hog in 60 s"; finish; exit; }
	t1=$(truth_now)
	[ "$rss $hwm" = "$(truth_status_b "$hog" VmRSS) $(truth_status_b "$hog" VmHWM)" ] && break
	tries=$((tries + 1))
	[ $tries -lt 3 ] || skip "the kernel kept moving the helper's memory (reclaim?)"
done
echo "pid $hog: VmRSS $rss B, VmHWM $hwm B over the window"

if msg=$(truth_rows mem.proc | awk -v pid="$hog" -v t0="$t0" -v t1="$t1" \
	-v rss="$rss" -v hwm="$hwm" '
	$2 == pid && $1 > t0 && $1 < t1 && ($4 == "rss" || $4 == "hwm") { v[$1, $4] = $5; t[$1] = 1 }
	END {
		for (ts in t) {
			n++
			if (v[ts, "rss"] != rss || v[ts, "hwm"] != hwm) {
				if (++bad <= 5)
					printf "at t_ns %s: asys rss %s hwm %s, /proc/%s/status " \
						"VmRSS %s VmHWM %s B (exact: nothing moved its " \
						"memory)\n", ts, v[ts, "rss"], v[ts, "hwm"], pid, rss, hwm
			}
		}
		if (n < 60) { printf "only %d samples in the window\n", n; exit 1 }
		if (bad) printf "%d of %d samples disagree\n", bad, n
		exit bad > 0
	}'); then
	pass
else
	fail "$msg"
fi
truth_stop
finish
