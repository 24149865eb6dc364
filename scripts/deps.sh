#!/usr/bin/env bash
# Installs the Debian packages asys needs to build and test, only those that
# are missing. Usage: scripts/deps.sh [--bench]  (--bench adds htop and atop)
set -euo pipefail

pkgs=(gcc g++ make autoconf automake libtool pkg-config
      libncurses-dev libmnl-dev libmsgpack-dev libzstd-dev
      libbpf-dev libelf-dev zlib1g-dev libpfm4-dev check
      clang libclang-rt-dev llvm bpftool tmux iproute2 util-linux procps)
if [ "${1:-}" = "--bench" ]; then
	pkgs+=(htop atop)
fi

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "asys: missing packages: ${missing[*]}" >&2
	echo "asys: run as root, or install them with: sudo apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "asys: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
