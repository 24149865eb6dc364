#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# One command from a fresh Debian 12 machine to a running `asys top`:
# installs the packages that are missing, builds in build/plain, installs
# asys and its man pages with `make install` (prefix /usr/local, on root's
# PATH) and starts `asys top` with the arguments given.
#   ASYS_QUICKSTART_NO_START=1   stop after installing (what tests use)
#   ASYS_QUICKSTART_BUILD=DIR    build in DIR instead of build/plain
#   DESTDIR=DIR                  install under DIR (make's staging root)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${ASYS_QUICKSTART_BUILD:-build/plain}
case $build in
/*) ;;
*) build=$top/$build ;;
esac

echo "asys: checking the Debian packages the build needs"
"$top/scripts/deps.sh"
"$top/scripts/build.sh" "$build"

# where make install puts things, asked of the Makefile itself
make_var() {
	make -s --no-print-directory -C "$build" -f Makefile -f - "print-$1" <<MK
print-$1:
	@echo '\$($1)'
MK
}
bindir=$(make_var bindir)
mandir=$(make_var mandir)
pkgdatadir=$(make_var pkgdatadir)
echo "asys: installing (make install)"
if ! make -s --no-print-directory -C "$build" install >/dev/null; then
	echo "asys: make install failed; run this as root, or start the build directly:" >&2
	echo "asys:   $build/asys top" >&2
	exit 1
fi
echo "asys: installed ${DESTDIR:-}$bindir/asys"
echo "asys:   man pages in ${DESTDIR:-}$mandir/man1 (man asys, man asys-top, ...)"
echo "asys:   demo recording in ${DESTDIR:-}$pkgdatadir (asys demo)"
if [ -z "${DESTDIR:-}" ] && [ "$(command -v asys 2>/dev/null)" != "$bindir/asys" ]; then
	echo "asys: note: $bindir is not first on this shell's PATH for asys;" \
		"run $bindir/asys, or add $bindir to PATH"
fi

if [ "${ASYS_QUICKSTART_NO_START:-0}" = 1 ]; then
	echo "asys: ASYS_QUICKSTART_NO_START=1: not starting asys top"
	exit 0
fi
echo "asys: starting asys top (q quits, F1 lists the keys)"
exec "${DESTDIR:-}$bindir/asys" top "$@"
