#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: serial loud
# 50 scrapers at once for 10 s against asys serve with the fake PPU library
# (its metrics at 1 kHz): no scrape fails, and no collector's achieved rate
# (asys_collector_rate_hz) drops below 0.9 of its rate before the load.
# A scrape copies values under the store's lock, which no sampling thread
# takes (serve.h), so only a CPU too busy to wake the samplers lowers a rate.
# Needs python3.
set -u
. "$top_srcdir/tests/lib.sh"
FAKE="$top_builddir/tests/fakes/.libs/libhgml.so"
[ -r "$FAKE" ] || skip "fake library not built: $FAKE"
built_with SERVE ||
	skip "asys was built without libmicrohttpd (configure --enable-serve)"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
D=$(mktemp -d "${TMPDIR:-/tmp}/asys-load.XXXXXX") || exit 1
SRV=
trap '[ -n "$SRV" ] && kill "$SRV" 2>/dev/null; rm -rf "$D"' EXIT

ASYS_HGML_LIBRARY="$FAKE" FAKE_HGML_DEVICES=2 "$ASYS" serve --listen 127.0.0.1:0 -s none -t none \
	--nic-metrics false --ppu-metrics-device all --ppu-metrics-frequency 1000 2>"$D/err" &
SRV=$!
PORT=$(serving_port "$D/err" "asys serve" http "$SRV") || { echo "FAIL: asys serve did not start: $(cat "$D/err")"; exit 1; }
# the rates need a second of ticks
sleep 2
python3 "$top_srcdir/tests/serve/load.py" "$PORT" 10 50 0.9 && pass || fail "50 scrapers for 10 s"
kill "$SRV"; wait "$SRV" && pass || fail "asys serve's exit status: $(cat "$D/err")"
SRV=
finish
