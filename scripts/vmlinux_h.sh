#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The vendored vmlinux.h of iolatd's BPF program, regenerated from a kernel's
# BTF and trimmed to the types the program uses (scripts/vmlinux_trim.py):
#   scripts/vmlinux_h.sh ARCH SOURCE [OUT]
#     ARCH    the BPF target's name for the architecture: x86, arm64, ...
#     SOURCE  a Debian linux-image-*.deb, a vmlinuz (x86 bzImage or a gzipped
#             arm64 Image), a vmlinux ELF, or a BTF file (/sys/kernel/btf/vmlinux)
#     OUT     default src/daemon/sys/bpf/vmlinux/ARCH/vmlinux.h
# The header's comment says which kernel it came from. With CO-RE the kernel
# it came from need not be the one that runs the program: the members read
# are relocated by name at load time (docs/iolatd.md, "Packages").
# The vendored x86 header was made with:
#   apt-get download linux-image-6.1.0-57-cloud-amd64   (Debian 12's stock kernel)
#   scripts/vmlinux_h.sh x86 linux-image-6.1.0-57-cloud-amd64_6.1.192-3_amd64.deb
# Needs bpftool and python3 (and lz4, xz-utils or zstd for the compression the
# vmlinuz uses). Context: host, any user; writes only OUT and a temp dir.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:-}; src=${2:-}
[ -n "$arch" ] && [ -n "$src" ] || { echo "usage: $0 ARCH SOURCE [OUT]" >&2; exit 2; }
[ -r "$src" ] || { echo "vmlinux_h: $src: not readable" >&2; exit 1; }
out=${3:-$top/src/daemon/sys/bpf/vmlinux/$arch/vmlinux.h}
bpftool=${BPFTOOL:-$(command -v bpftool || echo /usr/sbin/bpftool)}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

file=$src
case $src in
*.deb)
	from="Debian's $(dpkg-deb -f "$src" Package) $(dpkg-deb -f "$src" Version) ($(dpkg-deb -f "$src" Architecture))"
	dpkg-deb -x "$src" "$tmp/pkg"
	file=$(ls "$tmp"/pkg/boot/vmlinu[xz]-* | head -n 1) ;;
/sys/kernel/btf/vmlinux)
	from="the BTF of the running kernel $(uname -r) ($(uname -m))" ;;
*)
	from=$(basename "$src") ;;
esac

# A compressed kernel image: the vmlinux (x86) or Image (arm64) inside it; an
# Image is not ELF, so its .BTF section is found by the BTF header's magic.
python3 - "$file" "$tmp/btf" <<'PY'
import gzip, struct, subprocess, sys
data = open(sys.argv[1], "rb").read()
tools = {b"\x02\x21\x4c\x18": ["lz4", "-dc"], b"\xfd7zXZ": ["xz", "-dc"], b"\x28\xb5\x2f\xfd": ["zstd", "-dc"],
         b"\x1f\x8b\x08": ["gzip", "-dc"]}
if data[0x202:0x206] == b"HdrS":  # an x86 bzImage: its payload
    start = ((data[0x1f1] or 4) + 1) * 512 + struct.unpack_from("<I", data, 0x248)[0]
    payload = data[start:start + struct.unpack_from("<I", data, 0x24c)[0]]
    tool = next((t for m, t in tools.items() if payload.startswith(m)), None)
    if tool is None:
        sys.exit("vmlinux_h: unknown compression in the bzImage")
    # (lz4 says the payload's trailing size word is an error after the stream: the output counts)
    data = subprocess.run(tool, input=payload, capture_output=True).stdout
    if not data:
        sys.exit("vmlinux_h: " + tool[0] + " could not decompress the bzImage's payload")
elif data.startswith(b"\x1f\x8b\x08"):
    data = gzip.decompress(data)
if data.startswith(b"\x7fELF") or data.startswith(b"\x9f\xeb"):
    open(sys.argv[2], "wb").write(data)
    sys.exit(0)
at = 0
while (at := data.find(b"\x9f\xeb\x01", at)) >= 0:
    hdr, type_off, type_len, str_off, str_len = struct.unpack_from("<5I", data, at + 4)
    if hdr == 24 and type_off == 0 and str_off == type_len and data[at + hdr + str_off] == 0:
        open(sys.argv[2], "wb").write(data[at:at + hdr + str_off + str_len])
        sys.exit(0)
    at += 1
sys.exit("vmlinux_h: no BTF found in " + sys.argv[1])
PY
"$bpftool" -j btf dump file "$tmp/btf" >"$tmp/btf.json"
mkdir -p "$(dirname "$out")"
python3 "$top/scripts/vmlinux_trim.py" "$from" <"$tmp/btf.json" >"$tmp/vmlinux.h"
mv "$tmp/vmlinux.h" "$out"
echo "vmlinux_h: $out from $from ($(wc -c <"$out") bytes)"
