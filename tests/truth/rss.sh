#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: serial
# Ground truth for process memory: a helper holds 96 MiB of touched memory,
# then unmaps down to 16 MiB, so its RSS falls while its high-water mark
# stays. `asys record -p PID` follows it; in each phase this test reads
# /proc/PID/status itself, and every mem.proc sample asys took inside the
# phase must agree with that reading on RSS (VmRSS) and HWM (VmHWM).
#
# Tolerance: 1 % of the test's figure. The helper is blocked in sigwait()
# for the whole phase, so its memory does not change; what can still move
# VmRSS and VmHWM a little is the kernel itself: it keeps RSS in per-CPU
# counters and /proc shows their approximate sum (so VmHWM can even read a
# few pages lower in the second phase than in the first), and the signal
# that ends a phase can touch a page of the helper's stack.
# The phases differ by 80 MiB of 96, so a sample from the other phase, a
# field taken for another, or a unit off by 1024 fails by far more.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/truth/truth_lib.sh"

hog=
cleanup() {
	[ -z "$hog" ] || kill "$hog" 2>/dev/null
	truth_cleanup
}
trap cleanup EXIT

"$truth_helper" hog "$truth_work" 96 16 &
hog=$!
truth_wait_file "$truth_work/phase1" || { fail "the helper did not hold its memory in 60 s"; finish; exit; }
freq=50
truth_record -p "$hog" --nic-metrics false --host-memory-sampling-frequency $freq

# check_phase N: waits for three samples of the helper in phase N, reads
# /proc/PID/status, waits for three more, then checks them all.
check_phase() {
	phase=$1
	read -r start pid <"$truth_work/phase$1"
	[ "$pid" = "$hog" ] || fail "phase $phase: the helper's file names pid $pid, not $hog"
	if ! truth_wait_sample mem.proc "\$2 == $hog && \$4 == \"rss\" && \$1 > $start" 3; then
		fail "phase $phase: fewer than 3 mem.proc samples of pid $hog in 60 s"
		return
	fi
	rss=$(truth_status_b "$hog" VmRSS)
	hwm=$(truth_status_b "$hog" VmHWM)
	now=$(truth_now)
	truth_wait_sample mem.proc "\$2 == $hog && \$4 == \"rss\" && \$1 > $now" 3 || fail "phase $phase: no sample after the test's read"
	end=$(truth_now)
	for pair in "rss $rss VmRSS" "hwm $hwm VmHWM"; do
		# shellcheck disable=SC2086 # three words
		set -- $pair "$phase"
		if msg=$(truth_rows mem.proc | awk -v f="$1" -v want="$2" -v name="$3" \
			-v pid="$hog" -v t0="$start" -v t1="$end" -v phase="$4" '
			$2 == pid && $4 == f && $1 > t0 && $1 < t1 {
				n++
				d = $5 - want; if (d < 0) d = -d
				if (d > want * 0.01) {
					printf "phase %s: %s at t_ns %s: asys %.0f B, /proc/%s/status %s %.0f B; " \
						"tolerance 1%%: the kernel moving RSS of a process blocked " \
						"in sigwait\n", phase, f, $1, $5, pid, name, want
					bad++
				}
			}
			END {
				if (n < 3) { printf "phase %s: only %d samples of %s\n", phase, n, f; exit 1 }
				exit bad > 0
			}'); then
			pass
		else
			fail "$msg"
		fi
	done
	echo "phase $phase: VmRSS $rss B, VmHWM $hwm B"
}

check_phase 1
kill -USR1 "$hog"
truth_wait_file "$truth_work/phase2" || { fail "the helper did not unmap in 60 s"; finish; exit; }
check_phase 2
kill -USR1 "$hog"
wait "$hog"
hog=
truth_stop
finish
