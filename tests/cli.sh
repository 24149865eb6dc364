#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# Every bad value of the top-level options: exit 2 and one line naming the
# bad word and what is expected.
. "$top_srcdir/tests/lib.sh"
[ -x "$ASYS" ] || skip "no asys binary at $ASYS"

# expect_usage "needle" args... : exit 2, one line on stderr containing needle
expect_usage() {
	needle=$1; shift
	err=$("$ASYS" "$@" 2>&1 >/dev/null </dev/null); rc=$?
	lines=$(printf '%s\n' "$err" | wc -l)
	if [ $rc -ne 2 ]; then fail "asys $*: exit $rc, wanted 2 ($err)"
	elif ! printf '%s' "$err" | grep -qF -- "$needle"; then fail "asys $*: '$err' lacks '$needle'"
	elif [ "$lines" -ne 1 ]; then fail "asys $*: $lines lines of error, wanted 1: $err"
	else pass; fi
}

expect_usage "unknown subcommand 'tpo'" tpo
expect_usage "unknown option '--bogus'" top --bogus
expect_usage "unknown option '-Z'" top -Z
expect_usage "'0.01' for -d/--delay: expected seconds between 0.1 and 3600" top -d 0.01
expect_usage "'3601'" top -d 3601
expect_usage "'abc'" top --delay abc
expect_usage "'1e999'" top --delay=1e999
expect_usage "needs a value" top -d
expect_usage "process-tree, system-wide or none" top -s everything
expect_usage "'maybe' for --host-memory-sampling: expected true or false" top --host-memory-sampling maybe
expect_usage "between 1 and 1000" top --host-memory-sampling-frequency 0
expect_usage "between 1 and 1000" top --host-memory-sampling-frequency 1001
expect_usage "'ten'" top --host-memory-sampling-frequency ten
expect_usage "'0' for -p/--pid" top -p 0
expect_usage "'x1'" top -p x1
expect_usage "'99999999999999999999'" top -p 99999999999999999999
expect_usage "'2147483648'" top -p 2147483648
expect_usage "no process with pid 2147483647" top -p 2147483647
expect_usage "'1,,2'" top -p 1,,2
expect_usage "must be followed by a command" top --
expect_usage "between 10 and 10000" top --ppu-metrics-frequency 5
expect_usage "between 1 and 100000" top --nic-metrics-frequency 100001
expect_usage "bad regular expression 'a('" top --nic-device-include 'bond,a('
expect_usage "'sometimes' for --nic-metrics" top --nic-metrics sometimes
expect_usage "hggc or none" top -t cuda
expect_usage "device ids" top --ppu-metrics-device 0,x
expect_usage "takes no value" top --no-color=1
expect_usage "unexpected argument 'sleep'" top sleep 1

# replay, export and demo read their options with the same parser
expect_usage "'1x' for -d/--delay: expected seconds between 0.1 and 3600" replay -d 1x x.asys
expect_usage "'100' for --speed" replay --speed 100 x.asys
expect_usage "no recording given" replay -d 1
expect_usage "unknown option '--duration'" replay --duration 10s x.asys
expect_usage "'xml' for -f/--format: expected csv or json" export -f xml x.asys
expect_usage "no recording given" export --summary
expect_usage "unexpected argument 'x.asys'" demo x.asys
expect_usage "'0' for -d/--delay" demo -d 0

# sizes take a byte unit, durations a time unit; what could be either is refused
expect_usage "write 10MB for a size or 10min for a duration" record -o x.asys --rotate 10m
expect_usage "write 64MB for a size or 64min for a duration" record -o x.asys --rotate 64
expect_usage "at least 256KB with a byte unit, such as 512MB or 512GiB" record -o x.asys --max-size 512M
expect_usage "a duration with its unit, such as 30s or 30min" record -o x.asys --duration 30
expect_usage "'10MB' for --duration" record -o x.asys --duration 10MB

# booleans in asys style, and the ways to ask for help
for v in true false =true =false; do
	case $v in =*) set -- "--host-memory-sampling$v" ;; *) set -- --host-memory-sampling "$v" ;; esac
	out=$("$ASYS" top "$@" --help 2>&1); rc=$?
	[ $rc -eq 0 ] && pass || fail "boolean $v refused: $out"
done
"$ASYS" top --help | grep -q -- "--host-memory-sampling-frequency HZ" && pass || fail "top --help lacks options"
# every line of every --help fits 80 columns
for sub in top record replay export demo; do
	long=$("$ASYS" "$sub" --help | awk 'length > 80')
	[ -z "$long" ] && pass || fail "asys $sub --help has lines over 80 columns: $long"
done
"$ASYS" help top | grep -q -- "--delay" && pass || fail "asys help top"
"$ASYS" --version | grep -Eq '^asys [0-9]+\.[0-9]+' && pass || fail "--version"
"$ASYS" --help | grep -q '^  top' && pass || fail "--help lists subcommands"
"$ASYS" >/dev/null 2>&1; [ $? -eq 2 ] && pass || fail "no subcommand should exit 2"
# no terminal: a clear message, exit 1
err=$("$ASYS" top </dev/null 2>&1 >/dev/null); rc=$?
[ $rc -eq 1 ] && printf '%s' "$err" | grep -q "needs a terminal" && pass || fail "no tty: rc $rc: $err"
# the metrics endpoint and the snapshot
expect_usage "'localhost:9459' for --listen: expected ADDR:PORT with a numeric address" serve --listen localhost:9459
expect_usage "'127.0.0.1' for --listen" serve --listen 127.0.0.1
expect_usage "'127.0.0.1:65536' for --listen" serve --listen 127.0.0.1:65536
expect_usage "'[::1:9459' for --listen" serve --listen '[::1:9459'
expect_usage "'127.0.0.1:-1' for --listen" record -o x.asys --listen 127.0.0.1:-1
expect_usage "'1001' for --metrics-processes" top --metrics-processes 1001
expect_usage "unknown option '--listen'" snapshot --listen 127.0.0.1:0
expect_usage "unknown option '--delay'" snapshot --delay 1
expect_usage "'0.05' for --interval" snapshot --interval 0.05
expect_usage "'xml' for -f/--format" snapshot -f xml
expect_usage "unknown option '-o'" serve -o x.asys
finish
