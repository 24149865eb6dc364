#!/bin/sh
# Every C file is formatted with the committed .clang-format: one style, so
# that a diff shows what changed and not how someone's editor indents.
. "$top_srcdir/tests/lib.sh"
command -v clang-format >/dev/null 2>&1 || skip "clang-format is not installed"
cd "$top_srcdir" || exit 1
[ -f .clang-format ] || skip "no .clang-format in $top_srcdir"
errs=$(mktemp) || exit 1
files=$(find src collectors tui inject demo tests bench -name '*.[ch]' ! -name vmlinux.h ! -name '*.skel.h' \
	-not -path '*/build/*' 2>/dev/null | sort)
[ -n "$files" ] || fail "no C files found under $top_srcdir"
# one clang-format for every file: a process a file costs most of the test's
# time; each file it finds unformatted is named in its errors (and with
# no file it would read its input)
# shellcheck disable=SC2086
if clang-format --dry-run -Werror $files </dev/null >/dev/null 2>"$errs"; then
	pass
else
	bad=$(sed -n 's/^\([^:]*\.[ch]\):[0-9]*:[0-9]*: error: .*clang-format.*/\1/p' "$errs" | sort -u)
	[ -n "$bad" ] || fail "clang-format failed: $(head -n 3 "$errs")"
	for f in $bad; do
		fail "$f is not formatted: clang-format -i $f"
	done
fi
rm -f "$errs"
finish
