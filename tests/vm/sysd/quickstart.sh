#!/bin/bash
# SPDX-License-Identifier: MIT
# The systemd guest's test (tests/vm/sysd.sh; run by vmtest.service as root,
# output on the serial console): README.md's quick start, verbatim. The
# shell blocks between "<!-- quickstart:begin -->" and "<!-- quickstart:end -->"
# run as one script from /root, whose build/pkg holds the packages as `make deb`
# leaves them, after two
# services it speaks of are made here: web.service (a 4 KiB random reader,
# the latency-sensitive one) and backup.service (a 1 MiB O_DIRECT writer).
# Then the checks: iolatd active under systemd; a limit on backup.service's
# io.max for the disk, none on web.service; iolat status naming web.service;
# `systemctl reload` with a broken file failing and leaving the daemon
# running on the old one; the blocks between "<!-- quickstart-undo:begin -->"
# and "<!-- quickstart-undo:end -->" (stop, disable, remove) leaving no
# io.max limit and no iolatd. Prints PASS/FAIL lines, "VMTEST-EXIT n" last,
# and powers the machine off.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export DEBIAN_FRONTEND=noninteractive
# apt asks before it installs or removes; the README's commands stay as a person types them.
printf 'APT::Get::Assume-Yes "true";\n' >/etc/apt/apt.conf.d/90vmtest
fails=0
ok() { echo "PASS $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
finish() {
	echo "quickstart: journal of iolatd (last 30 lines):"
	journalctl -u iolatd --no-pager -n 30 2>/dev/null | sed 's/^/  | /'
	sync
	echo "VMTEST-EXIT $([ $fails -eq 0 ] && echo 0 || echo 1)"
	systemctl poweroff --force --force
}
trap finish EXIT
DEV=$(cat /sys/block/vda/dev)
CG=/sys/fs/cgroup
echo "quickstart: $(uname -r), systemd $(systemctl --version | awk 'NR==1{print $2}'), disk vda $DEV"

# The README's shell blocks between the markers $1:begin and $1:end.
blocks() {
	sed -n "/<!-- $1:begin -->/,/<!-- $1:end -->/p" /root/README.md |
		awk '/^```(sh|bash)$/ { f = 1; next } /^```/ { f = 0; next } f'
}

# The two services the quick start protects and limits.
mkdir -p /srv/web /srv/backup
cat >/etc/systemd/system/web.service <<'EOF'
[Unit]
Description=latency-sensitive reader (test fixture)
[Service]
ExecStart=/usr/bin/fio --name=web --filename=/srv/web/data --size=128m --rw=randread --bs=4k --iodepth=1 --direct=1 --ioengine=psync --time_based --runtime=3600 --output=/dev/null
EOF
cat >/etc/systemd/system/backup.service <<'EOF'
[Unit]
Description=bulk writer (test fixture)
[Service]
ExecStart=/usr/bin/fio --name=backup --filename=/srv/backup/data --size=768m --rw=write --bs=1m --iodepth=32 --direct=1 --ioengine=libaio --time_based --runtime=3600 --output=/dev/null
EOF
systemctl daemon-reload
systemctl start web.service backup.service || bad "the fixture services do not start"

# 1. The quick start, as written.
blocks quickstart >/root/quickstart.sh
if [ ! -s /root/quickstart.sh ]; then
	bad "README.md has no quick start between <!-- quickstart:begin --> and <!-- quickstart:end -->"
	exit 1
fi
echo "quickstart: running $(wc -l </root/quickstart.sh) lines of README.md:"
sed 's/^/  > /' /root/quickstart.sh
if (cd /root && bash -e /root/quickstart.sh) >/root/quickstart.out 2>&1; then
	ok "the quick start ran as written"
else
	bad "the quick start failed: $(tail -n 5 /root/quickstart.out | tr '\n' '|')"
fi
sed 's/^/  | /' /root/quickstart.out | tail -n 40

# 2. The daemon and its limits.
systemctl is-active -q iolatd && ok "iolatd is active" || bad "iolatd is not active: $(systemctl is-active iolatd)"
limit_of() { awk -v d="$DEV" '$1 == d' "$CG/system.slice/$1/io.max" 2>/dev/null; }
limited=
for _ in $(seq 60); do
	l=$(limit_of backup.service)
	case $l in *wbps=[0-9]*) limited=$l; break ;; esac
	sleep 1
done
[ -n "$limited" ] && ok "backup.service limited: $limited" || bad "no limit on backup.service's io.max in 60 s"
case $(limit_of web.service) in
*bps=[0-9]* | *iops=[0-9]*) bad "web.service, the protected one, is limited: $(limit_of web.service)" ;;
*) ok "web.service is not limited" ;;
esac
iolat status >/root/status.out 2>&1
grep -q web.service /root/status.out && ok "iolat status shows web.service" ||
	bad "iolat status does not show web.service: $(head -n 5 /root/status.out | tr '\n' '|')"

# 3. A broken configuration: reload fails visibly, the daemon keeps the old one.
cp /etc/iolatd.conf /root/iolatd.conf.good
printf '[global]\nno_such_key=1\n' >>/etc/iolatd.conf
if systemctl reload iolatd 2>/root/reload.err; then
	bad "systemctl reload succeeded with a broken /etc/iolatd.conf"
else
	ok "systemctl reload fails on a broken file"
fi
systemctl is-active -q iolatd && ok "iolatd still runs after the refused reload" || bad "iolatd died on a bad reload"
cp /root/iolatd.conf.good /etc/iolatd.conf
systemctl reload iolatd && ok "systemctl reload of the good file" || bad "reload of the good file failed"

# 4. Undo, as written: no limit left.
blocks quickstart-undo >/root/undo.sh
if [ -s /root/undo.sh ] && (cd /root && bash -e /root/undo.sh) >/root/undo.out 2>&1; then
	ok "the undo steps ran as written"
else
	bad "the undo steps failed or are missing: $(tail -n 5 /root/undo.out 2>/dev/null | tr '\n' '|')"
fi
systemctl is-active -q iolatd && bad "iolatd still active after the undo steps" || ok "iolatd stopped"
left=$(limit_of backup.service)
case $left in
*bps=[0-9]* | *iops=[0-9]*) bad "a limit is left on backup.service: $left" ;;
*) ok "no limit left on backup.service" ;;
esac
systemctl stop web.service backup.service
exit 0
