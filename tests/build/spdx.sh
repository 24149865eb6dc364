#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# Every source file names its licence (GPL-2.0-only, the LICENSE file) in an
# SPDX line, and each BPF program's license section says the same licence to
# the kernel. scripts/spdx.sh adds the lines; this runs its check.
. "$top_srcdir/tests/lib.sh"
out=$(sh "$top_srcdir/scripts/spdx.sh" --check "$top_srcdir" 2>&1)
rc=$?
if [ $rc = 0 ]; then
	pass
elif [ -z "$out" ]; then
	fail "scripts/spdx.sh --check failed ($rc) and said nothing"
else
	while IFS= read -r line; do
		fail "$line"
	done <<END
$out
END
	echo "scripts/spdx.sh adds the missing lines"
fi
finish
