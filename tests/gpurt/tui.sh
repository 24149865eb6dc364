#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: root probes tmux serial
# asys top in tmux with real uprobes: the top kernels pane lists the demangled
# kernels with their totals, filters with / and groups with g, and its copies
# section the workload's copies (all calls and bytes, the pinned share); the memory
# pane shows DEVICE, PINNED and the failed allocations. Then, without
# privileges, the kernels pane says how to get them.
# shellcheck source=tests/lib.sh
. "$top_srcdir/tests/lib.sh"
# shellcheck source=tests/gpurt/lib.sh
. "$top_srcdir/tests/gpurt/lib.sh"
gpurt_need_bpf
# shellcheck source=tests/tui/tmux_lib.sh
. "$top_srcdir/tests/tui/tmux_lib.sh"

P1= P2=
gpurt_tui_cleanup() {
	# both workloads wait for their files: a failure midway must not hang
	touch "$TDIR/go" "$TDIR/e1" "$TDIR/go2" "$TDIR/e2"
	[ -n "$P1" ] && kill "$P1" 2>/dev/null
	[ -n "$P2" ] && kill "$P2" 2>/dev/null
	wait 2>/dev/null
	user_dir_cleanup
	tui_cleanup
}
trap gpurt_tui_cleanup EXIT

"$GPURT_WORKLOAD" --scale 1 --ready-file "$TDIR/r1" --go-file "$TDIR/go" \
	--done-file "$TDIR/d1" --end-file "$TDIR/e1" &
P1=$!
i=0; while [ ! -e "$TDIR/r1" ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done

tui_start 160 50 -- -d 0.5 -s system-wide
pid=$(tui_pid)
[ -n "$pid" ] || fail "no asys top process"
gpurt_wait_attached "$pid" || fail "asys top did not attach to the fake runtime"
touch "$TDIR/go"
# the pane shows up with the first kernel
wait_for 'Top kernels' 10 || fail "no kernels pane"
keys 5
wait_for 'mykern::saxpy\(float, float\*, float\*, int\)' 10 || fail "no saxpy in the kernels pane"
# the kernels come in the workload's order, one refresh after the other on
# a loaded machine
for k in 'void reduce<float>\(float\*, int\)' 'vecadd\(int const\*' 'handle_kernel\(float\*\)' \
	'lib_kernel_b' 'LAUNCH/s' 'SHARE'; do
	wait_for "$k" 10 || fail "kernels pane lacks $k"
done
s=$(cap)
printf '%s\n' "$s" | grep -E 'mykern::saxpy' | grep -Eq "^.*$P1 .* 100 " ||
	fail "saxpy of pid $P1 does not show 100 launches"
# the copies section: 28 copy and memset calls of 69742 bytes in all
# (tests/gpurt/workload_copy.c), the direction columns
printf '%s\n' "$s" | grep -Eq 'HtoD/s +DtoH/s +DtoD/s +OTHER/s +SET/s +COPIES/s +CALLS +BYTES +PINNED' ||
	fail "no copies section header"
wait_for "^[^0-9]*$P1 +([0-9.]+ [KMG]?b/s +){5}[0-9.k]+ +28 +69\.7k " 10 ||
	fail "the copies section lacks pid $P1 with 28 calls of 69.7k bytes"

# / filters by name
keys / v e c Enter
wait_gone 'mykern::saxpy' 5 || fail "the filter did not hide saxpy"
cap | grep -q 'vecadd' || fail "the filter hid vecadd too"
keys / Escape
wait_for 'mykern::saxpy' 5 || fail "Esc did not clear the filter"
# p groups by process
keys p
wait_for 'by process' 5 || fail "p did not group by process"
cap | grep -E "^.*$P1 " | grep -Eq '\(5\)' || fail "the process row does not count 5 kernels"
keys p

# the memory pane: device and pinned totals, failures with size and age;
# sorted by DEVICE (some columns right of the first sort) to bring the
# workload up
keys 4
wait_for 'DEVICE' 5 || fail "the memory pane has no DEVICE column"
for i in 1 2 3 4 5 6 7 8 9 10; do
	cap | grep -q 'DEVICE[▼v]' && break
	keys '>'
	sleep 0.3
done
wait_for 'DEVICE.' 5 || fail "could not sort by DEVICE"
wait_for "^[^0-9a-z]*$P1 .* 7\.0M " 10 || fail "pid $P1 is not listed with 7.0M of device memory"
row=$(cap | grep -E "^[^0-9a-z]*$P1 " | head -n 1)
case "$row" in
*7.0M*) ;;
*) fail "pid $P1 row lacks 7.0M of device memory: $row" ;;
esac
printf '%s\n' "$row" | grep -Eq '3 5\.0T [0-9]+s ago' || fail "no '3 5.0T Ns ago' failure cell: $row"
keys q
[ "$(wait_exit)" = 0 ] || fail "asys top did not exit cleanly"
tui_stop

# a recording replays the same panes: record while a second workload runs
"$GPURT_WORKLOAD" --scale 2 --ready-file "$TDIR/r2" --go-file "$TDIR/go2" \
	--done-file "$TDIR/d2" --end-file "$TDIR/e2" &
P2=$!
i=0; while [ ! -e "$TDIR/r2" ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done
# a long --duration, ended by SIGINT once the workload is done: on a loaded
# machine attaching (and bpftool's view of it) can take seconds
"$ASYS" record -s system-wide -d 0.2 --duration 60s -o "$TDIR/x.asys" 2>/dev/null &
R=$!
gpurt_wait_attached "$R" || fail "asys record did not attach"
touch "$TDIR/go2"
i=0; while [ ! -e "$TDIR/d2" ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done
sleep 0.5 # a refresh and a bit more, so the last launches are sampled
kill -INT "$R"
wait "$R"
touch "$TDIR/e2"; wait "$P2"
tmx new-session -d -s rp -x 160 -y 50 \
	"env LC_ALL=C.UTF-8 TERM=screen-256color $ASYS replay -d 0.2 --speed 4 $TDIR/x.asys; sleep 600"
TSESS=rp
wait_for 'REPLAY|not built yet' 10 || fail "asys replay drew nothing"
if cap | grep -q 'not built yet'; then
	echo "note: this asys has no interactive replay yet; replay check not run"
else
	wait_for 'Top kernels' 15 || fail "the replay shows no kernels pane"
	keys 5
	wait_for "$P2 .*mykern::saxpy" 15 || fail "the replay's kernels pane lacks saxpy of pid $P2"
	cap | grep -E "$P2 .*mykern::saxpy" | grep -q ' 200 ' ||
		fail "the replay does not show 200 launches"
	keys q
fi
tui_stop
TSESS=asys

# without privileges the pane says what to do; nobody runs a copy of asys
# from where it can enter, as the build tree may be closed to it
if copy_for_user "$ASYS"; then
	TSESS=np
	tmx new-session -d -s np -x 160 -y 50 -c "$user_dir" \
		"setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all env LC_ALL=C.UTF-8 TERM=screen-256color $(shq "$user_dir/asys") top -d 0.5; sleep 600"
	wait_for 'asys top' 10 || fail "asys top as nobody drew nothing"
	keys 5
	wait_for 'CAP_BPF' 10 || fail "the kernels pane does not explain the missing privileges"
	cap | grep -q 'setcap cap_bpf,cap_perfmon+ep' || fail "no setcap hint"
	keys q
else
	echo "note: the privilege message is not checked: $user_dir_why"
fi
echo "ok: kernels pane, copies section, memory columns, filter, grouping, privilege message"
