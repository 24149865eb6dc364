# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for shell tests. Source it: . "$top_srcdir/tests/lib.sh"
# shellcheck shell=sh
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${ASYS:=$top_builddir/asys}"
# The tests read asys's UTF-8 (│, ▲, ─) with grep, sed, awk, cut and wc, and
# print numbers with printf: in the caller's locale a bracket expression
# such as [│|] matches one byte at a time (C, a root login with LANG unset)
# and a decimal point can be a comma. Every test runs in C.UTF-8; one that
# checks another locale sets it for that command.
LC_ALL=C.UTF-8
export LC_ALL
fails=0
passes=0

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { passes=$((passes + 1)); }
need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root: $1"; }
# built_with NAME: this build's config.h defines HAVE_NAME (BPF, MNL, SERVE)
built_with() { grep -q "^#define HAVE_$1 1" "$top_builddir/config.h" 2>/dev/null; }
finish() {
	echo "$passes passed, $fails failed"
	[ "$fails" -eq 0 ]
}

# copy_for_user FILE...: for a test that drops privileges to uid/gid 65534.
# The build tree can be where that user cannot go (a clone in /root, mode
# 0700), so the files are copied into a fresh directory of mode 0755 that the
# user can enter, and $user_dir names it. Checks as that user that every copy
# can be read; when that cannot be arranged, returns 1 with the reason in
# $user_dir_why. The caller's EXIT trap calls user_dir_cleanup.
user_dir=
user_dir_why=
# shellcheck disable=SC2034 # user_dir_why is for the caller
copy_for_user() {
	if ! command -v setpriv >/dev/null 2>&1; then
		user_dir_why="setpriv (util-linux) is needed to drop privileges"
		return 1
	fi
	if ! user_dir=$(mktemp -d "${TMPDIR:-/tmp}/asys-user.XXXXXX") ||
		! chmod 0755 "$user_dir"; then
		user_dir_why="cannot make a directory of mode 0755 under ${TMPDIR:-/tmp}"
		return 1
	fi
	for cfu_f in "$@"; do
		# a libtool wrapper script would run the real program from the build tree
		if [ -f "$cfu_f" ] && head -c 4096 "$cfu_f" | grep -q 'libtool wrapper'; then
			user_dir_why="$cfu_f is a libtool wrapper, not the program"
			return 1
		fi
		if ! cp -pR "$cfu_f" "$user_dir/"; then
			user_dir_why="cannot copy $cfu_f to $user_dir"
			return 1
		fi
		if ! setpriv --reuid=65534 --regid=65534 --clear-groups \
			test -r "$user_dir/${cfu_f##*/}" 2>/dev/null; then
			user_dir_why="uid 65534 cannot read $user_dir/${cfu_f##*/} (can it enter ${TMPDIR:-/tmp}?)"
			return 1
		fi
	done
}
user_dir_cleanup() {
	[ -z "$user_dir" ] || rm -rf "$user_dir"
}

# serving_port ERRFILE WHO SCHEME [PID]: the port of the line "WHO: serving
# SCHEME://127.0.0.1:PORT/metrics" (WHO "asys serve", SCHEME http or https)
# once ERRFILE has it, 10 s at most and no longer than PID lives; status 1
# and nothing printed when it does not come.
serving_port() {
	sp_i=0
	while [ "$sp_i" -lt 100 ]; do
		sp_p=$(sed -n "s|^$2: serving $3://127\\.0\\.0\\.1:\\([0-9]*\\)/metrics\$|\\1|p" "$1")
		[ -n "$sp_p" ] && { echo "$sp_p"; return 0; }
		[ -n "$4" ] && ! kill -0 "$4" 2>/dev/null && return 1
		sleep 0.1
		sp_i=$((sp_i + 1))
	done
	return 1
}
