#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian packages, built and checked (issue 21 item 3; CI runs it):
#   1. the build dependencies of debian/control (and lintian) are installed
#      when missing (as root, on Debian 12);
#   2. the tree (git's files, or all of it outside a git work tree) is copied
#      to $O/pkg/src and built there with dpkg-buildpackage -us -uc -b: iolat,
#      iolatd, libiolatency1, libiolatency-dev land in $O/pkg;
#   3. lintian: no error and no warning (lintian -i -I: every tag, info and
#      pedantic ones too, printed with its explanation);
#   4. the packages are unpacked (dpkg -x) into a clean tree $O/pkg/root and
#      used from there: iolat -V and iolatd --version run (an iolatd without
#      its BPF measurement is refused), iolatd --check-config answers, the README's
#      embedding example builds with pkg-config against the installed header,
#      static and shared libraries (and runs on the installed libiolatency.so.1),
#      each man page renders with man -l, the unit passes systemd-analyze
#      verify where systemd-analyze is installed.
#   scripts/package_check.sh [--build-only]
# Everything it makes is under $O/pkg (O=build by default).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
O=${O:-build}
out=$top/$O/pkg
build_only=; [ "${1:-}" = --build-only ] && build_only=1
say() { echo "package_check: $*"; }
fail() { echo "package_check: FAIL: $*" >&2; exit 1; }

# 1. What the build needs.
need=(dpkg-dev debhelper fakeroot lintian build-essential man-db)
need+=($(sed -n '/^Build-Depends:/,/^[A-Z][^:]*:/p' debian/control | sed '1s/^Build-Depends://; $d' |
	tr ',' '\n' | sed 's/([^)]*)//; s/[[:space:]]//g' | grep -v '^debhelper-compat' | grep .))
missing=()
for p in "${need[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" -eq 0 ] || fail "missing ${missing[*]} (run as root to install them)"
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# 2. Build from a copy (dpkg-buildpackage writes next to the source directory).
t0=$(date +%s)
rm -rf "$out"
mkdir -p "$out/src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard | grep -zv '^build' |
		tar --null -T - -cf - | tar -xf - -C "$out/src"
else
	tar --exclude='./build*' -cf - . | tar -xf - -C "$out/src"
fi
(cd "$out/src" && DEB_BUILD_OPTIONS="parallel=2 ${DEB_BUILD_OPTIONS:-}" \
	dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1) || { tail -n 40 "$out/build.log"; fail "dpkg-buildpackage"; }
debs=$(ls "$out"/*.deb | grep -v -- '-dbgsym_' || true)
for p in iolat iolatd libiolatency1 libiolatency-dev; do
	ls "$out/${p}_"*.deb >/dev/null 2>&1 || fail "no package $p"
done
say "built in $(( $(date +%s) - t0 )) s: $(for d in $debs; do basename "$d"; done | tr '\n' ' ')"
for d in $debs; do echo "  $(basename "$d"):"; dpkg-deb -c "$d" | awk '{print "    " $6 ($7 ? " " $7 " " $8 : "")}' | grep -v '/$'; done

# 3. lintian: errors and warnings fail; info and pedantic tags are shown (with -i, their explanation).
changes=$(ls "$out"/*.changes)
lintian -i -I --pedantic --fail-on error,warning --tag-display-limit 0 "$changes" >"$out/lintian.log" 2>&1 ||
	{ cat "$out/lintian.log"; fail "lintian reports errors or warnings"; }
grep -v -e 'running with root privileges' "$out/lintian.log" >"$out/lintian.tags" || true
tags=$(grep -cE '^[IP]: ' "$out/lintian.tags" || true)
if [ -s "$out/lintian.tags" ]; then say "lintian: no error, no warning; $tags info/pedantic tag(s):"; grep -E '^[IPWE]: ' "$out/lintian.tags" | sed 's/^/  /'; else say "lintian: no tag at all"; fi
deb_field() { dpkg-deb -f "$(ls "$out/${1}_"*.deb)" "$2"; }
[[ $(deb_field iolatd Recommends) == *iolat* ]] || fail "iolatd does not recommend iolat (iolat status)"
dpkg-deb -I "$(ls "$out"/libiolatency1_*.deb)" symbols >/dev/null 2>&1 || fail "libiolatency1 has no symbols file"
[ -n "$build_only" ] && exit 0

# 4. Installed into a clean tree, used from there.
root=$out/root
mkdir -p "$root"
for d in $debs; do dpkg -x "$d" "$root"; done
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
[ -x "$root/usr/sbin/iolatd" ] && [ ! -e "$root/usr/bin/iolatd" ] || fail "iolatd is not in /usr/sbin"
v1=$("$root/usr/bin/iolat" -V) && [[ $v1 == iolat\ * ]] || fail "iolat -V"
v2=$("$root/usr/sbin/iolatd" --version) && [[ $v2 == *"BPF measurement"* ]] || fail "iolatd --version"
[[ $v2 == *"BPF measurement: not built"* ]] && fail "the package's iolatd cannot measure: $v2"
[[ $v2 == "iolatd $(dpkg-parsechangelog -S Version -l debian/changelog) "* ]] || fail "iolatd --version does not say the package's version: $v2"
say "$v1; $v2"
printf '[global]\ndevice=vda\n[group:a]\ntarget=soon\n' >"$out/bad.conf"
"$root/usr/sbin/iolatd" --check-config "$out/bad.conf" 2>"$out/check.err" && fail "iolatd --check-config accepted a bad file"
grep -q "bad.conf:4: key 'target'" "$out/check.err" || fail "iolatd --check-config: $(cat "$out/check.err")"
say "iolatd --check-config refuses a bad file: $(cat "$out/check.err")"
export PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$root/usr/lib/$ma/pkgconfig
flags=$(pkg-config --cflags --libs iolatency) || fail "pkg-config iolatency"
static=$(pkg-config --static --libs iolatency)
awk '/<!-- example:begin -->/{on=1;next} /<!-- example:end -->/{on=0} on && !/^```/' README.md >"$out/example.c"
cc -std=c11 -Wall -Wextra -Werror "$out/example.c" $flags -o "$out/example-shared" || fail "example against the shared library"
LD_LIBRARY_PATH=$root/usr/lib/$ma "$out/example-shared" >/dev/null || fail "example (shared) did not run"
loaded=$(LD_LIBRARY_PATH=$root/usr/lib/$ma ldd "$out/example-shared")
grep -q "$root/usr/lib/$ma/libiolatency.so.1" <<<"$loaded" || fail "the example did not load the installed libiolatency.so.1"

cc -std=c11 -Wall -Wextra -Werror -static-libgcc "$out/example.c" $(pkg-config --cflags iolatency) \
	"$root/usr/lib/$ma/libiolatency.a" ${static//-liolatency/} -o "$out/example-static" || fail "example against the static library"
"$out/example-static" >/dev/null || fail "example (static) did not run"
say "README example built with pkg-config ($flags) and run, shared and static"
unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR
for page in man1/iolat.1 man8/iolatd.8 man5/iolatd.conf.5 man3/libiolatency.3; do
	f=$root/usr/share/man/$page.gz
	[ -f "$f" ] || fail "no $page.gz"
	text=$(MANWIDTH=80 man -l "$f" 2>/dev/null)
	grep -q '^NAME' <<<"$text" || fail "man -l $page"
done
say "man -l renders iolat(1), iolatd(8), iolatd.conf(5), libiolatency(3)"
unit=$root/lib/systemd/system/iolatd.service
grep -q "^ExecStart=/usr/sbin/iolatd " "$unit" || fail "unit: ExecStart is not /usr/sbin/iolatd"
for line in "ExecStartPre=/usr/sbin/iolatd --check-config" "ExecReload=/usr/sbin/iolatd --check-config" \
	"WatchdogSec=" "SystemCallFilter=@system-service bpf"; do
	grep -q "^$line" "$unit" || fail "unit: no $line"
done
doc=$(sed -n 's|^Documentation=.*file://\([^ ]*\).*|\1|p' "$unit")
[ -f "$root$doc" ] || fail "unit: Documentation= names $doc, not in the package"
if command -v systemd-analyze >/dev/null; then
	# verify resolves ExecStart in the real /usr/bin: point it at the unpacked one.
	sed "s|/usr/sbin/iolatd|$root/usr/sbin/iolatd|g; s|^ConditionPathExists=.*||" "$unit" >"$out/iolatd.service"
	MANPATH=$root/usr/share/man systemd-analyze verify "$out/iolatd.service" >"$out/verify.log" 2>&1 || { cat "$out/verify.log"; fail "systemd-analyze verify"; }
	say "systemd-analyze verify: the unit is valid"
fi
say "ok ($(( $(date +%s) - t0 )) s)"
