# SPDX-License-Identifier: GPL-2.0-only
# Shared by the kernel-time tests: where the injection library, the CUPTI
# stand-in and the rig are. Source it after tests/lib.sh.
# shellcheck shell=sh
# the injection library built with this build's sanitizers, as the rig is
KTIME_SO="$top_builddir/tests/inject/.libs/libasys-inject-checked.so"
KTIME_CUPTI="$top_builddir/tests/fakes/.libs/libcupti.so"
KTIME_RIG="$top_builddir/tests/ktime/ktime_rig"
for f in "$KTIME_SO" "$KTIME_CUPTI" "$KTIME_RIG"; do
	[ -e "$f" ] || { echo "FAIL: $f is not built (make check builds it)"; exit 1; }
done
# what the driver would read, and what asys would set
CUDA_INJECTION64_PATH=$KTIME_SO
ASYS_KACT_LIBS=$KTIME_CUPTI
export CUDA_INJECTION64_PATH ASYS_KACT_LIBS
unset FAKE_CUPTI_SCRIPT FAKE_CUPTI_REPEAT FAKE_CUPTI_PERIOD_MS FAKE_CUPTI_FAIL ASYS_KACT_FLUSH_MS
# the rig's child is a fork of a sanitized program that dlopens the
# injection library and the plain CUPTI stand-in: no leak report for what
# they keep until exit
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export ASAN_OPTIONS

# ktime_line OUTPUT WORD LABEL: the rig's line for an entity ("kernel PID NAME")
ktime_line() { printf '%s\n' "$1" | grep -F -- "$2 $3 " | head -n 1; }
