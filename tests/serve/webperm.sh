#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root
# --web-config as root: the web config, its certificate and its key are
# believed only where root alone could have written them, as the libraries
# asys loads: a file of mode 666, a file of another user, a file under a
# symbolic link to another user's folder are refused, and so is a private
# key every user may read; the same files root's alone are taken. A file
# that is no web config (/etc/shadow) has no line of it in the error. Needs
# root (chown) and openssl.
set -u
. "$top_srcdir/tests/lib.sh"
built_with SERVE ||
	skip "asys was built without libmicrohttpd (configure --enable-serve)"
[ "$(id -u)" = 0 ] || skip "needs root: the ownership rule applies to a privileged asys"
command -v openssl >/dev/null 2>&1 || skip "openssl is missing"
D=$(mktemp -d "${TMPDIR:-/tmp}/asys-webperm.XXXXXX") || exit 1
trap 'rm -rf "$D"' EXIT
chmod 755 "$D"
NOBODY=65534

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj /CN=asys-test -keyout "$D/key.pem" -out "$D/cert.pem" >/dev/null 2>&1 ||
	skip "openssl cannot make a certificate"
chmod 600 "$D/key.pem"
printf 'tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n' >"$D/web.yml"
chmod 644 "$D/web.yml" "$D/cert.pem"

# served: WANT(refused|served) FILE WHY...: asys serve with --web-config
# FILE either serves until the timeout's end, or stops at once saying WHY
served() {
	want=$1 f=$2
	shift 2
	timeout 3 "$ASYS" serve --listen 127.0.0.1:0 --web-config "$f" -s none -t none \
		--nic-metrics false 2>"$D/err"
	rc=$?
	got=refused
	[ $rc -eq 124 ] && grep -q 'serving https' "$D/err" && got=served
	if [ "$got" = "$want" ] && { [ "$want" = served ] || { [ $rc -eq 1 ] &&
		grep -qF -- "$1" "$D/err"; }; }; then
		pass
	else
		fail "$f ($*): $got (rc $rc): $(cat "$D/err")"
	fi
}

served served "$D/web.yml" "root's alone"
chmod 666 "$D/web.yml"
served refused "$D/web.yml" "writable by others" "mode 666"
chmod 644 "$D/web.yml"
chown "$NOBODY" "$D/web.yml"
served refused "$D/web.yml" "not owned by root" "another user's"
chown 0 "$D/web.yml"
chmod 644 "$D/key.pem"
served refused "$D/web.yml" "a private key every user of this host may read" "key of mode 644"
chmod 600 "$D/key.pem"
chown "$NOBODY" "$D/key.pem"
served refused "$D/web.yml" "key_file" "another user's key"
chown 0 "$D/key.pem"
# a symbolic link in root's folder to a folder another user may write
mkdir "$D/theirs"
cp "$D/web.yml" "$D/cert.pem" "$D/key.pem" "$D/theirs/"
chown "$NOBODY" "$D/theirs"
ln -s theirs "$D/link"
served refused "$D/link/web.yml" "a directory above it is not root's alone" "a linked folder"

# no line of a file that is not a web config
if [ -r /etc/shadow ] && [ -s /etc/shadow ]; then
	timeout 5 "$ASYS" serve --listen 127.0.0.1:0 --web-config /etc/shadow -s none -t none \
		2>"$D/shadow.err"; rc=$?
	leak=
	while IFS= read -r line; do
		first=${line%%:*}
		[ -n "$first" ] && grep -qF -- "$first:" "$D/shadow.err" && leak=$first
	done </etc/shadow
	[ $rc -eq 1 ] && [ -z "$leak" ] && pass ||
		fail "--web-config /etc/shadow (rc $rc): a line of it shown ($leak): $(cat "$D/shadow.err")"
fi
finish
