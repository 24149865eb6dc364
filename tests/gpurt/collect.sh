#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root probes serial
# Real uprobes on the fake runtime: exact byte totals, failures, launches per
# demangled name, per-pid split, late start, exit; then process-tree scope;
# then two processes' NVTX ranges, one of them ending.
. "$top_srcdir/tests/gpurt/lib.sh"
gpurt_need_bpf
"$top_builddir/tests/gpurt/test_collect" main || exit $?
"$top_builddir/tests/gpurt/test_collect" tree || exit $?
"$top_builddir/tests/gpurt/test_collect" nvtx || exit $?
