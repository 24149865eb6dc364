#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root probes
# The system-wide discovery reads again only the processes no event can
# report: with the scan's period cut to 1 s (ASYS_GPURT_RESCAN_MS, for
# tests), `asys record -s system-wide` for 6 s beside a program linked
# statically and a dynamic one, from the counters asys writes to
# ASYS_GPURT_STATS at exit:
#  - the static program is read at every scan after its first
#    (maps_reads_again at least the scans less two);
#  - a process whose dynamic loader has the hook, or that maps no file (a
#    kernel thread), is not read again: the reads again stay within what the
#    processes without a hooked loader, counted here from /proc, can make
#    (with the period not cut, each would be read every 30 s);
#  - no report was lost (events_lost 0).
. "$top_srcdir/tests/gpurt/lib.sh"
gpurt_need_bpf
T=$(mktemp -d /tmp/gpurt-rescan.XXXXXX)
S= D=
cleanup() {
	for p in $S $D; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
stat_of() { awk -v k="$1" '$1 == k { print $2 }' "$T/stats"; }

printf '#include <unistd.h>\nint main(void) { pause(); return 0; }\n' >"$T/st.c"
"${CC:-cc}" -static -O1 -o "$T/static" "$T/st.c" 2>"$T/cc.err" ||
	{ echo "SKIP: cannot link a static program here: $(head -n 1 "$T/cc.err")"; exit 77; }
"$T/static" &
S=$!
sleep 60 &
D=$!
# the processes whose maps name a file but no dynamic loader: the scan
# keeps reading those (a kernel thread's maps are empty)
unhooked=0
for m in /proc/[0-9]*/maps; do
	grep -q / "$m" 2>/dev/null || continue
	grep -qE '/ld-(linux|musl)[^/]*$' "$m" || unhooked=$((unhooked + 1))
done
echo "processes without a dynamic loader: $unhooked"

: >"$T/stats"
chmod 600 "$T/stats"
ASYS_GPURT_RESCAN_MS=1000 ASYS_GPURT_STATS="$T/stats" "$ASYS" record -s system-wide -d 0.5 \
	-t hggc -o "$T/x.asys" --duration 6s 2>"$T/rec.err" || { cat "$T/rec.err"; fail "asys record failed"; }
cat "$T/stats"
scans=$(stat_of scans)
again=$(stat_of maps_reads_again)
first=$(stat_of maps_reads_first_scan)
[ -n "$scans" ] && [ -n "$again" ] || fail "no counters in ASYS_GPURT_STATS"
[ "$scans" -ge 4 ] || fail "$scans scans in 6 s with a 1 s period"
[ "$again" -ge $((scans - 2)) ] ||
	fail "the static program was not read at each scan: $again reads again in $scans scans"
# each scan after the first may read each process without a hooked loader,
# and one newcomer of the test's own
[ "$again" -le $((scans * (unhooked + 1))) ] ||
	fail "$again reads again in $scans scans, of $first processes: more than the $unhooked without a hooked loader"
[ "$(stat_of events_lost)" = 0 ] || fail "reports lost: $(stat_of events_lost)"
echo "PASS: $again reads again in $scans scans of $first processes"
