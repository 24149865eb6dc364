#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: serial
# A real Prometheus scrapes asys serve (with the fake PPU library) every
# second, on loopback; its HTTP API then has the fake's values with their
# labels, the target is up, and the metadata carries the unit that only the
# OpenMetrics form sends (Prometheus asks for it first). Prometheus is
# stopped at the end. Needs Debian's prometheus, curl and python3.
set -u
. "$top_srcdir/tests/lib.sh"
FAKE="$top_builddir/tests/fakes/.libs/libhgml.so"
[ -r "$FAKE" ] || skip "fake library not built: $FAKE"
built_with SERVE ||
	skip "asys was built without libmicrohttpd (configure --enable-serve)"
command -v prometheus >/dev/null 2>&1 || skip "prometheus is missing (Debian package prometheus)"
command -v curl >/dev/null 2>&1 || skip "curl is missing"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
D=$(mktemp -d "${TMPDIR:-/tmp}/asys-prom.XXXXXX") || exit 1
SRV= PROM=
trap '[ -n "$SRV" ] && kill "$SRV" 2>/dev/null; [ -n "$PROM" ] && kill "$PROM" 2>/dev/null;
	[ -n "$PROM" ] && wait "$PROM" 2>/dev/null; rm -rf "$D"' EXIT

ASYS_HGML_LIBRARY="$FAKE" FAKE_HGML_DEVICES=2 "$ASYS" serve --listen 127.0.0.1:0 -s none -t none \
	--nic-metrics false --ppu-metrics-device all 2>"$D/err" &
SRV=$!
PORT=$(serving_port "$D/err" "asys serve" http "$SRV") || { echo "FAIL: asys serve did not start: $(cat "$D/err")"; exit 1; }
# a free port for Prometheus: bound by the kernel, then let go
PPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$D/prom.yml" <<Y
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: asys
    static_configs:
      - targets: ['127.0.0.1:$PORT']
Y
prometheus --config.file="$D/prom.yml" --storage.tsdb.path="$D/tsdb" \
	--web.listen-address="127.0.0.1:$PPORT" --log.level=warn >"$D/prom.log" 2>&1 &
PROM=$!
API=http://127.0.0.1:$PPORT/api/v1
# query EXPR: the JSON answer
query() { curl -s --max-time 5 -G "$API/query" --data-urlencode "query=$1"; }
# until the fake's temperature is in (a few scrapes), 30 s at most
i=0
until query 'asys_ppu_temp_celsius' | grep -q '"result":\[{'; do
	i=$((i + 1))
	[ $i -le 60 ] || { echo "FAIL: Prometheus has no asys series in 30 s: $(tail -5 "$D/prom.log")"; exit 1; }
	sleep 0.5
done
query 'asys_ppu_temp_celsius{device="0"}' >"$D/temp.json"
query 'up{job="asys"}' >"$D/up.json"
query 'asys_collector_rate_hz{collector="ppu-metrics"}' >"$D/rate.json"
curl -s --max-time 5 -G "$API/metadata" --data-urlencode "metric=asys_ppu_temp_celsius" >"$D/meta.json"
python3 - "$D" <<'PY' && pass || fail "Prometheus' answers"
import json, sys
d = sys.argv[1]
bad = []
r = json.load(open(d + "/temp.json"))["data"]["result"]
if len(r) != 1 or r[0]["value"][1] != "40" or r[0]["metric"].get("pci_bus_id") != "00000000:10:00.0":
    bad.append("temperature of device 0: %r" % r)
u = json.load(open(d + "/up.json"))["data"]["result"]
if not u or u[0]["value"][1] != "1":
    bad.append("target not up: %r" % u)
q = json.load(open(d + "/rate.json"))["data"]["result"]
if not q or float(q[0]["value"][1]) < 100:
    bad.append("ppu-metrics rate: %r" % q)
m = json.load(open(d + "/meta.json"))["data"].get("asys_ppu_temp_celsius", [])
if not m or m[0].get("unit") != "celsius" or m[0].get("type") != "gauge":
    bad.append("metadata (OpenMetrics UNIT): %r" % m)
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
kill "$PROM"; wait "$PROM"; PROM=
kill "$SRV"; wait "$SRV" && pass || fail "asys serve's exit status"
SRV=
finish
