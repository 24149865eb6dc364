#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# `make install DESTDIR=...` puts the binary, every man page, the demo
# recording and libasys-inject.so where asys and man(1) look for them, and `make uninstall` takes
# them away again. The README's quick start relies on this to put `asys` on
# the PATH and `man asys-top` in reach.
. "$top_srcdir/tests/lib.sh"
# make's own flags from the make that runs the tests (-j, a jobserver, print
# the directory) must not reach the makes this test runs
unset MAKEFLAGS MFLAGS MAKELEVEL

command -v make >/dev/null 2>&1 || skip "make is not installed"
dest=$(mktemp -d "${TMPDIR:-/tmp}/asys-install.XXXXXX") || skip "cannot make a directory"
trap 'rm -rf "$dest"' EXIT

# what the Makefile installs to, asked of it
make_var() {
	make -s --no-print-directory -C "$top_builddir" -f Makefile -f - "print-$1" <<MK
print-$1:
	@echo '\$($1)'
MK
}
bindir=$(make_var bindir)
mandir=$(make_var mandir)
pkgdatadir=$(make_var pkgdatadir)
pkglibdir=$(make_var pkglibdir)
[ -n "$bindir" ] && [ -n "$mandir" ] && [ -n "$pkgdatadir" ] ||
	{ fail "cannot read bindir, mandir and pkgdatadir from the Makefile"; finish; exit; }

if ! make -s --no-print-directory -C "$top_builddir" install DESTDIR="$dest/root" \
	>"$dest/install.log" 2>&1; then
	fail "make install DESTDIR=... failed: $(tail -n 5 "$dest/install.log")"
	finish
	exit
fi
root=$dest/root

if [ -x "$root$bindir/asys" ] && "$root$bindir/asys" --version | grep -q '^asys '; then
	pass
else
	fail "$bindir/asys is not installed, or does not run: $(ls -l "$root$bindir" 2>&1)"
fi

# every page in man/ is installed, in the section its name ends with
for page in "$top_srcdir"/man/*.[1-9]; do
	name=${page##*/}
	sec=${name##*.}
	if [ -f "$root$mandir/man$sec/$name" ]; then
		pass
	else
		fail "man page $name is not in $mandir/man$sec"
	fi
done
# and man finds it by name there
if command -v man >/dev/null 2>&1; then
	found=$(MANPATH="$root$mandir" man -w asys-top 2>&1)
	case $found in
	"$root$mandir/man1/asys-top.1"*) pass ;;
	*) fail "man -w asys-top with MANPATH=$mandir: $found" ;;
	esac
else
	echo "not checked: man (man-db) is not installed, so man asys-top was not looked up"
fi

if "$ASYS" replay --info "$root$pkgdatadir/demo.asys" >"$dest/info" 2>&1 &&
	grep -q "complete" "$dest/info"; then
	pass
else
	fail "the demo recording is not a whole file at $pkgdatadir/demo.asys: $(head -n 3 "$dest/info")"
fi

# the library a workload loads: at the path asys names for it, with the entry
# point NVTX looks up
lib=$root$pkglibdir/libasys-inject.so
if [ -f "$lib" ] && { ! command -v nm >/dev/null 2>&1 ||
	nm -D --defined-only "$lib" | grep -q ' InitializeInjectionNvtx2$'; }; then
	pass
else
	fail "libasys-inject.so is not installed in $pkglibdir (or lacks InitializeInjectionNvtx2)"
fi

if make -s --no-print-directory -C "$top_builddir" uninstall DESTDIR="$root" \
	>"$dest/uninstall.log" 2>&1 && [ ! -e "$root$bindir/asys" ] &&
	[ ! -e "$root$mandir/man1/asys-top.1" ] && [ ! -e "$root$pkgdatadir/demo.asys" ] &&
	[ ! -e "$lib" ]; then
	pass
else
	fail "make uninstall left files: $(find "$root" -type f | head -n 5)"
fi
finish
