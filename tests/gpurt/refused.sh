#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root probes serial
# record.sh on a kernel that has uprobe-multi links but refuses the runtime
# probes' programs for them (tests/fakes/bpfrefuse.c, preloaded into asys,
# fails those loads with EINVAL): asys loads the object again unmarked and
# probes with one perf-event uprobe a probe, and every count of record.sh
# comes out the same.
. "$top_srcdir/tests/gpurt/lib.sh"
gpurt_need_bpf
if ! gpurt_kernel_multi || [ "${ASYS_UPROBE_MULTI:-}" = 0 ]; then
	echo "SKIP: asys does not use uprobe-multi links here (kernel before 6.6, or one whose fdinfo does not describe them)"
	exit 77
fi
SHIM=$top_builddir/tests/fakes/.libs/libbpfrefuse.so
[ -f "$SHIM" ] || { echo "SKIP: no $SHIM (make check builds it)"; exit 77; }
T=$(mktemp -d /tmp/gpurt-refused.XXXXXX)
trap 'rm -rf "$T"' EXIT
# asys, and nothing else the test runs, with the shim; a sanitizer build's
# asys wants its runtime first in the list, the shim comes before it
printf '#!/bin/sh\nLD_PRELOAD=%s BPFREFUSE_LOG=%s exec %s "$@"\n' "$SHIM" "$T/refused" "$ASYS" >"$T/asys"
chmod +x "$T/asys"
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export ASAN_OPTIONS
ASYS=$T/asys GPURT_WANT_LINKS=perf sh "$top_srcdir/tests/gpurt/record.sh" || exit 1
# the fallback was taken, not skipped: the marked load was refused
grep -q '^refused gpurt_' "$T/refused" 2>/dev/null ||
	{ echo "FAIL: the shim refused no load, so the fallback was not tested"; exit 1; }
echo "ok: refused: $(sort -u "$T/refused" | tr '\n' ' ')"
