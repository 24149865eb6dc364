#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# scripts/test-needs.sh, which the scheduler and the two tiers read each
# test's declaration through: a missing or malformed one fails the whole
# call with nothing printed and the test named, and a good set is split into
# the halves, the tiers and the serial lanes (loud before probes before
# syswide) in the order given.
. "$top_srcdir/tests/lib.sh"
needs="$top_srcdir/scripts/test-needs.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/asys-needs.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tests/x"
# sh NAME LINE: tests/x/NAME.sh declaring LINE on its second line
sh_test() { printf '#!/bin/sh\n%s\nexit 0\n' "$2" >"$work/tests/x/$1.sh"; }
# refused TEST WHY: the call over TEST fails, prints nothing, and names it
refused() {
	if sh "$needs" "$work" needs "$1" >"$work/out" 2>"$work/err"; then
		fail "$1 ($2) was taken: $(cat "$work/out")"
	elif [ -s "$work/out" ]; then
		fail "$1 ($2): printed $(cat "$work/out")"
	elif ! grep -q "^$1: " "$work/err"; then
		fail "$1 ($2): the error does not name it: $(cat "$work/err")"
	else
		pass
	fi
}

sh_test unknown '# needs: tmux bogus'
refused tests/x/unknown.sh "an unknown word"
sh_test empty '# needs:'
refused tests/x/empty.sh "no word"
sh_test nonewith '# needs: none root'
refused tests/x/nonewith.sh "none beside another"
sh_test twice '# needs: serial serial'
refused tests/x/twice.sh "a word twice"
sh_test syswide '# needs: syswide'
refused tests/x/syswide.sh "syswide without serial"
sh_test loud '# needs: root loud'
refused tests/x/loud.sh "loud without serial"
sh_test absent '# what it needs is not said'
refused tests/x/absent.sh "no declaration"
printf '#!/bin/sh\n# needs: none\n# needs: root\n' >"$work/tests/x/second.sh"
refused tests/x/second.sh "two declarations"
{ echo '#!/bin/sh'; for i in 1 2 3 4 5 6 7 8 9 10; do echo "# $i"; done; echo '# needs: none'; } \
	>"$work/tests/x/late.sh"
refused tests/x/late.sh "past the first ten lines"
printf '/* needs: serial\n */\nint main(void) { return 0; }\n' >"$work/tests/x/test_open.c"
refused tests/x/test_open "a C comment left open"
printf '# needs: none\n' >"$work/tests/x/test_shell.c"
refused tests/x/test_shell "a shell comment in a C test"
refused tests/x/nofile.sh "no file"
# one bad test among good ones fails the call all the same
sh_test good '# needs: none'
sh "$needs" "$work" needs tests/x/good.sh tests/x/unknown.sh >"$work/out" 2>/dev/null &&
	fail "a bad declaration among good ones was taken" || pass
sh "$needs" "$work" sideways tests/x/good.sh >/dev/null 2>&1 && fail "WHICH=sideways was taken" || pass

# a good set, in this order
sh_test unit '# needs: none'
sh_test screen '#needs:   tmux'
sh_test timed '# needs: serial'
sh_test probe '# needs: root probes serial'
sh_test wide '# needs: tmux serial syswide'
sh_test noisy '# needs: serial loud probes'
sh_test live '# needs: system'
printf '/* needs: none */\nint main(void) { return 0; }\n' >"$work/tests/x/test_c.c"
printf '/* needs: serial */\n' >"$work/tests/x/test_t.c"
set -- tests/x/unit.sh tests/x/noisy.sh tests/x/screen.sh tests/x/test_c tests/x/timed.sh \
	tests/x/probe.sh tests/x/wide.sh tests/x/test_t tests/x/live.sh
for w in parallel serial check system lanes needs; do
	case $w in
	parallel) exp='tests/x/unit.sh,tests/x/screen.sh,tests/x/test_c,tests/x/live.sh,' ;;
	serial) exp='tests/x/noisy.sh,tests/x/timed.sh,tests/x/probe.sh,tests/x/wide.sh,tests/x/test_t,' ;;
	check) exp='tests/x/unit.sh,tests/x/test_c,' ;;
	system) exp='tests/x/noisy.sh,tests/x/screen.sh,tests/x/timed.sh,tests/x/probe.sh,tests/x/wide.sh,tests/x/test_t,tests/x/live.sh,' ;;
	lanes) exp='loud tests/x/noisy.sh,quiet tests/x/timed.sh,probes tests/x/probe.sh,syswide tests/x/wide.sh,quiet tests/x/test_t,' ;;
	needs) exp='tests/x/unit.sh none,tests/x/noisy.sh serial loud probes,tests/x/screen.sh tmux,tests/x/test_c none,tests/x/timed.sh serial,tests/x/probe.sh root probes serial,tests/x/wide.sh tmux serial syswide,tests/x/test_t serial,tests/x/live.sh system,' ;;
	esac
	got=$(sh "$needs" "$work" "$w" "$@" 2>&1 | tr '\n' ',')
	[ "$got" = "$exp" ] && pass || fail "WHICH=$w: want '$exp', got '$got'"
done
finish
