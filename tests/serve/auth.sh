#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: serial
# Basic auth's costs (auth.py): a web config with a bcrypt cost above 14 is
# refused at load; with a user at cost 13, a password with a NUL byte and
# more after it is refused, 8 clients sending wrong passwords do not delay a
# good scrape past a second, and SIGTERM during that flood ends asys serve
# within 0.75 s. Needs python3 (and ctypes, to call libcrypt).
set -u
. "$top_srcdir/tests/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
built_with SERVE ||
	skip "asys was built without libmicrohttpd (configure --enable-serve)"
D=$(mktemp -d "${TMPDIR:-/tmp}/asys-auth.XXXXXX") || exit 1
SRV=
trap '[ -n "$SRV" ] && kill "$SRV" 2>/dev/null; rm -rf "$D"' EXIT

# a cost of 15 is refused before anything listens (the hash need not be a
# real one: its cost is read first)
printf 'basic_auth_users:\n  prom: $2b$15$ZQkJnbVcLz4R8Bk2tW3QCeIeD4M2oFQwZ3eC8n7s0m6x6q2E8o4uW\n' \
	>"$D/dear.yml"
timeout 10 "$ASYS" serve --listen 127.0.0.1:0 --web-config "$D/dear.yml" -s none -t none \
	2>"$D/dear.err"; rc=$?
[ $rc -eq 1 ] && grep -q "dear.yml:2: basic_auth_users: the hash of 'prom' has cost 15, above the 14" \
	"$D/dear.err" && pass || fail "a cost of 15 (rc $rc): $(cat "$D/dear.err")"

HASH=$(python3 - <<'PY'
import ctypes
lc = ctypes.CDLL("libcrypt.so.1")
lc.crypt_gensalt.restype = lc.crypt.restype = ctypes.c_char_p
lc.crypt_gensalt.argtypes = [ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p, ctypes.c_int]
lc.crypt.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
print(lc.crypt(b"s3cret", lc.crypt_gensalt(b"$2b$", 13, None, 0)).decode())
PY
) && [ ${#HASH} -eq 60 ] || skip "libcrypt made no bcrypt hash: '$HASH'"
printf "basic_auth_users:\n  prom: '%s'\n" "$HASH" >"$D/web.yml"
"$ASYS" serve --listen 127.0.0.1:0 --web-config "$D/web.yml" -s none -t none \
	--nic-metrics false 2>"$D/err" &
SRV=$!
PORT=$(serving_port "$D/err" "asys serve" http "$SRV") ||
	{ echo "FAIL: asys serve did not start: $(cat "$D/err")"; exit 1; }
python3 "$top_srcdir/tests/serve/auth.py" "$PORT" "$SRV" && pass || fail "basic auth under a flood"
wait "$SRV"; rc=$?
SRV=
[ $rc -eq 0 ] && pass || fail "asys serve exit status $rc on SIGTERM: $(cat "$D/err")"
finish
