#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/ppu: the ppu metrics collector at 1 kHz and 10 kHz over 8 fake
# devices. Run from a configured build tree (make first):
#   sh bench/ppu/run.sh [SECONDS]
# Targets: achieved rate within 1% of the request, and the cost of
# a device sample at most 20% above the bare library calls timed in the same run.
set -e
top_builddir=${top_builddir:-.}
secs=${1:-3}
make -s -C "$top_builddir" bench/ppu/ppu_bench tests/fakes/libhgml.la >/dev/null
export ASYS_HGML_LIBRARY="$(cd "$top_builddir" && pwd)/tests/fakes/.libs/libhgml.so"
for hz in 1000 10000; do
	"$top_builddir/bench/ppu/ppu_bench" "$hz" 8 "$secs"
done
