#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# Without root or CAP_BPF+CAP_PERFMON the collector's init fails with a
# sentence that says so and how to fix it.
# shellcheck source=tests/lib.sh
. "$top_srcdir/tests/lib.sh"
# shellcheck source=tests/gpurt/lib.sh
. "$top_srcdir/tests/gpurt/lib.sh"
bin="$top_builddir/tests/gpurt/test_collect"
if [ "$(id -u)" != 0 ]; then
	exec "$bin" nonroot
fi
trap user_dir_cleanup EXIT
copy_for_user "$bin" || skip "cannot run test_collect as uid 65534: $user_dir_why"
# from the copy's directory: the build tree may be closed to that user
cd "$user_dir" || exit 1
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	--bounding-set=-all ./test_collect nonroot
