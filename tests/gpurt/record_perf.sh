#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root probes serial
# record.sh with one perf-event uprobe a probe, the links of kernels before
# 6.6, forced where the kernel has uprobe-multi links.
ASYS_UPROBE_MULTI=0 exec sh "$top_srcdir/tests/gpurt/record.sh"
