#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# --help, the man pages and the option tables agree. --help is printed from
# the tables (the application's and each collector's), so checking --help
# against the pages checks the tables too:
# - every option a subcommand's --help lists, long and short, is described in
#   the OPTIONS of its own page (asys-record(1), asys-serve(1) and
#   asys-snapshot(1) send the collectors' options to asys-top(1), so for them
#   that page counts too);
# - every option a page's OPTIONS describes is one its subcommand takes;
# - the pages are well-formed roff.
. "$top_srcdir/tests/lib.sh"
[ -x "$ASYS" ] || skip "no asys binary at $ASYS"
man="$top_srcdir/man"

# the options of --help: only the left column, never words of the help text
help_opts() {
	"$ASYS" "$1" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z0-9-]+' |
		sed -E 's/^ +//; s/, / /' | tr ' ' '\n'
}
# the options of a page's OPTIONS section: the tags of its .TP items
page_opts() {
	awk '/^\.SH OPTIONS/ { f = 1; next } /^\.SH/ { f = 0 } f && prev == ".TP" { print } { prev = $0 }' \
		"$1" | grep -oE '\\-(\\-[a-z][a-z0-9\\-]*|[a-zA-Z]\b)' | sed 's/\\-/-/g'
}

subs=$("$ASYS" --help | awk '/^Subcommands:/{f=1;next} f&&/^  [a-z]/{print $1}')
[ -n "$subs" ] || fail "no subcommands listed by asys --help"
for sub in $subs; do
	[ "$sub" = help ] && continue
	"$ASYS" "$sub" --help >/dev/null 2>&1 || { fail "asys $sub --help failed"; continue; }
	page="$man/asys-$sub.1"
	[ -f "$page" ] || { fail "no man page man/asys-$sub.1"; continue; }
	documented=$(page_opts "$page"
		case $sub in record | serve | snapshot) page_opts "$man/asys-top.1" ;; esac)
	given=$(help_opts "$sub")
	[ -n "$given" ] || fail "asys $sub --help lists no option"
	for opt in $given; do
		if printf '%s\n' "$documented" | grep -qxF -- "$opt"; then pass; else
			fail "asys $sub: $opt is in --help but not in the OPTIONS of $(basename "$page")"
		fi
	done
	for opt in $(page_opts "$page" | sort -u); do
		if printf '%s\n' "$given" | grep -qxF -- "$opt"; then pass; else
			fail "$(basename "$page") describes $opt, which asys $sub does not take"
		fi
	done
done
# the pages are well-formed roff
if command -v groff >/dev/null 2>&1; then
	for page in "$man"/*.1 "$man"/*.5; do
		w=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
		[ -z "$w" ] && pass || fail "$page: $w"
	done
fi
finish
