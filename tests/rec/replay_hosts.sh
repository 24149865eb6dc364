#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root tmux
# asys replay of two hosts' recordings in tmux, at 80x24 and 160x48: two
# real `asys record` runs under their own host names (UTS namespaces),
# overlapping in time. } and { switch host at the same wall time, the
# header says which host of how many; a host with no data at that time
# shows empty panes and says where its data lies, and space goes there.
# A bad second file: the error names it.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"
unshare -u true 2>/dev/null || { echo "SKIP: unshare -u (a host name per recording) needs root"; exit 77; }

rec() { # rec HOST FILE SECONDS
	unshare -u sh -c 'hostname "$1" && shift && exec "$@"' sh "$1" \
		"$ASYS" record -o "$TDIR/$2" --duration "$3" -d 0.25 -s none 2>"$TDIR/$2.err" ||
		fail "asys record as $1 exited $?: $(cat "$TDIR/$2.err")"
}
rec nodeA a.asys 5s &
sleep 2.5
rec nodeB b.asys 5s &
wait
[ -s "$TDIR/a.asys" ] && [ -s "$TDIR/b.asys" ] || fail "the recordings were not made"

# the replay clock of the header: "REPLAY a.asys 14:03:10 / ..."
clock() { cap | head -1 | grep -oE 'REPLAY [^ ]+ [0-9:]{8}' | awk '{print $3}'; }

for size in "80 24" "160 48"; do
	set -- $size
	TUI_SUB=replay TUI_READY='asys replay' tui_start "$1" "$2" -- --begin +3s \
		"$TDIR/a.asys" "$TDIR/b.asys"
	wait_for '^ asys replay  nodeA .*\[1/2\] REPLAY a\.asys' 10 || fail "${1}x$2: no host 1/2 nodeA"
	cap | tail -1 | grep -q '} host' || fail "${1}x$2: the bottom line has no } key"
	# paused, then switched: the other host at the same wall time
	keys Space
	wait_for 'REPLAY a\.asys [0-9:]+ / [0-9:]+ x1 ❚❚' 5 || fail "${1}x$2: space did not pause"
	t=$(clock)
	keys '}'
	wait_for '^ asys replay  nodeB .*\[2/2\] REPLAY b\.asys' 5 || fail "${1}x$2: } did not show nodeB"
	[ "$(clock)" = "$t" ] || fail "${1}x$2: nodeB at $(clock), nodeA was at $t"
	wait_for 'used [0-9.]+[KMGT]?' 10 || fail "${1}x$2: nodeB's memory figures did not show"
	keys '{'
	wait_for '^ asys replay  nodeA .*\[1/2\] REPLAY a\.asys' 5 || fail "${1}x$2: { did not go back"
	[ "$(clock)" = "$t" ] || fail "${1}x$2: back on nodeA at $(clock), want $t"
	# back to nodeA's start: before nodeB's recording began; nodeB is then away
	keys g
	wait_for 'Go to' 5 || fail "${1}x$2: g did not prompt"
	keys 0% Enter
	wait_gone "REPLAY a\\.asys $t" 5 || fail "${1}x$2: g 0% did not move nodeA"
	t=$(clock)
	keys '}'
	wait_for "\\[2/2\\] b\\.asys: no data at $t, has [0-9:]{8}-[0-9:]{8}" 5 ||
		fail "${1}x$2: nodeB at a time before its data: no 'no data' header"
	wait_for 'b\.asys has no data at .*its recording runs from' 5 ||
		fail "${1}x$2: no message on where nodeB's data lies"
	# not stale figures: nothing from another time
	cap | grep -qE 'used [0-9.]+[KMGT]' && fail "${1}x$2: an away host shows memory figures"
	wait_for 'waiting for the first' 5 || fail "${1}x$2: away: panes not empty"
	# space goes to nodeB's first data, and plays
	keys Space
	wait_for '\[2/2\] REPLAY b\.asys [0-9:]+ / [0-9:]+ x1 ▶' 5 || fail "${1}x$2: space did not play nodeB"
	wait_for 'used [0-9.]+[KMGT]?' 10 || fail "${1}x$2: nodeB's figures after space"
	keys q
	[ "$(wait_exit)" = 0 ] || fail "${1}x$2: q did not exit 0"
	tui_stop
done

# hosts booted at different times (rec_forge host-a, host-b: monotonic
# clocks 4000 s apart): the switch goes by the wall clock
FORGE=$top_builddir/tests/rec/rec_forge
if [ -x "$FORGE" ]; then
	"$FORGE" host-a "$TDIR/ha.asys" && "$FORGE" host-b "$TDIR/hb.asys" || fail "rec_forge host-a/b"
	TUI_SUB=replay TUI_READY='asys replay' tui_start 80 24 TZ=UTC -- --begin 22:30:05 \
		"$TDIR/ha.asys" "$TDIR/hb.asys"
	keys Space
	wait_for '\[1/2\] REPLAY ha\.asys 22:30:0[5-9] .*❚❚' 5 || fail "two boots: host-a not paused near 22:30:05"
	t=$(clock)
	keys '}'
	wait_for "\\[2/2\\] REPLAY hb\\.asys $t " 5 || fail "two boots: host-b not at $t"
	keys q
	[ "$(wait_exit)" = 0 ] || fail "two boots: q did not exit 0"
	tui_stop
fi

# a bad second file: the message names it, before any screen
head -c 3000 /dev/urandom >"$TDIR/junk.asys"
rm -f "$TDIR/exit"
tmx new-session -d -s j -x 100 -y 10 \
	"$(shq "$ASYS") replay $(shq "$TDIR/a.asys") $(shq "$TDIR/junk.asys") 2>&1; echo EXIT=\$? >$TDIR/exit; sleep 30"
i=0
while [ ! -s "$TDIR/exit" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ "$(sed -n 's/^EXIT=//p' "$TDIR/exit")" = 1 ] || fail "replay with a junk second file: exit $(cat "$TDIR/exit")"
tmx capture-pane -p -t j | grep -q "^asys replay: .*junk.asys: not an asys recording" ||
	fail "junk second file: $(tmx capture-pane -p -t j | head -3)"
echo "ok: two hosts switched at 80x24 and 160x48; a host without data said so"
