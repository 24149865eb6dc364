#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux serial
# A hostile job against asys's side of the region it shares (hostile_prog
# writes the region through ASYS_INJECT_FD as any process of a job could):
#  - it shrinks and grows the region, itself and from a child running as
#    nobody: every try is refused, `asys record` exits 0 with a complete
#    recording, and `asys top` stays up in tmux and quits with 0;
#  - it renames every range of 64 processes at each of asys's reads: the
#    host's cpu.core and nic.link keep all their samples, and what was lost
#    is said by stream, hgtx.ranges;
#  - 140 short-lived processes with 511 ranges each (71540 in all, more than
#    the 65536 asys tracks at once): the last process's range still arrives.
# shellcheck source=tests/lib.sh
. "$top_srcdir/tests/lib.sh"
HOSTILE="$top_builddir/tests/inject/hostile_prog"
[ -x "$HOSTILE" ] || fail "no $HOSTILE (make check builds it)"
T=$(mktemp -d "${TMPDIR:-/tmp}/asys-hostile.XXXXXX") || exit 1
trap '[ -n "$KEEP" ] || rm -rf "$T"' EXIT

# --- the region truncated -----------------------------------------------
"$ASYS" record -d 0.2 -o "$T/t.asys" --workload-log "$T/t.log" -- "$HOSTILE" truncate 1.5 \
	>"$T/t.out" 2>&1
rc=$?
[ "$rc" = 0 ] && pass || fail "asys record exited $rc after the job truncated the region: $(cat "$T/t.out")"
n=$(grep -c '^TRUNC ' "$T/t.log")
[ "$n" -ge 6 ] && pass || fail "the job tried $n truncations: $(cat "$T/t.log")"
grep '^TRUNC ' "$T/t.log" | grep -v 'rc=-1 errno=1$' && fail "a truncation went through"
if [ "$(id -u)" = 0 ]; then
	grep -q '^TRUNC who=nobody' "$T/t.log" && pass || fail "no try as nobody: $(cat "$T/t.log")"
fi
"$ASYS" export --summary "$T/t.asys" >"$T/t.sum" 2>&1
grep -q '^file: .*complete)' "$T/t.sum" && pass || fail "the recording is not complete: $(head -3 "$T/t.sum")"

# --- the HGTX section flooded -------------------------------------------
# cpu.core and nic.link run at the refresh (2 Hz): every tick of each entity
# from the first to the last must be there.
"$ASYS" record -d 0.5 -o "$T/f.asys" --workload-log "$T/f.log" -- "$HOSTILE" flood 6 \
	>"$T/f.out" 2>&1 || fail "asys record of the flood failed: $(cat "$T/f.out")"
grep -q '^FLOOD rounds=' "$T/f.log" || fail "the flood did not run: $(cat "$T/f.log")"
"$ASYS" export --streams cpu.core,nic.link "$T/f.asys" >"$T/f.csv" || fail "export failed"
# per entity: samples kept against the ticks between its first and last
awk -F, 'NR > 1 && ($6 == "user" || $6 == "rx_bytes") {
		k = $3 " " $4; n[k]++; if (!(k in lo) || $1 < lo[k]) lo[k] = $1; if ($1 > hi[k]) hi[k] = $1 }
	END { for (k in n) printf "%s %d %d\n", k, n[k], int((hi[k] - lo[k]) / 5e8 + 0.5) + 1 }' \
	"$T/f.csv" >"$T/f.counts"
grep -q '^cpu.core ' "$T/f.counts" && pass || fail "no cpu.core samples: $(cat "$T/f.out")"
while read -r stream ent kept want; do
	[ "$want" -ge 10 ] && [ "$kept" -ge $((want - 1)) ] && pass ||
		fail "$stream entity $ent kept $kept of $want samples during the flood"
done <"$T/f.counts"
# a loss is said by stream, and none is the host's
if grep -q 'lost to a full ring' "$T/f.out"; then
	grep 'lost to a full ring' "$T/f.out" | grep -q 'hgtx\.ranges [0-9]' && pass ||
		fail "the loss does not name hgtx.ranges: $(grep 'lost' "$T/f.out")"
	grep 'lost to a full ring' "$T/f.out" | grep -Eq '(cpu\.core|nic\.link) [0-9]' &&
		fail "host samples lost: $(grep 'lost' "$T/f.out")"
fi

# --- many short-lived processes -----------------------------------------
"$ASYS" record -d 0.1 -o "$T/p.asys" --workload-log "$T/p.log" -- "$HOSTILE" procs 140 8 \
	>"$T/p.out" 2>&1 || fail "asys record of the processes failed: $(cat "$T/p.out")"
last=$(sed -n 's/^LAST pid=//p' "$T/p.log")
[ -n "$last" ] && grep -q '^PROCS 140' "$T/p.log" || fail "the processes did not all run: $(tail -3 "$T/p.log")"
"$ASYS" export --streams hgtx.ranges "$T/p.asys" >"$T/p.csv" || fail "export failed"
awk -F, -v pid="$last" 'NR > 1 && $5 ~ /last_1$/ && $6 == "pid" && $8 == pid { f = 1 }
	END { exit !f }' "$T/p.csv" && pass ||
	fail "the range of the last process ($last) is missing after 140 processes: $(cat "$T/p.out")"

# --- asys top, the region truncated under it ----------------------------
# shellcheck source=tests/tui/tmux_lib.sh
. "$top_srcdir/tests/tui/tmux_lib.sh"
trap 'tui_cleanup; rm -rf "$T"' EXIT
tui_start 80 24 -- -d 0.2 --workload-log "$TDIR/job.log" -- "$HOSTILE" truncate 3
i=0
while ! grep -q 'TRUNC who=' "$TDIR/job.log" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
grep -q 'TRUNC who=' "$TDIR/job.log" || fail "the job did not run under asys top"
# asys reads the region at every refresh while the job runs on
i=0
while ! grep -q '^DONE' "$TDIR/job.log" 2>/dev/null && [ $i -lt 100 ] && ! [ -s "$TDIR/exit" ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -s "$TDIR/exit" ] && fail "asys top exited: $(cat "$TDIR/exit")"
grep -q '^DONE' "$TDIR/job.log" || fail "the job did not end"
wait_for 'asys top' 5 || fail "asys top no longer draws"
quit_ok "the region truncated"
finish
