#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make vm-test: iolatd on Debian 12's stock 6.1 kernel in a QEMU guest
# (tests/vm/vm.sh, scenario tests/vm/guest/iolatd.sh): io.max written on the
# right cgroup and disk, the writer held within 1.2x of the limit in force,
# the reader protected, SIGTERM, SIGKILL and restart, a cgroup that goes and
# comes back, a group without the io controller. Prints the scenario's lines
# and its wall time; exits as the scenario (0 pass, 1 fail, 77 skip: said why).
#   tests/vm/run.sh [KEY=VALUE...]   (passed to the scenario, e.g. SECS=30)
# Needs qemu-system-x86 and busybox-static (apt-get install), network for
# apt-get download of the kernel package the first time; TCG (no KVM) takes
# about 3 minutes on a 2-core machine. Everything is built under $O/vm.
set -u
cd "$(dirname "$0")/../.."
O=${O:-build}
t0=$(date +%s)
O=$O bash tests/vm/vm.sh iolatd "$@" >"$O/vm-test.log" 2>&1
rc=$?
grep -E '^(PASS|FAIL|skip|baseline|reader p90|held:|iolatd: [0-9]+ failed)|vm: ' "$O/vm-test.log"
echo "vm-test: exit $rc after $(( $(date +%s) - t0 )) s of wall time (console: $O/vm/console-iolatd.log)"
exit $rc
