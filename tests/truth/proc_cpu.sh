#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: serial
# Ground truth for per-process CPU (proc.cpu): a busy child (`yes`, at nice
# 2) runs while `asys record` samples every process; this test reads
# /proc/PID/stat of the child itself at two known instants 3 s apart
# (CLOCK_MONOTONIC, the clock of an export's t_ns). The child's CPU share over
# that interval from the export's utime + stime, taken at the samples nearest
# those instants, must agree with the share from the test's own reads; its
# start time and nice must be the kernel's exactly.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/truth/truth_lib.sh"

command -v yes >/dev/null 2>&1 || skip "yes (coreutils) is needed for the busy child"
busy=
cleanup() {
	[ -z "$busy" ] || kill "$busy" 2>/dev/null
	truth_cleanup
}
trap cleanup EXIT

hz=$(getconf CLK_TCK 2>/dev/null) || hz=100
nice -n 2 yes >/dev/null &
busy=$!

# a refresh of 0.1 s keeps a sample within 50 ms of each of the test's reads
truth_record -s system-wide -d 0.1 --nic-metrics false --host-memory-sampling false
truth_wait_sample proc.cpu "\$2 == $busy && \$4 == \"utime\"" ||
	{ fail "no proc.cpu sample of pid $busy in 60 s: $(tail -n 3 "$truth_work/record.log")"; finish; exit; }
"$truth_helper" pidstat "$busy" >"$truth_work/stat.a"
sleep 3
"$truth_helper" pidstat "$busy" >"$truth_work/stat.b"
tb=$(awk '$1 == "t_ns" { print $2 }' "$truth_work/stat.b")
truth_wait_sample proc.cpu "\$2 == $busy && \$1 > $tb + 2e8" ||
	fail "no proc.cpu sample of pid $busy after the test's second read"
truth_stop
truth_rows proc.cpu | awk -v pid="$busy" '$2 == pid' >"$truth_work/rows"

# The tolerance, in share of one CPU (0..1): asys's samples are m ns away
# from the test's reads (m, summed over both ends, is measured), and the
# child can run at most m of CPU time in that distance; each of utime and
# stime is read in whole clock ticks, so a delta of their sum can be two
# ticks off at each source, four in all. With T the interval:
#     |share_asys - share_test| <= (m + 4 ticks) / T
# At a 0.1 s refresh and T = 3 s that is at most about 3 percentage points.
if msg=$(awk -v hz="$hz" -v fa="$truth_work/stat.a" -v fb="$truth_work/stat.b" '
function read_stat(file, r,   line, f, n, i, rest) {
	while ((getline line < file) > 0) {
		if (line ~ /^t_ns /) { split(line, f, " "); r["t"] = f[2]; continue }
		rest = substr(line, index(line, ")") + 2)  # fields from 3 (state) on
		n = split(rest, f, " ")
		r["cpu"] = (f[12] + f[13]) / hz
		r["nice"] = f[17]
		r["start"] = f[20] / hz
	}
}
function abs(x) { return x < 0 ? -x : x }
{
	# utime and stime of a sample share its t_ns
	if ($4 == "utime" || $4 == "stime") cpu[$1] += $5
	if ($4 == "nice") nice[$1] = $5
	if ($4 == "start") start[$1] = $5
	if ($4 == "kthread") kt[$1] = $5
}
END {
	read_stat(fa, a); read_stat(fb, b)
	for (t in cpu) {
		if (ta == "" || abs(t - a["t"]) < abs(ta - a["t"])) ta = t
		if (tb == "" || abs(t - b["t"]) < abs(tb - b["t"])) tb = t
	}
	if (ta == "" || ta == tb) { print "no samples around the reads"; exit 1 }
	m = (abs(ta - a["t"]) + abs(tb - b["t"])) / 1e9
	T = (b["t"] - a["t"]) / 1e9
	sa = (cpu[tb] - cpu[ta]) / ((tb - ta) / 1e9)
	st = (b["cpu"] - a["cpu"]) / T
	tol = (m + 4 / hz) / T
	printf "child: asys %.4f of a CPU (samples %.3f s apart), /proc %.4f (reads %.3f s apart), " \
		"tolerance %.4f (samples %.1f ms from the reads)\n", sa, (tb - ta) / 1e9, st, T, tol, m * 1e3
	bad = 0
	if (abs(sa - st) > tol) {
		printf "CPU share: asys %.4f, /proc/PID/stat %.4f: off by more than %.4f, the CPU time " \
			"the child can have run in the %.1f ms between the reads and the samples plus " \
			"four clock ticks\n", sa, st, tol, m * 1e3
		bad = 1
	}
	if (st < 0.02) { printf "the busy child ran only %.4f of a CPU: not a test\n", st; bad = 1 }
	if (nice[ta] != a["nice"] || kt[ta] != 0) {
		printf "nice %s kthread %s, the kernel says nice %s\n", nice[ta], kt[ta], a["nice"]; bad = 1
	}
	if (abs(start[ta] - a["start"]) > 1e-9) {
		printf "start %s s, the kernel says %s s\n", start[ta], a["start"]; bad = 1
	}
	exit bad
}' "$truth_work/rows"); then
	echo "$msg"
	pass
else
	fail "$msg"
fi
finish
