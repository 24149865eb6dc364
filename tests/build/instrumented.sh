#!/bin/sh
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
objs=$(find "$top_builddir/src" "$top_builddir/collectors" "$top_builddir/tui" \
	-name '*.o' ! -name '*.bpf.o' ! -name '*.lbpf.o' 2>/dev/null
	find "$top_builddir/inject" -name 'tests_inject_libasys_inject_checked_la-*.o' 2>/dev/null)
n=0
for o in $objs; do
	n=$((n + 1))
	if nm "$o" 2>/dev/null | grep -q '__asan_'; then
		pass
	else
		fail "$o has no ASan instrumentation"
	fi
done
# the library objects are the ones a per-target CFLAGS can strip
nlib=$(echo "$objs" | grep -c 'libasys_a-')
[ "$nlib" -ge 40 ] && pass || fail "only $nlib libasys objects found under $top_builddir"
ninj=$(echo "$objs" | grep -c 'inject_checked_la-')
[ "$ninj" -ge 3 ] && pass || fail "only $ninj objects of the checked injection library under $top_builddir"
for check in __ubsan_handle_ __ubsan_handle_float_cast_overflow; do
	if nm $objs 2>/dev/null | grep -q "$check"; then
		pass
	else
		fail "no object calls $check: UBSan (or float-cast-overflow) is not on"
	fi
done
echo "$n objects checked"
finish
