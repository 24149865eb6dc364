#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root serial syswide
# Disk full: `asys record` onto a small tmpfs that fills up. No partial frame
# is left, the recorder keeps running, it resumes with a GAP when space comes
# back, and the file replays up to and after the gap.
. "$top_srcdir/tests/lib.sh"
need_root "mounting a small tmpfs"
command -v unshare >/dev/null || skip "unshare(1) is missing"
# unshare makes / private in the new namespace, so that the tmpfs stays
# there; where / is not a mount point (a chroot) that fails, and mounting
# without it could leak the tmpfs into the parent namespace
why=$(unshare -m true 2>&1) ||
	skip "cannot create a private mount namespace here (/ must be a mount point): $why"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mnt=$work/mnt
mkdir "$mnt"

unshare -m sh -s "$ASYS" "$mnt" "$work" <<'INNER'
asys=$1 mnt=$2 work=$3
mount -t tmpfs -o size=256k tmpfs "$mnt" || { echo "SKIP: mount tmpfs not permitted"; exit 77; }
# leave about 24 KiB free
dd if=/dev/zero of="$mnt/filler" bs=1k count=228 2>/dev/null
"$asys" record -o "$mnt/r.asys" -d 0.1 -s system-wide 2>"$work/err" &
pid=$!
i=0
until grep -q "recording paused: disk full" "$work/err"; do
	i=$((i + 1)); [ $i -gt 300 ] && { echo "FAIL: never paused"; cat "$work/err"; kill $pid; exit 1; }
	sleep 0.1
done
sleep 1
kill -0 $pid || { echo "FAIL: the recorder died on a full disk"; exit 1; }
# nothing but whole frames on disk, while still paused
cp "$mnt/r.asys" "$work/paused.asys"
rm "$mnt/filler"
i=0
until grep -q "recording resumed" "$work/err"; do
	i=$((i + 1)); [ $i -gt 300 ] && { echo "FAIL: never resumed"; cat "$work/err"; kill $pid; exit 1; }
	sleep 0.1
done
sleep 1
kill -TERM $pid
wait $pid || { echo "FAIL: asys record exited $?"; exit 1; }
cp "$mnt/r.asys" "$work/r.asys"
INNER
rc=$?
[ $rc -eq 77 ] && skip "mount tmpfs not permitted"
[ $rc -eq 0 ] || { echo "FAIL: inner script"; exit 1; }

"$ASYS" replay --info "$work/paused.asys" >"$work/pinfo" 2>"$work/perr" || fail "paused copy does not open"
grep -q "damage:    none" "$work/pinfo" || fail "a partial frame was left while paused: $(cat "$work/perr")"
grep -q "ends inside a frame" "$work/perr" && fail "paused copy ends inside a frame"
pass
"$ASYS" replay --info "$work/r.asys" >"$work/info" 2>"$work/ierr" || fail "final file does not open"
grep -q "disk full" "$work/info" || fail "no GAP frame says 'disk full': $(cat "$work/info")"
grep -q "damage:    none" "$work/info" || fail "damage in the final file: $(cat "$work/ierr")"
grep -q "(.*complete)" "$work/info" || fail "no trailer after SIGTERM"
pass
n=$("$ASYS" export "$work/r.asys" --streams mem.sys | wc -l)
[ "$n" -gt 20 ] || fail "too few samples replayed: $n"
pass
finish
