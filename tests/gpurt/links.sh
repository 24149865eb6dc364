#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root probes serial
# How the probes are linked, and what removing them costs: system-wide
# `asys record` beside a workload of the fake runtime, once as asys chooses
# and once with ASYS_UPROBE_MULTI=0. Where the kernel has uprobe-multi
# links, the first holds one link a program and file (at most 6 on a
# library) where the second holds one perf-event uprobe a probe, both put
# the same uprobes on each library, the stats file counts the same probes,
# and the first ends in less than half the time: each perf-event uprobe
# waits for grace periods of its own as it goes (about 2 s for these 35 on
# a 2-vCPU VM, against 0.1 s). A third run adds, with --hggc-probe-file, a
# probe on a function the kernel cannot probe to a group of 4: that group's
# link fails whole, its probes then go one by one, and every other probe is
# attached as in the first run.
. "$top_srcdir/tests/gpurt/lib.sh"
gpurt_need_bpf
gpurt_kernel_multi || { echo "SKIP: the kernel has no uprobe-multi links (before 6.6)"; exit 77; }
gpurt_kernel_multi_fdinfo ||
	{ echo "SKIP: the kernel's fdinfo does not describe uprobe-multi links (before about 6.17)"; exit 77; }
T=$(mktemp -d /tmp/gpurt-links.XXXXXX)
P= R=
cleanup() {
	touch "$T/go" "$T/e"
	for p in $P $R; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "$KEEP" ] || rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
wait_for() { i=0; while [ ! -e "$1" ]; do i=$((i+1)); [ $i -gt 2000 ] && fail "no $1"; sleep 0.01; done; }
libs=$(cd "$FAKE_CUDA_DIR" && pwd -P) || fail "no $FAKE_CUDA_DIR"

"$GPURT_WORKLOAD" --scale 1 --ready-file "$T/r" --go-file "$T/go" --done-file "$T/d" \
	--end-file "$T/e" &
P=$!
wait_for "$T/r"

# one run, named $1 (rn: the helpers set n), asys record's further options
# after it: the uprobes on each fake library ($T/$1.up), the links on
# libcudart.so ($T/$1.links), the stats and the ms from SIGTERM to the exit
# ($T/$1.ms)
run() {
	rn=$1
	shift
	: >"$T/$rn.st"
	ASYS_GPURT_STATS="$T/$rn.st" "$ASYS" record -s system-wide -d 0.5 -o "$T/$rn.asys" "$@" \
		2>"$T/$rn.err" &
	R=$!
	gpurt_wait_attached "$R" || { cat "$T/$rn.err"; fail "($rn) asys record did not attach"; }
	why=$(gpurt_check_link_kind "$R") || fail "($rn) $why"
	gpurt_uprobes "$R" | grep -F "$libs/" | sort | uniq -c >"$T/$rn.up"
	nmulti=$(cat /proc/"$R"/fdinfo/* 2>/dev/null | awk -v l="$libs/libcudart.so" '
		/^pos:/ { t = "" } /^link_type:/ { t = $2 }
		/^path:/ && t ~ /^u(ret)?probe_multi$/ && $2 == l { k++ } END { print k + 0 }')
	nperf=$(grep -F "$libs/libcudart.so " "$T/$rn.up" | awk '{ print $1 }')
	if [ "$rn" = perf ]; then echo "$nperf" >"$T/$rn.links"; else echo "$nmulti" >"$T/$rn.links"; fi
	t0=$(date +%s%N)
	kill -TERM "$R"
	wait "$R" || { cat "$T/$rn.err"; fail "($rn) asys record failed"; }
	t1=$(date +%s%N)
	R=
	echo $(((t1 - t0) / 1000000)) >"$T/$rn.ms"
}
run multi
ASYS_UPROBE_MULTI=0 run perf

st_of() { awk -v k="$2" '$1 == k { print $2 }' "$T/$1.st"; }
[ "$(st_of multi uprobe_multi)" = 1 ] || fail "the stats of the first run say uprobe_multi '$(st_of multi uprobe_multi)'"
[ "$(st_of perf uprobe_multi)" = 0 ] || fail "the stats of the second run say uprobe_multi '$(st_of perf uprobe_multi)'"
np=$(st_of multi probes)
[ "$np" -gt 0 ] && [ "$np" = "$(st_of perf probes)" ] ||
	fail "probes attached: $np with uprobe-multi links, $(st_of perf probes) without"
[ "$(st_of multi links)" -lt "$np" ] || fail "$(st_of multi links) uprobe-multi links for $np probes"
[ "$(st_of perf links)" -gt "$np" ] || fail "$(st_of perf links) perf-event links for $np probes"
cmp -s "$T/multi.up" "$T/perf.up" || {
	echo "uprobe-multi:"; cat "$T/multi.up"; echo "perf-event:"; cat "$T/perf.up"
	fail "the two runs put different uprobes on the fake runtime"
}
lm=$(cat "$T/multi.links") lp=$(cat "$T/perf.links")
[ "$lm" -ge 1 ] && [ "$lm" -le 6 ] || fail "$lm uprobe-multi links on libcudart.so, want 1 to 6"
[ "$lp" -gt "$lm" ] || fail "$lp perf-event uprobes on libcudart.so, $lm uprobe-multi links"
tm=$(cat "$T/multi.ms") tp=$(cat "$T/perf.ms")
echo "ending: $tm ms with $(st_of multi links) uprobe-multi links, $tp ms with $(st_of perf links) perf-event uprobes ($np probes)"
[ $((tm * 2)) -lt "$tp" ] || fail "ending took $tm ms with uprobe-multi links and $tp ms without"
echo "ok 1: $lm uprobe-multi links on libcudart.so for $lp uprobes; the same $np probes both ways"

if ! nm -D "$libs/libcudart.so" | grep -q ' T fake_unprobeable$'; then
	echo "SKIP 2: the fake runtime has no unprobeable function on this architecture"
	exit 0
fi
echo "libcudart.so* fake_unprobeable dev-free 1" >"$T/probes"
run bad --hggc-probe-file "$T/probes"
[ "$(st_of bad probes)" = "$np" ] ||
	fail "$(st_of bad probes) probes attached with the unprobeable one, want the other $np"
cmp -s "$T/multi.up" "$T/bad.up" || {
	echo "first run:"; cat "$T/multi.up"; echo "with the unprobeable one:"; cat "$T/bad.up"
	fail "a probe the kernel refused changed the uprobes of the others"
}
lb=$(cat "$T/bad.links")
[ "$lb" -gt "$lm" ] || fail "$lb links on libcudart.so: the failed group did not go one by one"
echo "ok 2: an unprobeable function costs only its own probe ($lb links on libcudart.so)"
