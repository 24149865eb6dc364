#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: serial
# Ground truth for `asys snapshot`'s collector rates: each collector that
# sampled must report the rate it sampled at over the snapshot's interval,
# which this test knows from the frequencies it sets (and, for those it does
# not set, from the refresh of a third of the interval that asys-snapshot(1)
# states). A rate of 0 where samples were taken, or null where the interval
# held several periods, is a failure; so is null turning into a number where
# the interval is shorter than the collector's period.
#
# The tolerance is in samples: the ticks of a collector lie on a grid of its
# period, so an interval of L seconds holds f x L of them, one more or one
# less where the stop overtakes a tick or a thread starts a moment after the
# clock was read; and a tick that falls more than its catch-up limit behind
# under load is skipped, which 5 % covers.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/truth/truth_lib.sh"
trap truth_cleanup EXIT

# collectors WHERE FILE: "name up rate" per collector of the JSON in FILE,
# read without a JSON library: the array holds flat objects only
collectors() {
	grep -o '"collectors":\[[^]]*\]' "$1" | grep -o '{[^}]*}' |
		sed 's/.*"name":"\([^"]*\)","up":\([a-z]*\),"rate_hz":\([^,}]*\).*/\1 \2 \3/'
}

# check INTERVAL "NAME=HZ ..." ARGS...: a snapshot of INTERVAL seconds with
# ARGS; the named collectors must have sampled at HZ (null: no rate is
# known), every other one that is up at 3 / INTERVAL.
check() {
	c_int=$1 c_want=$2
	shift 2
	if ! "$ASYS" snapshot -f json -t none --interval "$c_int" "$@" >"$truth_work/s.json" \
		2>"$truth_work/s.err"; then
		fail "asys snapshot --interval $c_int $*: $(cat "$truth_work/s.err")"
		return
	fi
	collectors "$truth_work/s.json" >"$truth_work/c"
	if awk -v L="$c_int" -v want="$c_want" '
	BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) { split(w[i], kv, "="); hz[kv[1]] = kv[2] } }
	$2 != "true" { next }
	{
		up++
		f = ($1 in hz) ? hz[$1] : 3 / L
		if (f == "null") {
			if ($3 != "null") { printf "FAIL: %s: rate %s, want null (its period is longer than %s s)\n", $1, $3, L; bad++ }
			else printf "%s: null, as its period is longer than %s s\n", $1, L
			next
		}
		if ($3 == "null") { printf "FAIL: %s sampled for %s s at %s Hz: its rate is null\n", $1, L, f; bad++; next }
		got = $3 * L; want_n = f * L; tol = 1 + 0.05 * want_n
		d = got - want_n; if (d < 0) d = -d
		printf "%s: %.3f Hz over %s s = %.2f samples, configured %s Hz = %.2f, tolerance %.2f\n", $1, $3, L, got, f, want_n, tol
		if (d > tol) { printf "FAIL: %s: %.3f Hz, configured %s Hz\n", $1, $3, f; bad++ }
	}
	END { if (!up) { print "FAIL: no collector is up"; bad++ } exit bad != 0 }' "$truth_work/c"; then
		pass
	else
		fail "snapshot rates at --interval $c_int $*: $(tr '\n' ';' <"$truth_work/c")"
	fi
}

# the default interval, and the refresh rate it implies; host memory has
# its own rate, 10 Hz by default (asys-top(1))
check 1 "mem=10" -s none
check 2 "mem=10" -s none
# set frequencies, each on its own thread or sharing one
check 1 "cpu=20 mem=50 nic=40" -s none --cpu-frequency 20 --host-memory-sampling-frequency 50 \
	--nic-metrics true --nic-metrics-frequency 40
check 2 "cpu=7 mem=10 nic=5" --cpu-frequency 7 --host-memory-sampling-frequency 10 \
	--nic-metrics true --nic-metrics-frequency 5
# a period longer than the interval: no rate can be told
check 0.5 "mem=null" -s none --host-memory-sampling-frequency 1
finish
