#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# SCREEN.md's 160x48: the PPU and NIC panes side by side in one band, the
# PPU on the left with the larger part, both boxes the same height, the CPU
# pane full width under them; focus (Tab, hotkeys) and scrolling still work
# in the halves. At 120x40 and 80x24 the two stay stacked, full width.
# Uses the fake libhgml.so for the PPU pane; the NIC pane lists lo.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"
FAKE="$top_builddir/tests/fakes/.libs/libhgml.so"
[ -r "$FAKE" ] || { echo "SKIP: fake library not built: $FAKE"; exit 77; }

# chars TEXT: its width in characters (the box glyphs are one column each)
chars() { printf '%s' "$1" | LC_ALL=C.UTF-8 wc -m; }
# line_of REGEX: the first screen line (1-based) that matches
line_of() { cap | grep -nE -- "$1" | head -n 1 | cut -d: -f1; }

tui_start 160 48 ASYS_HGML_LIBRARY="$FAKE" FAKE_HGML_DEVICES=64 -- -d 0.5
wait_for '1 PPU +64 devices' 10 || fail "160x48: no PPU pane"
if ! grep -q '^#define HAVE_MNL 1' "$top_builddir/config.h"; then
	echo "SKIP: this build has no NIC pane (configure found no libmnl)"
	exit 77
fi
wait_for '2 NIC' 10 || fail "160x48: no NIC pane"
wait_for '3 CPU' 10 || fail "160x48: no CPU pane"
# NIC: every netdev, lo among them
keys 2 a
wait_for '│ lo +↓' 10 || fail "160x48: lo not listed in the NIC pane"
check_layout 160 48
s=$(cap)
top=$(printf '%s\n' "$s" | grep -n '^╭1 PPU' | head -n 1)
[ -n "$top" ] || fail "160x48: the PPU box does not start at column 0"
printf '%s\n' "$top" | grep -q '╮╭2 NIC' || fail "160x48: the NIC box is not beside the PPU box"
y=${top%%:*}
left=$(printf '%s\n' "$s" | sed -n "${y}p" | sed 's/╭2 NIC.*//')
x=$(chars "$left")
[ "$x" -gt 80 ] && [ "$x" -lt 100 ] || fail "160x48: NIC box at column $x, not past the middle"
# both boxes close on the same line, and the NIC box ends at the right edge
bot=$(printf '%s\n' "$s" | sed -n "$((y + 1)),\$p" | grep -n '^╰' | head -n 1 | cut -d: -f1)
bline=$(printf '%s\n' "$s" | sed -n "$((y + bot))p")
printf '%s\n' "$bline" | grep -q '^╰.*╯╰.*╯$' || fail "160x48: the two boxes do not close on one line"
[ "$(chars "$(printf '%s\n' "$bline" | sed 's/╯╰.*/╯/')")" -eq "$x" ] ||
	fail "160x48: the PPU box's bottom does not end where the NIC box starts"
[ "$(chars "$bline")" -eq 160 ] || fail "160x48: the pair is not 160 columns wide"
# device 0 and lo share a line, each in its half
printf '%s\n' "$s" | grep -Eq '^│0 PPU 00000000:10:00\.0 .*││ lo +↓' ||
	fail "160x48: device 0 and lo are not on one line"
# the CPU pane comes right under the pair, full width
cpu=$(line_of '^╭3 CPU')
[ "$cpu" = $((y + bot + 1)) ] || fail "160x48: the CPU box is not right under the pair"
[ "$(chars "$(printf '%s\n' "$s" | sed -n "${cpu}p")")" -eq 160 ] || fail "160x48: CPU box not full width"
echo "ok: 160x48 side by side"

# focus ring: 1 PPU, Tab to NIC, Tab on to CPU; the focused title is reversed
ESC=$(printf '\033')
focused() { cap_e | grep -E "${ESC}\[([0-9]+;)*7(;[0-9]+)*m(${ESC}\[[0-9;]*m)* $1" >/dev/null; }
keys 1
i=0; until focused PPU; do i=$((i + 1)); [ $i -lt 50 ] || fail "1 did not focus PPU"; sleep 0.1; done
keys Tab
i=0; until focused NIC; do i=$((i + 1)); [ $i -lt 50 ] || fail "Tab did not move PPU -> NIC"; sleep 0.1; done
keys Tab
i=0; until focused CPU; do i=$((i + 1)); [ $i -lt 50 ] || fail "Tab did not move NIC -> CPU"; sleep 0.1; done
keys BTab BTab
i=0; until focused PPU; do i=$((i + 1)); [ $i -lt 50 ] || fail "S-Tab did not go back to PPU"; sleep 0.1; done
echo "ok: focus ring"

# scrolling in the left half: End shows the last device, still beside NIC
keys End
wait_for '^│63 PPU 00000000:4F:00\.0 .*││' 10 || fail "160x48: End did not scroll to device 63 in the left half"
wait_for 'more PPUs: [0-9]+ above, 0 below' 10 || fail "160x48: no scroll hint after End"
cap | grep -q '╮╭2 NIC' || fail "160x48: NIC no longer beside PPU after scrolling"
check_layout 160 48
quit_ok "160x48"
tui_stop
echo "ok: scrolling in a half"

# narrower: stacked as before, every box full width
for size in 120x40 80x24; do
	cols=${size%x*}
	rows=${size#*x}
	tui_start "$cols" "$rows" ASYS_HGML_LIBRARY="$FAKE" FAKE_HGML_DEVICES=2 -- -d 0.5
	wait_for '^╭2 NIC' 10 || fail "$size: NIC box does not start at column 0"
	wait_for '^╭1 PPU' 10 || fail "$size: PPU box does not start at column 0"
	s=$(cap)
	printf '%s\n' "$s" | grep -q '╮╭' && fail "$size: two boxes on one line"
	p=$(line_of '^╭1 PPU')
	n=$(line_of '^╭2 NIC')
	[ "$n" -gt "$p" ] || fail "$size: NIC is not under PPU"
	[ "$(chars "$(printf '%s\n' "$s" | sed -n "${p}p")")" -eq "$cols" ] || fail "$size: PPU box not full width"
	[ "$(chars "$(printf '%s\n' "$s" | sed -n "${n}p")")" -eq "$cols" ] || fail "$size: NIC box not full width"
	check_layout "$cols" "$rows"
	tui_stop
	echo "ok: $size stacked"
done
