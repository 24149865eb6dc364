# SPDX-License-Identifier: GPL-2.0-only
# Two network namespaces joined by a veth pair (veth-nA 10.231.0.1 in $NS1,
# veth-nB 10.231.0.2 in $NS2), with no IPv6 and static neighbours so only the
# test's own datagrams cross it. Source it; exits 77 where that is impossible.
: "${top_builddir:=.}"
# The tests read and print text and numbers with grep, sed, awk and printf:
# in the same locale whatever the caller's (tests/lib.sh says why).
LC_ALL=C.UTF-8
export LC_ALL
B=$top_builddir/tests/nic
if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root for ip netns"; exit 77; fi
command -v ip >/dev/null 2>&1 || { echo "SKIP: no ip (iproute2)"; exit 77; }
command -v nsenter >/dev/null 2>&1 || { echo "SKIP: no nsenter (util-linux)"; exit 77; }
NS1=asysnicA$$ NS2=asysnicB$$
RPID=
netns_cleanup() {
	[ -n "$RPID" ] && kill "$RPID" 2>/dev/null
	ip netns del "$NS1" 2>/dev/null
	ip netns del "$NS2" 2>/dev/null
}
trap netns_cleanup EXIT
trap 'exit 1' INT TERM
if ! ip netns add "$NS1" 2>/dev/null || ! ip netns add "$NS2" 2>/dev/null; then
	echo "SKIP: cannot create network namespaces here"; exit 77
fi
# Commands enter a namespace with `nsenter --net="$NETNS/NAME" CMD`, which
# execs CMD: a pid taken with & is CMD's own, so kill reaches it. Not `ip
# netns exec`: that also remounts / as a slave to mount a /sys of the
# namespace, which fails where / is not a mount point (a chroot, some
# containers). The programs here need only the network namespace: they see
# links over rtnetlink.
NETNS=/run/netns
# wait_udp_bound NS PORT: until a socket in NS is bound to UDP PORT, so that
# no datagram is sent before the receiver can take it (up to 30 s: a loaded
# machine can be slow to start a program, never this slow).
wait_udp_bound() {
	wub_i=0
	until nsenter --net="$NETNS/$1" ss -Hlun "sport = :$2" 2>/dev/null | grep -q .; do
		wub_i=$((wub_i + 1))
		[ $wub_i -le 300 ] || return 1
		sleep 0.1
	done
}
for ns in "$NS1" "$NS2"; do
	nsenter --net="$NETNS/$ns" true ||
		{ echo "SKIP: cannot enter $NETNS/$ns with nsenter"; exit 77; }
	nsenter --net="$NETNS/$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 >/dev/null 2>&1
done
ip link add veth-nA netns "$NS1" type veth peer name veth-nB netns "$NS2" || {
	echo "SKIP: cannot create a veth pair"; exit 77; }
# `ip -n NS` switches namespaces the way `ip netns exec` does, remount and
# all: nsenter here too. A step that fails here would only show later as
# lost datagrams, so each one is checked.
setup_fail() { echo "FAIL: setting up the veth pair: $*"; exit 1; }
ip1() { nsenter --net="$NETNS/$NS1" ip "$@" || setup_fail "ip $*"; }
ip2() { nsenter --net="$NETNS/$NS2" ip "$@" || setup_fail "ip $*"; }
ip1 addr add 10.231.0.1/24 dev veth-nA
ip2 addr add 10.231.0.2/24 dev veth-nB
ip1 link set veth-nA up
ip2 link set veth-nB up
MAC_B=$(ip2 -o link show veth-nB | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
MAC_A=$(ip1 -o link show veth-nA | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
if [ -z "$MAC_A" ] || [ -z "$MAC_B" ]; then
	setup_fail "no MAC address on veth-nA or veth-nB"
fi
ip1 neigh replace 10.231.0.2 lladdr "$MAC_B" dev veth-nA nud permanent
ip2 neigh replace 10.231.0.1 lladdr "$MAC_A" dev veth-nB nud permanent

# shellcheck source=tests/wait_recording.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/wait_recording.sh"
