#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs the Debian packages asys needs to build and test, only those that
# are missing, and man-db so that `man asys-top` works once asys is
# installed. Every program a test runs is here, so that no test skips for a
# missing tool on a fresh Debian 12 (minbase has no python3): python3,
# curl with a CA store (ca-certificates: without one curl refuses every
# certificate alike, and tests/serve/tls.sh cannot tell an untrusted one),
# openssl, jq, prometheus (promtool), /usr/bin/time, groff, readelf and nm
# (binutils), setcap (libcap2-bin), ss and ip (iproute2), setpriv, unshare,
# nsenter and taskset (util-linux), top and free (procps), and
# clang-format-14, the version tests/build/format.sh checks the committed
# .clang-format with (another version formats some lines differently).
# Usage: scripts/deps.sh [--bench] [--check]  (--bench adds htop, atop,
# sysstat and prometheus-node-exporter; --check lists what is missing and
# exits 1 if anything is, installing nothing)
set -euo pipefail

pkgs=(gcc g++ make autoconf automake libtool pkg-config
      libncurses-dev libmnl-dev libmsgpack-dev libzstd-dev
      libbpf-dev libelf-dev zlib1g-dev libpfm4-dev check
      clang libclang-rt-dev llvm bpftool tmux iproute2 util-linux procps
      libmicrohttpd-dev libcrypt-dev prometheus curl openssl man-db
      python3 clang-format-14 time jq groff-base binutils libcap2-bin ca-certificates)
check=0
for a in "$@"; do
	case $a in
	--bench) pkgs+=(htop atop sysstat prometheus-node-exporter) ;;
	--check) check=1 ;;
	*) echo "usage: scripts/deps.sh [--bench] [--check]" >&2; exit 2 ;;
	esac
done

# missing_now: the packages of pkgs that are not installed, into missing.
# One dpkg-query for all: each call reads dpkg's whole database (0.1 s).
missing_now() {
	local name want flag state
	local -A ok=()
	while read -r name want flag state; do
		[ "$want $flag $state" = "install ok installed" ] && ok[$name]=1
	done < <(dpkg-query -W -f='${Package} ${Status}\n' "${pkgs[@]}" 2>/dev/null || true)
	missing=()
	for p in "${pkgs[@]}"; do
		[ -n "${ok[$p]:-}" ] || missing+=("$p")
	done
}
missing_now
[ ${#missing[@]} -eq 0 ] && exit 0
if [ $check = 1 ]; then
	echo "asys: missing packages: ${missing[*]}"
	exit 1
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "asys: missing packages: ${missing[*]}" >&2
	echo "asys: run as root, or install them with: sudo apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "asys: installing ${#missing[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
echo "asys:   apt-get update"
apt-get update -qq
# apt's own lines (Unpacking, Setting up) show that it is moving
echo "asys:   apt-get install"
apt-get install -y -q --no-install-recommends "${missing[@]}" |
	grep --line-buffered -E '^(Get:|Unpacking|Setting up)' || true
missing_now
if [ ${#missing[@]} -gt 0 ]; then
	echo "asys: ${missing[*]} did not install; see apt-get install ${missing[*]}" >&2
	exit 1
fi
