#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# Bad input: every file of tests/data gets its one-line message, a non-zero
# exit only when nothing at all can be read, and never a crash. Then the
# cases that cannot be checked in: missing, directory, FIFO, no permission.
# shellcheck source=tests/lib.sh
. "$top_srcdir/tests/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"; user_dir_cleanup' EXIT

for exp in "$top_srcdir"/tests/data/*.expected; do
	f=${exp%.expected}.asys
	name=$(basename "$f")
	want_rc=$(sed -n 1p "$exp")
	want=$(sed -n 2p "$exp")
	for cmd in "replay --info" "export --format json" "export --summary"; do
		# shellcheck disable=SC2086
		"$ASYS" $cmd "$f" >"$work/out" 2>"$work/err"
		rc=$?
		[ $rc -ge 128 ] && { fail "$name: asys $cmd crashed (status $rc)"; continue; }
		[ $rc -eq "$want_rc" ] || fail "$name: asys $cmd exited $rc, want $want_rc"
		# the message is checked where the command prints the file's story
		[ "$cmd" = "export --format json" ] ||
			grep -qF -- "$want" "$work/err" "$work/out" ||
			fail "$name: asys $cmd: no '$want' in: $(head -3 "$work/err")"
		# one line per problem: no message spills over lines
		if [ -s "$work/err" ] && grep -qv '^asys ' "$work/err"; then
			fail "$name: stray stderr line: $(grep -v '^asys ' "$work/err" | head -1)"
		fi
		pass
	done
done

expect() { # expect RC TEXT cmd...
	want_rc=$1 want=$2
	shift 2
	"$@" >"$work/out" 2>"$work/err"
	rc=$?
	[ $rc -eq "$want_rc" ] || fail "$*: exited $rc, want $want_rc"
	grep -qF -- "$want" "$work/err" || fail "$*: no '$want' in: $(cat "$work/err")"
	pass
}
expect 1 "no such file" "$ASYS" replay --info "$work/missing.asys"
expect 1 "is a directory" "$ASYS" export "$work"
mkfifo "$work/fifo"
expect 1 "not a regular file" "$ASYS" replay --info "$work/fifo"
cp "$top_srcdir/tests/data/good.asys" "$work/locked.asys"
chmod 000 "$work/locked.asys"
if [ "$(id -u)" -ne 0 ]; then
	expect 1 "permission denied" "$ASYS" export "$work/locked.asys"
elif chmod 755 "$work" && copy_for_user "$ASYS"; then
	# nobody runs a copy of asys: the build tree may be closed to it
	expect 1 "permission denied" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$user_dir/asys" export "$work/locked.asys"
else
	echo "note: running as root: the permission case is not checked: ${user_dir_why:-cannot chmod $work}"
fi
expect 2 "no recording given" "$ASYS" export
expect 2 "bad value 'xml' for -f/--format" "$ASYS" export --format xml "$top_srcdir/tests/data/good.asys"
expect 2 "no stream 'nope'" "$ASYS" export --streams nope "$top_srcdir/tests/data/good.asys"
expect 2 "bad value 'soon' for --begin" "$ASYS" export --begin soon "$top_srcdir/tests/data/good.asys"
finish
