#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root
# The CONTAINER label on a real cgroup: a process moved into a cgroup laid
# out as Docker lays it out (cgroup v2: system.slice/docker-ID.scope; v1:
# docker/ID in the pids hierarchy) is recorded with the label
# "docker <first 12 of ID>" on its proc.cpu series, read back by export.
. "$top_srcdir/tests/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "moving a process between cgroups needs root"
id=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
if [ -e /sys/fs/cgroup/cgroup.controllers ]; then
	dir=/sys/fs/cgroup/asys-test.slice/docker-$id.scope
	top_dir=/sys/fs/cgroup/asys-test.slice
elif [ -d /sys/fs/cgroup/pids ]; then
	dir=/sys/fs/cgroup/pids/docker/$id
	top_dir=/sys/fs/cgroup/pids/docker
else
	skip "no cgroup v2 and no v1 pids hierarchy at /sys/fs/cgroup"
fi
work=$(mktemp -d)
cleanup() {
	[ -n "$child" ] && kill "$child" 2>/dev/null
	wait 2>/dev/null
	rmdir "$dir" 2>/dev/null
	rmdir "$top_dir" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$dir" 2>/dev/null || skip "cannot make a cgroup at $dir"
sleep 30 &
child=$!
echo "$child" >"$dir/cgroup.procs" 2>/dev/null || skip "cannot move a process into $dir"
grep -q "$id" "/proc/$child/cgroup" || fail "the child is not in the cgroup: $(cat /proc/$child/cgroup)"

"$ASYS" record -d 0.5 --duration 2s -o "$work/c.asys" >"$work/out" 2>&1 || fail "record: $(cat "$work/out")"
"$ASYS" export --streams proc.cpu "$work/c.asys" >"$work/c.csv" || fail "export"
label=$(awk -F, -v p="$child" '$4 == p && $6 == "utime" {print $5; exit}' "$work/c.csv")
[ "$label" = "docker 0123456789ab" ] || fail "pid $child labelled '$label', want 'docker 0123456789ab'"
pass
# our own shell runs in no such container: its label is not docker's
self=$(awk -F, -v p="$$" '$4 == p && $6 == "utime" {print $5; exit}' "$work/c.csv")
case $self in docker*) fail "the test's shell labelled '$self'" ;; esac
pass
finish
