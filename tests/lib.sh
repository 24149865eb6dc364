# Shared helpers for shell tests. Source it: . "$top_srcdir/tests/lib.sh"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${ASYS:=$top_builddir/asys}"
fails=0
passes=0

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { passes=$((passes + 1)); }
need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root: $1"; }
finish() {
	echo "$passes passed, $fails failed"
	[ "$fails" -eq 0 ]
}
