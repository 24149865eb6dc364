#!/bin/sh
# Replay of a recording with PPU streams: the PPU pane is drawn from the file
# alone (no library), like live.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/tmux_lib.sh"
FAKE="$top_builddir/tests/fakes/.libs/libhgml.so"
[ -r "$FAKE" ] || { echo "SKIP: fake library not built: $FAKE"; exit 77; }
F="$TDIR/ppu.asys"

ASYS_HGML_LIBRARY="$FAKE" FAKE_HGML_DEVICES=3 "$ASYS" record -s none -d 0.5 --duration 1500ms \
	--ppu-metrics-device 0,2 --ppu-metrics-set none --ppu-metrics-frequency 100 \
	--ppu-metrics-list kvd__transaction_hit_rate.pct,ce__cycles_active.avg.pct_of_peak_sustained_elapsed \
	-o "$F" >"$TDIR/rec.out" 2>&1 || { cat "$TDIR/rec.out"; fail "asys record failed"; }
if "$ASYS" replay "$F" </dev/null 2>&1 | grep -q 'not built yet'; then
	echo "SKIP: this asys has no interactive replay yet"
	exit 77
fi
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
