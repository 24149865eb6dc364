#!/usr/bin/env bash
# Bootstraps, configures and builds out of tree in build/plain (or in the
# directory given first, with extra configure arguments after it).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
	autoreconf -fi >/dev/null
fi
build=${1:-build/plain}
shift || true
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ]; then
	"$top/configure" -q "$@"
fi
make -j"$(nproc)" >/dev/null
