#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What each test needs, from its own declaration: one line in its first ten,
#   # needs: WORD...        in a shell test (tests/x/y.sh)
#   /* needs: WORD... */    in a C test, in the .c of its name (tests/x/test_y.c)
# The words:
#   none     nothing but the build: `make check` runs it (the other words put
#            a test in `make check-system`)
#   root     skips without root (BPF, mounts, namespaces, capabilities, cgroups)
#   netns    network namespaces of its own (a veth pair, unshare -n)
#   tmux     drives asys in a tmux server of its own
#   probes   puts uprobes on the runtime with eBPF
#   serial   judges time, rates or a CPU share, or needs the loopback idle:
#            runs one at a time, after the tests that run side by side
#   syswide  (serial) its asys probes every process: never beside the other
#            build's probe tests
#   loud     (serial) loads both cores on purpose: runs alone, after the lanes
#   system   none of those, but the live host all the same (an endpoint on a
#            loopback port, the host's processes against another tool's view)
# Usage: scripts/test-needs.sh SRCDIR WHICH TEST...: of the TESTs (automake's
# TESTS, relative to SRCDIR), prints by WHICH
#   needs     each test and its words, a line each
#   parallel  the tests that may run side by side
#   serial    the tests that run one at a time
#   check     the tests `make check` runs (none)
#   system    the tests `make check-system` runs (all others)
#   lanes     each serial test's part of scripts/test.sh's serial lanes, as
#             "LANE TEST": loud before probes before syswide, else quiet
# in the order given. A test without a declaration, or with a bad one, fails
# the whole call: nothing is printed, each fault is told on stderr.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 SRCDIR WHICH TEST..." >&2; exit 2; }
srcdir=$1 which=$2
shift 2
case $which in
needs | parallel | serial | check | system | lanes) ;;
*) echo "$0: WHICH is one of needs parallel serial check system lanes, not '$which'" >&2; exit 2 ;;
esac
[ $# -gt 0 ] || exit 0
files=
for t; do
	case $t in *.sh) f=$srcdir/$t ;; *) f=$srcdir/$t.c ;; esac
	[ -r "$f" ] || { echo "$t: no $f to read its needs from" >&2; exit 1; }
	files="$files $f"
done
# awk reads each file whole: a second declaration further down is a fault too
# shellcheck disable=SC2086 # test names have no spaces (automake's TESTS)
awk -v which="$which" -v srcdir="$srcdir/" -v tests="$*" '
function fault(t, msg) { print t ": " msg > "/dev/stderr"; bad = 1 }
BEGIN {
	split("none root netns tmux probes serial syswide loud system", w, " ")
	for (i in w) known[w[i]] = 1
	nt = split(tests, order, " ")
}
FNR == 1 {
	name = substr(FILENAME, length(srcdir) + 1)
	c = name ~ /\.c$/
	if (c) sub(/\.c$/, "", name)
	found = 0
}
(c && /^\/\*[ \t]*needs:/) || (!c && /^#[ \t]*needs:/) {
	seen[name] = 1
	if (++found > 1) { fault(name, "a second \"needs:\" line (line " FNR ")"); next }
	if (FNR > 10) fault(name, "its \"needs:\" line is line " FNR ", not in the first ten")
	line = $0
	if (c) {
		if (line !~ /\*\/[ \t]*$/) { fault(name, "its \"needs:\" comment does not end on its line"); next }
		sub(/\*\/[ \t]*$/, "", line)
		sub(/^\/\*[ \t]*needs:/, "", line)
	} else
		sub(/^#[ \t]*needs:/, "", line)
	n = split(line, word, " ")
	if (n == 0) fault(name, "\"needs:\" names nothing (say none)")
	split("", has)
	for (i = 1; i <= n; i++) {
		if (!(word[i] in known))
			fault(name, "\"" word[i] "\" is not a need: none root netns tmux probes serial syswide loud system")
		else if (word[i] in has) fault(name, "\"" word[i] "\" twice")
		has[word[i]] = 1
	}
	if (("none" in has) && n > 1) fault(name, "none beside other needs")
	if (("syswide" in has) && !("serial" in has)) fault(name, "syswide without serial")
	if (("loud" in has) && !("serial" in has)) fault(name, "loud without serial")
	needs[name] = ""
	for (i = 1; i <= n; i++) needs[name] = needs[name] " " word[i]
	needs[name] = substr(needs[name], 2)
}
END {
	for (i = 1; i <= nt; i++)
		if (!(order[i] in seen)) fault(order[i], "no \"needs:\" line in its first ten lines")
	if (bad) exit 1
	for (i = 1; i <= nt; i++) {
		t = order[i]
		s = " " needs[t] " "
		ser = s ~ / serial /
		if (which == "needs") print t " " needs[t]
		else if (which == "serial" && ser) print t
		else if (which == "parallel" && !ser) print t
		else if (which == "check" && s == " none ") print t
		else if (which == "system" && s != " none ") print t
		else if (which == "lanes" && ser)
			print (s ~ / loud / ? "loud" : s ~ / probes / ? "probes" : s ~ / syswide / ? "syswide" : "quiet") " " t
	}
}' $files
