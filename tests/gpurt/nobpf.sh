#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# A build without eBPF takes the runtime probes' options as a full build
# does (values checked the same way), and the kernels pane says why it stays
# empty and what to rebuild with. Runs where it matters: in such a build
# (scripts/test.sh's distcheck builds one).
: "${top_builddir:=.}"
if grep -q '^#define HAVE_BPF 1' "$top_builddir/config.h" 2>/dev/null; then
	echo "SKIP: this build has eBPF: configure --enable-bpf=no to test its stand-in"
	exit 77
fi
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"

out=$("$ASYS" top -t cuda 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "-t cuda: exit $rc, want 2"
case $out in *"hggc or none"*) ;; *) fail "-t cuda: '$out' lacks 'hggc or none'" ;; esac
out=$("$ASYS" record -o "$TDIR/x.asys" --hggc-probe-file "$TDIR" 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "--hggc-probe-file DIR: exit $rc, want 2"
case $out in *"cannot use --hggc-probe-file"*) ;; *) fail "--hggc-probe-file DIR: '$out'" ;; esac
"$ASYS" record -o "$TDIR/x.asys" --duration 1s -t hggc --hggc-memory-usage true \
	>"$TDIR/rec.out" 2>&1 || fail "record -t hggc: exit $?: $(cat "$TDIR/rec.out")"

for size in "80 24" "160 48"; do
	# shellcheck disable=SC2086
	tui_start $size -- -t hggc
	# at 80x24 an empty pane gives its rows to the others until its key
	[ "$size" = "80 24" ] && keys 5
	wait_for 'Top kernels' 10 || fail "$size: no kernels pane"
	wait_for 'built without eBPF' 10 || fail "$size: the kernels pane does not say why"
	# unfocused, the pane may keep one line of it when rows are short;
	# focused, it grows to the whole
	keys 5
	wait_for 'rebuild with them' 5 || fail "$size: the kernels pane does not say what to do"
	quit_ok "$size"
	tui_stop
done
echo "PASS"
