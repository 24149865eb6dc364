#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# The METRICS list of man/asys-serve.1 is what scripts/man-metrics.sh makes
# of `asys serve --list-metrics` (the families a scrape has): every family
# of this build is on the page, and, in a build with every collector, the
# page's list is exactly the generated one.
. "$top_srcdir/tests/lib.sh"
page="$top_srcdir/man/asys-serve.1"
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
sh "$top_srcdir/scripts/man-metrics.sh" "$ASYS" >"$out/gen" || { fail "man-metrics.sh"; finish; exit; }
sed -n '/^\.\\" metrics: begin/,/^\.\\" metrics: end/p' "$page" | sed '1d;$d' >"$out/page"
[ -s "$out/page" ] || fail "no metrics: begin/end block in asys-serve.1"
for name in $(sed -n 's/^\.B //p' "$out/gen"); do
	grep -qxF ".B $name" "$out/page" && pass || fail "asys-serve.1 does not list $name"
done
if built_with BPF &&
	built_with MNL; then
	cmp -s "$out/gen" "$out/page" && pass ||
		{ fail "asys-serve.1's list differs from scripts/man-metrics.sh's"; diff "$out/gen" "$out/page" | head; }
fi
finish
