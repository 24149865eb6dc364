#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# `asys top -- prog` in tmux, with a real program annotated with the
# toolkit's NVTX v3 headers: the Top ranges pane lists its ranges with the
# program's exact counts and means within 10 % of its own clock, the custom
# domain, and with t the nesting (DoProcess under Loop), at 160x48 and
# 80x24. Then a user's NVTX_INJECTION64_PATH, and a missing library: the
# pane says why it is empty and what to do.
# shellcheck source=tests/lib.sh
. "$top_srcdir/tests/lib.sh"
# shellcheck source=tests/inject/lib.sh
. "$top_srcdir/tests/inject/lib.sh"
inject_need
# shellcheck source=tests/tui/tmux_lib.sh
. "$top_srcdir/tests/tui/tmux_lib.sh"

inject_tui_cleanup() {
	touch "$TDIR/hold" # the program waits for it
	tui_cleanup
}
trap inject_tui_cleanup EXIT
inject_build_prog "$TDIR"

# The pane's row of a range: its cells, the RANGE column last.
row_of() { cap | grep -E "[│|] +[0-9]+ .* $1 *[│|]\$" | head -n 1; }
# cell N (1 = PID) of a row
cell() { echo "$1" | sed 's/[│|]/ /g' | awk -v n="$2" '{ print $n }'; }
# a duration cell in ns: 1.12ms -> 1120000
dur_ns() {
	echo "$1" | awk '{ v = $0 + 0; u = $0; sub(/^[0-9.]+/, "", u);
		m = u == "ns" ? 1 : u == "us" ? 1e3 : u == "ms" ? 1e6 : u == "s" ? 1e9 : 0;
		printf "%.0f\n", v * m }'
}

# show NAME: the filter set to NAME, so that its row shows on any screen
show() {
	keys /
	keys Escape
	keys /
	keys -l "$1"
	keys Enter
	wait_for "filter: $1 " 5 || fail "$size: the filter did not take $1"
}

for size in "160 48" "80 24"; do
	rm -f "$TDIR/hold" "$TDIR/prog.log"
	# shellcheck disable=SC2086 # two words
	tui_start $size "ASYS_INJECT_LIB=$INJECT_LIB" -- -d 0.5 --workload-log "$TDIR/prog.log" \
		-- "$TDIR/nvtx_prog" 300 1000 "$TDIR/hold"
	wait_for 'Top ranges' 15 || fail "$size: no Top ranges pane"
	keys 6
	i=0
	while ! grep -q '^PROG name=Phase' "$TDIR/prog.log" 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q '^PROG name=Phase' "$TDIR/prog.log" || fail "$size: the program did not finish"
	# the last ranges reach the screen within a refresh or two
	show Phase
	if ! wait_for "[│|] +[0-9]+ +4 .* Phase *[│|]" 10; then
		# the pane without the filter shows what it has, or why it has nothing
		keys /
		keys Escape
		sleep 1
		fail "$size: Phase never ended on screen; below, the screen without the filter"
	fi
	for name in Loop DoProcess Registered; do
		pname=$name
		[ $name = Registered ] && pname=asys-test/Registered
		line=$(grep "^PROG name=$pname " "$TDIR/prog.log")
		want_n=$(echo "$line" | sed 's/.* count=\([0-9]*\).*/\1/')
		want_t=$(echo "$line" | sed 's/.* total_ns=\([0-9]*\).*/\1/')
		show "$name"
		# MEAN is of the last refresh's ranges while they end, then of all
		wait_for "[│|] +[0-9]+ +$want_n +0 .* $name *[│|]\$" 5 ||
			fail "$size: no row for $name with $want_n ranges, none in the last refresh"
		r=$(row_of "$name")
		[ -n "$r" ] || fail "$size: no row for $name"
		[ "$(cell "$r" 2)" = "$want_n" ] && pass ||
			fail "$size: $name count $(cell "$r" 2), the program ended $want_n"
		mean=$(dur_ns "$(cell "$r" 4)")
		within "$mean" $((want_t / want_n)) 10 && pass ||
			fail "$size: $name mean $(cell "$r" 4), the program measured $((want_t / want_n)) ns"
		case $name in
		Registered) echo "$r" | grep -q 'asys-te' && pass || fail "$size: no domain for Registered" ;;
		DoProcess) [ "$(cell "$r" 8)" = 1 ] && pass || fail "$size: DoProcess not at depth 1" ;;
		Loop) [ "$(cell "$r" 8)" = 0 ] && pass || fail "$size: Loop not at depth 0" ;;
		esac
	done
	# the tree: the outermost first, DoProcess indented below Loop
	show o
	keys t
	wait_for 'ranges/s +tree' 5 || fail "$size: t did not turn the tree on"
	wait_for '(└|`) DoProcess *[│|]$|[0-9] +- +Loop *[│|]$' 5 || fail "$size: no tree rows"
	s=$(cap)
	lloop=$(echo "$s" | grep -n ' Loop *[│|]$' | head -n 1 | cut -d: -f1)
	lproc=$(echo "$s" | grep -nE '(└|`) DoProcess *[│|]$' | head -n 1 | cut -d: -f1)
	if [ "$size" = "160 48" ]; then
		[ -n "$lloop" ] && [ -n "$lproc" ] && [ "$lproc" -gt "$lloop" ] && pass ||
			fail "$size: the tree does not show DoProcess below Loop"
	else
		# one row shows: the outermost first, then DoProcess indented
		[ -n "$lloop" ] && pass || fail "$size: the tree does not start with Loop"
		show DoProc
		wait_for '(└|`) DoProcess *[│|]$' 5 && pass || fail "$size: DoProcess not indented"
	fi
	touch "$TDIR/hold"
	keys q
	[ "$(wait_exit)" = 0 ] && pass || fail "$size: asys top did not exit cleanly"
	tui_stop
done

# the user's own tool: left alone, and the pane says so
tui_start 100 30 "NVTX_INJECTION64_PATH=/opt/their/libtool.so" "ASYS_INJECT_LIB=$INJECT_LIB" -- \
	-d 0.5 -- sleep 60
keys 6
wait_for 'NVTX_INJECTION64_PATH is already set' 10 && pass ||
	fail "the pane does not say the user's variable is kept"
keys q
wait_exit >/dev/null
tui_stop

# no library: the pane says how to install it
tui_start 100 30 "ASYS_INJECT_LIB=/nonexistent/libasys-inject.so" -- -d 0.5 -- sleep 60
keys 6
wait_for 'libasys-inject.so is not installed' 10 && pass || fail "no word of the missing library"
wait_for 'make install' 5 && pass || fail "the pane does not say how to install the library"
keys q
wait_exit >/dev/null
finish
