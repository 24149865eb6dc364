#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Builds the reader fuzzer with clang, ASan and UBSan in build/fuzz and runs
# it for ${FUZZ_SECONDS:-60} s, seeded from the bad-file corpus and the
# forged files (tests/data/forged). An input that runs longer than
# ${FUZZ_UNIT_TIMEOUT:-10} s of wall time is reported as a hang.
#   tests/fuzz/run.sh            (from the top of the source tree)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v clang >/dev/null || { echo "SKIP: clang is missing"; exit 77; }
mkdir -p "$top/build/fuzz"
cd "$top/build/fuzz"
# clang without its runtime (compiler-rt, Debian's libclang-rt-dev) compiles
# but cannot link a fuzzer: a trivial target tells that apart from a failure
# of the real build below, which this probe does not excuse
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
	>probe.c
if ! clang -fsanitize=fuzzer,address,undefined -o probe probe.c 2>probe.err; then
	cat probe.err
	echo "SKIP: clang cannot link a libFuzzer target: install libclang-rt-dev: $(grep -m1 -E 'cannot find|error' probe.err)"
	exit 77
fi
# the reader is all it needs: no BPF skeleton to generate (a lone target
# does not build BUILT_SOURCES)
[ -f Makefile ] || CC=clang "$top/configure" -q --enable-fuzzing --enable-sanitizers --disable-werror \
	--enable-bpf=no
make -j2 tests/fuzz/fuzz_reader >/dev/null
mkdir -p corpus
cp "$top"/tests/data/*.asys "$top"/tests/data/forged/*.asys corpus/
exec ./tests/fuzz/fuzz_reader -max_total_time="${FUZZ_SECONDS:-60}" -rss_limit_mb=1024 \
	-timeout="${FUZZ_UNIT_TIMEOUT:-10}" corpus
