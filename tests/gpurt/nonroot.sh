#!/bin/sh
# Without root or CAP_BPF+CAP_PERFMON the collector's init fails with a
# sentence that says so and how to fix it.
. "$top_srcdir/tests/gpurt/lib.sh"
bin="$top_builddir/tests/gpurt/test_collect"
if [ "$(id -u)" != 0 ]; then
	exec "$bin" nonroot
fi
if ! command -v setpriv >/dev/null 2>&1; then
	echo "SKIP: setpriv (util-linux) is needed to drop privileges"
	exit 77
fi
exec setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	--bounding-set=-all "$bin" nonroot
