#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: serial
# asys serve --web-config: TLS with a certificate made here by openssl, and
# basic auth against a bcrypt hash made by libxcrypt. No, a wrong or an
# unknown user's password gets 401 with WWW-Authenticate; plain HTTP to the
# TLS port gets no answer; the right one gets the metrics over a verified
# TLS connection (curl --cacert); a real Prometheus scrapes it with
# basic_auth and tls_config, and a job with a wrong password is down. With
# client_auth_type RequireAndVerifyClientCert only a client certificate
# signed by client_ca_file gets the metrics, others and none 403. Bad
# files stop the server with the file's line. Needs curl, openssl and
# python3 (ctypes, to call libcrypt); prometheus for its part.
set -u
. "$top_srcdir/tests/lib.sh"
built_with SERVE ||
	skip "asys was built without libmicrohttpd (configure --enable-serve)"
for c in curl openssl python3; do
	command -v $c >/dev/null 2>&1 || skip "$c is missing"
done
D=$(mktemp -d "${TMPDIR:-/tmp}/asys-tls.XXXXXX") || exit 1
SRV= PROM=
trap '[ -n "$SRV" ] && kill "$SRV" 2>/dev/null; [ -n "$PROM" ] && kill "$PROM" 2>/dev/null;
	[ -n "$PROM" ] && wait "$PROM" 2>/dev/null; rm -rf "$D"' EXIT

# a self-signed certificate for 127.0.0.1, and a bcrypt hash of cost 10
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj /CN=asys-test -addext subjectAltName=IP:127.0.0.1 \
	-keyout "$D/key.pem" -out "$D/cert.pem" >"$D/openssl.log" 2>&1 ||
	skip "openssl cannot make a certificate: $(tail -2 "$D/openssl.log")"
bcrypt() {
	python3 - "$1" <<'PY'
import ctypes, sys
lc = ctypes.CDLL("libcrypt.so.1")
lc.crypt_gensalt.restype = lc.crypt.restype = ctypes.c_char_p
lc.crypt_gensalt.argtypes = [ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p, ctypes.c_int]
lc.crypt.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
print(lc.crypt(sys.argv[1].encode(), lc.crypt_gensalt(b"$2b$", 10, None, 0)).decode())
PY
}
HASH=$(bcrypt 's3cret:pw') && [ ${#HASH} -eq 60 ] || skip "libcrypt made no bcrypt hash: '$HASH'"
# relative paths are the file's folder's
cat >"$D/web.yml" <<Y
# as exporter-toolkit writes it
tls_server_config:
  cert_file: cert.pem
  key_file: key.pem
basic_auth_users:
  prom: '$HASH'
Y

"$ASYS" serve --listen 127.0.0.1:0 --web-config "$D/web.yml" -s none -t none \
	--nic-metrics false 2>"$D/err" &
SRV=$!
if ! PORT=$(serving_port "$D/err" "asys serve" https "$SRV"); then
	grep -q 'built without it' "$D/err" && skip "$(cat "$D/err")"
	echo "FAIL: asys serve did not start: $(cat "$D/err")"
	exit 1
fi
URL=https://127.0.0.1:$PORT
get() { curl -s --max-time 5 --cacert "$D/cert.pem" "$@"; }

code=$(get -o /dev/null -D "$D/h401" -w '%{http_code}' "$URL/metrics")
[ "$code" = 401 ] && grep -qi '^WWW-Authenticate: Basic realm="asys"' "$D/h401" && pass ||
	fail "no password: $code, $(cat "$D/h401")"
for who in prom:wrong prom:s3cret carol:s3cret:pw 'prom:s3cret:pw '; do
	code=$(get -o /dev/null -w '%{http_code}' -u "$who" "$URL/metrics")
	[ "$code" = 401 ] && pass || fail "-u '$who': $code, want 401"
done
# a body does not get past the check, and with the password it gets 405
code=$(get -o /dev/null -w '%{http_code}' -u prom:wrong --data-binary abc "$URL/metrics")
[ "$code" = 401 ] && pass || fail "a POST with a wrong password: $code, want 401"
code=$(get -o /dev/null -w '%{http_code}' -u 'prom:s3cret:pw' --data-binary abc "$URL/metrics")
[ "$code" = 405 ] && pass || fail "a POST with the password: $code, want 405"
get -u 'prom:s3cret:pw' "$URL/metrics" >"$D/m.txt"
grep -q '^asys_build_info{version=' "$D/m.txt" && pass ||
	fail "the right password, over TLS: $(head -c 300 "$D/m.txt")"
# a second time: from the cache, the same answer
[ "$(get -o /dev/null -w '%{http_code}' -u 'prom:s3cret:pw' "$URL/")" = 200 ] && pass ||
	fail "the right password, a second time"
# unverified: curl refuses a certificate it does not trust
curl -s --max-time 5 -o /dev/null -u 'prom:s3cret:pw' "$URL/metrics"; rc=$?
[ $rc -eq 60 ] && pass || fail "curl without --cacert: rc $rc, want 60 (an untrusted certificate)"
# plain HTTP to the TLS port: no HTTP answer at all
code=$(curl -s --max-time 5 -o "$D/plain" -w '%{http_code}' -u 'prom:s3cret:pw' \
	"http://127.0.0.1:$PORT/metrics"); rc=$?
[ $rc -ne 0 ] && [ "$code" = 000 ] && ! grep -qs asys_ "$D/plain" && pass ||
	fail "plain HTTP to the TLS port: rc $rc, code $code"
# TLS 1.1 and older are refused by default
if curl -s --max-time 5 --cacert "$D/cert.pem" --tlsv1.0 --tls-max 1.1 -o /dev/null \
	-u 'prom:s3cret:pw' "$URL/metrics" 2>/dev/null; then
	fail "a TLS 1.1 client was served"
else pass; fi

if command -v prometheus >/dev/null 2>&1; then
	PPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	cat >"$D/prom.yml" <<Y
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: asys
    scheme: https
    tls_config:
      ca_file: $D/cert.pem
    basic_auth:
      username: prom
      password: 's3cret:pw'
    static_configs:
      - targets: ['127.0.0.1:$PORT']
  - job_name: wrong
    scheme: https
    tls_config:
      ca_file: $D/cert.pem
    basic_auth:
      username: prom
      password: wrong
    static_configs:
      - targets: ['127.0.0.1:$PORT']
Y
	prometheus --config.file="$D/prom.yml" --storage.tsdb.path="$D/tsdb" \
		--web.listen-address="127.0.0.1:$PPORT" --log.level=warn >"$D/prom.log" 2>&1 &
	PROM=$!
	query() { curl -s --max-time 5 -G "http://127.0.0.1:$PPORT/api/v1/query" --data-urlencode "query=$1"; }
	i=0
	# until both jobs were scraped: asys's series are in, and the other's up is
	until query 'asys_build_info' | grep -q '"result":\[{' &&
		query 'up{job="wrong"}' | grep -q '"result":\[{'; do
		i=$((i + 1))
		[ $i -le 60 ] || break
		sleep 0.5
	done
	query 'up' >"$D/up.json"
	python3 - "$D/up.json" <<'PY' && pass || fail "Prometheus over TLS with basic auth: $(tail -3 "$D/prom.log")"
import json, sys
r = {x["metric"]["job"]: x["value"][1] for x in json.load(open(sys.argv[1]))["data"]["result"]}
if r.get("asys") != "1" or r.get("wrong") != "0":
    print("FAIL: up by job: %r (want asys 1, wrong 0)" % r)
    sys.exit(1)
PY
	kill "$PROM"; wait "$PROM"; PROM=
else
	echo "prometheus is missing (Debian package prometheus): its check not run"
fi
kill "$SRV"; wait "$SRV" && pass || fail "asys serve's exit status"
SRV=

# client certificates: signed by the CA of client_ca_file, or refused
mkcert() { # NAME SUBJECT [CA]: NAME.pem and NAME.key, self-signed or by CA
	if [ $# -eq 2 ]; then
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
			-subj "$2" -keyout "$D/$1.key" -out "$D/$1.pem" >/dev/null 2>&1
	else
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "$2" \
			-keyout "$D/$1.key" -out "$D/$1.csr" >/dev/null 2>&1 &&
			openssl x509 -req -in "$D/$1.csr" -CA "$D/$3.pem" -CAkey "$D/$3.key" \
				-CAcreateserial -days 2 -out "$D/$1.pem" >/dev/null 2>&1
	fi
}
mkcert ca /CN=asys-test-ca && mkcert client /CN=prom ca && mkcert stranger /CN=prom ||
	fail "openssl could not make the client certificates"
cat >"$D/mtls.yml" <<Y
tls_server_config:
  cert_file: cert.pem
  key_file: key.pem
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.pem
Y
"$ASYS" serve --listen 127.0.0.1:0 --web-config "$D/mtls.yml" -s none -t none \
	--nic-metrics false 2>"$D/err" &
SRV=$!
PORT=$(serving_port "$D/err" "asys serve" https "$SRV") || PORT=
if [ -n "$PORT" ]; then
	URL=https://127.0.0.1:$PORT
	for c in "none 403" "client 200" "stranger 403"; do
		set -- $c
		if [ "$1" = none ]; then
			code=$(get -o /dev/null -w '%{http_code}' "$URL/metrics")
		else
			code=$(get -o /dev/null -w '%{http_code}' --cert "$D/$1.pem" --key "$D/$1.key" \
				"$URL/metrics")
		fi
		[ "$code" = "$2" ] && pass || fail "client certificate $1: $code, want $2"
	done
	kill "$SRV"; wait "$SRV" && pass || fail "asys serve's exit status (client certificates)"
else
	fail "asys serve with client_auth_type did not start: $(cat "$D/err")"
	kill "$SRV" 2>/dev/null
fi
SRV=

# bad files stop it at once, saying where
bad() { # WANT TEXT
	printf "$2" >"$D/bad.yml"
	"$ASYS" serve --listen 127.0.0.1:0 --web-config "$D/bad.yml" -s none -t none 2>"$D/bad.err" &
	b=$!
	i=0
	while kill -0 $b 2>/dev/null && [ $i -lt 50 ]; do i=$((i + 1)); sleep 0.1; done
	kill $b 2>/dev/null && { fail "served with a bad web config: $2"; wait $b; return; }
	wait $b; rc=$?
	[ $rc -eq 1 ] && grep -qF -- "$1" "$D/bad.err" && pass ||
		fail "bad web config (rc $rc): $(cat "$D/bad.err"), want: $1"
}
bad "bad.yml:3: tls_server_config: 'cipher_suites' is not supported by asys" \
	'tls_server_config:\n  cert_file: cert.pem\n  cipher_suites: [x]\n'
bad "bad.yml:2: basic_auth_users: the password of 'prom' is not a bcrypt hash" \
	'basic_auth_users:\n  prom: s3cret\n'
openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:prime256v1 -out "$D/other.pem" 2>/dev/null
bad "do not match" 'tls_server_config:\n  cert_file: cert.pem\n  key_file: other.pem\n'
ln -s web.yml "$D/link.yml"
"$ASYS" serve --listen 127.0.0.1:0 --web-config "$D/link.yml" 2>"$D/bad.err"; rc=$?
[ $rc -eq 1 ] && grep -q 'a symbolic link' "$D/bad.err" && pass ||
	fail "a web config through a symbolic link (rc $rc): $(cat "$D/bad.err")"
"$ASYS" top --web-config "$D/web.yml" 2>"$D/bad.err"; rc=$?
[ $rc -eq 2 ] && pass || fail "top --web-config without --listen: rc $rc"
finish
