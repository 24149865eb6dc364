#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# Every C file is formatted with the committed .clang-format: one style, so
# that a diff shows what changed and not how someone's editor indents.
. "$top_srcdir/tests/lib.sh"
# The version is pinned: another clang-format formats some lines of the same
# .clang-format differently. scripts/deps.sh installs clang-format-14;
# CLANG_FORMAT names another binary of version 14.
cf=${CLANG_FORMAT:-clang-format-14}
if ! command -v "$cf" >/dev/null 2>&1; then
	command -v clang-format >/dev/null 2>&1 ||
		skip "clang-format-14 is not installed (scripts/deps.sh installs it)"
	cf=clang-format
fi
case $("$cf" --version 2>&1) in
*"clang-format version 14."*) ;;
*) skip "$cf is not version 14, the version .clang-format is checked with: $("$cf" --version 2>&1 | head -n 1)" ;;
esac
cd "$top_srcdir" || exit 1
[ -f .clang-format ] || skip "no .clang-format in $top_srcdir"
errs=$(mktemp) || exit 1
files=$(find src lib collectors tui inject demo tests bench -name '*.[ch]' ! -name vmlinux.h ! -name '*.skel.h' \
	-not -path '*/build/*' 2>/dev/null | sort)
[ -n "$files" ] || fail "no C files found under $top_srcdir"
# one clang-format for every file: a process a file costs most of the test's
# time; each file it finds unformatted is named in its errors (and with
# no file it would read its input)
# shellcheck disable=SC2086
if "$cf" --dry-run -Werror $files </dev/null >/dev/null 2>"$errs"; then
	pass
else
	bad=$(sed -n 's/^\([^:]*\.[ch]\):[0-9]*:[0-9]*: error: .*clang-format.*/\1/p' "$errs" | sort -u)
	[ -n "$bad" ] || fail "clang-format failed: $(head -n 3 "$errs")"
	for f in $bad; do
		fail "$f is not formatted: $cf -i $f"
	done
fi
rm -f "$errs"
finish
