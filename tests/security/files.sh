#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root
# Where asys writes and what it reads at start: --force never removes what
# is not the user's regular file, the workload log is a new private file and
# never a planted link, a FIFO or oversized probe file stops the command at
# once, a FIFO in a sysroot does not hang sampling, and a file that got no
# header on a full disk is removed.
. "$top_srcdir/tests/lib.sh"
need_root "device nodes, files of another user and a small tmpfs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --force: refused for a device, a FIFO, a directory, a link, another's file,
# and the user's own file that is not a recording (root's text file)
mknod "$work/null" c 1 3
mkfifo "$work/fifo"
mkdir "$work/dir"
echo keep >"$work/target"
ln -s "$work/target" "$work/link"
echo theirs >"$work/theirs"
chown 65534:65534 "$work/theirs"
echo "root's text" >"$work/text.asys"
printf '\211ASYS' >"$work/short.asys"
for f in null fifo dir link theirs text.asys short.asys; do
	timeout 20 "$ASYS" record -o "$work/$f" --force --duration 0.3s >/dev/null 2>"$work/err-$f"
	rc=$?
	[ $rc -eq 1 ] && pass || fail "--force on $f: exit $rc, expected 1"
	grep -q "force replaces only" "$work/err-$f" && pass ||
		{ fail "--force on $f: no reason"; cat "$work/err-$f"; }
done
[ -c "$work/null" ] && [ -p "$work/fifo" ] && [ -d "$work/dir" ] && [ -L "$work/link" ] &&
	[ "$(cat "$work/target")" = keep ] && [ "$(cat "$work/theirs")" = theirs ] &&
	[ "$(cat "$work/text.asys")" = "root's text" ] && pass ||
	fail "--force removed or changed something that was not the user's recording"
for f in text.asys short.asys; do
	grep -q "$f is not an asys recording: --force replaces only an asys recording" "$work/err-$f" &&
		pass || { fail "--force on $f: the reason is not said"; cat "$work/err-$f"; }
done
"$ASYS" record -o "$work/mine.asys" --duration 0.3s >/dev/null 2>&1 ||
	fail "cannot make a first recording"
"$ASYS" record -o "$work/mine.asys" --force --duration 0.3s >/dev/null 2>"$work/err" &&
	"$ASYS" replay --info "$work/mine.asys" >/dev/null 2>&1 && pass ||
	{ fail "--force did not replace the user's own file"; cat "$work/err"; }

# asys record makes no workload log of its own: the command's output stays
# on asys record's (tests/rec/workload_out.sh); asys top's new private log,
# mode 0600 with a random name, is tests/tui/tui_workload.sh's.
mkdir "$work/tmp"
TMPDIR=$work/tmp "$ASYS" record -o "$work/wl.asys" --duration 0.5s -- sh -c 'echo from-the-workload' \
	>"$work/out" 2>"$work/err"
grep -qx from-the-workload "$work/out" && [ -z "$(ls "$work/tmp")" ] && pass ||
	fail "asys record made a workload log: $(ls "$work/tmp") $(cat "$work/err")"
# a named log stays, even empty
"$ASYS" record -o "$work/wl7.asys" --duration 0.3s --workload-log "$work/named.log" -- true \
	>/dev/null 2>"$work/err"
[ -f "$work/named.log" ] && ! grep -q 'empty log' "$work/err" && pass ||
	fail "an empty --workload-log file was removed"
# --workload-log: never through a planted link, never another user's file
ln -s "$work/target" "$work/planted.log"
"$ASYS" record -o "$work/wl2.asys" --duration 0.3s --workload-log "$work/planted.log" -- true \
	>/dev/null 2>&1 && fail "--workload-log followed a symbolic link" || pass
"$ASYS" record -o "$work/wl3.asys" --duration 0.3s --workload-log "$work/theirs" -- true \
	>/dev/null 2>&1 && fail "--workload-log took another user's file" || pass
[ "$(cat "$work/target")" = keep ] && [ "$(cat "$work/theirs")" = theirs ] && pass ||
	fail "--workload-log wrote into a file it should have refused"
"$ASYS" record -o "$work/wl4.asys" --duration 0.5s --workload-log "$work/mine.log" -- echo named \
	>/dev/null 2>&1 && grep -q named "$work/mine.log" && pass || fail "--workload-log FILE unused"

# export -o: the same rules as the workload log
"$ASYS" export -o "$work/planted.log" "$top_srcdir/tests/data/good.asys" >/dev/null 2>&1 &&
	fail "export -o followed a symbolic link" || pass
"$ASYS" export -o "$work/theirs" "$top_srcdir/tests/data/good.asys" >/dev/null 2>&1 &&
	fail "export -o wrote another user's file" || pass
[ "$(cat "$work/target")" = keep ] && [ "$(cat "$work/theirs")" = theirs ] && pass ||
	fail "export -o wrote into a file it should have refused"

# input files: a FIFO, a missing and an oversized probe file stop at start
for f in fifo missing big; do
	case $f in big) head -c 2000000 /dev/zero | tr '\0' x >"$work/big" ;; esac
	timeout 20 "$ASYS" record -o "$work/p-$f.asys" --duration 5s --hggc-probe-file "$work/$f" \
		>/dev/null 2>"$work/err"
	rc=$?
	[ $rc -eq 2 ] && pass || { fail "probe file $f: exit $rc, expected 2"; cat "$work/err"; }
	[ -e "$work/p-$f.asys" ] && fail "probe file $f: a recording was started" || pass
done

# a FIFO where a collector reads (/proc/stat under a sysroot) must not hang it
cp -r "$top_srcdir/tests/fixtures/proc/basic" "$work/sys"
rm -f "$work/sys/proc/stat"
mkfifo "$work/sys/proc/stat"
start=$(date +%s)
ASYS_SYSROOT=$work/sys timeout 30 "$ASYS" record -o "$work/fifo.asys" --duration 1s \
	>/dev/null 2>"$work/err"
rc=$?
[ $rc -eq 0 ] && pass || { fail "a FIFO as /proc/stat: exit $rc"; cat "$work/err"; }
[ $(($(date +%s) - start)) -lt 15 ] && pass || fail "a FIFO as /proc/stat held the recorder"

# a disk full before the header: no empty file left to block the retry
if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	mkdir "$work/mnt"
	unshare -m sh -s "$ASYS" "$work/mnt" "$work" <<'INNER'
asys=$1 mnt=$2 work=$3
mount -t tmpfs -o size=64k tmpfs "$mnt" || exit 77
dd if=/dev/zero of="$mnt/filler" bs=4k count=64 2>/dev/null
"$asys" record -o "$mnt/r.asys" --duration 0.3s >/dev/null 2>"$work/full.err" && exit 3
[ -e "$mnt/r.asys" ] && exit 4
rm "$mnt/filler"
"$asys" record -o "$mnt/r.asys" --duration 0.3s >/dev/null 2>>"$work/full.err" || exit 5
exit 0
INNER
	rc=$?
	case $rc in
	0) pass ;;
	77) echo "note: tmpfs not permitted here: the full-disk case is not checked" ;;
	3) fail "recording onto a full disk succeeded" ;;
	4) fail "a file without its header was left on the full disk"; cat "$work/full.err" ;;
	*) fail "the retry after freeing space failed ($rc)"; cat "$work/full.err" ;;
	esac
fi
finish
