#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root tmux
# libzstd and libxcrypt are loaded only when asys needs them: the binary
# does not link them, asys top runs where neither can be loaded, and
# recording (the R key and asys record), reading a recording and serving
# with basic-auth users each say which library is missing and what to
# install. The libraries are hidden in a mount namespace of the test's own
# (/dev/null bound over each file), so the loader's real dlopen fails as
# on a machine without them.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
need_root "a mount namespace hides the libraries"
command -v unshare >/dev/null 2>&1 || skip "unshare (util-linux) is missing"
command -v readelf >/dev/null 2>&1 || skip "readelf (binutils) is missing"
unshare -m true 2>/dev/null || skip "no mount namespace here: $(unshare -m true 2>&1)"

# not linked: no DT_NEEDED entry for either
needed=$(readelf -d "$ASYS" 2>&1) || skip "readelf cannot read $ASYS: $needed"
for lib in libzstd.so.1 libcrypt.so.1; do
	case $needed in *"[$lib]"*) fail "asys links $lib" ;; *) pass ;; esac
done

# every file the dynamic loader could find under either name
hide=
for lib in libzstd.so.1 libcrypt.so.1; do
	for p in $(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF }'); do
		hide="$hide $(readlink -f "$p")"
	done
done
[ -n "$hide" ] || skip "ldconfig lists neither libzstd.so.1 nor libcrypt.so.1"

# shellcheck source=tests/tui/tmux_lib.sh
. "$top_srcdir/tests/tui/tmux_lib.sh"
cat >"$TDIR/hide" <<EOF
#!/bin/sh
for f in$hide; do
	mount --bind /dev/null "\$f" || exit 99
done
exec "\$@"
EOF
chmod +x "$TDIR/hide"
nolibs() { unshare -m "$TDIR/hide" "$ASYS" "$@"; }
why=$(unshare -m "$TDIR/hide" true 2>&1) || skip "cannot bind /dev/null over the libraries here: $why"

# the binary starts, and the libraries are really out of reach
out=$(nolibs --version 2>&1) || fail "asys --version without the libraries: $out"
for f in $hide; do
	[ "$(unshare -m "$TDIR/hide" sh -c 'wc -c <"$1"' sh "$f")" = 0 ] ||
		fail "$f is not hidden in the namespace"
done

# asys record: refused, with the library named and what to install
out=$(nolibs record -o "$TDIR/none.asys" --duration 1s -s none 2>&1)
rc=$?
[ "$rc" -ne 0 ] || fail "asys record without libzstd exited 0: $out"
case $out in
*"cannot load libzstd.so.1"*"install"*libzstd1*) pass ;;
*) fail "asys record without libzstd: '$out'" ;;
esac
[ ! -e "$TDIR/none.asys" ] || fail "asys record without libzstd left a file"

# a recording made with the library cannot be read without it, and says why
"$ASYS" record -o "$TDIR/ok.asys" --duration 1s -s none >"$TDIR/rec.out" 2>&1 ||
	fail "asys record: $(cat "$TDIR/rec.out")"
out=$(nolibs export "$TDIR/ok.asys" 2>&1)
rc=$?
[ "$rc" -ne 0 ] || fail "asys export without libzstd exited 0"
case $out in
*"cannot load libzstd.so.1"*) pass ;;
*) fail "asys export without libzstd: '$out'" ;;
esac
"$ASYS" export "$TDIR/ok.asys" >/dev/null 2>"$TDIR/export.err" ||
	fail "asys export with the library: $(cat "$TDIR/export.err")"

# asys serve with users: refused at start, the library named
if built_with SERVE; then
	cat >"$TDIR/web.yml" <<'Y'
basic_auth_users:
  prom: '$2b$10$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0'
Y
	out=$(timeout 20 unshare -m "$TDIR/hide" "$ASYS" serve --listen 127.0.0.1:0 \
		--web-config "$TDIR/web.yml" -s none -t none --nic-metrics false 2>&1)
	rc=$?
	[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "asys serve without libcrypt: exit $rc: $out"
	case $out in
	*"built without it"* | *"libmicrohttpd"*) echo "(serve not checked: $out)" ;;
	*"cannot load libcrypt.so.1"*"install"*) pass ;;
	*) fail "asys serve without libcrypt: '$out'" ;;
	esac
fi

# asys top runs without them; R says why it cannot record
cd "$TDIR" || exit 1
TUI_WRAP="unshare -m $TDIR/hide"
tui_start 80 24 -- -d 1
wait_for '4 Memory' 10 || fail "asys top without the libraries drew no panes"
keys R
wait_for 'cannot load libzstd\.so\.1' 5 || fail "R without libzstd: no reason shown"
ls "$TDIR"/asys-*.asys >/dev/null 2>&1 && fail "R without libzstd left a file"
quit_ok "without the libraries"
tui_stop
finish
