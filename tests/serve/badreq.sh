#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: system
# Bad requests to asys serve get an error or a timeout while it goes on
# answering scrapes (badreq.py): an unknown path, a 1 MiB header, HTTP/0.9,
# garbage, a POST, a slowloris during scrapes, and a 17th connection from one
# address while another address is served. On the loopback of the host's
# namespace, whose 127.0.0.5 is the second address; asys serve samples
# nothing per process, so the test may run beside others.
set -u
. "$top_srcdir/tests/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
built_with SERVE ||
	skip "asys was built without libmicrohttpd (configure --enable-serve)"
D=$(mktemp -d "${TMPDIR:-/tmp}/asys-badreq.XXXXXX")
SRV=
trap '[ -n "$SRV" ] && kill "$SRV" 2>/dev/null; rm -rf "$D"' EXIT

"$ASYS" serve --listen 127.0.0.1:0 -s none -t none >"$D/out" 2>"$D/err" &
SRV=$!
PORT=$(serving_port "$D/err" "asys serve" http "$SRV") ||
	{ echo "FAIL: asys serve did not start: $(cat "$D/err")"; exit 1; }
python3 "$top_srcdir/tests/serve/badreq.py" "$PORT" && pass || fail "bad requests"

kill -TERM "$SRV"
wait "$SRV"; rc=$?
SRV=
[ $rc -eq 0 ] && pass || fail "asys serve exit status $rc on SIGTERM: $(cat "$D/err")"
finish
