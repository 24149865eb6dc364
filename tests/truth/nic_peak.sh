#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root netns serial
# Ground truth for the NIC peak. A sender on a veth pair never lets the
# counters gain more than K bytes in any 1 ms (nic_traffic capped: K = N
# frames), while CPU hogs make the 1 kHz sampler's ticks late, so that some
# intervals between samples are far shorter than 1 ms. The peak is the
# highest rate over windows of at least the sampling period (1 ms), so:
#   K / 1 ms * (about 1)  <=  mean of the traffic  <=  peak  <=  2 K / 1 ms
# checked through `asys record` + `asys export --summary`, and through the
# store that the panes read (peak_store, over every 1 s refresh window).
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/nic/netns_lib.sh"
: "${ASYS:=$top_builddir/asys}"
[ -x "$ASYS" ] || { echo "FAIL: no $ASYS"; exit 1; }
PS=$top_builddir/tests/truth/peak_store
[ -x "$PS" ] || { echo "FAIL: no $PS (make check builds it)"; exit 1; }
D=$(mktemp -d "${TMPDIR:-/tmp}/asys-truth-peak.XXXXXX")
REC= HOGS=
trap '[ -n "$REC" ] && kill "$REC" 2>/dev/null; for h in $HOGS; do kill "$h" 2>/dev/null; done
	netns_cleanup; rm -rf "$D"' EXIT

N=4 PAYLOAD=958                      # frames of 1000 B on the wire (958 + 42)
K=$((N * (PAYLOAD + 42)))            # bytes in any 1 ms, at most

nsenter --net="$NETNS/$NS1" "$ASYS" record --nic-metrics true --nic-metrics-frequency 1000 \
	--nic-device-include veth -s none --hggc-memory-usage false -t none -o "$D/p.asys" \
	> "$D/rec.log" 2>&1 &
REC=$!
# the first samples must be in the file before the traffic starts
wait_recording "$D/p.asys" "$D/rec.log"
# a busy loop per CPU and one more: the sampler (and the sender) get
# preempted, so ticks come late and the next ones catch up within microseconds
for c in $(seq 0 "$(nproc)"); do
	sh -c 'while :; do :; done' &
	HOGS="$HOGS $!"
done
nsenter --net="$NETNS/$NS1" "$B/nic_traffic" capped 10.231.0.2 40125 $PAYLOAD $N 3 > "$D/sent" ||
	{ echo "FAIL: nic_traffic capped: $(cat "$D/sent")"; exit 1; }
for h in $HOGS; do kill "$h" 2>/dev/null; done
HOGS=
sleep 0.5
kill -TERM "$REC"
wait "$REC" || { echo "FAIL: asys record: $(cat "$D/rec.log")"; exit 1; }
REC=
read -r _ sent _ us _ < "$D/sent"
echo "sent $sent frames of $((PAYLOAD + 42)) B in $us us, never more than $N in 1 ms (K = $K B)"

"$ASYS" export --summary "$D/p.asys" > "$D/sum" || { echo "FAIL: asys export --summary"; exit 1; }
"$ASYS" export "$D/p.asys" > "$D/p.csv" || { echo "FAIL: asys export"; exit 1; }
"$PS" "$D/p.asys" nic.link veth-nA tx_bytes > "$D/store"
rc=$?
cat "$D/store"
[ $rc = 0 ] || { echo "FAIL: a window's mean is outside its low and peak in the store"; exit 1; }
grep -Eq '^  nic\.link +1 ms \(sampled at 1000 Hz\)' "$D/sum" ||
	{ echo "FAIL: the summary does not name the 1 ms window: $(head -20 "$D/sum")"; exit 1; }

# "763.1" in "MiB/s" -> bytes per second
awk -v K="$K" -v sent="$sent" -v us="$us" -v frame=$((PAYLOAD + 42)) '
function val(s, u,   m) {
	m = 1
	if (u ~ /^Ki/) m = 1024; else if (u ~ /^Mi/) m = 1024 ^ 2; else if (u ~ /^Gi/) m = 1024 ^ 3
	return s * m
}
# stream field values min avg max p99 unit host series
FILENAME ~ /sum$/ && $1 == "nic.link" && $10 == "veth-nA" && $2 == "tx_bytes" {
	smax = val($6, $8); savg = val($5, $8); have = 1
}
FILENAME ~ /csv$/ && $3 == "nic.link" && $5 == "veth-nA" && $6 == "tx_bytes" {
	if (pt != "" && $1 > pt) { r = ($8 - pb) / (($1 - pt) / 1e9); if (r > ps) ps = r }
	pt = $1; pb = $8
}
FILENAME ~ /store$/ { kpeak = $2; kwpeak = $6 }
END {
	if (!have) { print "FAIL: no nic.link veth-nA tx_bytes row in the summary"; exit 1 }
	bound = 2 * K * 1000          # 2 K per ms, in B/s
	mean = sent * frame / (us / 1e6)
	printf "bound %.0f B/s, traffic mean %.0f B/s; summary peak %.0f avg %.0f; store peak %.0f (whole %.0f); per-interval max %.0f\n", bound, mean, smax, savg, kpeak, kwpeak, ps
	bad = 0
	# The summary prints 4 significant digits: 0.1 % covers its rounding.
	if (smax > bound * 1.001) { print "FAIL: the summary peak is above 2 K per ms"; bad = 1 }
	if (kpeak > bound) { print "FAIL: the store peak is above 2 K per ms"; bad = 1 }
	# A peak is at least the mean: the windows tile the sending time, and
	# the highest is at least their time-weighted mean. 2 % covers the
	# windows at both ends, half idle, and the sender timing itself on
	# its own clock around sendto rather than on the sampler stamps.
	if (smax < mean * 0.98) { print "FAIL: the summary peak is below the traffic mean"; bad = 1 }
	if (kpeak < mean * 0.98) { print "FAIL: the store peak is below the traffic mean"; bad = 1 }
	if (smax < savg) { print "FAIL: the summary peak is below its own average"; bad = 1 }
	if (ps <= bound) print "note: no interval this run was short enough to pass the bound per sample"
	exit bad
}' "$D/sum" FS=, "$D/p.csv" FS=' ' "$D/store"
