#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# scripts/quickstart.sh, the README's first command, without touching the
# machine: ASYS_QUICKSTART_BUILD points it at this build tree (already built,
# so the build stage has nothing left to do) and DESTDIR at a scratch
# directory. It must say what each stage does, install asys, say where, and,
# with ASYS_QUICKSTART_NO_START=1, stop there; without it, start `asys top`
# with the arguments given (here --help, which needs no terminal).
. "$top_srcdir/tests/lib.sh"
# make's own flags from the make that runs the tests (-j, a jobserver, print
# the directory) must not reach the makes this test runs
unset MAKEFLAGS MFLAGS MAKELEVEL

command -v bash >/dev/null 2>&1 || skip "bash is not installed"
command -v make >/dev/null 2>&1 || skip "make is not installed"
# the script installs missing packages first; a test must not
if ! why=$("$top_srcdir/scripts/deps.sh" --check 2>&1); then
	skip "quickstart.sh would install packages ($why)"
fi
dest=$(mktemp -d "${TMPDIR:-/tmp}/asys-quickstart.XXXXXX") || skip "cannot make a directory"
trap 'rm -rf "$dest"' EXIT

ASYS_QUICKSTART_NO_START=1 ASYS_QUICKSTART_BUILD=$top_builddir DESTDIR=$dest/root \
	"$top_srcdir/scripts/quickstart.sh" >"$dest/out" 2>&1 </dev/null
rc=$?
[ $rc -eq 0 ] || fail "quickstart.sh exited $rc: $(tail -n 5 "$dest/out")"
for stage in '[1/3]' '[2/3]' '[3/3]' 'installing'; do
	if grep -qF "asys: $stage" "$dest/out"; then
		pass
	else
		fail "no progress line for '$stage' in: $(cat "$dest/out")"
	fi
done
bin=$(sed -n 's/^asys: installed //p' "$dest/out")
case $bin in
"$dest/root/"*/asys)
	if [ -x "$bin" ]; then pass; else fail "it says it installed $bin, which is not there"; fi ;;
*) fail "it does not say where asys went: $(cat "$dest/out")" ;;
esac
if grep -q "not starting asys top" "$dest/out"; then
	pass
else
	fail "with ASYS_QUICKSTART_NO_START=1 it does not say it stops: $(tail -n 3 "$dest/out")"
fi

# without the knob it starts asys top, passing its arguments on
ASYS_QUICKSTART_BUILD=$top_builddir DESTDIR=$dest/root \
	"$top_srcdir/scripts/quickstart.sh" --help >"$dest/out2" 2>&1 </dev/null
rc=$?
if [ $rc -eq 0 ] && grep -q "^Usage: asys top" "$dest/out2"; then
	pass
else
	fail "quickstart.sh --help did not start asys top --help (exit $rc): $(tail -n 3 "$dest/out2")"
fi
finish
