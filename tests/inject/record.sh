#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# A real program annotated with the toolkit's NVTX v3 headers, recorded by
# `asys record -- prog`: the export holds every range with the program's
# exact counts, total and self times within 10 % of the program's own clock,
# the nesting depth, the domain of the registered string and its colour; a
# replay knows the stream. Then a user's own NVTX_INJECTION64_PATH is left
# alone and asys says so, and a missing library is explained.
# shellcheck source=tests/lib.sh
. "$top_srcdir/tests/lib.sh"
# shellcheck source=tests/inject/lib.sh
. "$top_srcdir/tests/inject/lib.sh"
inject_need

T=$(mktemp -d "${TMPDIR:-/tmp}/asys-inject.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
inject_build_prog "$T"
US=$(printf '\037')

ASYS_INJECT_LIB="$INJECT_LIB" "$ASYS" record -d 0.5 -o "$T/r.asys" --workload-log "$T/prog.log" \
	-- "$T/nvtx_prog" 1000 >"$T/rec.out" 2>&1 || fail "asys record failed: $(cat "$T/rec.out")"
"$ASYS" export --streams hgtx.ranges "$T/r.asys" >"$T/r.csv" || fail "export failed"
grep -q '^PROG ' "$T/prog.log" || fail "the program printed no figures: $(cat "$T/prog.log")"

# label name in the export, the program's name for it
for pair in "${US}Loop:Loop" "${US}DoProcess:DoProcess" "asys-test${US}Registered:asys-test/Registered" \
	"${US}Phase:Phase"; do
	lab=${pair%%:*}
	name=${pair#*:}
	line=$(grep "^PROG name=$name " "$T/prog.log")
	want_n=$(echo "$line" | sed 's/.* count=\([0-9]*\).*/\1/')
	want_t=$(echo "$line" | sed 's/.* total_ns=\([0-9]*\).*/\1/')
	want_s=$(echo "$line" | sed 's/.* self_ns=\([0-9]*\).*/\1/')
	want_d=$(echo "$line" | sed 's/.* depth=\([0-9]*\).*/\1/')
	n=$(last_value "$T/r.csv" "$lab" count)
	t=$(last_value "$T/r.csv" "$lab" total_ns)
	s=$(last_value "$T/r.csv" "$lab" self_ns)
	d=$(last_value "$T/r.csv" "$lab" depth)
	[ "$n" = "$want_n" ] && pass || fail "$name: count $n, the program ended $want_n"
	within "$t" "$want_t" 10 && pass || fail "$name: total $t ns, the program measured $want_t"
	within "$s" "$want_s" 10 && pass || fail "$name: self $s ns, the program measured $want_s"
	[ "$d" = "$want_d" ] && pass || fail "$name: depth $d, expected $want_d"
done
# the colour of the registered string's range: 0xff3366cc -> 0x3366cc
c=$(last_value "$T/r.csv" "asys-test${US}Registered" color)
[ "$c" = 3368652 ] && pass || fail "colour $c, expected 3368652 (0x3366cc)"
# the ranges of a process that ended are gone in a replay, but the stream is there
"$ASYS" replay --info "$T/r.asys" | grep -Eq 'hgtx\.ranges +v1 +8 fields +4 series' && pass ||
	fail "replay --info: $("$ASYS" replay --info "$T/r.asys" | grep hgtx)"

# the user's own tool stays, and asys says so
NVTX_INJECTION64_PATH=/opt/their/libtool.so ASYS_INJECT_LIB="$INJECT_LIB" "$ASYS" record -d 0.5 \
	-o "$T/u.asys" --workload-log "$T/u.log" -- sh -c 'echo "NV=$NVTX_INJECTION64_PATH"' \
	>"$T/u.out" 2>&1 || fail "record with the user's variable failed"
grep -q 'NV=/opt/their/libtool.so' "$T/u.log" && pass || fail "the workload saw $(cat "$T/u.log")"
grep -q 'NVTX_INJECTION64_PATH is already set to /opt/their/libtool.so: asys leaves it' "$T/u.out" &&
	pass || fail "no word of the user's variable: $(cat "$T/u.out")"

# without the library: no variable, and how to install it
ASYS_INJECT_LIB=/nonexistent/libasys-inject.so "$ASYS" record -d 0.5 -o "$T/m.asys" \
	--workload-log "$T/m.log" -- sh -c 'echo "NV=${NVTX_INJECTION64_PATH-unset} FD=$ASYS_INJECT_FD"' \
	>"$T/m.out" 2>&1 || fail "record without the library failed"
grep -q 'NV=unset FD=[0-9]' "$T/m.log" && pass || fail "the workload saw $(cat "$T/m.log")"
grep -q "libasys-inject.so is not installed .*make install" "$T/m.out" && pass ||
	fail "no word of the missing library: $(cat "$T/m.out")"
finish
