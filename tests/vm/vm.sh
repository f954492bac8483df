#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A cgroup v2 test machine from Debian 12's stock kernel, under QEMU.
#   tests/vm/vm.sh [-o OUTDIR] SCENARIO [ARGS...]
# Builds, under OUTDIR (default $O/vm, $O = build), everything the guest needs
# (executables in $O/vm-extra/ go in too, for comparisons, and those VM_EXTRA
# names, space-separated paths, e.g. VM_EXTRA=/usr/bin/fio):
#   kernel/   Debian's linux-image package (apt-get download, dpkg-deb -x; never
#             installed on the host), VM_KERNEL_PKG picks it (default: the real
#             package behind linux-image-cloud-amd64; linux-image-amd64 works too)
#   initramfs.cpio.gz   busybox (static), iolatd and iolat with their shared
#             libraries, the virtio modules, tests/vm/guest/*
#   disk.img  a 1 GiB sparse scratch disk (the guest's /dev/vda, raw, virtio)
# then boots it (TCG, or KVM where /dev/kvm is usable) with
# "vmtest=SCENARIO vmargs=ARGS" on the kernel command line; the guest runs
# tests/vm/guest/SCENARIO.sh and powers off. Its console goes to stdout and to
# OUTDIR/console-SCENARIO.log; the exit status is the scenario's (0 pass, 1 fail,
# 77 skip), read from the "VMTEST-EXIT n" line it prints last.
# Skips (77) without qemu-system-x86_64, busybox-static, apt-get or network.
# Context: host, as root or not (nothing is installed or mounted).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
O=${O:-build}
out=$top/$O/vm
while getopts o: opt; do
	case $opt in
	o) out=$(realpath -m "$OPTARG") ;;
	*) echo "usage: $0 [-o OUTDIR] SCENARIO [ARGS...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
scenario=${1:-}
[ -n "$scenario" ] || { echo "usage: $0 [-o OUTDIR] SCENARIO [ARGS...]" >&2; exit 2; }
shift
[ -f "$here/guest/$scenario.sh" ] || { echo "vm: no scenario tests/vm/guest/$scenario.sh" >&2; exit 2; }
VM_TIMEOUT=${VM_TIMEOUT:-900}
VM_MEM=${VM_MEM:-1024}

. "$here/host_lib.sh"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"
find_busybox
command -v cpio >/dev/null || skip "cpio not installed"
mkdir -p "$out"
fetch_kernel || skip "cannot fetch the kernel package (apt-get download; run apt-get update?)"

build_initramfs() {
	local root=$out/root
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,run,lib/modules,test,cg,mnt}
	install -m 755 "$busybox" "$root/bin/busybox"
	for b in iolatd iolat; do
		[ -x "$top/$O/$b" ] || { say "$O/$b not built"; return 1; }
		copy_with_libs "$top/$O/$b" "$root"
	done
	[ -d "$root/lib64" ] || mkdir -p "$root/lib64"
	# Other programs for a measurement (e.g. another build of iolatd to compare).
	for b in "$top/$O"/vm-extra/* ${VM_EXTRA:-}; do
		[ -x "$b" ] && copy_with_libs "$b" "$root"
	done
	copy_virtio_modules "$root/lib/modules" || return 1
	cp "$here"/guest/*.sh "$here"/guest/*.awk "$root/test/"
	install -m 755 "$here/guest/init" "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initramfs.cpio.gz.tmp" &&
		mv "$out/initramfs.cpio.gz.tmp" "$out/initramfs.cpio.gz"
}
build_initramfs || { echo "vm: cannot build the initramfs" >&2; exit 1; }
rm -f "$out/disk.img"
truncate -s 1G "$out/disk.img"

# A scenario may ask for QEMU drive options with a line "# vm-drive: OPTS".
drive_opts=$(sed -n 's/^# vm-drive: *//p' "$here/guest/$scenario.sh" | head -n 1)
log=$out/console-$scenario.log
say "$scenario"
qemu_boot "$log" "$out/initramfs.cpio.gz" "$out/disk.img" "$drive_opts" \
	"quiet vmtest=$scenario vmargs=$(IFS=,; echo "$*")"
rc=$vm_rc
rm -f "$out/disk.img"
[ -n "$rc" ] || { echo "vm: the guest did not finish (no VMTEST-EXIT line; timeout ${VM_TIMEOUT}s?)" >&2; exit 1; }
exit "$rc"
