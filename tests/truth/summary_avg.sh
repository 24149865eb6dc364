#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root netns serial
# Ground truth for `asys export --summary` averages: for every series of a
# counter (the veth's byte and packet counters at 1 kHz, each core's and the
# whole machine's CPU times at 100 Hz), avg x span must equal the counter's
# increase over that span, read from the same file's raw values (`asys
# export` CSV). A mean of per-interval rates misses it by several percent as
# soon as intervals differ in length (late ticks under CPU hogs); a pooled
# row (all cores together) misses it for every core. Identity fields (ppid,
# uid) must not be averaged.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/nic/netns_lib.sh"
: "${ASYS:=$top_builddir/asys}"
[ -x "$ASYS" ] || { echo "FAIL: no $ASYS"; exit 1; }
D=$(mktemp -d "${TMPDIR:-/tmp}/asys-truth-avg.XXXXXX")
REC= HOG=
trap '[ -n "$REC" ] && kill "$REC" 2>/dev/null; [ -n "$HOG" ] && kill "$HOG" 2>/dev/null
	netns_cleanup; rm -rf "$D"' EXIT

nsenter --net="$NETNS/$NS1" "$ASYS" record --nic-metrics true --nic-metrics-frequency 1000 \
	--nic-device-include veth --cpu-frequency 100 -s system-wide --hggc-memory-usage false \
	-t none -o "$D/a.asys" > "$D/rec.log" 2>&1 &
REC=$!
wait_recording "$D/a.asys" "$D/rec.log"
# one busy loop: uneven CPU times, and late sampler ticks
sh -c 'while :; do :; done' &
HOG=$!
nsenter --net="$NETNS/$NS1" "$B/nic_traffic" send 10.231.0.2 40126 958 2000 1 >/dev/null
nsenter --net="$NETNS/$NS1" "$B/nic_traffic" burst 10.231.0.2 40126 1400 200 3000 >/dev/null
nsenter --net="$NETNS/$NS1" "$B/nic_traffic" send 10.231.0.2 40126 200 5000 1 >/dev/null
kill "$HOG"
HOG=
sleep 0.3
kill -TERM "$REC"
wait "$REC" || { echo "FAIL: asys record: $(cat "$D/rec.log")"; exit 1; }
REC=
"$ASYS" export --summary --streams nic.link,cpu.core,mem.proc "$D/a.asys" > "$D/sum" ||
	{ echo "FAIL: asys export --summary"; exit 1; }
"$ASYS" export --streams nic.link,cpu.core "$D/a.asys" > "$D/a.csv" ||
	{ echo "FAIL: asys export"; exit 1; }

awk '
# "763.1" in "MiB/s", "99.50" in "jiffies/s", "12.35" in "Mpackets/s" -> a number
function val(s, u,   m) {
	m = 1
	if (u ~ /^KiB/) m = 1024; else if (u ~ /^MiB/) m = 1024 ^ 2
	else if (u ~ /^GiB/) m = 1024 ^ 3; else if (u ~ /^M[a-z]/) m = 1e6
	else if (u ~ /^G[a-z]/) m = 1e9
	return s * m
}
FILENAME ~ /csv$/ && NR > 1 {
	k = $3 " " $5 " " $6
	if (!(k in t0)) { t0[k] = $1; v0[k] = $8 }
	if ($8 < last[k]) reset[k] = 1
	t1[k] = $1; v1[k] = $8; last[k] = $8
}
# stream field values min avg max p99 unit host series (veth-nA, cpu, cpu0: no spaces)
FILENAME ~ /sum$/ && ($1 == "nic.link" || $1 == "cpu.core") { k = $1 " " $10 " " $2; avg[k] = $5; unit[k] = $8 }
FILENAME ~ /sum$/ && $1 == "mem.proc" && ($2 == "ppid" || $2 == "uid") {
	attr++; if ($5 != "-") { print "FAIL: " $10 " " $2 " is averaged: " $5; bad = 1 }
}
END {
	n = 0
	for (k in avg) {
		split(k, p, " ")
		if (p[1] == "nic.link" && p[2] != "veth-nA") continue
		if (p[1] == "nic.link" && p[3] !~ /^tx_(bytes|packets)$/) continue
		if (p[1] == "cpu.core" && p[3] !~ /^(user|system|idle)$/) continue
		if (!(k in t0)) { print "FAIL: no raw values of " k; bad = 1; continue }
		if (reset[k]) { print "note: " k " reset; not checked"; continue }
		span = (t1[k] - t0[k]) / 1e9
		want = (v1[k] - v0[k]) / span
		got = val(avg[k], unit[k])
		# The summary prints 4 significant digits (3 decimals below 10):
		# 0.06 % of the value plus half a unit of the third decimal.
		tol = 0.0006 * (want < 0 ? -want : want) + 0.0006
		d = got - want; if (d < 0) d = -d
		printf "%-34s increase %.0f over %.3f s = %.4f/s; summary %s%s\n", k, v1[k] - v0[k], span, want, avg[k], (d > tol ? "  <-- off" : "")
		if (d > tol) bad = 1
		n++
		if (p[1] == "cpu.core") cores[p[2]] = 1
	}
	nc = 0; for (c in cores) nc++
	if (n < 5) { print "FAIL: only " n " series checked"; bad = 1 }
	if (nc < 2) { print "FAIL: cpu.core has fewer than 2 series (the whole machine and a core)"; bad = 1 }
	if (!attr) { print "FAIL: no mem.proc ppid/uid rows"; bad = 1 }
	exit bad
}' FS=, "$D/a.csv" FS=' ' "$D/sum" 2>&1 | sed 's/^/  /' > "$D/out"
rc=$?
cat "$D/out"
grep -q FAIL "$D/out" && exit 1
grep -q 'off$' "$D/out" && { echo "FAIL: a summary average is not the counter increase over its span"; exit 1; }
exit 0
