#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root
# A copy of asys given the probes' file capabilities, run by an ordinary
# user: the caller's ASYS_HGML_LIBRARY must not be loaded (it would run with
# CAP_BPF and CAP_PERFMON). The same library is loaded by a copy without
# capabilities, so the check can fail. Then root with a caller's
# ASYS_SYSROOT (sudo -E): ignored, and said; a sysroot of root's is used.
. "$top_srcdir/tests/lib.sh"
need_root "setting file capabilities and switching users"
command -v setcap >/dev/null 2>&1 || skip "setcap (libcap2-bin) is missing"
command -v setpriv >/dev/null 2>&1 || skip "setpriv (util-linux) is missing"
cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || skip "no C compiler to build the hostile library"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
mkdir "$work/bin" "$work/user" "$work/out"
cp "$ASYS" "$work/bin/asys-caps"
cp "$ASYS" "$work/bin/asys-plain"
setcap cap_bpf,cap_perfmon+ep "$work/bin/asys-caps" 2>/dev/null ||
	skip "this file system does not take file capabilities"
chown 65534:65534 "$work/user" "$work/out"
cat >"$work/evil.c" <<'C'
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void evil(void)
{
	const char *m = getenv("EVIL_MARK");
	if (m)
		close(open(m, O_WRONLY | O_CREAT, 0644));
}
C
"$cc" -shared -fPIC -o "$work/user/evil.so" "$work/evil.c" || skip "cannot build a shared library"
chown 65534:65534 "$work/user/evil.so"

as_user() {
	setpriv --reuid=65534 --regid=65534 --clear-groups env EVIL_MARK="$work/out/mark" \
		ASYS_HGML_LIBRARY="$work/user/evil.so" "$@"
}

# control: without capabilities the user's library is the user's business
as_user "$work/bin/asys-plain" record -o "$work/out/plain.asys" --duration 0.5s \
	2>"$work/plain.err" >/dev/null
[ -e "$work/out/mark" ] && pass || fail "control: the plain copy did not load the library"
rm -f "$work/out/mark"

as_user "$work/bin/asys-caps" record -o "$work/out/caps.asys" --duration 0.5s \
	2>"$work/caps.err" >/dev/null
rc=$?
[ -e "$work/out/mark" ] && fail "the capable copy loaded the caller's ASYS_HGML_LIBRARY" || pass
[ $rc -eq 0 ] && pass || { fail "the capable copy exited $rc"; cat "$work/caps.err"; }
grep -q "ASYS_HGML_LIBRARY=.* ignored: asys runs with privileges" "$work/caps.err" && pass ||
	{ fail "no note that ASYS_HGML_LIBRARY was ignored"; cat "$work/caps.err"; }

# root with a caller's sysroot: its proc/1/cmdline leads to root's files
mkdir -p "$work/user/root/proc/1"
ln -s /etc/shadow "$work/user/root/proc/1/cmdline"
chown -R 65534:65534 "$work/user/root"
ASYS_SYSROOT=$work/user/root "$ASYS" record -o "$work/root.asys" --duration 0.5s \
	2>"$work/root.err" >/dev/null
grep -q "ASYS_SYSROOT=.* ignored: asys runs with privileges, and it is not owned by root" \
	"$work/root.err" && pass || { fail "root used a caller's ASYS_SYSROOT"; cat "$work/root.err"; }
# one of root's own is believed
mkdir -p "$work/rootsys/proc"
cp "$top_srcdir/tests/fixtures/proc/basic/proc/meminfo" "$work/rootsys/proc/meminfo"
ASYS_SYSROOT=$work/rootsys "$ASYS" record -o "$work/root2.asys" --duration 0.5s \
	2>"$work/root2.err" >/dev/null
grep -q "ignored" "$work/root2.err" && { fail "root's own sysroot was ignored"; cat "$work/root2.err"; } || pass
finish
