#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# --listen on asys top and asys record: both serve /metrics while they run,
# top shows where in its header, and a bad address stops either at once.
# An address other hosts reach (0.0.0.0, [::]) without TLS and a password
# is served with a warning on stderr and on top's message line; loopback
# has none.
. "$top_srcdir/tests/lib.sh"
built_with SERVE ||
	skip "asys was built without libmicrohttpd (configure --enable-serve)"
command -v curl >/dev/null 2>&1 || skip "curl is missing"
out=$(mktemp -d) || exit 1

"$ASYS" record --listen 127.0.0.1:0 -o "$out/r.asys" --duration 4s -s none -t none 2>"$out/err" &
rec=$!
i=0
until port=$(sed -n 's|^asys record: serving http://127.0.0.1:\([0-9]*\)/metrics$|\1|p' "$out/err") &&
	[ -n "$port" ]; do
	i=$((i + 1))
	[ $i -le 50 ] || break
	sleep 0.1
done
sleep 1.5
curl -s --max-time 5 "http://127.0.0.1:$port/metrics" >"$out/r.txt"
grep -q '^asys_cpu_user_seconds_total{cpu="0"} [0-9]' "$out/r.txt" && pass ||
	fail "asys record --listen: no CPU series: $(cat "$out/err")"
wait $rec && [ -s "$out/r.asys" ] && pass || fail "asys record --listen did not record"

"$ASYS" record --listen 127.0.0.1:99999 -o "$out/bad.asys" 2>"$out/bad"; rc=$?
[ $rc -eq 2 ] && grep -q 'listen' "$out/bad" && pass || fail "--listen 127.0.0.1:99999 (rc $rc)"
"$ASYS" record --listen localhost:9459 -o "$out/bad.asys" 2>"$out/bad"; rc=$?
[ $rc -eq 2 ] && pass || fail "--listen with a name, not an address (rc $rc)"
# serve_err ADDR: asys serve's stderr once it serves on ADDR (or failed)
serve_err() {
	"$ASYS" serve --listen "$1" -s none -t none --nic-metrics false 2>"$out/srv" &
	srv=$!
	i=0
	until grep -q 'serving http\|cannot' "$out/srv" || [ $i -ge 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	kill "$srv"; wait "$srv"
	cat "$out/srv"
}
for a in 0.0.0.0:0 '[::]:0'; do
	serve_err "$a" >"$out/wild"
	# a host without IPv6
	[ "$a" = '[::]:0' ] && grep -q 'cannot listen' "$out/wild" && continue
	grep -q '^asys serve: warning: serving .* to other hosts without TLS or a password: anyone' \
		"$out/wild" && pass || fail "--listen $a: no warning: $(cat "$out/wild")"
done
serve_err 127.0.0.1:0 >"$out/lo"
grep -q 'serving http' "$out/lo" && ! grep -q warning "$out/lo" && pass ||
	fail "--listen 127.0.0.1:0: $(cat "$out/lo")"
rm -rf "$out"

. "$top_srcdir/tests/tui/tmux_lib.sh"
tui_start 80 24 -- --listen 127.0.0.1:0 -s none -t none
wait_for 'serving 127\.0\.0\.1:[0-9]+' 10 || fail "top does not say where it serves"
port=$(cap | sed -n 's/.*serving 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' | head -1)
sleep 1.5
curl -s --max-time 5 "http://127.0.0.1:$port/metrics" | grep -q '^asys_memory_total_bytes [0-9]' ||
	fail "asys top --listen: no memory series on port $port"
quit_ok "asys top --listen"
pass
tui_stop
tui_start 80 24 -- --listen 0.0.0.0:0 -s none -t none
wait_for '^ serving 0\.0\.0\.0:[0-9]+ to other hosts without TLS or a password$' 10 &&
	pass || fail "top --listen 0.0.0.0:0 has no warning on its message line"
quit_ok "asys top --listen 0.0.0.0:0"
finish
