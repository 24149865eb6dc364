#!/bin/sh
# Builds the reader fuzzer with clang, ASan and UBSan in build/fuzz and runs
# it for ${FUZZ_SECONDS:-60} s, seeded from the bad-file corpus and the
# forged files (tests/data/forged).
#   tests/fuzz/run.sh            (from the top of the source tree)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v clang >/dev/null || { echo "SKIP: clang is missing"; exit 77; }
mkdir -p "$top/build/fuzz"
cd "$top/build/fuzz"
# the reader is all it needs: no BPF skeleton to generate (a lone target
# does not build BUILT_SOURCES)
[ -f Makefile ] || CC=clang "$top/configure" -q --enable-fuzzing --enable-sanitizers --disable-werror \
	--enable-bpf=no
make -j2 tests/fuzz/fuzz_reader >/dev/null
mkdir -p corpus
cp "$top"/tests/data/*.asys "$top"/tests/data/forged/*.asys corpus/
exec ./tests/fuzz/fuzz_reader -max_total_time="${FUZZ_SECONDS:-60}" -rss_limit_mb=1024 \
	-timeout=10 corpus
