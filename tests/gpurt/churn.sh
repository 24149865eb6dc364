#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root probes serial
# Process churn costs the discovery nothing, system-wide (`asys record -s
# system-wide`, the scope of `asys top` at its defaults), from the counters
# asys writes to ASYS_GPURT_STATS at exit:
#  - 200 short-lived dynamic programs (/bin/true) and 20 that live 3 s
#    (`sleep 3`, across the discovery's periodic scan) wake it for none:
#    the loader hook reports fewer than 40 processes (it reported each start
#    twice before it looked at the list itself: 440 here), and no scan after
#    the first reads a maps file (a process is read by the scan only once it
#    is 30 s old; the run is shorter, checked);
#  - a process that then dlopens a copy of the fake runtime (files no
#    probe is attached to yet) by full path is still caught by the hook: it
#    sleeps 1 s after the dlopen (attaching takes long on a loaded
#    machine), then every launch is counted exactly;
#  - the same under a copy of the dynamic loader run as the program
#    (`ld.so WORKLOAD`, a loader file asys has not seen, as a container's):
#    the exec tracepoint reports it, the hook goes on that loader, and its
#    dlopen of another fresh copy of the runtime is caught as well.
. "$top_srcdir/tests/gpurt/lib.sh"
gpurt_need_bpf
T=$(mktemp -d /tmp/gpurt-churn.XXXXXX)
A= R=
cleanup() {
	touch "$T/go" "$T/end"
	for p in $A $R; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "$KEEP" ] || rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
wait_for() { i=0; while [ ! -e "$1" ]; do i=$((i+1)); [ $i -gt 2000 ] && fail "no $1"; sleep 0.01; done; }
stat_of() { awk -v k="$1" '$1 == k { print $2 }' "$T/stats"; }

mkdir "$T/lib"
cp "$FAKE_CUDA_DIR/libcudart.so" "$FAKE_CUDA_DIR/libcuda.so" "$T/lib/" || fail "cannot copy the fake runtime"
# asys, as root, writes the counters only into a file that exists, is
# root's and is written by no one else, in such a directory
: >"$T/stats"
chmod 600 "$T/stats"

# a process of the runtime from before the start: its probes in place say
# the first scan has run
"$GPURT_WORKLOAD" --ready-file "$T/ready" --go-file "$T/go" --end-file "$T/end" >/dev/null &
A=$!
wait_for "$T/ready"
t0=$(date +%s)
ASYS_GPURT_STATS="$T/stats" "$ASYS" record -s system-wide -d 0.5 -t hggc -o "$T/x.asys" \
	2>"$T/rec.err" &
R=$!
gpurt_wait_attached "$R" || fail "asys record did not attach to the fake runtime"

i=0
while [ $i -lt 200 ]; do
	/bin/true
	[ $((i % 10)) = 0 ] && sleep 3 &
	i=$((i + 1))
done
env -u LD_LIBRARY_PATH "$GPURT_WORKLOAD" --lib-dir "$T/lib" --sleep 1 --scale 1 \
	--hold 0.001 >"$T/b.log" &
B=$!
wait "$B" || fail "the workload failed"
sleep 3 # the sleepers end; B's last counts are read
# a loader asys has not seen: a copy of ours, run as the program
LDSO=$(awk '$6 ~ /\/ld-linux[^/]*$/ { print $6; exit }' /proc/self/maps)
C=
mkdir "$T/lib2"
cp "$T/lib/libcudart.so" "$T/lib/libcuda.so" "$T/lib2/" || fail "cannot copy the fake runtime"
if [ -n "$LDSO" ] && cp "$LDSO" "$T/ld-linux-copy.so"; then
	env -u LD_LIBRARY_PATH "$T/ld-linux-copy.so" "$GPURT_WORKLOAD" --lib-dir "$T/lib2" \
		--sleep 1 --scale 2 --hold 0.001 >"$T/c.log" &
	C=$!
	wait "$C" || fail "the workload under a copied loader failed"
	sleep 1
fi
kill -TERM "$R"
wait "$R" || { cat "$T/rec.err"; fail "asys record failed"; }
R=
t1=$(date +%s)
cat "$T/stats"

loader=$(stat_of events_loader) exec=$(stat_of events_exec)
reads=$(stat_of maps_reads) first=$(stat_of maps_reads_first_scan)
evreads=$(stat_of maps_reads_events)
[ -n "$loader" ] && [ -n "$reads" ] && [ -n "$first" ] && [ -n "$evreads" ] ||
	fail "no counters in ASYS_GPURT_STATS"
[ "$loader" -lt 40 ] || fail "the loader hook reported $loader processes for 221 starts"
[ "$exec" -lt 21 ] || fail "the exec tracepoint reported $exec processes: the host's loader is known"
[ "$evreads" -lt 40 ] || fail "$evreads maps files read for events"
later=$((reads - first - evreads))
if [ $((t1 - t0)) -lt 28 ]; then
	[ "$later" = 0 ] || fail "the scans after the first read $later maps files (run of $((t1 - t0)) s)"
else
	echo "note: the run took $((t1 - t0)) s, past the 30 s a process waits for the scan: later reads not checked"
fi
echo "ok 1: 220 starts: $loader loader reports, $exec exec reports, $evreads maps reads for them, $later by later scans"

"$ASYS" export --streams gpurt.kernels -o "$T/x.csv" "$T/x.asys" || fail "asys export failed"
for kn in "mykern::saxpy(float, float*, float*, int):100" "void reduce<float>(float*, int):50" \
	"vecadd(int const*, int const*, int*, int):25" "handle_kernel(float*):7" "lib_kernel_b:3"; do
	name=${kn%:*} n=${kn##*:}
	got=$(awk -F, -v a=",$B,\"$name\"" -v b=",$B,$name" '{ l = $0; sub(/,[^,]*$/, "", l) } $6 == "launches" &&
		(substr(l, length(l) - length(a) + 1) == a ||
		 substr(l, length(l) - length(b) + 1) == b) { v = $8 } END { print v }' "$T/x.csv")
	[ "$got" = "$n" ] || { grep ",$B," "$T/x.csv"; fail "'$name': '$got' launches, want $n"; }
done
echo "ok 2: a dlopen of the runtime during the churn is caught: every launch counted"

if [ -z "$C" ]; then
	echo "ok 3 # SKIP no glibc dynamic loader in /proc/self/maps to copy"
	exit 0
fi
[ "$(stat_of loaders)" -ge 2 ] || fail "the copied loader was not hooked (loaders: $(stat_of loaders))"
for kn in "mykern::saxpy(float, float*, float*, int):200" "handle_kernel(float*):14"; do
	name=${kn%:*} n=${kn##*:}
	got=$(awk -F, -v a=",$C,\"$name\"" -v b=",$C,$name" '{ l = $0; sub(/,[^,]*$/, "", l) } $6 == "launches" &&
		(substr(l, length(l) - length(a) + 1) == a ||
		 substr(l, length(l) - length(b) + 1) == b) { v = $8 } END { print v }' "$T/x.csv")
	[ "$got" = "$n" ] || { grep ",$C," "$T/x.csv"; fail "copied loader: '$name': '$got' launches, want $n"; }
done
echo "ok 3: a loader not seen before is hooked at its exec: every launch under it counted"
