#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root netns tmux serial
# The NIC pane in the real `asys top` inside tmux: RDMA rows from a sysfs
# fixture (ASYS_SYSROOT) advanced at known rates, rates in bit/s and byte/s
# ('u'), packet sizes, CNP, sparklines, hidden idle NICs ('a'), the mark
# ('m'); then a recording with the NIC streams replays in the same pane.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"
FIX=$top_builddir/tests/nic/rdma_fixture
[ -x "$FIX" ] || fail "no $FIX (make check builds it)"
ROOT=$TDIR/root
"$FIX" "$ROOT" create || fail "fixture tree"
"$FIX" "$ROOT" run 60 500 &
fixpid=$!
trap 'kill $fixpid 2>/dev/null; tui_cleanup' EXIT

# mlx5_2 maps to lo (gid_attrs). asys runs in a network namespace of its
# own, whose lo nothing else uses, so lo is idle whatever runs beside it.
if ! unshare -n true 2>/dev/null; then
	echo "SKIP: no network namespace of its own (unshare -n needs root): $(unshare -n true 2>&1)"
	exit 77
fi
TUI_WRAP="unshare -n" tui_start 120 40 ASYS_SYSROOT="$ROOT" -- -d 0.5 --nic-metrics true \
	--nic-metrics-frequency 200 --nic-device-include 'mlx5,^lo$' -s none
wait_for '2 NIC' 10 || fail "no NIC pane"
wait_for 'mlx5_0/1 \(eth2\)' 10 || fail "no mlx5_0 row with its netdev"
wait_for 'mlx5_bond_0/1 \(bond0\)' 10 || fail "no mlx5_bond_0 row"
# mlx5_0: 10 MB/s in (80 Mb/s), 4000-byte packets, CNP 200/s in, 100/s out
wait_for 'mlx5_0/1 \(eth2\) +↓ +80\.0 Mb/s' 10 || fail "mlx5_0 receive rate is not 80.0 Mb/s"
wait_for '3\.9K' 5 || fail "no 4000-byte (3.9K) packet size"
wait_for 'CNP rx 200/s tx 100/s' 10 || fail "no CNP rates"
# the bond port: 10 MB/s out in 8000-byte packets
wait_for '↑ +80\.0 Mb/s.*pk .*7\.8K' 10 || fail "no mlx5_bond_0 transmit row"
# braille cells are U+2800..U+28FF: bytes e2 a0..a3 xx; the sparkline needs
# a few refreshes of history, which a slow (sanitizer) build takes longer for
spark() { cap | grep -A1 'mlx5_0/1' | LC_ALL=C grep -q "$(printf '\342[\240-\243]')"; }
i=0
until spark || [ $i -ge 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
spark || fail "no sparkline on the mlx5_0 rows within 10 s"
cap | grep -q 'lo (rdma: mlx5_2)' && fail "idle lo is shown without 'a'"
check_layout 120 40

# the peak's window is the stream's sampling period (200 Hz), not the refresh
wait_for 'pk = max 5 ms rate in the refresh window' 5 || fail "footer: no 5 ms peak window"
keys 2            # focus the NIC pane
keys u
wait_for 'mlx5_0/1 \(eth2\) +↓ +10\.0 MB/s' 5 || fail "'u' did not switch to byte/s"
active() { cap | grep -o '[0-9]* of [0-9]* active' | head -1; }
before=$(active)
[ -n "$before" ] || fail "no 'N of M active' in the NIC title"
keys a
wait_for 'lo \(rdma: mlx5_2\)' 5 || fail "'a' did not show the idle lo"
# showing idle NICs does not make them active
[ "$(active)" = "$before" ] || fail "'a' changed the title from '$before' to '$(active)'"
keys a
wait_gone 'lo \(rdma: mlx5_2\)' 5 || fail "'a' again did not hide lo"
keys m
wait_for 'avg since mark' 5 || fail "'m' did not set a mark"
wait_for 'pk = max 5 ms rate since mark' 5 || fail "'m': the peak is not over the mark's span"
wait_for 'mlx5_0/1 \(eth2\) +↓ +10\.0 MB/s' 5 || fail "average since the mark is off"
# every row's mean is at most its peak: both are over the mark's span
sleep 2
cap | sed -n 's/.*\(↓\|↑\) *\([0-9.]*\) \([kMG]*\)B\/s.* pk *\([0-9.]*\) \([kMG]*\)B\/s.*/\2 \3 \4 \5/p' >"$TDIR/avgpk"
[ -s "$TDIR/avgpk" ] || fail "no rows with a mean and a peak after 'm': $(cap)"
awk 'function v(x, p) { return x * (p == "k" ? 1e3 : p == "M" ? 1e6 : p == "G" ? 1e9 : 1) }
	NF == 4 && v($1, $2) > v($3, $4) { print "avg " $1 $2 " above pk " $3 $4; bad = 1 }
	END { exit bad }' "$TDIR/avgpk" || fail "after 'm' a row's mean is above its peak"
keys m
wait_gone 'avg since mark' 5 || fail "'m' again did not clear the mark"
check_layout 120 40

tmx resize-window -t "$TSESS" -x 80 -y 24 >/dev/null 2>&1
sleep 1
wait_for 'mlx5_0/1' 5 || fail "80x24: no NIC rows"
check_layout 80 24
TUI_SUB=replay quit_ok "the NIC replay"
tui_stop

# a recording with the NIC streams replays in the same pane
ASYS_SYSROOT="$ROOT" "$ASYS" record --nic-metrics true --nic-metrics-frequency 100 \
	--nic-device-include mlx5 -s none -o "$TDIR/nic.asys" --duration 3s >/dev/null 2>&1 ||
	fail "asys record failed"
info=$("$ASYS" replay --info "$TDIR/nic.asys" 2>&1)
printf '%s\n' "$info" | grep -Eq 'nic\.rdma +v1 +10 fields +3 series +[1-9][0-9]* samples' ||
	fail "the recording has no nic.rdma series: $info"
if "$ASYS" replay "$TDIR/nic.asys" </dev/null 2>&1 | grep -q 'not built yet'; then
	echo "note: the interactive replay is not built yet; checked the recording with --info only"
	echo "ok"
	exit 0
fi
tmx new-session -d -s "$TSESS" -x 120 -y 40 \
	"env LC_ALL=$TUI_LOCALE TERM=screen-256color $(shq "$ASYS") replay -d 0.5 $(shq "$TDIR/nic.asys"); sleep 600" ||
	fail "tmux could not start the replay"
wait_for 'REPLAY' 10 || fail "replay drew no header"
# 80 Mb/s give or take the replay's bucket edges
wait_for 'mlx5_0/1 \(eth2\) +↓ +(79\.[2-9]|80\.[0-8]) Mb/s' 10 || fail "the replay shows no mlx5_0 rate"
wait_for 'CNP rx (19[0-9]|20[0-9])/s' 10 || fail "the replay shows no CNP rate"
# the window of the recording (100 Hz), whatever the replay's -d says
wait_for 'pk = max 10 ms rate' 10 || fail "the replay names no 10 ms peak window: $(cap | tail -3)"
echo "ok"
