#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root probes serial
# Short jobs recorded with `asys record -- cmd`, the runtime loaded with
# dlopen by full path from a directory no search names (so not attached
# before the command runs):
#  1. a job shorter than one refresh: asys never reads its counts while it
#     lives, yet every kernel keeps its demangled name (the stub's file and
#     offset travel in the exit record; the file's path was noted when the
#     job loaded the runtime). It sleeps 0.3 s after loading the runtime, so
#     that noting is not a race, then launches and exits 1 ms after its last
#     launch, well before the first refresh at 2 s reads anything;
#  2. a job that launches at once, 1,000 a second for 3 s: the loader hook
#     has the probes in place within milliseconds (2 to 4 ms on a loaded
#     2-vCPU VM). The check allows 1.5 s (1,500 launches), for a sanitizer
#     build on a machine loaded far beyond its cores; the 2 s scan alone
#     would lose 2,000.
. "$top_srcdir/tests/gpurt/lib.sh"
gpurt_need_bpf
T=$(mktemp -d /tmp/gpurt-short.XXXXXX)
trap '[ -n "$KEEP" ] || rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
D=$(cd "$FAKE_CUDA_DIR" && pwd -P) || fail "no $FAKE_CUDA_DIR"
env -u LD_LIBRARY_PATH timeout 120 "$ASYS" record -t hggc -d 2 -o "$T/x.asys" \
	--workload-log "$T/w.log" -- "$GPURT_WORKLOAD" --lib-dir "$D" --sleep 0.3 --scale 1 \
	--hold 0.001 2>"$T/err" || { cat "$T/err"; fail "asys record failed"; }
"$ASYS" export --streams gpurt.kernels -o "$T/x.csv" "$T/x.asys" || fail "asys export failed"
# a kernel row ends with its pid and name (quoted when it holds a comma);
# its field and value are the 6th and 8th columns
for kn in "mykern::saxpy(float, float*, float*, int):100" "void reduce<float>(float*, int):50" \
	"vecadd(int const*, int const*, int*, int):25" "handle_kernel(float*):7" "lib_kernel_b:3"; do
	name=${kn%:*} n=${kn##*:}
	got=$(awk -F, -v a=",\"$name\"" -v b=",$name" '{ l = $0; sub(/,[^,]*$/, "", l) } $6 == "launches" &&
		(substr(l, length(l) - length(a) + 1) == a ||
		 substr(l, length(l) - length(b) + 1) == b) { v = $8 } END { print v }' "$T/x.csv")
	[ "$got" = "$n" ] || { cat "$T/x.csv"; fail "'$name': '$got' launches, want $n"; }
done
echo "ok 1: a job shorter than a refresh keeps its kernels' names and counts"

env -u LD_LIBRARY_PATH timeout 120 "$ASYS" record -t hggc -d 2 -o "$T/y.asys" \
	--workload-log "$T/y.log" -- "$GPURT_WORKLOAD" --lib-dir "$D" --rate 1000 --seconds 3 \
	--hold 0.001 2>"$T/err" || { cat "$T/err"; fail "asys record (2) failed"; }
own=$(awk '/^launches / { n = $2 } END { print n + 0 }' "$T/y.log")
got=$("$ASYS" export --streams gpurt.kernels "$T/y.asys" |
	awk -F, '$6 == "launches" { v[$4] = $8 } END { for (e in v) s += v[e]; print s + 0 }')
[ "$own" -ge 2500 ] || fail "(2) the workload made $own launches"
[ "$got" -le "$own" ] && [ $((own - got)) -le 1500 ] ||
	fail "(2) $got of $own launches recorded: the probes came over 1.5 s after the dlopen"
echo "ok 2: launching right after a dlopen by full path: $got of $own recorded"
