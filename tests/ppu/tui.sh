#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# The PPU pane in the real asys top inside tmux, with the fake libhgml.so:
# 16 devices at 80x24 (compact, scrolls, nothing overlaps), a lost device,
# GPM refused with its causes and fixes, metric groups overlaid and stacked,
# and no library at all.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"
FAKE="$top_builddir/tests/fakes/.libs/libhgml.so"
[ -r "$FAKE" ] || { echo "SKIP: fake library not built: $FAKE"; exit 77; }

# 16 devices at 80x24, device 5 lost after a second
tui_start 80 24 ASYS_HGML_LIBRARY="$FAKE" FAKE_HGML_DEVICES=16 FAKE_HGML_LOST=5:1000 -- \
	-d 0.5 --ppu-metrics-device all
wait_for '1 PPU +16 devices' 10 || fail "80x24: no PPU title with 16 devices"
wait_for '^│0 PPU 00000000:10:00\.0 .*[0-9]+% [0-9.]+G/96\.0G' 10 || fail "80x24: no device 0 line"
wait_for 'more PPUs: 0 above, [0-9]+ below' 10 || fail "80x24: no scroll hint"
check_layout 80 24
# select device 6: 5 shows lost, 6 goes on
keys 1 Down Down Down Down Down Down
wait_for '^│5 PPU 00000000:15:00\.0 +lost' 10 || fail "80x24: device 5 not shown lost"
wait_for '^│6 PPU 00000000:16:00\.0 .*[0-9]+%' 10 || fail "80x24: device 6 stopped with device 5"
# further down the list scrolls, with devices hidden on both sides
keys Down Down Down Down Down Down
wait_for 'more PPUs: [1-9][0-9]* above, [1-9][0-9]* below' 10 || fail "80x24: scroll hint in the middle"
check_layout 80 24
keys End
wait_for '^│15 PPU 00000000:1F:00\.0 ' 10 || fail "80x24: End did not scroll to device 15"
wait_for 'more PPUs: [0-9]+ above, 0 below' 10 || fail "80x24: scroll hint after End"
check_layout 80 24
quit_ok "80x24"
tui_stop
echo "ok: 16 devices at 80x24"

# 2 devices at 120x40: metrics in groups, GPM refused on device 1
tui_start 120 40 ASYS_HGML_LIBRARY="$FAKE" FAKE_HGML_DEVICES=2 FAKE_HGML_GPM_BUSY=1 -- \
	-d 0.5 --ppu-metrics-device all
wait_for 'metrics sampling refused on device 1: the performance counters are in use' 10 ||
	fail "120x40: no GPM refusal"
wait_for 'dcgmi profile --pause' 5 || fail "120x40: no DCGM advice"
wait_for 'ppu-smi -q' 5 || fail "120x40: no ppu-smi advice"
keys 1 s
wait_for '^│  CU act +[0-9]+%' 10 || fail "120x40: no stacked CU act line"
keys o
wait_for '^│  clock [0-9.]+GHz .* CE act [0-9]+%' 10 || fail "120x40: no overlaid compute group"
wait_for '^│  DRAM rd [0-9]+%' 10 || fail "120x40: no memory group line"
wait_for 'procs: [0-9]+ ' 10 || fail "120x40: no process line"
check_layout 120 40
tui_stop
echo "ok: metrics and GPM refusal at 120x40"

# no library at all: what to set in a line, the paths in the log (L)
tui_start 80 24 ASYS_HGML_LIBRARY= PPU_HOME=/nonexistent/ppu -- --ppu-backend hgml
wait_for 'no PPU library: set PPU_HOME or ASYS_HGML_LIBRARY  \(details: L\)' 10 ||
	fail "no-library message missing, or not what to do first"
check_layout 80 24
keys L
wait_for '/nonexistent/ppu/lib/libhgml\.so' 5 || fail "the log lacks the paths searched"
keys Escape
tui_stop
echo "ok: no library"
