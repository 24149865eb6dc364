#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: system
# No terminal control leaves asys in text: a process whose command line holds
# C0, C1 (CSI, OSC), bidi controls and bytes that are not UTF-8 is shown
# escaped by snapshot (text and JSON), by export of its recording (CSV,
# JSON, --summary, replay --info), on /metrics and on asys top's screen; an
# option value echoed in an error (from the command line or asysrc) too.
. "$top_srcdir/tests/lib.sh"
command -v python3 >/dev/null || skip "python3 is missing (it reads the bytes)"
work=$(mktemp -d)
PID=
SRV=
TSOCK=asys-text-$$
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; [ -n "$SRV" ] && kill "$SRV" 2>/dev/null;
	tmux -L "$TSOCK" kill-server 2>/dev/null; rm -rf "$work"' EXIT

# ESC and BEL, CSI and OSC as C1, RLO, LRI, ALM, RLM, two bad bytes
EVIL=$(printf 'cmdmark-\033]0;pwned\007\302\2332J\302\2350;t\342\200\256rev\342\201\246\330\234\342\200\217\377\303z')
# the shell stays (the ':' after sleep) and its command line holds EVIL
sh -c 'sleep 60; :' "$EVIL" &
PID=$!

# inert FILE: no C0 but tab and newline, no DEL, C1, bidi control or byte
# that is not UTF-8; and the mark is there, escaped (not a vacuous pass)
check() {
	what=$1 file=$2
	grep -q cmdmark "$file" || { fail "$what: the process is not in it"; return; }
	python3 -c '
import sys
bidi = {0x61c, 0x200e, 0x200f} | set(range(0x202a, 0x202f)) | set(range(0x2066, 0x206a))
t = open(sys.argv[1], "rb").read().decode("utf-8", "surrogateescape")
for i, ch in enumerate(t):
    c = ord(ch)
    if (c < 0x20 and ch not in "\t\n") or 0x7f <= c < 0xa0 or c in bidi or 0xdc80 <= c <= 0xdcff:
        sys.exit("raw U+%04X at %d: %r" % (c, i, t[max(0, i - 30):i + 10]))
' "$file" >"$work/why" 2>&1 && pass || fail "$what: $(cat "$work/why")"
}

"$ASYS" snapshot -f text -p "$PID" --interval 0.3 >"$work/snap.txt" 2>"$work/err" ||
	fail "snapshot text: $(cat "$work/err")"
check "snapshot -f text" "$work/snap.txt"
"$ASYS" snapshot -f json -p "$PID" --interval 0.3 >"$work/snap.json" 2>"$work/err" ||
	fail "snapshot json: $(cat "$work/err")"
check "snapshot -f json" "$work/snap.json"

"$ASYS" record -o "$work/r.asys" -p "$PID" --duration 1s >/dev/null 2>"$work/err" ||
	fail "record: $(cat "$work/err")"
"$ASYS" export "$work/r.asys" >"$work/r.csv" 2>&1
check "export CSV" "$work/r.csv"
"$ASYS" export --format json "$work/r.asys" >"$work/r.json" 2>&1
check "export JSON" "$work/r.json"
"$ASYS" export --summary "$work/r.asys" >"$work/r.sum" 2>&1
check "export --summary" "$work/r.sum"

# /metrics, with the per-process series
if built_with SERVE && command -v curl >/dev/null 2>&1; then
	: >"$work/serr"
	"$ASYS" serve --listen 127.0.0.1:0 -p "$PID" --metrics-processes 10 -t none \
		>"$work/sout" 2>"$work/serr" &
	SRV=$!
	if PORT=$(serving_port "$work/serr" "asys serve" http "$SRV"); then
		i=0
		until curl -s --max-time 5 "http://127.0.0.1:$PORT/metrics" >"$work/m.txt" &&
			grep -q cmdmark "$work/m.txt"; do
			i=$((i + 1))
			[ $i -le 50 ] || break
			sleep 0.1
		done
		check "/metrics" "$work/m.txt"
	else
		fail "asys serve did not start: $(cat "$work/serr")"
	fi
	kill "$SRV" 2>/dev/null
	wait "$SRV" 2>/dev/null
	SRV=
else
	echo "note: no libmicrohttpd or curl: /metrics is not checked"
fi

# the screen: the command drawn with its controls escaped (tmux would obey
# a raw one, so what shows is the escaped text)
if command -v tmux >/dev/null 2>&1; then
	tmux -L "$TSOCK" -f /dev/null new-session -d -x 200 -y 43 \
		"env LC_ALL=C.UTF-8 TERM=xterm-256color $ASYS top --no-config -p $PID 2>$work/terr"
	i=0
	until tmux -L "$TSOCK" capture-pane -p >"$work/screen" 2>/dev/null &&
		grep -q 'cmdmark' "$work/screen"; do
		i=$((i + 1))
		[ $i -le 100 ] || break
		sleep 0.1
	done
	# (the process table shows a C0 control of a command line as a space)
	grep -qF ']0;pwned \xC2\x9B2J\xC2\x9D0;t\u202Erev\u2066\u061C\u200F\xFF\xC3z' \
		"$work/screen" && pass || fail "the screen: $(grep cmdmark "$work/screen")"
	tmux -L "$TSOCK" kill-server 2>/dev/null
else
	echo "note: tmux is missing: the screen is not checked"
fi

# option values echoed in errors, from the command line and from asysrc
for opt in --ppu-metrics-list --ppu-metrics-set --check-ppu-metrics-list --ppu-metrics-device; do
	"$ASYS" record -o "$work/o.asys" --duration 0.2s -s none "$opt" "$EVIL" >"$work/opt" 2>&1
	check "$opt's error" "$work/opt"
	rm -f "$work/o.asys"
done
mkdir -p "$work/cfg/asys"
printf '[options]\nppu-metrics-list = %s\n' "$EVIL" >"$work/cfg/asys/asysrc"
XDG_CONFIG_HOME=$work/cfg "$ASYS" record -o "$work/o.asys" --duration 0.2s -s none \
	>"$work/rc" 2>&1
check "asysrc's ppu-metrics-list" "$work/rc"
finish
