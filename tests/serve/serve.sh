#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root netns serial
# asys serve end to end, in one namespace of a veth pair with the fake PPU
# library: scraped with curl, it carries the fake's values with their labels,
# the veth's byte counter and the peak of a 5 ms burst in its 3 s window,
# though another scraper from the same address scraped between the burst
# and the scrape (the peak is not stolen), and not in a scrape whose window
# ends after it; promtool accepts both formats (bad requests
# are badreq.sh's, which may run beside other tests). Needs root (ip netns)
# and curl; promtool (Debian's prometheus) for its part.
set -u
. "$top_srcdir/tests/lib.sh"
FAKE="$top_builddir/tests/fakes/.libs/libhgml.so"
[ -r "$FAKE" ] || skip "fake library not built: $FAKE"
command -v curl >/dev/null 2>&1 || skip "curl is missing"
built_with SERVE ||
	skip "asys was built without libmicrohttpd (configure --enable-serve)"
. "$top_srcdir/tests/nic/netns_lib.sh"
D=$(mktemp -d "${TMPDIR:-/tmp}/asys-serve.XXXXXX")
SRV=
trap '[ -n "$SRV" ] && kill "$SRV" 2>/dev/null; netns_cleanup; rm -rf "$D"' EXIT
ip1 link set lo up
in1() { nsenter --net="$NETNS/$NS1" "$@"; }

# the server picks a free port (:0) and says which
# nsenter itself, not a function: $! must be the server's pid
nsenter --net="$NETNS/$NS1" env ASYS_HGML_LIBRARY="$FAKE" FAKE_HGML_DEVICES=2 "$ASYS" serve --listen 127.0.0.1:0 \
	--nic-metrics true --nic-device-include veth -s none -t none --peak-window 3s \
	--ppu-metrics-device all >"$D/out" 2>"$D/err" &
SRV=$!
PORT=$(serving_port "$D/err" "asys serve" http "$SRV") || { echo "FAIL: asys serve did not start: $(cat "$D/err")"; exit 1; }
URL=http://127.0.0.1:$PORT
scrape() { in1 curl -s --max-time 5 "$@"; }
# until the PPU's first samples are in
i=0
until scrape "$URL/metrics" | grep -q '^asys_ppu_temp_celsius'; do
	i=$((i + 1))
	[ $i -le 50 ] || { echo "FAIL: no PPU series in 5 s"; exit 1; }
	sleep 0.1
done

scrape "$URL/metrics" >"$D/p.txt"
for want in 'asys_ppu_temp_celsius{device="0",uuid="PPU-00000000-0000-4000-8000-00000000a500",pci_bus_id="00000000:10:00.0"} 40' \
	'asys_ppu_power_limit_watts{device="1",uuid="PPU-00000001-0000-4000-8000-00000000a501",pci_bus_id="00000000:11:00.0"} 400' \
	'asys_ppu_mem_total_bytes{device="0",uuid="PPU-00000000-0000-4000-8000-00000000a500",pci_bus_id="00000000:10:00.0"} 103079215104' \
	'asys_collector_up{collector="ppu"} 1' 'asys_build_info{version="'"$("$ASYS" --version | cut -d' ' -f2)"'"} 1'; do
	grep -qxF "$want" "$D/p.txt" && pass || fail "no line: $want"
done
grep -q '^asys_ppu_metric_ratio{device="0",uuid="PPU-00000000-0000-4000-8000-00000000a500",pci_bus_id="00000000:10:00.0",metric="' "$D/p.txt" &&
	pass || fail "no PPU metric with its metric label"
grep -q '^asys_process_' "$D/p.txt" && fail "per-process series without --metrics-processes" || pass

# traffic: 1000 datagrams of 1000 bytes on the wire at 1000/s, then a
# scrape, then a burst of 50 in about 5 ms (10 MB/s against 1 MB/s), a
# scrape of another scraper on the same address (a local user), and the
# scrape whose 3 s window holds the burst
nsenter --net="$NETNS/$NS2" "$B/nic_traffic" recv 40125 30 1050 >"$D/recv" &
RPID=$!
wait_udp_bound "$NS2" 40125 || { echo "FAIL: the receiver did not bind UDP 40125"; exit 1; }
in1 "$B/nic_traffic" send 10.231.0.2 40125 958 1000 1 >/dev/null
sleep 1.2
scrape "$URL/metrics" >/dev/null
in1 "$B/nic_traffic" burst 10.231.0.2 40125 958 50 5000 >/dev/null
sleep 1.2
scrape "$URL/metrics" >/dev/null
sleep 1.0
scrape "$URL/metrics" >"$D/burst.txt"
sleep 3.3
scrape "$URL/metrics" >"$D/after.txt"
wait "$RPID"; RPID=
tx=$(sed -n 's/^asys_nic_tx_bytes_total{netdev="veth-nA"} \([0-9]*\)$/\1/p' "$D/burst.txt")
[ -n "$tx" ] && [ "$tx" -ge 1050000 ] && pass || fail "veth-nA tx bytes: '$tx', want >= 1050000"
peak() { sed -n 's/^asys_nic_transmit_peak_bytes_per_second{netdev="veth-nA"} \([0-9.e+]*\)$/\1/p' "$1"; }
p1=$(peak "$D/burst.txt") p2=$(peak "$D/after.txt")
echo "peak after the burst: $p1 B/s; a scrape later: $p2 B/s"
awk -v p="$p1" 'BEGIN { exit !(p + 0 >= 4000000) }' && pass ||
	fail "the 5 ms burst (10 MB/s) is not in the peak of the window, after another's scrape: '$p1'"
awk -v p="$p2" 'BEGIN { exit !(p != "" && p + 0 < 1000000) }' && pass ||
	fail "the peak of a window past the burst has it still: '$p2'"

# both formats pass promtool; for OpenMetrics the linter (which reads
# Prometheus text) may only miss the HELP of counters' _total samples,
# whose metadata OpenMetrics gives under the family name
if command -v promtool >/dev/null 2>&1; then
	promtool check metrics <"$D/burst.txt" >"$D/lint" 2>&1 && pass ||
		fail "promtool on Prometheus text: $(head -5 "$D/lint")"
	scrape -H 'Accept: application/openmetrics-text; version=1.0.0' "$URL/metrics" -D "$D/omh" \
		>"$D/om.txt"
	promtool check metrics <"$D/om.txt" >"$D/omlint" 2>&1; rc=$?
	if [ $rc -eq 0 ] || { [ $rc -eq 3 ] && ! grep -v '_total no help text$' "$D/omlint" | grep -q .; }; then
		pass; else fail "promtool on OpenMetrics (rc $rc): $(head -5 "$D/omlint")"; fi
	grep -qi '^content-type: application/openmetrics-text; version=1.0.0' "$D/omh" && pass ||
		fail "OpenMetrics content type: $(cat "$D/omh")"
else
	echo "promtool is missing (Debian package prometheus): its checks not run"
fi
tail -n 1 "$D/om.txt" 2>/dev/null | grep -qx '# EOF' && pass || fail "OpenMetrics ends without # EOF"
awk '$1 == "#" && $2 == "UNIT" { n = length($3) - length($4); if (substr($3, n) != "_" $4) bad = bad " " $3 }
	END { if (bad) { print bad; exit 1 } }' "$D/om.txt" >"$D/units" && pass ||
	fail "OpenMetrics UNIT not a suffix of its family:$(cat "$D/units")"

[ "$(scrape -o /dev/null -w '%{http_code}' "$URL/")" = 200 ] && scrape "$URL/" | grep -q 'href="/metrics"' &&
	pass || fail "/ is no page linking to /metrics"

kill -TERM "$SRV"
wait "$SRV"; rc=$?
SRV=
[ $rc -eq 0 ] && pass || fail "asys serve exit status $rc on SIGTERM: $(cat "$D/err")"
finish
