# SPDX-License-Identifier: GPL-2.0-only
# Shared by the tests of libasys-inject.so: builds the NVTX test program with
# the toolkit's real NVTX v3 headers, and names the library of this build.
# shellcheck shell=sh
NVTX_INC=${NVTX_INC:-/usr/local/cuda/include}
INJECT_LIB="$top_builddir/.libs/libasys-inject.so"

inject_need() {
	[ -r "$NVTX_INC/nvtx3/nvToolsExt.h" ] ||
		skip "no NVTX v3 headers in $NVTX_INC/nvtx3 (the CUDA toolkit's; set NVTX_INC)"
	command -v "${CC:-cc}" >/dev/null 2>&1 || skip "no C compiler to build the NVTX program"
	[ -r "$INJECT_LIB" ] || skip "no $INJECT_LIB (run make first)"
}

# inject_build_prog DIR: DIR/nvtx_prog, or a skip.
inject_build_prog() {
	"${CC:-cc}" -O2 -I"$NVTX_INC" -o "$1/nvtx_prog" "$top_srcdir/tests/inject/nvtx_prog.c" \
		-pthread -ldl || skip "the NVTX program does not build"
}

# The last value of FIELD for the range labelled LABEL (DOMAIN<US>NAME) in
# a CSV export of hgtx.ranges, its columns found by the header's names. The
# export may write the separator escaped, as \x1F: both are the same label.
last_value() {
	awk -F, -v lab="$2" -v fld="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ l = $c["label"]; gsub(/\\x1[Ff]/, "\037", l) }
		$c["stream"] == "hgtx.ranges" && l == lab && $c["field"] == fld { v = $c["value"] }
		END { print v }' "$1"
}

# within A B PCT: A is within PCT % of B.
within() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d;
		exit !(b > 0 && d <= b * p / 100) }'
}
