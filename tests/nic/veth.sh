#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root netns serial
# NIC rates on real traffic, in process: the collector + engine + store run in
# one namespace of a veth pair (tests/nic/test_nic_veth), the receiver in the
# other. Needs root and iproute2; exits 77 with the reason otherwise.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/nic/netns_lib.sh"
OUT=$(mktemp "${TMPDIR:-/tmp}/asys-nic-recv.XXXXXX")
# stops once all 3050 datagrams are in; 60 s is for a machine too loaded to
# deliver them, where the count below fails
nsenter --net="$NETNS/$NS2" "$B/nic_traffic" recv 40123 60 3050 > "$OUT" &
RPID=$!
wait_udp_bound "$NS2" 40123 || { echo "FAIL: the receiver did not bind UDP 40123"; exit 1; }
nsenter --net="$NETNS/$NS1" "$B/test_nic_veth" veth-nA 10.231.0.2 40123 "$B/nic_traffic"
rc=$?
wait "$RPID"; RPID=
echo "receiver: $(cat "$OUT")"
# 3000 steady + 50 burst datagrams of 958 bytes
grep -q '^packets 3050 bytes 2921900$' "$OUT" || { echo "FAIL: receiver count"; rc=1; }
rm -f "$OUT"
exit $rc
