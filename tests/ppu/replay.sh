#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# Replay of a recording with PPU streams: the PPU pane is drawn from the file
# alone (no library), like live; a recording made by asys top replays with
# the rows, labels and groups that asys top showed.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"
FAKE="$top_builddir/tests/fakes/.libs/libhgml.so"
[ -r "$FAKE" ] || { echo "SKIP: fake library not built: $FAKE"; exit 77; }
F="$TDIR/ppu.asys"

ASYS_HGML_LIBRARY="$FAKE" FAKE_HGML_DEVICES=3 "$ASYS" record -s none -d 0.5 --duration 1500ms \
	--ppu-metrics-device 0,2 --ppu-metrics-set none --ppu-metrics-frequency 100 \
	--ppu-metrics-list kvd__transaction_hit_rate.pct,ce__cycles_active.avg.pct_of_peak_sustained_elapsed \
	-o "$F" >"$TDIR/rec.out" 2>&1 || { cat "$TDIR/rec.out"; fail "asys record failed"; }
# the same pane, from the file, with no library at all
tmx new-session -d -s "$TSESS" -x 120 -y 40 \
	"env LC_ALL=$TUI_LOCALE TERM=screen-256color ASYS_HGML_LIBRARY=/nonexistent $(shq "$ASYS") replay $(shq "$F"); sleep 600" ||
	fail "tmux could not start a session"
wait_for '1 PPU +3 devices' 10 || fail "replay: no PPU pane with 3 devices"
wait_for '^│2 PPU 00000000:12:00\.0 .*1020MHz' 10 || fail "replay: no device 2 state"
wait_for 'KVD hit +53%' 10 || fail "replay: no KVD hit rate of device 2"
check_layout 120 40
tui_stop
echo "ok: replay"

# The labels of the metric rows of the screen, in order: overlaid, the
# first of each group's line; stacked, every metric.
rows() { cap | sed -En 's/^│  ([A-Za-z][A-Za-z0-9.]*( [A-Za-z0-9.]+)?) +(n\/a|[0-9]).*/\1/p'; }
# rows_of MODE WHO: waits for the metric rows, one line per group (o) or
# per metric (s), then keeps them in that mode in $TDIR/WHO.MODE
rows_n() { [ "$(rows | wc -l)" -eq "$1" ]; }
rows_of() {
	keys 1 "$1"
	wait_for '^│  CE act +[0-9]+%' 10 || fail "$2: no CE act row ($1)"
	[ "$1" = s ] || wait_for '^│  mem +[0-9.]+[KMG].* KVD hit +[0-9]+%' 10 ||
		fail "$2: mem and KVD hit not on one memory line"
	if [ "$1" = s ]; then n=5; else n=3; fi
	wait_until 5 rows_n "$n" || fail "$2: not $n metric lines ($1): $(rows)"
	rows >"$TDIR/$2.$1"
}
L="$TDIR/live.asys"
LIST=ce__cycles_active.avg.pct_of_peak_sustained_elapsed,kvd__transaction_hit_rate.pct,dram__bytes_used.sum,pcie__read_bytes.sum.per_second,gd__dispatch_count.avg.pct_of_peak_sustained_elapsed
tui_start 120 40 ASYS_HGML_LIBRARY="$FAKE" FAKE_HGML_DEVICES=1 -- -d 0.5 -s none \
	--ppu-metrics-device 0 --ppu-metrics-set none --ppu-metrics-list "$LIST" -o "$L"
rows_of o live
rows_of s live
keys q
wait_exit 10 >/dev/null || fail "asys top did not exit on q"
tui_stop
[ "$(wc -l <"$TDIR/live.o")" -eq 3 ] || fail "live: not one line per group: $(cat "$TDIR/live.o")"
[ "$(wc -l <"$TDIR/live.s")" -eq 5 ] || fail "live: not one line per metric: $(cat "$TDIR/live.s")"
tmx new-session -d -s "$TSESS" -x 120 -y 40 \
	"env LC_ALL=$TUI_LOCALE TERM=screen-256color ASYS_HGML_LIBRARY=/nonexistent $(shq "$ASYS") replay -d 0.5 $(shq "$L"); sleep 600" ||
	fail "tmux could not start a session"
wait_for '1 PPU +1 devices' 10 || fail "replay of asys top's recording: no PPU pane"
rows_of o replay
rows_of s replay
tui_stop
for m in o s; do
	cmp -s "$TDIR/live.$m" "$TDIR/replay.$m" ||
		fail "replay rows ($m) differ from live: $(paste -d'|' "$TDIR/live.$m" "$TDIR/replay.$m")"
done
echo "ok: replay shows the rows asys top showed"
