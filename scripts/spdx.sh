#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every source file names its licence in its first lines, as an SPDX
# identifier a tool can read: C files in a comment on the first line, shell
# and Python scripts and Automake fragments in a # comment after the shebang.
#
#   scripts/spdx.sh [DIR]           add the line where it is missing
#   scripts/spdx.sh --check [DIR]   list what lacks it or disagrees; exit 1 if any
#
# DIR is the top of the tree (default: the one this script is in). Adding is
# idempotent: a file that names an identifier in its first five lines is left
# as it is, but for the deprecated GPL-2.0, which becomes GPL-2.0-only. A BPF
# program's license section is what the kernel checks, so --check also holds
# each *.bpf.c's SEC("license") string to its SPDX line.
set -u

spdx_id=GPL-2.0-only

check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
top=${1:-$(dirname "$0")/..}
cd "$top" || exit 2

# The files git tracks where DIR is a clone's top; in a tarball (make
# distcheck unpacks one inside the clone's build tree) every file there but
# what autotools and the build make.
spdx_files() {
	if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
		git ls-files
	else
		find . \( -path ./build -o -path ./_build -o -path ./_inst -o -path ./build-aux \
			-o -path ./autom4te.cache -o -path ./m4 -o -path ./.git -o -path ./.ci \) -prune \
			-o -type f ! -name configure ! -name config.status ! -name libtool -print |
			sed 's|^\./||'
	fi
}

# c, hash (a # comment) or nothing, for one path. Fixture trees and test
# data are inputs, not sources; vmlinux.h is the kernel's types, generated.
spdx_kind() {
	case $1 in
	tests/fixtures/* | .*) return ;;
	esac
	case ${1##*/} in
	vmlinux.h | *.skel.h) ;;
	*.c | *.h) echo c ;;
	*.sh | *.py | *.am) echo hash ;;
	*.*) ;;
	*)
		# a script without an extension (bench/overhead): by its shebang
		case $(head -n 1 "$1" 2>/dev/null) in
		'#!'*sh* | '#!'*python*) echo hash ;;
		esac
		;;
	esac
}

# the identifier a file names in its first five lines, if any
spdx_of() {
	head -n 5 "$1" | sed -n 's/.*SPDX-License-Identifier:[[:space:]]*\(.*[^[:space:]/*]\)[[:space:]/*]*$/\1/p' |
		head -n 1
}

# The strings the kernel reads in a BPF program's license section that mean
# the same as an SPDX identifier; empty for one the kernel would not take as
# GPL-compatible.
spdx_bpf_license() {
	case $1 in
	GPL-2.0-only | GPL-2.0 | GPL-2.0-or-later | GPL-2.0+) echo 'GPL|GPL v2' ;;
	*BSD*" OR "*GPL* | *GPL*" OR "*BSD*) echo 'Dual BSD/GPL' ;;
	esac
}

spdx_check_bpf() {
	want=$(spdx_bpf_license "$2")
	got=$(sed -n 's/.*SEC("license")[^"]*"\([^"]*\)".*/\1/p' "$1" | head -n 1)
	if [ -z "$want" ]; then
		echo "$1: SPDX $2 is not a licence the kernel takes for a BPF program"
		return 1
	fi
	if [ -z "$got" ]; then
		echo "$1: no SEC(\"license\") string"
		return 1
	fi
	case "|$want|" in
	*"|$got|"*) return 0 ;;
	esac
	echo "$1: license section \"$got\" does not match SPDX $2 (\"$want\")"
	return 1
}

# rewrite FILE with LINE inserted after its first N lines (0 or 1), in place,
# so that its mode and links stay as they were
spdx_insert() {
	tmp=$(mktemp) || exit 2
	if [ "$2" = 0 ]; then
		{ printf '%s\n' "$3"; cat "$1"; } >"$tmp"
	else
		{ head -n 1 "$1"; printf '%s\n' "$3"; tail -n +2 "$1"; } >"$tmp"
	fi
	cat "$tmp" >"$1"
	rm -f "$tmp"
}

bad=0
added=0
list=$(mktemp) || exit 2
trap 'rm -f "$list"' EXIT
spdx_files >"$list"
while IFS= read -r f; do
	[ -f "$f" ] || continue
	kind=$(spdx_kind "$f")
	[ -n "$kind" ] || continue
	id=$(spdx_of "$f")
	if [ -z "$id" ]; then
		if [ $check = 1 ]; then
			echo "$f: no SPDX-License-Identifier"
			bad=1
			continue
		fi
		if [ "$kind" = c ]; then
			spdx_insert "$f" 0 "/* SPDX-License-Identifier: $spdx_id */"
		elif head -n 1 "$f" | grep -q '^#!'; then
			spdx_insert "$f" 1 "# SPDX-License-Identifier: $spdx_id"
		else
			spdx_insert "$f" 0 "# SPDX-License-Identifier: $spdx_id"
		fi
		added=$((added + 1))
		id=$spdx_id
	elif [ "$id" = GPL-2.0 ] && [ $check = 0 ]; then
		# the deprecated name of the same licence
		tmp=$(mktemp) || exit 2
		sed '1,5s/\(SPDX-License-Identifier:[[:space:]]*\)GPL-2\.0\([[:space:]*]\|$\)/\1GPL-2.0-only\2/' \
			"$f" >"$tmp" && cat "$tmp" >"$f"
		rm -f "$tmp"
		id=$spdx_id
	fi
	if [ "$id" != "$spdx_id" ]; then
		echo "$f: SPDX-License-Identifier is $id, not $spdx_id"
		bad=1
	fi
	case $f in
	*.bpf.c) spdx_check_bpf "$f" "$id" || bad=1 ;;
	esac
done <"$list"
[ $check = 1 ] || echo "spdx: added the line to $added files"
exit $bad
