#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# NIC options: a bad regex prints the regcomp error and exits 2, so does a
# frequency out of 1..100000; --nic-metrics false records no NIC stream,
# --nic-metrics true does.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
[ -x "$ASYS" ] || { echo "FAIL: no $ASYS"; exit 1; }
D=$(mktemp -d "${TMPDIR:-/tmp}/asys-nic-cli.XXXXXX")
trap 'rm -rf "$D"' EXIT

usage_error() { # MESSAGE-REGEX ARGS...: exit 2 with that message on stderr
	re=$1
	shift
	"$ASYS" top "$@" >/dev/null 2>"$D/err"
	st=$?
	[ "$st" = 2 ] || { fail "asys top $*: exit $st, want 2"; return; }
	grep -Eq -- "$re" "$D/err" || { fail "asys top $*: message '$(cat "$D/err")'"; return; }
	pass
}
usage_error "--nic-device-include.*(Unmatched|parenthes)" --nic-device-include '('
usage_error "--nic-device-include" --nic-device-include 'eth,['
usage_error "--nic-device-include" --nic-device-include 'a{2,1}'
# expressions that would make regcomp build an automaton of gigabytes are
# refused before it runs, with the reason
usage_error "refused: a repetition of a repetition" --nic-device-include 'a++++++++++++++++'
usage_error "refused: a bound above 64" --nic-device-include 'a{1000}'
usage_error "refused: longer than 200 characters" --nic-device-include "$(printf '%0250d' 0)"
usage_error "--nic-metrics-frequency.*1.*100000" --nic-metrics-frequency 0
usage_error "--nic-metrics-frequency.*1.*100000" --nic-metrics-frequency 100001
usage_error "--nic-metrics-frequency" --nic-metrics-frequency fast
usage_error "--nic-metrics" --nic-metrics maybe

rec() { # NAME ARGS...: a one-second recording, then its --info
	n=$1
	shift
	"$ASYS" record -s none --hggc-memory-usage false -t none -o "$D/$n.asys" --duration 1s \
		"$@" >/dev/null 2>&1 || fail "asys record $*"
	"$ASYS" replay --info "$D/$n.asys" 2>/dev/null
}
rec off --nic-metrics false | grep -q 'nic\.link' && fail "--nic-metrics false still records nic.link" || pass
rec on --nic-metrics true --nic-metrics-frequency 50 |
	grep -Eq 'nic\.link +v1 +8 fields +[1-9][0-9]* series +[1-9][0-9]* samples' &&
	pass || fail "--nic-metrics true records no nic.link samples"
finish
