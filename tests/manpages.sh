#!/bin/sh
# Every long option that a subcommand's --help prints appears in a man page.
. "$top_srcdir/tests/lib.sh"
[ -x "$ASYS" ] || skip "no asys binary at $ASYS"
man="$top_srcdir/man"
subs=$("$ASYS" --help | awk '/^Subcommands:/{f=1;next} f&&/^  [a-z]/{print $1}')
[ -n "$subs" ] || fail "no subcommands listed by asys --help"
for sub in $subs; do
	[ "$sub" = help ] && continue
	"$ASYS" "$sub" --help >/dev/null 2>&1 || { fail "asys $sub --help failed"; continue; }
	[ -f "$man/asys-$sub.1" ] || fail "no man page man/asys-$sub.1"
	for opt in $("$ASYS" "$sub" --help | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u); do
		esc=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
		if grep -rqF -- "$opt" "$man" || grep -rq -- "$esc" "$man"; then
			pass
		else
			fail "asys $sub: $opt is in --help but in no man page"
		fi
	done
done
# the pages are well-formed roff
if command -v groff >/dev/null 2>&1; then
	for page in "$man"/*.1; do
		w=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
		[ -z "$w" ] && pass || fail "$page: $w"
	done
fi
finish
