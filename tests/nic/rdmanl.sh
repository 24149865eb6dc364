#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: serial
# RDMA netlink (NETLINK_RDMA, RDMA_NLDEV_CMD_STAT_GET) for the hw_counters,
# through a test double of the kernel's socket (tests/fakes/rdmanl.c, loaded
# with LD_PRELOAD) that answers from the same sysfs fixture tree that
# tests/nic/rdma_fixture advances at known rates:
#  1. the probe (tests/nic/rdma_source) says which source each port uses:
#     netlink with the double; sysfs for every port when STAT_GET answers
#     EOPNOTSUPP, for one port when only its request fails or it vanishes;
#     sysfs without the double (this kernel answers EPROTONOSUPPORT);
#  2. `asys record` + `asys export` with the double, with STAT_GET failing,
#     and without the double: the CNP, ECN and out-of-sequence rates match the
#     fixture's in all three, and the double saw the STAT_GET requests (or
#     one failed request per port).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
[ -x "$ASYS" ] || { echo "FAIL: no $ASYS"; exit 1; }
SHIM=$top_builddir/tests/fakes/.libs/librdmanl.so
FIX=$top_builddir/tests/nic/rdma_fixture
PROBE=$top_builddir/tests/nic/rdma_source
for f in "$SHIM" "$FIX" "$PROBE"; do
	[ -e "$f" ] || { echo "FAIL: no $f (make check builds it)"; exit 1; }
done
D=$(mktemp -d "${TMPDIR:-/tmp}/asys-nic-nl.XXXXXX")
FPID=
trap '[ -z "$FPID" ] || kill "$FPID" 2>/dev/null; rm -rf "$D"' EXIT
# An ASan build: the double comes before the ASan runtime in the list.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export ASAN_OPTIONS
# Does this kernel have RDMA netlink? Then "without the double" is netlink too.
kernel_nl=no
[ -d /sys/module/ib_core ] && kernel_nl=yes

# ---- 1. the sources, per port ----
S=$D/static
mkdir "$S" && "$FIX" "$S" create || { echo "FAIL: fixture"; exit 1; }
probe() { # OUT [nofds] ENV... : the probe under the double with these variables
	out=$1
	shift
	mode=
	[ "$1" = nofds ] && { mode=nofds; shift; }
	env ASYS_SYSROOT="$S" ASYS_RDMA_NETLINK=1 LD_PRELOAD="$SHIM" "$@" "$PROBE" 3 $mode \
		> "$D/$out" 2>&1 || fail "probe $out: $(cat "$D/$out")"
}
expect() { # OUT REGEX WHAT
	if grep -Eq -- "$2" "$D/$1"; then pass; else fail "$3: $(cat "$D/$1")"; fi
}
probe nl FAKE_RDMANL_LOG="$D/nl.log"
expect nl '^source: RDMA netlink \(STAT_GET\) for the hw_counters of 3 ports, sysfs for the port counters$' \
	"netlink for every port"
expect nl '^port mlx5_0/1 nl=1 rc=0 rp_cnp_handled=0 .* rp_cnp_ignored=nan ' \
	"mlx5_0 over netlink, rp_cnp_ignored missing"
expect nl.log '^stat_ok 9$' "3 reads of 3 ports, one STAT_GET each"
# Values that can only have come over netlink: the sysfs hw_counters files
# closed, distinct numbers in the fixture.
hw=$S/sys/class/infiniband/mlx5_0/ports/1/hw_counters
printf '%020u\n' 4321 > "$hw/rp_cnp_handled"
echo 00004503599627370000 > "$hw/np_cnp_sent" # a u64 past 2^32
probe nofds nofds
expect nofds '^port mlx5_0/1 nl=1 rc=0 rp_cnp_handled=4321 np_cnp_sent=4503599627370000 np_ecn_marked_roce_packets=0 rp_cnp_ignored=nan out_of_sequence=0$' \
	"the values come over netlink"
probe nofds-fb nofds FAKE_RDMANL_STAT_ERRNO=EOPNOTSUPP
expect nofds-fb '^port mlx5_0/1 nl=0 rc=0 rp_cnp_handled=nan ' \
	"(the same without netlink has nothing to read)"
probe eop FAKE_RDMANL_STAT_ERRNO=EOPNOTSUPP
expect eop 'hw_counters of 0 ports.*; sysfs hw_counters for 3 ports \(mlx5_0/1: Operation not supported\)$' \
	"STAT_GET EOPNOTSUPP: sysfs for all"
expect eop '^port mlx5_bond_0/1 nl=0 rc=0 rp_cnp_handled=0 np_cnp_sent=0 np_ecn_marked_roce_packets=0 rp_cnp_ignored=0 out_of_sequence=0$' \
	"the sysfs fallback reads the port"
probe dev FAKE_RDMANL_STAT_FAIL_DEV=mlx5_bond_0
expect dev 'hw_counters of 2 ports.*; sysfs hw_counters for 1 port \(mlx5_bond_0/1: Invalid argument\)$' \
	"one port's STAT_GET fails: that port on sysfs"
expect dev '^port mlx5_0/1 nl=1 ' "the other ports stay on netlink"
# A device that goes away (its STAT_GET answers EINVAL, its port falls back,
# then the rescan drops it) and comes back under a new kernel index (a driver
# reload): back on netlink.
env ASYS_SYSROOT="$S" ASYS_RDMA_NETLINK=1 LD_PRELOAD="$SHIM" PROBE_REPLUG="$FIX $S create" \
	"$PROBE" 2 unplug mlx5_bond_0 > "$D/unplug" 2>&1 || fail "probe unplug: $(cat "$D/unplug")"
expect unplug '^port mlx5_bond_0/1 nl=0 rc=0 ' "the vanished port falls back before the rescan"
expect unplug '^ports after rescan: 2$' "the vanished port is dropped"
expect unplug '^ports after replug: 3$' "the device is back"
if grep '^port mlx5_bond_0/1 ' "$D/unplug" | tail -n 1 | grep -q ' nl=1 rc=0 rp_cnp_handled=0 '; then pass; else
	fail "back under its new index, on netlink again: $(cat "$D/unplug")"; fi
expect unplug '^source: RDMA netlink \(STAT_GET\) for the hw_counters of 3 ports, sysfs for the port counters$' \
	"after the replug every port is on netlink"
env ASYS_SYSROOT="$S" ASYS_RDMA_NETLINK=1 "$PROBE" 2 > "$D/kernel" 2>&1
if [ $kernel_nl = no ]; then
	expect kernel '^source: sysfs under .* \(RDMA netlink: Protocol not supported\)$' \
		"this kernel: EPROTONOSUPPORT, sysfs"
fi
env ASYS_SYSROOT="$S" LD_PRELOAD="$SHIM" "$PROBE" 2 > "$D/noenv" 2>&1
expect noenv '^source: sysfs under .*ASYS_RDMA_NETLINK=1 forces it\)$' \
	"under a sysroot netlink is off unless asked for"

# ---- 2. asys record through each source ----
R=$D/run
mkdir "$R" && "$FIX" "$R" create || { echo "FAIL: fixture"; exit 1; }
# the fixture runs until it is killed below, past the three recordings
# however late a loaded machine starts them
"$FIX" "$R" run 0 1000 &
FPID=$!
i=0
until [ -s "$R/t0" ]; do
	i=$((i + 1))
	[ $i -le 600 ] || { echo "FAIL: the fixture did not start in 30 s"; exit 1; }
	sleep 0.05
done
record() { # NAME ENV...
	name=$1
	shift
	env ASYS_SYSROOT="$R" "$@" "$ASYS" record --nic-metrics true --nic-metrics-frequency 100 \
		--nic-device-include mlx5 -s none --hggc-memory-usage false -t none \
		-o "$D/$name.asys" --duration 3500ms > "$D/$name.rec" 2>&1
}
without=
[ $kernel_nl = no ] && without=ASYS_RDMA_NETLINK=1
record nl ASYS_RDMA_NETLINK=1 LD_PRELOAD="$SHIM" FAKE_RDMANL_LOG="$D/rec-nl.log" &
P1=$!
record fb ASYS_RDMA_NETLINK=1 LD_PRELOAD="$SHIM" FAKE_RDMANL_LOG="$D/rec-fb.log" \
	FAKE_RDMANL_STAT_ERRNO=EOPNOTSUPP &
P2=$!
record sys $without &
P3=$!
wait $P1 || fail "asys record (netlink): $(cat "$D/nl.rec")"
wait $P2 || fail "asys record (STAT_GET failing): $(cat "$D/fb.rec")"
wait $P3 || fail "asys record (this kernel): $(cat "$D/sys.rec")"
kill "$FPID" 2>/dev/null
wait "$FPID" 2>/dev/null
FPID=

# The double answered: many STAT_GETs and no error; with STAT_GET failing,
# one failed request per port and none after.
ok=$(sed -n 's/^stat_ok //p' "$D/rec-nl.log" 2>/dev/null)
err=$(sed -n 's/^stat_err //p' "$D/rec-nl.log" 2>/dev/null)
if [ "${ok:-0}" -ge 150 ] && [ "${err:-1}" = 0 ]; then pass; else
	fail "netlink run: $ok STAT_GETs answered, $err failed (want >= 150 and 0)"; fi
ok=$(sed -n 's/^stat_ok //p' "$D/rec-fb.log" 2>/dev/null)
err=$(sed -n 's/^stat_err //p' "$D/rec-fb.log" 2>/dev/null)
if [ "${ok:-1}" = 0 ] && [ "${err:-0}" = 3 ]; then pass; else
	fail "failing run: $ok answered, $err failed (want 0 and one per port: 3)"; fi

# t_ns,time,stream,entity,label,field,unit,value -> rate over the recording
# of each hw counter and bytes field, compared with the fixture's.
check_rates() { # NAME
	"$ASYS" export "$D/$1.asys" > "$D/$1.csv" 2> "$D/$1.err" ||
		{ fail "asys export $1: $(cat "$D/$1.err")"; return; }
	awk -F, -v run="$1" '
	$3 == "nic.rdma" && $8 !~ /nan/ && $8 != "" {
		k = $5 "|" $6
		if (!(k in t0)) { t0[k] = $1; v0[k] = $8 }
		t1[k] = $1; v1[k] = $8; n[k]++
	}
	function want(label, field, rate, tol,   k, r) {
		k = label "|" field
		if (n[k] < 100) { printf "FAIL: %s: %s %s: %d samples\n", run, label, field, n[k]; bad = 1; return }
		r = (v1[k] - v0[k]) / ((t1[k] - t0[k]) / 1e9)
		printf "%s: %s %s %.2f/s (want %g)\n", run, label, field, r, rate
		if ((rate == 0 && r != 0) || (rate != 0 && (r - rate > tol * rate || rate - r > tol * rate))) {
			printf "FAIL: %s: %s %s %.2f/s, want %g within %.0f%%\n", run, label, field, r, rate, tol * 100
			bad = 1
		}
	}
	END {
		bad = 0
		e0 = "mlx5_0/1 (eth2)"; eb = "mlx5_bond_0/1 (bond0)"
		want(e0, "cnp_rx", 200, 0.03); want(e0, "cnp_tx", 100, 0.03)
		want(e0, "ecn_marked", 300, 0.03); want(e0, "out_of_sequence", 5, 0.15)
		want(e0, "rx_bytes", 10e6, 0.02)
		if (n[e0 "|cnp_ignored"] > 0) { print "FAIL: " run ": missing rp_cnp_ignored has values"; bad = 1 }
		want(eb, "cnp_rx", 10, 0.1); want(eb, "cnp_tx", 20, 0.05)
		want(eb, "ecn_marked", 30, 0.05); want(eb, "cnp_ignored", 1, 0.4)
		want(eb, "out_of_sequence", 0, 0); want(eb, "rx_bytes", 5e6, 0.02)
		exit bad
	}' "$D/$1.csv" > "$D/$1.rates"
	st=$?
	cat "$D/$1.rates"
	[ $st = 0 ] && pass || fail "$1: rates"
}
check_rates nl
check_rates fb
check_rates sys
finish
