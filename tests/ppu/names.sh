#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# Every metric name of the PPU catalogue survives record -> export whole
# (recorded through the fake libhgml.so, in as many runs as the capacity
# check splits the list into), and a replay's PPU pane shows the rows that
# asys top showed live with the default metric set, whose tensor metric has
# a 68-byte name. (The pane draws a row by its recorded label, so a cut name
# shows in the export part, not on screen: the screen part guards the rows.)
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"
FAKE="$top_builddir/tests/fakes/.libs/libhgml.so"
[ -r "$FAKE" ] || { echo "SKIP: fake library not built: $FAKE"; exit 77; }

# the catalogue, as asys lists it: one name per line at the left margin
ASYS_HGML_LIBRARY="$FAKE" "$ASYS" top --ppu-metrics-list help 2>&1 |
	sed -n '/^Possible/d; /^[a-z]/p' | sort >"$TDIR/want"
[ "$(wc -l <"$TDIR/want")" -ge 40 ] || fail "catalogue: $(wc -l <"$TDIR/want") names listed"
[ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$TDIR/want")" -gt 64 ] ||
	fail "no catalogue name is longer than 64 bytes: this test would not see a cut"

# a split that fits the sampling capacity, one recording each
ASYS_HGML_LIBRARY="$FAKE" FAKE_HGML_DEVICES=1 "$ASYS" record \
	--check-ppu-metrics-list "$(paste -sd, "$TDIR/want")" >"$TDIR/check" 2>&1
sed -n 's/^    --ppu-metrics-list //p' "$TDIR/check" >"$TDIR/runs"
[ -s "$TDIR/runs" ] || paste -sd, "$TDIR/want" >"$TDIR/runs" # it all fits at once
i=0
: >"$TDIR/got"
while read -r list; do
	i=$((i + 1))
	ASYS_HGML_LIBRARY="$FAKE" FAKE_HGML_DEVICES=1 "$ASYS" record -s none -d 0.5 \
		--duration 1500ms --ppu-metrics-device all --ppu-metrics-set none \
		--ppu-metrics-frequency 100 --ppu-metrics-list "$list" -o "$TDIR/run$i.asys" \
		>"$TDIR/rec.out" 2>&1 </dev/null || fail "record run $i: $(cat "$TDIR/rec.out")"
	"$ASYS" export --streams ppu.metrics "$TDIR/run$i.asys" 2>"$TDIR/x.err" |
		awk -F, 'NR > 1 { print $6 }' >>"$TDIR/got" || fail "export run $i: $(cat "$TDIR/x.err")"
done <"$TDIR/runs"
sort -u "$TDIR/got" >"$TDIR/got.u"
cmp -s "$TDIR/want" "$TDIR/got.u" ||
	fail "exported names differ from the catalogue ($i runs): $(diff "$TDIR/want" "$TDIR/got.u" | head -6)"
echo "ok: $(wc -l <"$TDIR/want") catalogue names recorded and exported whole in $i runs"

# The labels of the metric rows, stacked: one line per metric.
rows() { cap | sed -En 's/^│  ([A-Za-z][A-Za-z0-9.]*( [A-Za-z0-9.]+)?) +(n\/a|[0-9]).*/\1/p'; }
# rows_of WHO: once the rows are in (the summary set's 9 or more live, the
# same rows as live in the replay), keeps them in $TDIR/WHO.rows
rows_in() {
	if [ "$1" = live ]; then
		[ "$(rows | wc -l)" -ge 9 ]
	else
		[ "$(rows)" = "$(cat "$TDIR/live.rows")" ]
	fi
}
rows_of() {
	keys 1 s
	wait_for '^│  tensor +[0-9]+%' 10 || fail "$1: no tensor row"
	wait_until 5 rows_in "$1" || fail "$1: the metric rows did not all come: $(rows)"
	rows >"$TDIR/$1.rows"
}
L="$TDIR/live.asys"
tui_start 160 48 ASYS_HGML_LIBRARY="$FAKE" FAKE_HGML_DEVICES=1 -- -d 0.5 -s none \
	--ppu-metrics-device 0 -o "$L"
rows_of live
keys q
wait_exit 10 >/dev/null || fail "asys top did not exit on q"
tui_stop
[ "$(wc -l <"$TDIR/live.rows")" -ge 9 ] || fail "live: $(wc -l <"$TDIR/live.rows") rows for the summary set"
tmx new-session -d -s "$TSESS" -x 160 -y 48 \
	"env LC_ALL=$TUI_LOCALE TERM=screen-256color ASYS_HGML_LIBRARY=/nonexistent $(shq "$ASYS") replay -d 0.5 $(shq "$L"); sleep 600" ||
	fail "tmux could not start a session"
wait_for '1 PPU +1 devices' 10 || fail "replay: no PPU pane"
rows_of replay
check_layout 160 48
tui_stop
cmp -s "$TDIR/live.rows" "$TDIR/replay.rows" ||
	fail "replay rows differ from live: $(paste -d'|' "$TDIR/live.rows" "$TDIR/replay.rows")"
echo "ok: replay shows the $(wc -l <"$TDIR/live.rows") rows of the default set that asys top showed"
