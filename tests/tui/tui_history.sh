#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# The CPU pane's history line at 80x24: "all", a sparkline of the total busy
# share that grows from the right as refreshes go by (braille in UTF-8, the
# ASCII ramp otherwise), and the total's percentage; it sits inside the CPU
# box, under its title, and nothing overlaps.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"

# hist_line: the CPU pane's history line
hist_line() { cap | grep -A1 -E '^(╭|\+)3 CPU' | sed -n 2p; }
# Glyphs as byte patterns (grep -P in the C locale: glibc's C.UTF-8 does
# not take ranges of multibyte characters): a braille cell with a dot,
# U+2801..U+28FF, and any braille cell, blank U+2800 included.
DOTS='(?:\xe2\xa0[\x81-\xbf]|\xe2[\xa1-\xa3][\x80-\xbf])'
CELL='\xe2[\xa0-\xa3][\x80-\xbf]'
BAR='\xe2\x94\x82'
# marks PATTERN [LINE]: how many cells of the history line (of LINE, one
# capture already taken) are drawn
marks() {
	if [ $# -gt 1 ]; then printf '%s\n' "$2"; else hist_line; fi |
		LC_ALL=C grep -oP -- "$1" | wc -l
}
# hist_is PATTERN: the history line matches
hist_is() { hist_line | LC_ALL=C grep -qP -- "$1"; }

for loc in C.UTF-8 C; do
	if [ "$loc" = C ]; then
		glyphs='[_.=#-]'
		re='^\| *all +[_.=#-]+ +[0-9]+%\|$'
	else
		glyphs=$DOTS
		re="^$BAR *all +(?:$CELL| )*$CELL +[0-9]+%$BAR\$"
	fi
	TUI_LOCALE=$loc
	tui_start 80 24 -- -d 0.25
	wait_for '3 CPU +[0-9]+ cores' 10 || fail "$loc: no CPU pane"
	wait_for '^(│|\|) *all ' 10 || fail "$loc: no history line under the CPU title"
	check_layout 80 24
	# a few refreshes in: some marks on the right, room left of them
	i=0
	while [ "$(marks "$glyphs")" -lt 2 ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "$loc: fewer than 2 history marks after 10 s"
		sleep 0.1
	done
	hist_is "$re" || fail "$loc: history line malformed: $(hist_line)"
	# the count and the line from one capture: a refresh may come between two
	line1=$(hist_line)
	first=$(marks "$glyphs" "$line1")
	# eight refreshes in 2 s on a quiet machine; up to 10 s on a loaded one
	i=0
	while line2=$(hist_line) && second=$(marks "$glyphs" "$line2") && [ "$second" -le "$first" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "$loc: the history did not grow in 10 s ($first -> $second marks)"
		sleep 0.1
	done
	[ "$line2" != "$line1" ] || fail "$loc: the history line did not change"
	# an upper bound: a loaded machine only draws fewer
	sleep 2
	later=$(marks "$glyphs")
	[ "$later" -lt 60 ] || fail "$loc: $later marks after a few seconds: not one per refresh"
	# newest on the right: the marks end just before the percentage
	hist_is "$glyphs +[0-9]+%" || fail "$loc: the newest mark is not on the right"
	check_layout 80 24
	quit_ok "$loc"
	tui_stop
	echo "ok: $loc history $first -> $second marks"
done
