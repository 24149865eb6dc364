#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: system
# The process streams survive record -> export -> replay: `asys record
# --process-threads` of every process while a known child sleeps at nice 3;
# the CSV export has its columns, and the child's proc.cpu, proc.thread and
# mem.proc rows the kernel's values (state, nice, start, thread ids and the
# owning process, command line); kernel threads are marked; `asys replay
# --info` and `asys export --summary` read the same streams back.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/truth/truth_lib.sh"

kid=
cleanup() {
	[ -z "$kid" ] || kill "$kid" 2>/dev/null
	truth_cleanup
}
trap cleanup EXIT

hz=$(getconf CLK_TCK 2>/dev/null) || hz=100
nice -n 3 sleep 60 &
kid=$!
truth_record -s system-wide -d 0.2 --process-threads --nic-metrics false
truth_wait_sample proc.thread "\$2 == $kid && \$4 == \"tgid\"" 2 ||
	{ fail "no two proc.thread samples of pid $kid in 60 s: $(tail -n 3 "$truth_work/record.log")"; finish; exit; }
truth_stop
f=$truth_work/r.asys

"$ASYS" export "$f" --streams proc.cpu,proc.thread,mem.proc >"$truth_work/all.csv" ||
	fail "export failed"
head -n 1 "$truth_work/all.csv" | grep -qx 't_ns,time,stream,entity,label,field,unit,value,pid,name,host' ||
	fail "export header: $(head -n 1 "$truth_work/all.csv")"
pass

# the child, as the kernel has it: state S (83), nice 3, start, its comm
read -r kstat <"/proc/$kid/stat"
rest=${kstat#*) }
# shellcheck disable=SC2086 # the fields, one word each
set -- $rest
start=$(awk -v t="${20}" -v hz="$hz" 'BEGIN { printf "%.6f", t / hz }')
check() { # STREAM ENTITY FIELD AWK_TEST WHAT
	v=$(awk -F, -v s="$1" -v e="$2" -v f="$3" '$3 == s && $4 == e && $(NF - 5) == f { v = $(NF - 3) } END { print v }' \
		"$truth_work/all.csv")
	if [ -n "$v" ] && awk -v v="$v" "BEGIN { exit !($4) }"; then
		pass
	else
		fail "$1 of pid $2: $3 = '$v', want $5"
	fi
}
check proc.cpu "$kid" state 'v == 83' "83 (S, sleeping)"
check proc.cpu "$kid" nice 'v == 3' "3"
check proc.cpu "$kid" kthread 'v == 0' "0"
check proc.cpu "$kid" start "v - $start < 1e-6 && $start - v < 1e-6" "$start (/proc/$kid/stat)"
check proc.cpu "$kid" utime 'v >= 0 && v < 1' "a few ticks at most"
check proc.cpu "$kid" stime 'v >= 0 && v < 1' "a few ticks at most"
check proc.thread "$kid" tgid "v == $kid" "$kid"
check proc.thread "$kid" state 'v == 83' "83"
check mem.proc "$kid" ppid "v == $$" "$$"
truth_rows mem.proc | awk -v pid="$kid" '$2 == pid && $3 == "sleep_60" { ok = 1 } END { exit !ok }' ||
	fail "mem.proc label of pid $kid is not 'sleep 60'"
# a kernel thread, where this kernel shows one (pid 2, kthreadd, outside containers)
if awk '{ exit !(int($9 / 2097152) % 2) }' /proc/2/stat 2>/dev/null; then
	check proc.cpu 2 kthread 'v == 1' "1 (a kernel thread)"
	truth_rows mem.proc | awk '$2 == 2 && $3 ~ /^\[/ { ok = 1 } END { exit !ok }' ||
		fail "mem.proc label of kernel thread 2 is not '[comm]'"
fi
# every process the recorder saw has all six proc.cpu fields, sane
awk -F, '$3 == "proc.cpu" { n[$4 SUBSEP $(NF - 5)]++; e[$4] = 1; v = $(NF - 3); f = $(NF - 5)
	if ((f == "utime" || f == "stime" || f == "start") && v < 0) bad = bad " " $4 ":" f
	if (f == "kthread" && v != 0 && v != 1) bad = bad " " $4 ":kthread" }
	END { for (p in e) { c = 0; split("utime stime state nice kthread start", fs, " ")
		for (i = 1; i <= 6; i++) if ((p SUBSEP fs[i]) in n) c++
		if (c != 6) bad = bad " " p ":" c "fields" }
	if (bad != "") { print bad; exit 1 } }' "$truth_work/all.csv" >"$truth_work/bad" ||
	fail "proc.cpu rows without all their fields or out of range:$(head -c 300 "$truth_work/bad")"

# replay reads the same streams: the file's catalogue and the summary
"$ASYS" replay --info "$f" >"$truth_work/info" 2>&1 || fail "replay --info failed"
nsamp=$(awk -F, '$3 == "proc.cpu" && $(NF - 5) == "utime"' "$truth_work/all.csv" | wc -l)
awk -v n="$nsamp" '$1 == "proc.cpu" && $3 == 6 && $7 == n { ok = 1 } END { exit !ok }' "$truth_work/info" ||
	fail "replay --info does not list proc.cpu with 6 fields and $nsamp samples: $(grep proc. "$truth_work/info")"
grep -q '^ *proc.thread ' "$truth_work/info" || fail "replay --info does not list proc.thread"
"$ASYS" export --summary --streams proc.cpu "$f" >"$truth_work/sum" 2>&1 || fail "export --summary failed"
for fld in utime stime state nice kthread start; do
	grep -q "$fld" "$truth_work/sum" || fail "the summary has no proc.cpu $fld"
done
pass
finish
