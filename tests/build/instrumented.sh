#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# In a sanitizer build, every object of libasys and of the asys program must
# carry ASan instrumentation, and the build as a whole UBSan's: a per-target
# CFLAGS variable can silently replace AM_CFLAGS for a whole library, and then
# the sanitizer run checks nothing in it.
. "$top_srcdir/tests/lib.sh"

[ "${ASYS_SANITIZERS:-no}" = yes ] || skip "not a sanitizer build (configure --enable-sanitizers)"
command -v nm >/dev/null 2>&1 || skip "nm is not installed"

# BPF objects (*.bpf.o, and *.lbpf.o linked from them) are built for the
# kernel, not the host: nothing to instrument there. Of the injection
# library, the checked copy the tests load (the installed one is plain, as
# the workloads it loads into are).
objs=$(find "$top_builddir/src" "$top_builddir/lib" "$top_builddir/collectors" "$top_builddir/tui" \
	-name '*.o' ! -name '*.bpf.o' ! -name '*.lbpf.o' 2>/dev/null
	find "$top_builddir/inject" -name 'tests_inject_libasys_inject_checked_la-*.o' 2>/dev/null)
# One nm for all: each nm loads the linker plugins (LLVM's gold plugin among
# them), 70 ms a run, about 20 s over one a file. nm -A names the file on
# each line; a file nm cannot read has no line and counts as uninstrumented.
syms=$(mktemp) || fail "mktemp"
trap 'rm -f "$syms"' EXIT
# shellcheck disable=SC2086
nm -A $objs >"$syms" 2>/dev/null
missing=$(printf '%s\n' $objs | awk -v syms="$syms" '
	BEGIN { while ((getline l < syms) > 0) if (l ~ /__asan_/) { sub(/:.*/, "", l); has[l] = 1 } }
	!($0 in has)')
n=$(printf '%s\n' $objs | grep -c .)
nmiss=0
for o in $missing; do
	nmiss=$((nmiss + 1))
	fail "$o has no ASan instrumentation"
done
[ "$nmiss" -eq 0 ] && pass
# the library objects are the ones a per-target CFLAGS can strip: each
# layer's archive has its own flags, so each must be there
nlib=$(echo "$objs" | grep -cE 'libasys(_[a-z]+)?_a-')
[ "$nlib" -ge 40 ] && pass || fail "only $nlib libasys objects found under $top_builddir"
for a in libasys libasys_tui libasys_collectors libasys_serve libasys_rec libasys_core; do
	echo "$objs" | grep -q "/${a}_a-" && pass || fail "no object of $a.a found under $top_builddir"
done
ninj=$(echo "$objs" | grep -c 'inject_checked_la-')
[ "$ninj" -ge 3 ] && pass || fail "only $ninj objects of the checked injection library under $top_builddir"
for check in __ubsan_handle_ __ubsan_handle_float_cast_overflow; do
	if grep -q "$check" "$syms"; then
		pass
	else
		fail "no object calls $check: UBSan (or float-cast-overflow) is not on"
	fi
done
echo "$n objects checked"
finish
