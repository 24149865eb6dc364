#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The whole test suite from a fresh Debian 12 machine: installs what is
# missing, then builds and runs every test of both tiers (`make check` and
# `make check-system`) twice, once plain and once under ASan+UBSan, with
# warnings as errors (configure's --enable-werror, off by default), each in
# two halves, as the tests' own declarations say (`needs:`,
# scripts/test-needs.sh): first the tests that may run side by side, in one
# build then the other; then the serial ones, which judge time, one at a time
# in each build, the two builds' lists side by side, ordered so that one
# build's tests with runtime probes never run beside the other's that probe
# (serial_lanes).
# Beside those timed tests, at the idle scheduling
# class, the reader fuzzer for 90 s and `make distcheck` (which checks the
# tarball, builds it without eBPF and runs a short list of tests from it).
# Set ASYS_TEST_QUICK=1 to run only the plain build's tests, both tiers.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
cd "$top"
# Where python3 is a version manager's shim (pyenv's), each call runs
# several shell processes to find the interpreter: 0.4 s of CPU on the VM,
# for each of the tests' fifty or so calls. The interpreter's own directory
# first in PATH finds the same one at once (a virtual environment's too).
py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || py=
if [ -n "$py" ] && [ "${py%/*}" != "$(dirname "$(command -v python3)")" ]; then
	export PATH="${py%/*}:$PATH"
fi
autoreconf -fi >/dev/null

status=0
DISTCHECK_TESTS="tests/cli.sh tests/manpages.sh tests/core/test_core tests/procfs/test_procfs \
	tests/rec/badfiles.sh tests/ppu/help.sh tests/gpurt/nobpf.sh"
DISTCHECK_PROGRAMS="tests/core/test_core tests/procfs/test_procfs"
DISTCHECK_LTLIBRARIES="tests/fakes/libhgml.la" # tests/ppu/help.sh
rm -f build/*/check.out
# The parallel half's longest tests (a minute or more each on the VM) start
# first: at the end of the list the half ends waiting on one of them alone.
LONG_TESTS='tests/rec/forged.sh tests/rec/kill.sh tests/build/instrumented.sh'
long_first() {
	local all t
	all=$(cat)
	for t in $LONG_TESTS; do
		printf '%s\n' "$all" | grep -qx -- "$t" && echo "$t"
	done
	printf '%s\n' "$all" | grep -vxF -e "${LONG_TESTS// /$'\n'}" || true
}
# configure_in DIR [configure args]: a fresh configure of DIR. Its Makefile
# goes first, so that a configure that fails leaves nothing to build.
configure_in() {
	local dir=$1; shift
	mkdir -p "$dir"
	rm -f "$dir/check.out" "$dir/serial.list" "$dir/Makefile"
	(cd "$dir" && "$top/configure" -q --enable-werror "$@")
}
# build_in DIR: builds DIR, configured by configure_in, with its check
# programs; the build's output goes to DIR/build.log.
build_in() {
	local dir=$1
	[ -f "$dir/Makefile" ] || return 1
	(cd "$dir" && make -j"$(nproc)" && make -j"$(nproc)" check TESTS=) >"$dir/build.log" 2>&1 ||
		{ tail -n 40 "$dir/build.log"; return 1; }
}
# parallel DIR [configure args, for the heading]: DIR's parallel half, once
# built; the serial half's list goes to DIR/serial.list, a line "LANE TEST"
# a test (print-tests WHICH=lanes).
parallel() {
	local dir=$1 par; shift
	echo "== make check in $dir ($*): the tests that run side by side"
	par=$(make -s -C "$dir" print-tests WHICH=parallel | long_first | tr "\n" " ") &&
		make -s -C "$dir" print-tests WHICH=lanes >"$dir/serial.list" || { status=1; return; }
	# most of these wait on a screen or a child: twice the cores keeps both busy
	(cd "$dir" && make -j"$(($(nproc) * 2))" check TESTS="$par" 2>&1 | tee -a check.out) || status=1
}
# The serial half's lanes, from the tests' declarations. The serial tests
# that put uprobes on the runtime (`probes`): removing a uprobe holds the
# kernel's event mutex for a grace period, and an attach waits behind it, so
# two builds probing at once make each other's probes late. Each build's
# asys probes the other's workloads too where it probes every process: the
# serial tests that run it so (`syswide`: `asys top` or `asys record`
# without `-t none` or `-s none`) must not run beside the other build's
# probe tests either. The serial tests that load both cores on purpose and
# judge the rates under that load (`loud`): beside the other lane they slow
# its 1 kHz tests past their bounds, and its tests theirs, so they run
# alone, after the lanes. The rest of the serial half is `quiet`.
# serial DIR probes|syswide|loud|quiet [tac]: that part of DIR's serial half, one
# test at a time (in reverse order with tac), its lines prefixed with the
# build's name.
serial() {
	local dir=$1 which=$2 order=${3:-cat} ser
	[ -f "$dir/serial.list" ] || return 0
	ser=$(awk -v lane="$which" '$1 == lane { print $2 }' "$dir/serial.list" | $order | tr "\n" " ")
	[ -n "$ser" ] || return 0
	(cd "$dir" && make check TESTS="$ser" 2>&1 | tee -a check.out | sed "s|^|[${dir#build/}] |")
}
# The two builds' serial halves side by side, in two lanes whose probe and
# system-wide parts never meet: the plain lane runs its probe tests, then its
# system-wide ones, then the rest; the sanitizer lane the rest (in reverse
# order, so that the same test seldom runs in both at once), then, once the
# plain lane's probe tests are done, its system-wide ones, then, once the
# plain lane's system-wide ones are done, its probe tests. The rest is
# longest, so those waits seldom wait. Each lane's tests spend most of their
# time waiting: two of them leave a core each. The loud tests of each build
# come last, one at a time, with no lane beside them.
lane_sync=
lane_mark() { touch "$lane_sync/$1"; }
lane_wait() { # lane_wait MARK PID: until the other lane reaches MARK or ends
	while [ ! -e "$lane_sync/$1" ] && kill -0 "$2" 2>/dev/null; do sleep 0.5; done
}
serial_lanes() {
	local plain rc=0
	lane_sync=$(mktemp -d)
	(
		rc=0
		serial build/plain probes || rc=1
		lane_mark probes
		serial build/plain syswide || rc=1
		lane_mark syswide
		serial build/plain quiet || rc=1
		exit $rc
	) &
	plain=$!
	serial build/sanitizers quiet tac || rc=1
	lane_wait probes "$plain"
	serial build/sanitizers syswide tac || rc=1
	lane_wait syswide "$plain"
	serial build/sanitizers probes || rc=1
	wait "$plain" || rc=1
	serial build/plain loud || rc=1
	serial build/sanitizers loud || rc=1
	rm -rf "$lane_sync"
	return $rc
}
failed_logs() {
	for log in "$1"/tests/*.log "$1"/tests/*/*.log; do
		[ -f "$log" ] || continue
		case "$log" in *test-suite.log) continue ;; esac
		if grep -q '^:test-result: FAIL' "${log%.log}.trs" 2>/dev/null; then
			echo "---- $log"; tail -n 40 "$log"
		fi
	done
}
# skipped DIR: each test of DIR's runs that skipped (make check's "SKIP:"
# lines in check.out), with the reason its log gives: the test's own
# "SKIP: why" line, else the log's last line.
skipped() {
	local t log why
	[ -f "$1/check.out" ] || return 0
	sed -n 's/^SKIP: //p' "$1/check.out" | while read -r t; do
		log=$1/${t%.sh}.log
		why=$(sed -n 's/^SKIP:* *//p' "$log" 2>/dev/null | head -n 1)
		[ -n "$why" ] || why=$(tail -n 1 "$log" 2>/dev/null)
		echo "  ${1#build/}: $t: ${why:-(no reason in $log)}"
	done
}

# idle_run CMD...: CMD in the background, where it takes only the CPU that
# nothing else wants. With autogroups on (Debian's default,
# /proc/sys/kernel/sched_autogroup_enabled), the kernel first shares the CPU
# evenly between sessions, and a task's nice or scheduling class counts only
# against the tasks of its own session; the tests in tmux run in tmux's. So
# CMD gets a session of its own (setsid), whose autogroup goes to nice 19,
# and runs at the idle class (nice 19 where that is refused). Its pid, the
# session's, goes to idle_pid; on exit, what is left of the session ends.
idle_pids=
idle_run() {
	setsid -w bash -c 'echo 19 >/proc/self/autogroup 2>/dev/null
		chrt --idle 0 true 2>/dev/null && exec chrt --idle 0 "$@"
		exec nice -n 19 "$@"' idle_run "$@" &
	idle_pid=$!
	idle_pids="$idle_pids $idle_pid "
}
# idle_wait PID: waits for that idle_run and forgets it
idle_wait() {
	local rc=0
	wait "$1" || rc=$?
	idle_pids=${idle_pids/ $1 / }
	return $rc
}
trap 'for p in $idle_pids; do kill -- -"$p" 2>/dev/null; done' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# side_lane: the reader fuzzer (one core for its run) and the tarball's
# build and short test list, side by side, through idle_run: the tests that
# judge time run beside them and leave most of both cores idle, and a task
# of the idle class yields a core as soon as one of theirs wakes.
# Limits there are wall time, so they are raised far above what a starved
# process can lose while a timed test keeps both cores busy (a few seconds):
# libFuzzer's on one input, and check's on each case of the tarball's C tests.
side_lane() {
	unset ASAN_OPTIONS UBSAN_OPTIONS
	export CK_TIMEOUT_MULTIPLIER=10
	rm -f "$top/build/fuzz.rc" "$top/build/distcheck.rc"
	(
		rc=0
		FUZZ_SECONDS=${FUZZ_SECONDS:-90} FUZZ_UNIT_TIMEOUT=60 "$top/tests/fuzz/run.sh" \
			>"$top/build/fuzz.log" 2>&1 || rc=$?
		echo "$rc" >"$top/build/fuzz.rc"
	) &
	# The suite runs twice with eBPF; the tarball builds without it and
	# runs a short list, with only the check programs that list needs
	# (make passes the overrides down to distcheck's own make check), and
	# distcheck-hook checks that every tracked file is in the tarball.
	rc=0
	(cd build/plain && make -j"$(nproc)" distcheck TESTS="$DISTCHECK_TESTS" \
		check_PROGRAMS="$DISTCHECK_PROGRAMS" check_LTLIBRARIES="$DISTCHECK_LTLIBRARIES" \
		DISTCHECK_CONFIGURE_FLAGS="--enable-bpf=no --enable-werror" >/dev/null 2>"$top/build/distcheck.err") || rc=$?
	echo "$rc" >"$top/build/distcheck.rc"
	wait
}
side_report() {
	local rc
	rc=$(cat "$top/build/distcheck.rc" 2>/dev/null || echo lost)
	if [ "$rc" != 0 ]; then
		echo "make distcheck failed ($rc):"; tail -n 40 "$top/build/distcheck.err"; status=1
	fi
	rc=$(cat "$top/build/fuzz.rc" 2>/dev/null || echo lost)
	case $rc in
	0) tail -n 3 "$top/build/fuzz.log" ;;
	77) echo "fuzzer skipped: $(tail -n 1 "$top/build/fuzz.log")" ;;
	*) tail -n 60 "$top/build/fuzz.log"; status=1 ;;
	esac
}

if [ "${ASYS_TEST_QUICK:-0}" != 1 ]; then
	# configure is one process at a time: both builds' at once
	echo "== configure build/plain and build/sanitizers"
	configure_in build/plain &
	plain_cf=$!
	configure_in build/sanitizers --enable-sanitizers || status=1
	wait "$plain_cf" || status=1
else
	configure_in build/plain || status=1
fi
echo "== build build/plain"
if build_in build/plain; then parallel build/plain; else status=1; fi
if [ "${ASYS_TEST_QUICK:-0}" != 1 ]; then
	echo "== build build/sanitizers"
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	if build_in build/sanitizers; then parallel build/sanitizers --enable-sanitizers; else status=1; fi
	echo "== beside what follows, at the idle scheduling class: reader fuzzer, ${FUZZ_SECONDS:-90} s (clang, ASan+UBSan), seeded from tests/data; make distcheck"
	export top DISTCHECK_TESTS DISTCHECK_PROGRAMS DISTCHECK_LTLIBRARIES
	idle_run bash -c "$(declare -f side_lane); side_lane"
	side=$idle_pid
	echo "== the tests that judge time, one at a time in each build, both builds side by side"
	serial_lanes || status=1
	unset ASAN_OPTIONS UBSAN_OPTIONS
else
	serial build/plain quiet || status=1
	serial build/plain syswide || status=1
	serial build/plain probes || status=1
	serial build/plain loud || status=1
fi
for d in build/plain build/sanitizers; do
	[ -f "$d/check.out" ] && failed_logs "$d"
done
if [ "${ASYS_TEST_QUICK:-0}" != 1 ]; then
	echo "== waiting for the fuzzer and make distcheck"
	idle_wait "$side" || true
	side_report
fi
# every skip, with its reason: doc/testing.md says which are expected where
skips=$(for d in build/plain build/sanitizers; do skipped "$d"; done)
[ -z "$skips" ] || printf 'skipped, and why:\n%s\n' "$skips"
# one closing line over every make check run
awk '/^# PASS:/{p+=$3} /^# FAIL:/{f+=$3} /^# ERROR:/{f+=$3} /^# SKIP:/{s+=$3}
	END{printf "%d passed, %d failed, %d skipped\n", p, f, s}' build/*/check.out
[ $status -eq 0 ] && echo "asys: all test runs passed" || echo "asys: some test runs failed"
exit $status
