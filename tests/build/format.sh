#!/bin/sh
# Every C file is formatted with the committed .clang-format: one style, so
# that a diff shows what changed and not how someone's editor indents.
. "$top_srcdir/tests/lib.sh"
command -v clang-format >/dev/null 2>&1 || skip "clang-format is not installed"
cd "$top_srcdir" || exit 1
[ -f .clang-format ] || skip "no .clang-format in $top_srcdir"
for f in $(find src collectors tui inject demo tests bench -name '*.[ch]' ! -name vmlinux.h ! -name '*.skel.h' \
	-not -path '*/build/*' 2>/dev/null | sort); do
	if clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
		pass
	else
		fail "$f is not formatted: clang-format -i $f"
	fi
done
finish
