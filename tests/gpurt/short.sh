#!/bin/sh
# A job shorter than one refresh, recorded with `asys record -- cmd`: asys
# never reads its counts while it lives, yet every kernel keeps its
# demangled name (the stub's file and offset travel in the exit record; the
# file's path was noted when the job mapped the runtime). The job sleeps
# 0.3 s after loading the runtime, so that noting is not a race, then
# launches and exits 1 ms after its last launch, well before the first
# refresh at 2 s reads anything.
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
tab=$(printf '\t')
for kn in "mykern::saxpy(float, float*, float*, int):100" "void reduce<float>(float*, int):50" \
	"vecadd(int const*, int const*, int*, int):25" "handle_kernel(float*):7" "lib_kernel_b:3"; do
	name=${kn%:*} n=${kn##*:}
	got=$(grep -F -e "$tab$name\",launches,," -e "$tab$name,launches,," "$T/x.csv" |
		tail -n 1 | sed 's/.*,//')
	[ "$got" = "$n" ] || { cat "$T/x.csv"; fail "'$name': '$got' launches, want $n"; }
done
echo "ok: a job shorter than a refresh keeps its kernels' names and counts"
