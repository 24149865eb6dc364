#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# `asys record -- command` has no screen to protect: the command's standard
# output and error stay asys record's own, as under perf record, and no log
# file is made; --workload-log FILE still takes both.
. "$top_srcdir/tests/lib.sh"
[ -x "$ASYS" ] || skip "no asys binary at $ASYS"
T=$(mktemp -d "${TMPDIR:-/tmp}/asys-wlout.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
mkdir "$T/tmp" || exit 1

job='echo job-says-out; echo job-says-err >&2'
TMPDIR=$T/tmp timeout 60 "$ASYS" record -o "$T/a.asys" --duration 30s -- sh -c "$job" \
	>"$T/out" 2>"$T/err" </dev/null || fail "asys record exited $?: $(cat "$T/err")"
grep -qx job-says-out "$T/out" && pass || fail "the job's stdout is not on asys record's: '$(cat "$T/out")'"
grep -qx job-says-err "$T/err" && pass || fail "the job's stderr is not on asys record's: '$(cat "$T/err")'"
! grep -q job-says-err "$T/out" && ! grep -q job-says-out "$T/err" && pass ||
	fail "the job's streams were mixed: out '$(cat "$T/out")', err '$(cat "$T/err")'"
[ -z "$(ls "$T/tmp")" ] && pass || fail "a file was made in TMPDIR: $(ls "$T/tmp")"
grep -q "workload's output\|workload's empty log" "$T/err" && fail "a log is spoken of: $(cat "$T/err")" || pass
"$ASYS" replay --info "$T/a.asys" >/dev/null 2>&1 && pass || fail "the recording cannot be read"

# --workload-log FILE: both streams go there, and asys says where
TMPDIR=$T/tmp timeout 60 "$ASYS" record -o "$T/b.asys" --duration 30s --workload-log "$T/w.log" \
	-- sh -c "$job" >"$T/out" 2>"$T/err" </dev/null || fail "asys record exited $?: $(cat "$T/err")"
grep -qx job-says-out "$T/w.log" && grep -qx job-says-err "$T/w.log" && pass ||
	fail "--workload-log holds '$(cat "$T/w.log")'"
grep -q job-says "$T/out" "$T/err" && fail "the job's output left --workload-log: $(cat "$T/out" "$T/err")" || pass
grep -qxF "asys record: the workload's output goes to $T/w.log" "$T/err" && pass ||
	fail "the log's path is not said: $(cat "$T/err")"
finish
