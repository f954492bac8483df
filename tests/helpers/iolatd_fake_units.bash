# SPDX-License-Identifier: MIT
# Sourced by iolatd's shell tests (tests/cli/iolatd_systemd.sh, iolatd_syscalls.sh):
# fake_units DIR builds, under DIR, a plain directory laid out as a cgroup v1
# blkio tree (DIR/cg with system.slice/web.service and system.slice/backup.service,
# empty throttle files; iolatd takes it with IOLATD_TEST_PLAIN_CGROUP_ROOT=1), the
# run directory DIR/run, and a fake systemctl (DIR/systemctl, for
# IOLATD_SYSTEMCTL) whose `show` prints web.service running in its cgroup.
# Context: the test's shell; writes only under DIR.
fake_units() {
	local dir=$1 c f
	mkdir -p "$dir/cg/system.slice/web.service" "$dir/cg/system.slice/backup.service" "$dir/run" || return 1
	for c in "$dir/cg" "$dir/cg/system.slice" "$dir"/cg/system.slice/*; do
		for f in read_bps write_bps read_iops write_iops; do : >"$c/blkio.throttle.${f}_device"; done
	done
	printf 'Id=web.service\nLoadState=loaded\nControlGroup=/system.slice/web.service\n' >"$dir/show.out"
	printf '#!/bin/sh\n[ "$1" = show ] || exit 1\ncat "%s"\n' "$dir/show.out" >"$dir/systemctl"
	chmod +x "$dir/systemctl"
}
