#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# Hostile recordings (tests/data/forged, made by tests/rec/rec_forge: valid
# CRCs, lies inside): every command that reads them stays within a memory
# and a time bound, prints no raw control characters, writes CSV with the
# right number of columns and JSON that parses, refuses times it cannot
# represent, and `asys replay` answers keys and quits with q at once.
. "$top_srcdir/tests/lib.sh"
work=$(mktemp -d)
sock=$work/sock
tmux=${TMUX_BIN:-tmux}
T() { "$tmux" -S "$sock" "$@"; }
trap 'T kill-server 2>/dev/null; rm -rf "$work"' EXIT
data=$top_srcdir/tests/data/forged
forge=$top_builddir/tests/rec/rec_forge
[ -x "$forge" ] || skip "no $forge (make check builds it)"

# Sanitizers add shadow memory and slow everything: RSS is not checked and
# the time limits stretch.
slow=1
asan=false
if grep -q __asan_init "$ASYS" 2>/dev/null; then
	asan=true
	slow=5
fi
mib=1048576
tm=
[ -x /usr/bin/time ] && tm=/usr/bin/time
[ -n "$tm" ] || echo "note: /usr/bin/time is missing: memory is not checked"

# The generator still writes what is checked in. A newer libzstd may
# compress the frames differently: then only a note. The 64-byte file header
# holds no compressed bytes, so a difference there means the writer's format
# moved on and the corpus tests an older one.
for f in "$data"/*.asys; do
	n=$(basename "$f" .asys)
	"$forge" "$n" "$work/$n.asys" || fail "rec_forge $n"
	if ! cmp -s -n 64 "$f" "$work/$n.asys"; then
		fail "rec_forge $n writes another file header than $f: regenerate tests/data/forged"
	elif ! cmp -s "$f" "$work/$n.asys"; then
		echo "note: rec_forge $n differs from $f after its header (another libzstd?)"
	fi
done
[ "$(ls "$data"/*.asys | wc -l)" -eq "$("$forge" --list | wc -l)" ] ||
	fail "tests/data/forged and rec_forge --list disagree"

# run LIMIT_MIB SECONDS cmd...: exit < 128, peak RSS and elapsed time bounded
run() {
	lim=$1 secs=$(($2 * slow))
	shift 2
	if [ -n "$tm" ]; then
		timeout "$secs" "$tm" -f '%M %e' -o "$work/tm" "$@" >"$work/out" 2>"$work/err"
	else
		timeout "$secs" "$@" >"$work/out" 2>"$work/err"
	fi
	rc=$?
	[ $rc -eq 124 ] && { fail "$*: still running after $secs s"; return 1; }
	[ $rc -ge 128 ] && { fail "$*: crashed (status $rc): $(tail -3 "$work/err")"; return 1; }
	if [ -n "$tm" ] && ! $asan; then
		kib=$(tail -1 "$work/tm" | cut -d' ' -f1)
		[ "$kib" -le $((lim * 1024)) ] || fail "$*: peak RSS $((kib / 1024)) MiB > $lim MiB"
	fi
	echo "$(basename "$f") $(echo "$*" | cut -d' ' -f2-3 | cut -d/ -f1): $(tail -1 "$work/tm" 2>/dev/null) (KiB s) rc=$rc"
	return 0
}

esc=$(printf '\033')
# inert FILE...: no terminal control in the files: no C0 but tab and
# newline, no DEL, C1 (U+0080..U+009F), bidi control, or byte that is not
# UTF-8 (a terminal in UTF-8 mode takes U+009B as CSI). Prints the first.
inert() {
	command -v python3 >/dev/null || return 0
	python3 -c '
import sys
bidi = {0x61c, 0x200e, 0x200f} | set(range(0x202a, 0x202f)) | set(range(0x2066, 0x206a))
for path in sys.argv[1:]:
    t = open(path, "rb").read().decode("utf-8", "surrogateescape")
    for i, ch in enumerate(t):
        c = ord(ch)
        if (c < 0x20 and ch not in "\t\n") or 0x7f <= c < 0xa0 or c in bidi or 0xdc80 <= c <= 0xdcff:
            sys.exit("%s: raw U+%04X at %d: %r" % (path, c, i, t[max(0, i - 20):i + 20]))
' "$@"
}
for f in "$data"/*.asys; do
	size=$(wc -c <"$f")
	lim=$((64 + size / mib + 1))
	for cmd in "replay --info" "export" "export --format json" "export --summary"; do
		# shellcheck disable=SC2086
		run $lim 20 "$ASYS" $cmd "$f" || continue
		[ $rc -le 2 ] || fail "$cmd $f: exit $rc"
		case $cmd in
		"replay --info" | "export --summary")
			# what a terminal shows: no escape sequences from the file
			grep -q "$esc" "$work/out" "$work/err" && fail "$cmd $f: raw ESC in the output"
			;;
		esac
		# every output of the file with names of controls is inert
		case $f in
		*/control-chars.asys) inert "$work/out" "$work/err" || fail "$cmd $f: raw control" ;;
		esac
		grep -q "$esc" "$work/err" && fail "$cmd $f: raw ESC on stderr"
		pass
	done
done

# Merged with a good file (a k-way merge by time): still bounded, the
# reorder buffer (4 MiB, and up to three times that while it is compacted) on top
good=$top_srcdir/tests/data/good.asys
for f in "$data"/*.asys; do
	size=$(wc -c <"$f")
	lim=$((96 + size / mib + 1))
	for cmd in "export" "export --summary"; do
		# shellcheck disable=SC2086
		run $lim 20 "$ASYS" $cmd "$f" "$good" || continue
		[ $rc -le 2 ] || fail "$cmd $f $good: exit $rc"
		grep -q "$esc" "$work/err" && fail "$cmd $f $good: raw ESC on stderr"
		pass
	done
done

# Many files at once share one file's bounds: 32 links to the file of a
# million entities (at most 32 files are read together) stay within what
# one of them may use, and within its time, not 32 times either.
mkdir "$work/many"
for k in $(seq 1 32); do ln -s "$data/entities-1000000.asys" "$work/many/e$k.asys"; done
f=$work/many/32-links-to-entities-1000000
for cmd in "export" "export --summary"; do
	# shellcheck disable=SC2086
	run 96 20 "$ASYS" $cmd "$work"/many/e*.asys || continue
	[ $rc -le 2 ] || fail "$cmd of 32 files: exit $rc"
	pass
done

# CSV: every row has the header's 11 columns, whatever the names hold;
# JSON: every line parses.
if command -v python3 >/dev/null; then
	"$ASYS" export "$data/control-chars.asys" >"$work/c.csv" || fail "export control-chars"
	python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
bad = [len(r) for r in rows if len(r) != 11]
sys.exit("rows of %s columns" % bad if bad or len(rows) < 3 else 0)
' "$work/c.csv" || fail "CSV columns: $(head -3 "$work/c.csv")"
	python3 -c '
import csv, sys
r = list(csv.reader(open(sys.argv[1], newline="")))[1]
want = r"\e[2J\e]0;pwned\x07\xC2\x9B2J\xC2\x9D0;t\u202Er\u2066\u061C\u200F\xFF\xC3z,\"q\"\nx\r "
want = want.replace("\\\"", "\"")
# a unit is at most 32 bytes (REC_FIELD_UNIT_MAX)
unit = r"un\e[2J\e]0;pwned\x07\xC2\x9B2J\xC2\x9D0;t\u202Er\u2066"
sys.exit(0 if r[2] == "st" + want and r[4] == "la" + want and r[6] == unit else "got %r" % r)
' "$work/c.csv" || fail "CSV does not give the names back escaped"
	"$ASYS" export --format json "$data/control-chars.asys" >"$work/c.json" || fail "json"
	python3 -c '
import json, sys
n = sum(1 for l in open(sys.argv[1]) if json.loads(l))
sys.exit(0 if n == 2 else "%d objects" % n)
' "$work/c.json" || fail "JSON lines do not parse: $(head -2 "$work/c.json")"
	inert "$work/c.csv" "$work/c.json" || fail "CSV or JSON carries a raw control"
	pass
else
	echo "note: python3 is missing: CSV and JSON are not parsed"
fi

# Times: out of range exits 2 with the range; past the end, no rows.
for b in '2300-01-01 00:00:00' '+1e300s' '-1e300s' '+99999999h'; do
	"$ASYS" export --begin "$b" "$good" >"$work/out" 2>"$work/err"
	rc=$?
	[ $rc -eq 2 ] || fail "--begin '$b': exit $rc, want 2"
	grep -q "out of range: asys takes times from 1970-01-01 00:00:00 to 2262-04-11" \
		"$work/err" || fail "--begin '$b': $(cat "$work/err")"
	[ "$(wc -l <"$work/out")" -le 1 ] || fail "--begin '$b' wrote rows"
	pass
done
"$ASYS" export --begin '12:00:00.9e99' "$good" >/dev/null 2>&1
[ $? -eq 2 ] || fail "--begin 12:00:00.9e99 accepted"
"$ASYS" export --begin +100d "$good" >"$work/out" 2>"$work/err" || fail "+100d: exit $?"
[ "$(wc -l <"$work/out")" -eq 1 ] || fail "--begin +100d wrote rows: $(sed -n 2p "$work/out")"
grep -q "begin is after the recording's end" "$work/err" || fail "+100d: $(cat "$work/err")"
"$ASYS" export "$data/origin-int64max.asys" >"$work/out" 2>&1 || fail "origin INT64_MAX"
grep -q ',+9223372037.854775807s,' "$work/out" || fail "no dateless time: $(cat "$work/out")"
pass

# Replay in tmux: the header comes, ] doubles the speed within a second, q quits
# within a second (longer under sanitizers), and memory stays bounded.
if ! command -v "$tmux" >/dev/null; then
	echo "note: tmux is missing: replay is not checked"
	finish
	exit
fi
screen() { T capture-pane -t s -p 2>/dev/null; }
kill_tree() { # kill_tree PID: the processes under PID, then PID
	[ -n "$1" ] || return 0
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		kill_tree "$c"
	done
	kill -9 "$1" 2>/dev/null
}
wait_for() { # wait_for TEXT TENTHS
	i=0
	while ! screen | grep -qF -- "$1"; do
		i=$((i + 1))
		[ $i -gt "$2" ] && return 1
		sleep 0.1
	done
}
for f in "$data"/*.asys; do
	n=$(basename "$f")
	rm -f "$work/rc" "$work/tm"
	# a server of its own for each file: a new session on a server that is
	# still going away fails ("server exited unexpectedly")
	T kill-server 2>/dev/null
	sock="$work/tmux.$n"
	T new-session -d -s s -x 150 -y 40 "LANG=C.UTF-8 ${tm:+$tm -f '%M %e' -o '$work/tm'} \
'$ASYS' replay -d 0.5 '$f' 2>'$work/err'; echo \$? >'$work/rc'; sleep 30" ||
		{ fail "$n: tmux"; continue; }
	wait_for REPLAY $((200 * slow)) || { fail "$n: no replay header: $(screen | head -2)"; continue; }
	sleep 0.5 # let it chew on the file
	# 10 s forward and back: near 2^63 ns that must not wrap
	T send-keys -t s S-Right S-Left S-Right
	T send-keys -t s ']'
	wait_for " x2 " $((10 * slow)) || fail "$n: ] did not double the speed within $slow s"
	T send-keys -t s q
	i=0
	while [ ! -s "$work/rc" ] && [ $i -lt $((20 * slow)) ]; do
		sleep 0.05
		i=$((i + 1))
	done
	if ! [ -s "$work/rc" ]; then
		fail "$n: q did not quit within $slow s"
		# a replay that ignores q may ignore the hangup too: end it by its pid
		kill_tree "$(T list-panes -t s -F '#{pane_pid}' 2>/dev/null)"
		continue
	fi
	[ "$(cat "$work/rc")" -eq 0 ] || fail "$n: replay exited $(cat "$work/rc"): $(cat "$work/err")"
	if [ -n "$tm" ] && ! $asan; then
		kib=$(tail -1 "$work/tm" | cut -d' ' -f1)
		# the replay ring (16 MiB) and the TUI on top of what export needs
		lim=$((96 + $(wc -c <"$f") / mib + 1))
		[ "$kib" -le $((lim * 1024)) ] || fail "$n: replay peak RSS $((kib / 1024)) MiB > $lim MiB"
	fi
	echo "$n replay: $(tail -1 "$work/tm" 2>/dev/null) (KiB s), q answered in $((i * 50)) ms"
	pass
done

# Several hosts whose clock origins and times lie at the ends of 64 bits:
# switching host (a wall time that saturates) answers, and q quits
rm -f "$work/rc"
T kill-server 2>/dev/null
sock="$work/tmux.hosts"
T new-session -d -s s -x 150 -y 40 "LANG=C.UTF-8 '$ASYS' replay -d 0.5 '$data/origin-int64max.asys' \
'$data/origin-int64min.asys' '$data/times-int64max.asys' '$top_srcdir/tests/data/good.asys' \
2>'$work/err'; echo \$? >'$work/rc'; sleep 30" || fail "hosts: tmux"
wait_for '[1/4] REPLAY' $((200 * slow)) || fail "hosts: no replay header: $(screen | head -2)"
# 1 2 3 4 1 4 3, space (play from its data if away), 4
for k in '}' '}' '}' '}' '{' '{' ' ' '}'; do
	T send-keys -t s "$k"
	sleep 0.2
done
wait_for '[4/4]' $((20 * slow)) || fail "hosts: } and { did not land on host 4: $(screen | head -1)"
T send-keys -t s q
i=0
while [ ! -s "$work/rc" ] && [ $i -lt $((20 * slow)) ]; do
	sleep 0.05
	i=$((i + 1))
done
[ "$(cat "$work/rc" 2>/dev/null)" = 0 ] || fail "hosts: replay exited '$(cat "$work/rc" 2>/dev/null)': $(cat "$work/err")"
pass
finish
