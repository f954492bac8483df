# SPDX-License-Identifier: MIT
# Guest scenario "smoke": the machine is what the other scenarios need —
# cgroup v2 with io, io.max, BTF, the scratch disk, iolatd built with BPF.
echo "smoke: kernel $(uname -r)"
cat /sys/fs/cgroup/cgroup.controllers
echo +io >/sys/fs/cgroup/cgroup.subtree_control || exit 1
mkdir /sys/fs/cgroup/t && ls /sys/fs/cgroup/t | grep -q '^io.max$' || exit 1
rmdir /sys/fs/cgroup/t
[ -r /sys/kernel/btf/vmlinux ] || { echo "smoke: no BTF"; exit 1; }
[ -b /dev/vda ] || { echo "smoke: no /dev/vda"; exit 1; }
cat /sys/block/vda/dev
iolatd --version | grep -q 'BPF measurement: built' || exit 1
echo "smoke: ok"
