#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: serial
# Ground truth for host memory: `asys record` samples mem.sys while this test
# runs `free -b` five times. Each of free's total, used, buff/cache and
# available must agree with what asys recorded around the moment free ran.
# asys counts used and buff/cache as free(1) of procps-ng 4 does (used =
# total - available, buff/cache = buffers + cached + sreclaimable); an older
# free counts used another way, so the test needs procps-ng 4 or later.
#
# Tolerance: 1 % of free's figure, beyond the range of asys's samples taken
# while free ran (the last one before its start to the first after its end,
# at 200 Hz). Both read the same /proc/meminfo, so they differ only by
# what the machine allocated or freed between the two reads, a few ms; 1 % of
# used (about 5 MiB on a 500 MiB machine) is more than that unless something
# allocates at GiB/s, and far less than what a wrong definition gives:
# used counted htop's way is lower by buff/cache + free - available, hundreds
# of MiB, and a buff/cache without SReclaimable is lower by that slab.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/truth/truth_lib.sh"

trap truth_cleanup EXIT
command -v free >/dev/null 2>&1 || skip "free (procps) is not installed"
ver=$(free -V 2>/dev/null | sed -n 's/.*procps-ng \([0-9][0-9]*\)\..*/\1/p')
[ -n "$ver" ] && [ "$ver" -ge 4 ] ||
	skip "free is not procps-ng 4 or later ($(free -V 2>&1 | head -n 1)): it counts used another way"

freq=200
truth_record -s none --nic-metrics false --host-memory-sampling-frequency $freq
truth_wait_sample mem.sys '$4 == "used"' ||
	{ fail "no mem.sys sample in 60 s: $(tail -n 3 "$truth_work/record.log")"; finish; exit; }
for i in 1 2 3 4 5; do
	t0=$(truth_now)
	# LC_ALL=C: free translates its "Mem:" label
	LC_ALL=C free -b >"$truth_work/free.$i"
	t1=$(truth_now)
	echo "$t0 $t1" >"$truth_work/when.$i"
	# spaces the readings over about a second
	sleep 0.2
done
truth_wait_sample mem.sys "\$1 > $t1 + 2 * 1e9 / $freq" ||
	fail "no mem.sys sample after the last free"
truth_stop
truth_rows mem.sys >"$truth_work/rows"

for i in 1 2 3 4 5; do
	read -r t0 t1 <"$truth_work/when.$i"
	# free -b: "Mem: total used free shared buff/cache available"
	# shellcheck disable=SC2046 # four numbers
	set -- $(awk '$1 == "Mem:" { print $2, $3, $6, $7 }' "$truth_work/free.$i")
	[ $# -eq 4 ] || { fail "reading $i: no Mem: line in free -b: $(cat "$truth_work/free.$i")"; continue; }
	for pair in "total $1" "used $2" "buff_cache $3" "available $4"; do
		# shellcheck disable=SC2086 # two words
		set -- $pair
		if msg=$(awk -v f="$1" -v want="$2" -v t0="$t0" -v t1="$t1" '
			$4 == f { t[n] = $1; v[n] = $5; n++ }
			END {
				# the last sample before free started, the first after it
				# ended, and those between
				b = -1; a = -1
				for (i = 0; i < n; i++) {
					if (t[i] <= t0 && (b < 0 || t[i] > t[b])) b = i
					if (t[i] >= t1 && (a < 0 || t[i] < t[a])) a = i
				}
				if (b < 0 || a < 0) {
					printf "%s: no asys sample before and after free ran", f
					exit 1
				}
				m = 0
				for (i = 0; i < n; i++) {
					if (t[i] < t[b] || t[i] > t[a])
						continue
					if (!m || v[i] < lo) lo = v[i]
					if (!m || v[i] > hi) hi = v[i]
					m++
				}
				tol = want * 0.01
				if (want < lo - tol || want > hi + tol) {
					printf "%s: free -b %.0f, asys %.0f..%.0f in the %d samples around it " \
						"(%.1f ms); tolerance 1%% (%.0f B): what a few ms of an " \
						"ordinary machine can change", f, want, lo, hi, m, \
						(t[a] - t[b]) / 1e6, tol
					exit 1
				}
			}' "$truth_work/rows"); then
			pass
		else
			fail "reading $i: $msg"
		fi
	done
done
finish
