#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux serial syswide
# The process table on this machine: a busy child (yes) shows a CPU% within
# 15 points of top's second reading, the filter narrows to it, the tree
# shows it under its parent shell, and k with SIGTERM ends it (its exit
# status says so).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"

command -v top >/dev/null 2>&1 || {
	echo "SKIP: no top(1) to compare CPU% with (apt-get install procps)"
	exit 77
}

# names of their own, for the filter and the search: the busy child is yes
# under another name, started by a script whose name says it is the parent
ln -s "$(command -v yes)" "$TDIR/busychild" || fail "cannot link yes"
cat >"$TDIR/tree_parent.sh" <<'SH'
"$1/busychild" >/dev/null &
echo $! >"$1/yes.pid"
wait $!
echo $? >"$1/yes.exit"
SH
sh "$TDIR/tree_parent.sh" "$TDIR" &
PARENT=$!
procs_cleanup() {
	[ -s "$TDIR/yes.pid" ] && kill "$(cat "$TDIR/yes.pid")" 2>/dev/null
	kill "$PARENT" 2>/dev/null
	tui_cleanup
}
trap procs_cleanup EXIT
i=0
while ! [ -s "$TDIR/yes.pid" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
YES=$(cat "$TDIR/yes.pid") || fail "the busy child did not start"

tui_start 160 48 -- -d 1
keys 4
wait_for "^│ +$YES " 10 || fail "no row for the busy child $YES"

# the value of column TITLE in the row of pid $1, by the header's words
cell() {
	cap | awk -v p="$1" -v t="$2" '
		{ sub(/^│/, ""); sub(/│$/, "") }
		/ PID / && /COMMAND/ { for (i = 1; i <= NF; i++) if (index($i, t) == 1) col = i }
		col && $1 == p { print $col; exit }'
}
# ours is read as top's last reading ends. Ours is the last whole refresh,
# a second that ended up to a second ago, so it lies between top's last two
# one-second readings (its first is since the process started); on a
# crowded machine yes's share moves from second to second, so three tries
for try in 1 2 3; do
	tops=$(LC_ALL=C top -b -n 3 -d 1 -p "$YES" | awk -v p="$YES" '$1 == p { n++; if (n > 1) printf "%s ", $9 }')
	ours=$(cell "$YES" CPU%)
	top_cpu=$(echo "$tops" | tr ' ' '\n' | grep . | paste -sd/)
	[ -n "$top_cpu" ] && [ -n "$ours" ] || fail "no CPU% to compare (top: '$top_cpu', ours: '$ours')"
	if echo "$tops" | awk -v a="$ours" '{ lo = $1; hi = $1; for (i = 2; i <= NF; i++) { if ($i < lo) lo = $i; if ($i > hi) hi = $i }
		exit !(NF >= 2 && a >= lo - 15 && a <= hi + 15) }'; then
		break
	fi
	echo "try $try: CPU% of yes is $ours, top says $top_cpu"
	[ $try = 3 ] && fail "CPU% of yes is $ours, top says $top_cpu"
done

keys / b u s y c h i l d Enter
wait_for 'filter: busychild' 5 || fail "the filter is not in the title"
wait_gone 'tree_parent' 5 || fail "the filter did not narrow the table"
[ "$(cap | grep -Ec '^│ +[0-9]+ +[a-z_]')" = 1 ] || fail "the filter left other rows than the busy child"
cap | grep -q "^│ *$YES .*busychild" || fail "the filter hid the busy child"
keys Escape

keys t F3 t r e e _ p a r e n t Enter c
wait_for 'tree_parent\.sh' 5 || fail "the search did not find the parent shell"
cap | grep -A1 'tree_parent\.sh' | grep -q "^│ *$YES .*└─ .*busychild" ||
	fail "the tree does not show the busy child under its parent shell"

keys Down k
wait_for "Send signal to $YES" 5 || fail "k did not offer the signals for $YES"
cap | grep -q 'SIGTERM.*default' || fail "SIGTERM is not the default"
keys Enter
wait_for "Send SIGTERM to $YES" 5 || fail "no confirmation before sending"
keys y
wait_for "sent SIGTERM to $YES" 5 || fail "SIGTERM was not sent"
i=0
while ! [ -s "$TDIR/yes.exit" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ "$(cat "$TDIR/yes.exit" 2>/dev/null)" = 143 ] ||
	fail "yes did not end by SIGTERM (exit '$(cat "$TDIR/yes.exit" 2>/dev/null)')"
quit_ok "live process table"
echo "PASS: the process table on this machine"
