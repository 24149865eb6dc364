#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: serial
# Ground truth for the per-core CPU shares: `asys record` samples cpu.core
# while this test reads /proc/stat itself at two known instants (CLOCK_MONOTONIC,
# the clock of an export's t_ns). For every CPU line, the shares over that
# interval computed from the export's samples nearest those instants must
# agree with the shares from the test's own reads. The shares are the CPU
# pane's: each state's part of user+nice+system+irq+softirq+iowait+steal+idle
# (guest time is already inside user and nice), busy = 1 - idle - iowait.
# A busy loop on CPU 0 keeps the cores' shares apart, so rows given to the
# wrong core fail too; a second one under `nice -n 19`, on CPU 1 (or beside
# the first on a single CPU), gives the nice share something to show, which
# sar and the CPU pane's `ni` report apart from user.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/truth/truth_lib.sh"

command -v taskset >/dev/null 2>&1 || skip "taskset (util-linux) is needed to pin the busy loop"
busy=
niced=
cleanup() {
	[ -z "$busy" ] || kill "$busy" 2>/dev/null
	[ -z "$niced" ] || kill "$niced" 2>/dev/null
	truth_cleanup
}
trap cleanup EXIT

# jiffies are in USER_HZ units
hz=$(getconf CLK_TCK 2>/dev/null) || hz=100
taskset -c 0 sh -c 'while :; do :; done' &
busy=$!
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null) || ncpu=1
nice_cpu=1
[ "$ncpu" -ge 2 ] && taskset -c 1 true 2>/dev/null || nice_cpu=0
taskset -c $nice_cpu nice -n 19 sh -c 'while :; do :; done' &
niced=$!

# 100 Hz keeps the samples within 5 ms of the test's reads; on a machine of
# many cores a tenth of that keeps the exports the test polls small, and the
# tolerance below widens by what the distance measures
freq=100
[ "$ncpu" -le 32 ] || freq=10
truth_record -s none --host-memory-sampling false --nic-metrics false --cpu-frequency $freq
truth_wait_sample cpu.core '$4 == "idle"' ||
	{ fail "no cpu.core sample in 60 s: $(tail -n 3 "$truth_work/record.log")"; finish; exit; }
"$truth_helper" stat >"$truth_work/stat.a"
# spaces the two reads the shares are taken between
sleep 3
"$truth_helper" stat >"$truth_work/stat.b"
tb=$(awk '$1 == "t_ns" { print $2 }' "$truth_work/stat.b")
truth_wait_sample cpu.core "\$1 > $tb + 2 * 1e9 / $freq" ||
	fail "no cpu.core sample after the second read of /proc/stat"
truth_stop
truth_rows cpu.core >"$truth_work/rows"

# The tolerance, in share (0..1), for each CPU line: a share is a ratio of two
# deltas of jiffies. asys's samples are m ns away from the test's reads (m,
# summed over both ends, is measured), so up to m of CPU time can fall on the
# other side; and each counter is read in whole jiffies, so a delta of one
# state can be one jiffy off, the sum of the 8 states 8. With T the interval:
#     |share_asys - share_test| <= (2 m + 10 jiffies) / T
# At 100 Hz sampling and T = 3 s that is about 4 percentage points; a row of
# another core, or a sample from another time, is off by far more.
if awk -v hz="$hz" -v nice_cpu="cpu$nice_cpu" -v stat_a="$truth_work/stat.a" -v stat_b="$truth_work/stat.b" '
function read_stat(file, which,   line, f, n, i, t) {
	while ((getline line < file) > 0) {
		n = split(line, f, " ")
		if (f[1] == "t_ns") { t = f[2]; continue }
		if (f[1] !~ /^cpu[0-9]*$/)
			continue
		for (i = 2; i <= n; i++)
			truth[which, f[1], i - 1] = f[i]
		lines[f[1]] = 1
	}
	close(file)
	return t
}
# /proc/stat columns: user nice system idle iowait irq softirq steal guest guest_nice
function shares(d, s,   all) {
	all = d["user"] + d["nice"] + d["system"] + d["irq"] + d["softirq"] + \
		d["iowait"] + d["steal"] + d["idle"]
	if (all <= 0)
		return 0
	s["busy"] = 1 - (d["idle"] + d["iowait"]) / all
	s["user"] = d["user"] / all
	s["nice"] = d["nice"] / all
	s["system"] = d["system"] / all
	s["idle"] = d["idle"] / all
	return all
}
BEGIN {
	ta = read_stat(stat_a, "a"); tb = read_stat(stat_b, "b")
	split("user nice system idle iowait irq softirq steal", names, " ")
}
{
	key = $3; t = $1
	if (!(key in lines))
		next
	# the sample of this CPU nearest each read
	da = t - ta; if (da < 0) da = -da
	db = t - tb; if (db < 0) db = -db
	if (!((key, "a") in best) || da < best[key, "a"]) { best[key, "a"] = da; bt[key, "a"] = t }
	if (!((key, "b") in best) || db < best[key, "b"]) { best[key, "b"] = db; bt[key, "b"] = t }
	val[key, t, $4] = $5
}
END {
	bad = 0; checked = 0
	T = (tb - ta) / 1e9
	for (key in lines) {
		if (!((key, "a") in bt)) {
			printf "FAIL: %s: /proc/stat has it, the recording has no sample of it\n", key
			bad++
			continue
		}
		for (i = 1; i <= 8; i++) {
			n = names[i]
			dt[n] = truth["b", key, i] - truth["a", key, i]
			da2[n] = val[key, bt[key, "b"], n] - val[key, bt[key, "a"], n]
		}
		m = (best[key, "a"] + best[key, "b"]) / 1e9
		tol = (2 * m + 10 / hz) / T
		shares(dt, st); shares(da2, sa)
		# the niced loop must show in the reads of /proc/stat, or nice
		# is not being checked at all; beside other busy work at nice 0
		# it gets little (1.5 % at nice 19) but never nothing in 3 s
		if (key == nice_cpu) {
			printf "%s: nice asys %.4f /proc/stat %.4f\n", key, sa["nice"], st["nice"]
			if (dt["nice"] < 1) {
				printf "FAIL: %s: /proc/stat gives the niced loop no nice time\n", key
				bad++
			}
			nice_seen = 1
		}
		printf "%s: busy asys %.4f /proc/stat %.4f, tolerance %.4f (samples %.1f ms off)\n",
			key, sa["busy"], st["busy"], tol, m * 1000
		for (n in st) {
			diff = sa[n] - st[n]; if (diff < 0) diff = -diff
			checked++
			if (diff > tol) {
				printf "FAIL: %s %s share: asys %.4f, /proc/stat %.4f over %.2f s; " \
					"tolerance %.4f = (2 x %.0f ms between the reads and the samples" \
					" + 10 jiffies) / interval\n", key, n, sa[n], st[n], T, tol, m * 1000
				bad++
			}
		}
	}
	printf "%d shares checked over %.2f s, %d off\n", checked, T, bad
	if (checked == 0) { print "FAIL: no share was checked"; bad++ }
	if (!nice_seen) { printf "FAIL: no row of %s, where the niced loop runs\n", nice_cpu; bad++ }
	exit bad != 0
}' "$truth_work/rows"; then
	pass
else
	fail "asys's per-core shares disagree with /proc/stat (above)"
fi
finish
