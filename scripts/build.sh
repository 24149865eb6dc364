#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Bootstraps, configures and builds out of tree in build/plain (or in the
# directory given first, with extra configure arguments after it). A first
# build takes minutes, so each stage says what it does and how long it took,
# and make's own lines (one per file compiled) show as they come.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${1:-build/plain}
shift || true

step() { printf 'asys: %s\n' "$*"; }
took() { printf 'asys:   done in %d s\n' $((SECONDS - $1)); }

start=$SECONDS
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
	step "[1/3] generating configure (autoreconf)"
	# aclocal warns about a missing m4/ in a fresh clone (git keeps no empty folder)
	mkdir -p m4
	t=$SECONDS
	autoreconf -fi >/dev/null
	took $t
else
	step "[1/3] the configure script is up to date"
fi
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ]; then
	step "[2/3] configuring in $build (checks for libraries and tools)"
	t=$SECONDS
	"$top/configure" -q "$@"
	took $t
else
	step "[2/3] $build is already configured"
fi
jobs=$(nproc 2>/dev/null || echo 1)
step "[3/3] compiling in $build with $jobs jobs (one line per file)"
t=$SECONDS
make -j"$jobs" V=0 --no-print-directory
took $t
step "built $(pwd)/asys in $((SECONDS - start)) s"
