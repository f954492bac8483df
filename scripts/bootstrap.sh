#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One-step set-up for a fresh Debian 12 machine: installs the Debian packages
# the build needs (only those missing; as root or through sudo), builds, then
#   bootstrap.sh demo [ARGS]   runs `iolat demo ARGS`
#   bootstrap.sh test          runs every test (make test)
#   bootstrap.sh build         only builds
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(build-essential clang pkg-config liburing-dev libcmocka-dev python3 gnuplot-nox fio valgrind
      e2fsprogs util-linux bsdutils    # mkfs.ext4, losetup, script: tests/cli/run_blockdev.sh, sim_cli.sh
      scdoc)                           # the man pages (make man, make install; tests/cli/man_drift.sh)
# iolatd's BPF measurement (with clang above); optional: without them iolatd
# builds but cannot measure, and everything else works.
BPF_PKGS=(libbpf-dev libelf-dev zlib1g-dev bpftool)
missing=(); missing_bpf=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
for p in "${BPF_PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing_bpf+=("$p")
done
if [ ${#missing[@]} -gt 0 ] || [ ${#missing_bpf[@]} -gt 0 ]; then
	echo "bootstrap: installing ${missing[*]} ${missing_bpf[*]}" >&2
	SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	[ ${#missing[@]} -eq 0 ] || $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	[ ${#missing_bpf[@]} -eq 0 ] || $SUDO apt-get install -y -qq --no-install-recommends "${missing_bpf[@]}" >/dev/null ||
		echo "bootstrap: ${missing_bpf[*]} not installed: iolatd will build without BPF measurement" >&2
fi

JOBS=$(nproc 2>/dev/null || echo 2)
what=${1:-build}; [ $# -gt 0 ] && shift
case "$what" in
build) make -j"$JOBS" ;;
demo)  make -j"$JOBS" >/dev/null && exec build/iolat demo "$@" ;;
test)  make -j"$JOBS" tests >/dev/null && make test ;;
*) echo "usage: $0 build|demo [ARGS]|test" >&2; exit 2 ;;
esac
