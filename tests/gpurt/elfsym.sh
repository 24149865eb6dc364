#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# The uprobe offsets of gpurt_elf_offsets, resolved for all probes of a
# library in one pass, against readelf's reading of the same files: the
# symbol's value moved through the loadable segment that holds it, as the
# kernel's uprobe takes it. On the test runtime library and on the C
# library (versioned names, many symbols); a name the file does not define
# gives 0, a name whose default version is an indirect function (memcpy in
# glibc) gives 0, and a file that is not ELF is refused.
. "$top_srcdir/tests/lib.sh"
P=$top_builddir/tests/gpurt/elfsym_print
command -v readelf >/dev/null || skip "readelf (binutils) is missing"
[ -x "$P" ] || fail "no $P (make check builds it)"

# expect FILE NAME: the offset readelf gives: the default version's
# definition, else another version's, else a local one; 0 when there is
# none or the winner is an indirect function
expect() {
	readelf -W --dyn-syms --syms "$1" 2>/dev/null | awk -v n="$2" '
		$8 == n || index($8, n "@") == 1 {
			if (($4 == "FUNC" || $4 == "IFUNC") && $7 != "UND" && $2 !~ /^0+$/) {
				if ($5 == "LOCAL") r = 1
				else if ($8 ~ /@/ && $8 !~ /@@/) r = 2
				else r = 3
				if (r > best) { best = r; v = $2; t = $4 }
			}
		}
		END { print (best && t == "FUNC" ? v : "") }' | {
		read -r v
		if [ -z "$v" ]; then echo 0; return; fi
		v=$((0x$v))
		readelf -lW "$1" | awk '$1 == "LOAD" { print $2, $3, $5 }' | {
			while read -r o a z; do
				if [ "$v" -ge $((a)) ] && [ "$v" -lt $((a + z)) ]; then
					echo $((v - a + o))
					exit 0
				fi
			done
			echo 0
		}
	}
}

check() {
	local f=$1 out; shift
	out=$("$P" "$f" "$@") || { fail "elfsym_print $f failed"; return; }
	for n in "$@"; do
		got=$(printf '%s\n' "$out" | awk -v n="$n" '$1 == n { print $2 }')
		want=$(expect "$f" "$n")
		if [ "$got" = "$want" ]; then pass; else fail "$f: $n at $got, readelf says $want"; fi
	done
}

RT=$top_builddir/tests/fakes/.libs/libcudart.so
[ -f "$RT" ] || fail "no $RT (make check builds it)"
check "$RT" cudaMalloc cudaFree cudaLaunchKernel cudaNoSuchCall
LIBC=$(ldd "$P" 2>/dev/null | awk '$1 ~ /^libc\.so/ { print $3 }')
[ -f "$LIBC" ] || LIBC=$(ldconfig -p | awk '$1 == "libc.so.6" { print $NF; exit }')
if [ -f "$LIBC" ]; then
	check "$LIBC" malloc free open pthread_create memcpy no_such_function_here
	# memcpy's default version is an indirect function: not resolved, not
	# even to the old version's plain copy
	if readelf -W --dyn-syms "$LIBC" | grep -q ' IFUNC .* memcpy@@'; then
		[ "$("$P" "$LIBC" memcpy | awk '$1 == "memcpy" { print $2 }')" = 0 ] && pass ||
			fail "memcpy (an indirect function in this glibc) was resolved"
	fi
fi
# not ELF: an error, no offsets
printf 'not an ELF file\n' >"${TMPDIR:-/tmp}/elfsym.$$"
if "$P" "${TMPDIR:-/tmp}/elfsym.$$" cudaMalloc >/dev/null 2>&1; then
	fail "a text file was read as ELF"
else pass; fi
rm -f "${TMPDIR:-/tmp}/elfsym.$$"
finish
