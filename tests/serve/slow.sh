#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: serial
# Slow clients from several addresses (slow.py): 16 connections from each of
# 127.0.0.2 to 127.0.0.7 dripping header lines, more than the 64 the server
# keeps, while a scraper from 127.0.0.1 is answered within a second each
# time and no slow connection outlives the time a request has to arrive.
# asys serve samples nothing per process. Needs python3.
set -u
. "$top_srcdir/tests/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
built_with SERVE ||
	skip "asys was built without libmicrohttpd (configure --enable-serve)"
D=$(mktemp -d "${TMPDIR:-/tmp}/asys-slow.XXXXXX")
SRV=
trap '[ -n "$SRV" ] && kill "$SRV" 2>/dev/null; rm -rf "$D"' EXIT

"$ASYS" serve --listen 127.0.0.1:0 -s none -t none --nic-metrics false >"$D/out" 2>"$D/err" &
SRV=$!
PORT=$(serving_port "$D/err" "asys serve" http "$SRV") ||
	{ echo "FAIL: asys serve did not start: $(cat "$D/err")"; exit 1; }
python3 "$top_srcdir/tests/serve/slow.py" "$PORT" && pass || fail "a scraper among slow clients"

kill -TERM "$SRV"
wait "$SRV"; rc=$?
SRV=
[ $rc -eq 0 ] && pass || fail "asys serve exit status $rc on SIGTERM: $(cat "$D/err")"
finish
