#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root netns serial
# The same traffic through the real binaries: `asys record --nic-metrics true
# --nic-device-include veth` in one namespace of a veth pair, then `asys
# export`; the rate, the packet size and the 5 ms burst's peak at 1 kHz are
# computed from the exported counters.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/nic/netns_lib.sh"
: "${ASYS:=$top_builddir/asys}"
[ -x "$ASYS" ] || { echo "FAIL: no $ASYS"; exit 1; }
D=$(mktemp -d "${TMPDIR:-/tmp}/asys-nic-rec.XXXXXX")
REC=
trap '[ -n "$REC" ] && kill "$REC" 2>/dev/null; netns_cleanup; rm -rf "$D"' EXIT

# the receiver stops once all 3050 datagrams are in; 60 s is for a machine
# too loaded to deliver them, where the count below fails
nsenter --net="$NETNS/$NS2" "$B/nic_traffic" recv 40124 60 3050 > "$D/recv" &
RPID=$!
wait_udp_bound "$NS2" 40124 || { echo "FAIL: the receiver did not bind UDP 40124"; exit 1; }
# recorded until SIGTERM, not for a fixed time: the traffic must fall inside
# it however slowly the programs start
nsenter --net="$NETNS/$NS1" "$ASYS" record --nic-metrics true --nic-device-include veth \
	-s none --hggc-memory-usage false -t none -o "$D/v.asys" > "$D/rec.log" 2>&1 &
REC=$!
# the first sample must come before the first datagram: wait until the file
# grows past its first size, i.e. samples reach it
wait_recording "$D/v.asys" "$D/rec.log"
nsenter --net="$NETNS/$NS1" "$B/nic_traffic" send 10.231.0.2 40124 958 1000 3 >/dev/null
# a quiet gap (0.5 s is the least the analysis below accepts), the burst,
# then some samples after it
sleep 1.5
nsenter --net="$NETNS/$NS1" "$B/nic_traffic" burst 10.231.0.2 40124 958 50 5000 >/dev/null
sleep 1
kill -TERM "$REC"
wait "$REC" || { echo "FAIL: asys record: $(cat "$D/rec.log")"; exit 1; }
REC=
wait "$RPID"; RPID=
"$ASYS" export "$D/v.asys" > "$D/v.csv" || { echo "FAIL: asys export"; exit 1; }
# ticks the recorder skipped while held off the CPU for over 0.25 s (a loaded
# machine): it says how many, and they are no fault of the sampling
skipped=$(sed -n 's/^asys record: sampling of .* at 1000 Hz fell behind: \([0-9]*\) ticks skipped.*/\1/p' \
	"$D/rec.log")

# t_ns,time,stream,entity,label,field,unit,value
awk -F, -v skipped="${skipped:-0}" '
$3 == "nic.link" && $5 == "veth-nA" && $6 == "tx_bytes" { n++; t[n] = $1; b[n] = $8 }
$3 == "nic.link" && $5 == "veth-nA" && $6 == "tx_packets" { p[n] = $8 }
END {
	if (n < 100) { print "FAIL: only " n " veth-nA samples"; exit 1 }
	hz = (n - 1 + skipped) / ((t[n] - t[1]) / 1e9)
	# the steady stream: from the sample before the first packet to the
	# sample that holds the last one before a quiet 0.5 s
	for (i = 2; i <= n && b[i] == b[1]; i++) ;
	s0 = i - 1
	for (i = s0 + 1; i <= n; i++) {
		for (j = i + 1; j <= n && b[j] == b[i]; j++) ;
		if (j > n || t[j] - t[i] > 5e8) break
	}
	s1 = i
	bytes = b[s1] - b[s0]; pk = p[s1] - p[s0]
	# the rate over the middle second of the stream
	for (i = s0; i <= s1 && t[i] < t[s0] + 1e9; i++) ;
	m0 = i
	for (; i <= s1 && t[i] < t[s0] + 2e9; i++) ;
	m1 = i
	rate = (b[m1] - b[m0]) / ((t[m1] - t[m0]) / 1e9)
	# the burst: everything after the quiet gap
	peak = 0
	for (i = s1 + 1; i <= n; i++) {
		r = (b[i] - b[i - 1]) / ((t[i] - t[i - 1]) / 1e9)
		if (r > peak) peak = r
	}
	burst = b[n] - b[s1]
	printf "samples %d (and %d ticks skipped) at %.0f Hz; stream %d B in %d packets (%.1f B/packet), %.0f B/s mid-stream; burst %d B, peak %.0f B/s\n", n, skipped, hz, bytes, pk, bytes / pk, rate, burst, peak
	bad = 0
	if (hz < 900) { print "FAIL: sampled at " hz " Hz, not ~1000"; bad = 1 }
	if (bytes != 3000000 || pk != 3000) { print "FAIL: stream is not 3000 x 1000 B"; bad = 1 }
	if (rate < 980000 || rate > 1020000) { print "FAIL: mid-stream rate not 1 MB/s within 2%"; bad = 1 }
	if (burst != 50000) { print "FAIL: burst is not 50 x 1000 B"; bad = 1 }
	# 10 MB/s for 5 ms; a 1 s view of it averages 50 kB/s
	if (peak < 3e6 || peak > 2e8) { print "FAIL: the 1 kHz peak does not show the 10 MB/s burst"; bad = 1 }
	exit bad
}' "$D/v.csv"
rc=$?
grep -q '^packets 3050 bytes 2921900$' "$D/recv" || { echo "FAIL: receiver: $(cat "$D/recv")"; rc=1; }
[ $rc = 0 ] || echo "asys record said: $(cat "$D/rec.log")"
exit $rc
