#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make vm-quickstart: README.md's quick start, verbatim, on Debian 12 booted
# with systemd as PID 1 on its stock 6.1 kernel, under QEMU (issue 29 item 2).
#   tests/vm/sysd.sh
# Builds under $O/vm-sysd (O=build):
#   kernel/        Debian's stock kernel package, unpacked (tests/vm/host_lib.sh)
#   rootfs.tar     Debian 12 made by mmdebstrap from Debian's packages: systemd,
#                  udev, fio and what the project's packages depend on (read
#                  from their Depends:); kept between runs while that list is
#                  the same (rootfs.list)
#   disk.img       the root filesystem (ext4, 3 GiB sparse) with the packages of
#                  $O/pkg (scripts/package_check.sh --build-only makes them when
#                  missing), README.md, the guest test tests/vm/sysd/quickstart.sh
#                  and its unit
#   initramfs.cpio.gz  busybox and the virtio modules; it mounts /dev/vda and
#                  hands over to systemd
# then boots it; the guest runs the quick start as root with apt, systemctl and
# journalctl and prints PASS/FAIL lines and "VMTEST-EXIT n" on the console
# ($O/vm-sysd/console.log), then powers off. Exit: the guest's (0 pass, 1 fail),
# 77 skip (said why: not root, no qemu, busybox-static or mmdebstrap, no network
# for the first build). About 6-8 min under TCG the first time, 4-5 with the
# root filesystem kept.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
O=${O:-build}
out=$top/$O/vm-sysd
. "$here/host_lib.sh"

[ "$(id -u)" -eq 0 ] || skip "not root (the root filesystem keeps its owners)"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"
command -v mmdebstrap >/dev/null || skip "mmdebstrap not installed (apt-get install mmdebstrap)"
command -v cpio >/dev/null || skip "cpio not installed"
command -v mke2fs >/dev/null || skip "mke2fs not installed (e2fsprogs)"
find_busybox
mkdir -p "$out"
fetch_kernel || skip "cannot fetch the kernel package (apt-get download; run apt-get update?)"

# The project's packages (runtime ones: the guest installs them as a user would).
debs=()
find_debs() {
	local p d
	debs=()
	for p in iolat iolatd libiolatency1; do
		d=$(ls "$top/$O"/pkg/"${p}"_*.deb 2>/dev/null | head -n 1)
		[ -n "$d" ] || return 1
		debs+=("$d")
	done
}
if ! find_debs; then
	say "building the packages (scripts/package_check.sh --build-only)"
	O=$O bash "$top/scripts/package_check.sh" --build-only >"$out/packages.log" 2>&1 ||
		{ tail -n 30 "$out/packages.log"; echo "vm: the packages did not build" >&2; exit 1; }
	find_debs || { echo "vm: no packages in $O/pkg" >&2; exit 1; }
fi

# What the root filesystem holds: systemd, the tools of the test, and every
# package ours depend on (names only: Debian 12's versions satisfy them).
rootfs_list() {
	local d
	{
		printf '%s\n' systemd-sysv udev kmod procps fio apt
		for d in "${debs[@]}"; do
			dpkg-deb -f "$d" Depends | tr ',' '\n' | sed 's/([^)]*)//; s/|.*//; s/[[:space:]]//g'
		done
	} | grep -vE '^$|^(iolat|iolatd|libiolatency1)$' | sort -u | tr '\n' ',' | sed 's/,$//'
}
build_rootfs() {
	local list
	list=$(rootfs_list)
	if [ -f "$out/rootfs.tar" ] && [ "$(cat "$out/rootfs.list" 2>/dev/null)" = "$list" ]; then
		return 0
	fi
	rm -rf "$out/rootfs.tar" "$out/rootfs.tar.tmp" "$out/rootfs.list"
	say "building the root filesystem with mmdebstrap (bookworm, minbase + $list)"
	# --format: mmdebstrap guesses it from the name, and "*.tmp" makes a directory.
	mmdebstrap --variant=minbase --format=tar --include="$list" bookworm "$out/rootfs.tar.tmp" \
		>"$out/mmdebstrap.log" 2>&1 || { tail -n 20 "$out/mmdebstrap.log"; return 1; }
	mv "$out/rootfs.tar.tmp" "$out/rootfs.tar"
	echo "$list" >"$out/rootfs.list"
}
build_rootfs || skip "mmdebstrap could not build the root filesystem (network? see $O/vm-sysd/mmdebstrap.log)"

# The root filesystem with what the test adds, as an ext4 image.
build_image() {
	local r=$out/rootdir
	rm -rf "$r" "$out/disk.img"
	mkdir -p "$r"
	tar -xf "$out/rootfs.tar" -C "$r" || return 1
	echo vmtest >"$r/etc/hostname"
	echo "/dev/vda / ext4 rw,relatime 0 1" >"$r/etc/fstab"
	mkdir -p "$r/root/build/pkg" "$r/usr/local/lib/vmtest" "$r/etc/systemd/system/multi-user.target.wants"
	cp "${debs[@]}" "$r/root/build/pkg/"   # where the quick start has them: make deb's output
	cp "$top/README.md" "$r/root/README.md"
	install -m 755 "$here/sysd/quickstart.sh" "$r/usr/local/lib/vmtest/quickstart.sh"
	install -m 644 "$here/sysd/vmtest.service" "$r/etc/systemd/system/vmtest.service"
	ln -sf /etc/systemd/system/vmtest.service "$r/etc/systemd/system/multi-user.target.wants/"
	# The console is the test's: no login prompt on it.
	ln -sf /dev/null "$r/etc/systemd/system/serial-getty@ttyS0.service"
	ln -sf /dev/null "$r/etc/systemd/system/getty@tty1.service"
	mke2fs -q -t ext4 -L root -d "$r" "$out/disk.img" 3G || return 1
	rm -rf "$r"
}
build_image || { echo "vm: cannot build the root filesystem image" >&2; exit 1; }

build_initramfs() {
	local r=$out/initramfs
	rm -rf "$r"
	mkdir -p "$r"/{bin,sbin,dev,proc,sys,newroot,lib/modules}
	install -m 755 "$busybox" "$r/bin/busybox"
	copy_virtio_modules "$r/lib/modules" || return 1
	install -m 755 "$here/sysd/init" "$r/init"
	(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initramfs.cpio.gz" && rm -rf "$r"
}
build_initramfs || { echo "vm: cannot build the initramfs" >&2; exit 1; }

# The disk is made slow enough for the writer to hurt the reader (as tests/vm/guest/iolatd.sh).
VM_MEM=${VM_MEM:-1536}
qemu_boot "$out/console.log" "$out/initramfs.cpio.gz" "$out/disk.img" "throttling.bps-total=209715200" \
	"quiet loglevel=3 systemd.show_status=false"
rm -f "$out/disk.img"
[ -n "$vm_rc" ] || { echo "vm: the guest did not finish (no VMTEST-EXIT line; timeout ${VM_TIMEOUT:-900}s?)" >&2; exit 1; }
exit "$vm_rc"
