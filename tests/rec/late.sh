#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux serial
# A stream that first appears mid-recording (here nic.link, interface
# "late0", after 4 s): `asys export` selects it by name and has all its
# samples, with and without a trailer, and `asys replay` in tmux shows the
# NIC pane with late0 once the replay reaches it. It runs in every
# configuration: the NIC pane is built without libmnl too.
. "$top_srcdir/tests/lib.sh"
work=$(mktemp -d)
sock=$work/sock
tmux=${TMUX_BIN:-tmux}
T() { "$tmux" -S "$sock" "$@"; }
trap 'T kill-server 2>/dev/null; rm -rf "$work"' EXIT
gen=$top_builddir/tests/rec/rec_late
[ -x "$gen" ] || skip "tests/rec/rec_late is not built"

for mode in trailer notrailer; do
	f=$work/$mode.asys
	n=$("$gen" "$f" 4 4 $mode) || { fail "rec_late $mode"; continue; }
	"$ASYS" replay --info "$f" >"$work/info" 2>&1 || fail "$mode: --info exited $?"
	grep -q "nic.link .* $n samples" "$work/info" || fail "$mode: --info: $(cat "$work/info")"
	"$ASYS" export "$f" --streams nic.link >"$work/csv" 2>"$work/err" ||
		fail "$mode: export --streams nic.link exited $?: $(cat "$work/err")"
	rows=$(grep -c ',nic.link,7,late0,rx_bytes,B,' "$work/csv")
	[ "$rows" = "$n" ] || fail "$mode: $rows rx_bytes rows of late0 exported, want $n"
	"$ASYS" export "$f" --streams nic.link --format json >"$work/json" ||
		fail "$mode: export json exited $?"
	objs=$(grep -c '"stream":"nic.link","entity":7,"label":"late0"' "$work/json")
	[ "$objs" = "$n" ] || fail "$mode: $objs json samples of late0, want $n"
	pass
done

[ -n "$tmux" ] && [ "$tmux" != no ] && command -v "$tmux" >/dev/null || skip "tmux is missing"
screen() { T capture-pane -t s -p; }
f=$work/notrailer.asys
T new-session -d -s s -x 150 -y 40 "LANG=C.UTF-8 '$ASYS' replay -d 0.5 '$f'; sleep 10"
i=0
while ! screen | grep -q REPLAY; do
	i=$((i + 1))
	[ $i -gt 100 ] && { fail "replay did not start: $(screen | head -3)"; finish; exit 1; }
	sleep 0.1
done
sleep 1
screen | grep -q late0 && fail "late0 is on screen before the recording reaches it"
pass
# it appears 4 s in; give it 8 s on a busy machine
i=0
while ! screen | grep -q late0; do
	i=$((i + 1))
	[ $i -gt 80 ] && { fail "late0 never shown in replay: $(screen)"; break; }
	sleep 0.1
done
screen | grep -q late0 && pass
T send-keys -t s q
finish
