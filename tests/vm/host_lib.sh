# SPDX-License-Identifier: MIT
# host_lib.sh - what the two VM tests share on the host (sourced by
# tests/vm/vm.sh and tests/vm/sysd.sh, bash): skipping with a reason, a static
# busybox, Debian's stock kernel package unpacked under $out/kernel, a
# program copied with its shared libraries, the virtio modules in load
# order, and QEMU booted with the console logged and the guest's
# "VMTEST-EXIT n" line read back.
# Needs $out (the build folder) set by the caller.

skip() { echo "skip: $*"; exit 77; }
say() { echo "vm: $*" >&2; }

# The virtio modules of the stock kernel, in the order they load (no modules.dep in the package).
VM_VIRTIO_MODULES="drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_legacy_dev
	drivers/virtio/virtio_pci_modern_dev drivers/virtio/virtio_pci drivers/block/virtio_blk"

# A static busybox in $busybox, or skip.
find_busybox() {
	busybox=$(command -v busybox || true)
	[ -n "$busybox" ] && file -L "$busybox" 2>/dev/null | grep -q 'statically linked' ||
		{ [ -x /bin/busybox ] && busybox=/bin/busybox; }
	ldd "$busybox" >/dev/null 2>&1 && skip "busybox is not static (apt-get install busybox-static)"
	[ -n "$busybox" ] || skip "no busybox (apt-get install busybox-static)"
}

# The kernel: the package's files, unpacked once under $out/kernel (kept between runs);
# sets $vmlinuz and $moddir.
fetch_kernel() {
	local meta=${VM_KERNEL_PKG:-linux-image-cloud-amd64} pkg deb
	pkg=$(apt-cache depends "$meta" 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
	[ -n "$pkg" ] || pkg=$meta # already a real package name
	if ! [ -f "$out/kernel/.pkg" ] || [ "$(cat "$out/kernel/.pkg")" != "$pkg" ]; then
		rm -rf "$out/kernel" "$out"/linux-image-*.deb
		say "fetching $pkg (apt-get download)"
		(cd "$out" && apt-get download -q "$pkg" >/dev/null 2>&1) || return 1
		deb=$(ls "$out"/linux-image-*.deb 2>/dev/null | head -n 1)
		[ -n "$deb" ] || return 1
		dpkg-deb -x "$deb" "$out/kernel" || return 1
		rm -f "$deb"
		echo "$pkg" >"$out/kernel/.pkg"
	fi
	vmlinuz=$(ls "$out"/kernel/boot/vmlinuz-* | head -n 1)
	moddir=$(ls -d "$out"/kernel/lib/modules/* | head -n 1)
}

# Copy binary $1 and every shared library it loads into root $2.
copy_with_libs() {
	local bin=$1 root=$2 lib
	install -D -m 755 "$bin" "$root/bin/${bin##*/}"
	for lib in $(ldd "$bin" 2>/dev/null | awk '/=> \//{print $3} /^\t\/.*ld-linux/{print $1}'); do
		[ -e "$root$lib" ] || install -D -m 755 "$(readlink -f "$lib")" "$root$lib"
	done
}

# The virtio modules into directory $1.
copy_virtio_modules() {
	local m
	mkdir -p "$1"
	for m in $VM_VIRTIO_MODULES; do
		cp "$moddir/kernel/$m.ko" "$1/" || return 1
	done
}

# Boot: qemu_boot LOG INITRD DISK DRIVE_OPTS APPEND; the console goes to stdout
# and LOG; sets $vm_rc to the guest's VMTEST-EXIT status ("" when none). KVM
# where /dev/kvm is writable (VM_ACCEL=tcg|kvm forces one), but a KVM that
# fails before the kernel prints a line (a nested host refusing the CPU's
# MSRs: "failed to set MSR", an assertion in QEMU) is tried again with TCG.
qemu_boot() {
	local log=$1 initrd=$2 disk=$3 drive_opts=$4 append=$5 accel=tcg
	[ -w /dev/kvm ] && accel=kvm
	accel=${VM_ACCEL:-$accel}
	qemu_boot_with "$accel" "$@"
	if [ "$accel" = kvm ] && [ -z "${VM_ACCEL:-}" ] && [ -z "$vm_rc" ] &&
	   ! grep -q "Linux version" "$log"; then
		say "KVM did not start the guest: booting again with TCG"
		qemu_boot_with tcg "$@"
	fi
}

# qemu_boot_with ACCEL LOG INITRD DISK DRIVE_OPTS APPEND: one boot (qemu_boot).
qemu_boot_with() {
	local accel=$1 log=$2 initrd=$3 disk=$4 drive_opts=$5 append=$6 t0
	t0=$(date +%s)
	say "booting $(basename "$vmlinuz") ($accel)"
	timeout -k 10 "${VM_TIMEOUT:-900}" qemu-system-x86_64 -accel "$accel" -cpu max -smp "${VM_CPUS:-1}" \
		-m "${VM_MEM:-1024}" -nographic -no-reboot -net none -kernel "$vmlinuz" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 $append" \
		-drive "file=$disk,format=raw,if=virtio,cache=${VM_CACHE:-none}${drive_opts:+,$drive_opts}" \
		</dev/null 2>&1 | sed -u 's/\r$//' | tee "$log"
	vm_rc=$(awk '/VMTEST-EXIT [0-9]+/{sub(/.*VMTEST-EXIT /, ""); rc=$1} END{print rc==""?"":rc}' "$log")
	say "$(( $(date +%s) - t0 )) s of wall time"
}
