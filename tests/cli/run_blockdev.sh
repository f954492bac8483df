#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `iolat run` never writes over a filesystem: a small ext4 image on a loop
# device, mounted. A writing job on the device is refused (exit 2, one line
# naming the mount; the device's first 4 KiB unchanged); once unmounted, the
# ext4 signature still refuses it unless allow_signature_write=1; reading
# the mounted device is allowed. A size= larger than the filesystem's free
# space is refused with nothing created. Needs root, losetup, mkfs.ext4 and
# mount; skips (77) with the reason otherwise. Everything it makes (image,
# loop device, mount point, all under one mktemp directory named
# iolat-blkdev-*) is removed on every path.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
[ "$(id -u)" = 0 ] || { echo "skip: needs root for loop devices and mount"; exit 77; }
for t in losetup mkfs.ext4 mount umount cmp; do
	command -v "$t" >/dev/null || { echo "skip: $t not installed"; exit 77; }
done
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/iolat-blkdev-XXXXXX") || { echo "skip: no temp dir"; exit 77; }
img=$dir/ext4.img mnt=$dir/mnt loop=
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	[ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
cli_collect_failures

truncate -s 64M "$img" && mkfs.ext4 -q -F "$img" >/dev/null 2>&1 || { echo "skip: mkfs.ext4 failed"; exit 77; }
loop=$(losetup -f --show "$img" 2>/dev/null) || { loop=; echo "skip: no loop device available (losetup -f failed)"; exit 77; }
mkdir "$mnt" && mount "$loop" "$mnt" 2>/dev/null || { echo "skip: cannot mount $loop (no ext4 in this kernel?)"; exit 77; }
echo "loop device $loop holds ext4 from $img, mounted on $mnt"
dd if="$loop" of="$dir/head.before" bs=4096 count=1 status=none

# run_refused NAME REGEX JOBTEXT: want exit 2 and one line matching REGEX
run_refused() {
	local name=$1 want=$2
	printf '%b' "$3" >"$dir/$name.fio"
	"$IOLAT" run -q "$dir/$name.fio" >"$dir/out" 2>"$dir/err"
	local rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <"$dir/err")" -ne 1 ] || ! grep -qE -- "$want" "$dir/err"; then
		fail "$name: rc=$rc, want 2 and /$want/:"; sed 's/^/    /' "$dir/err"
	else
		echo "ok   $name: $(cat "$dir/err")"
	fi
}

# 1. Writing to the mounted device: refused, the device untouched.
run_refused mounted_write "mounted_write\.fio:3: key 'filename': a device that is not mounted: $loop is mounted on $mnt.*allow_mounted_write=1" \
	"[global]\nsize=1m\nfilename=$loop\nruntime=1s\n[w]\nrw=write\nbs=4k\n"
run_refused mounted_randrw "key 'filename': .* is mounted on $mnt" \
	"[w]\nfilename=$loop\nsize=1m\nrw=randrw\nruntime=1s\n"
dd if="$loop" of="$dir/head.after" bs=4096 count=1 status=none
cmp -s "$dir/head.before" "$dir/head.after" && echo "ok   the device's first 4 KiB are unchanged" ||
	fail "the device's first 4 KiB changed"

# Reading the mounted device is harmless: allowed.
printf '[r]\nfilename=%s\nrw=randread\nsize=1m\nruntime=1s\ntime_based=1\n' "$loop" >"$dir/read.fio"
"$IOLAT" run -q "$dir/read.fio" >"$dir/out" 2>"$dir/err" && echo "ok   reading the mounted device runs" ||
	fail "reading the mounted device: rc=$?: $(cat "$dir/err")"

# 2. A size over the filesystem's free space: refused, nothing created.
run_refused too_big "too_big\.fio:3: key 'size': a size that fits: $mnt/data needs 1.00 GiB more, and its filesystem has .* free" \
	"[w]\nfilename=$mnt/data\nsize=1g\nrw=write\nruntime=1s\n"
[ -e "$mnt/data" ] && fail "too_big created $mnt/data" || echo "ok   nothing created on $mnt"
# Two files that fit one by one but not together.
run_refused together "key 'size': a size that fits: $mnt/b needs 40.0 MiB more besides the files laid out before it" \
	"[global]\nsize=40m\nrw=write\nruntime=1s\n[a]\nfilename=$mnt/a\n[b]\nfilename=$mnt/b\n"
[ -e "$mnt/a" ] || [ -e "$mnt/b" ] && fail "together created a file" || echo "ok   nothing created on $mnt"

# 3. Unmounted, the ext4 signature still protects it; allow_signature_write=1 overrides.
umount "$mnt" || fail "umount"
dd if="$loop" of="$dir/head.before" bs=4096 count=1 status=none   # umount updated the superblock
run_refused signature "key 'filename': a device without data: $loop has a signature \(ext2/3/4 filesystem\).*allow_signature_write=1" \
	"[w]\nfilename=$loop\nsize=1m\nrw=write\nruntime=1s\n"
dd if="$loop" of="$dir/head.after" bs=4096 count=1 status=none
cmp -s "$dir/head.before" "$dir/head.after" || fail "the device's first 4 KiB changed"
printf '[w]\nfilename=%s\nsize=1m\nrw=write\nbs=64k\nallow_signature_write=1\n' "$loop" >"$dir/force.fio"
"$IOLAT" run -q "$dir/force.fio" >"$dir/out" 2>"$dir/err" && echo "ok   allow_signature_write=1 writes" ||
	fail "allow_signature_write=1: rc=$?: $(cat "$dir/err")"
exit $failed
