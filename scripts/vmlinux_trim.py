#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The vmlinux.h iolatd's BPF program is compiled with, trimmed to what it uses.

Reads a kernel's BTF as `bpftool -j btf dump file F` prints it (JSON, on
stdin) and writes a C header holding only:
  - the integer typedefs the program and libbpf's bpf_helpers.h need;
  - the enums whose enumerators the program names (the kernel ones are read
    through CO-RE enum-value relocations: their values here do not matter;
    the bpf(2) UAPI ones are fixed by the syscall's ABI);
  - each struct the program reads, with only the members it reads, marked
    preserve_access_index: CO-RE relocates every member access by name at
    load time, so the local layout (offsets, sizes of the other members) is
    never used and the object runs on any kernel that has those members.
    Other structs named by a kept member appear as forward declarations.
The list below is the program's needs: a member read in
src/daemon/sys/bpf/iolatd.bpf.c that is missing here fails its compilation.
Usage: vmlinux_trim.py "FROM" < btf.json > vmlinux.h   (FROM: where the BTF came from)
"""
import json
import sys

TYPEDEFS = ["__u8", "__s8", "__u16", "__s16", "__u32", "__s32", "__u64", "__s64",
            "u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64",
            "__be16", "__be32", "__wsum", "bool", "blk_status_t", "blk_opf_t"]
# Named enums kept whole; anonymous ones are found by one of their enumerators.
ENUMS = ["bpf_map_type", "req_flag_bits", "req_op"]
ANON_ENUMS = ["BPF_RB_NO_WAKEUP", "BPF_RB_AVAIL_DATA", "false"]
STRUCTS = {
    "request": ["q", "bio", "cmd_flags", "start_time_ns", "io_start_time_ns"],
    "request_queue": ["disk"],
    "gendisk": ["major", "first_minor"],
    "bio": ["bi_blkg"],
    "blkcg_gq": ["blkcg"],
    "blkcg": ["css"],
    "cgroup_subsys_state": ["cgroup"],
    "cgroup": ["kn"],
    "kernfs_node": ["id"],
}


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else "unknown"
    types = {t["id"]: t for t in json.load(sys.stdin)["types"]}
    by_name = {}
    for t in types.values():
        by_name.setdefault((t["kind"], t.get("name", "(anon)")), t)
    out, forward, missing = [], set(), []

    def decl(type_id, name):
        """The C declaration of @name with BTF type @type_id."""
        t = types.get(type_id)
        if t is None:
            return "void " + name
        kind = t["kind"]
        if kind == "PTR":
            return decl(t["type_id"], "*" + name)
        if kind in ("CONST", "VOLATILE", "RESTRICT", "TYPE_TAG"):
            return decl(t["type_id"], name)
        if kind in ("STRUCT", "UNION"):
            word = kind.lower()
            if t["name"] not in STRUCTS:
                forward.add((word, t["name"]))
            return f"{word} {t['name']} {name}"
        if kind == "ENUM":
            return f"enum {t['name']} {name}"
        if kind in ("INT", "TYPEDEF"):
            if kind == "TYPEDEF" and t["name"] not in TYPEDEFS:
                missing.append("typedef " + t["name"])
            return f"{t['name']} {name}"
        if kind == "ARRAY":
            return decl(t["type_id"], f"{name}[{t['nr_elems']}]")
        missing.append(f"{kind} of {name}")
        return "void " + name

    def typedef(name):
        t = by_name.get(("TYPEDEF", name))
        if t is None:
            missing.append("typedef " + name)
            return
        out.append("typedef " + decl(t["type_id"], name) + ";")

    def enum(t, label):
        vals = "\n".join(f"\t{v['name']} = {v['val']}," for v in t["values"])
        out.append(f"enum {label}{{\n{vals}\n}};\n")

    out.append("/* Integer types (the kernel's; bpf_helpers.h and the program use them). */")
    for name in TYPEDEFS:
        typedef(name)
    out.append("")
    out.append("/* Enums the program names (kernel ones relocated at load; UAPI ones fixed). */")
    for name in ENUMS:
        t = by_name.get(("ENUM", name))
        if t is None:
            missing.append("enum " + name)
        else:
            enum(t, name + " ")
    for first in ANON_ENUMS:
        t = next((t for t in types.values() if t["kind"] == "ENUM" and t.get("name", "(anon)") == "(anon)"
                  and any(v["name"] == first for v in t["values"])), None)
        if t is None:
            missing.append("the enum of " + first)
        else:
            enum(t, "")
    body, done = [], set()

    def embedded(type_id):
        """The kept struct a member holds by value (defined before its user), or None."""
        t = types.get(type_id)
        while t and t["kind"] in ("CONST", "VOLATILE", "TYPEDEF", "ARRAY"):
            t = types.get(t["type_id"])
        return t["name"] if t and t["kind"] == "STRUCT" and t["name"] in STRUCTS else None

    def struct(sname):
        if sname in done:
            return
        done.add(sname)
        t = by_name.get(("STRUCT", sname))
        if t is None:
            missing.append("struct " + sname)
            return
        members = {m["name"]: m for m in t["members"]}
        lines = []
        for f in STRUCTS[sname]:
            if f not in members:
                missing.append(f"struct {sname}.{f}")
                continue
            m = members[f]
            if embedded(m["type_id"]):
                struct(embedded(m["type_id"]))
            width = m.get("bitfield_size", 0)
            lines.append("\t" + decl(m["type_id"], f) + (f": {width}" if width else "") + ";")
        body.append(f"struct {sname} {{\n" + "\n".join(lines) + "\n};\n")

    for sname in STRUCTS:
        struct(sname)
    if missing:
        sys.exit("vmlinux_trim: the BTF lacks: " + ", ".join(missing))

    print("/* SPDX-License-Identifier: (MIT OR GPL-2.0) */")
    print("/*")
    print(" * vmlinux.h - the kernel types iolatd's BPF program uses, and only those")
    print(f" * (generated by scripts/vmlinux_h.sh from {source};")
    print(" * do not edit: change the lists in scripts/vmlinux_trim.py and regenerate).")
    print(" * Structs carry only the members the program reads; CO-RE relocates each")
    print(" * access by name when the program is loaded, on whatever kernel runs it.")
    print(" */")
    print("#ifndef __VMLINUX_H__\n#define __VMLINUX_H__\n")
    print("#ifndef BPF_NO_PRESERVE_ACCESS_INDEX")
    print("#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)")
    print("#endif\n")
    print("\n".join(out))
    for word, name in sorted(forward):
        print(f"{word} {name};")
    print()
    print("\n".join(body))
    print("#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n#pragma clang attribute pop\n#endif\n")
    print("#endif /* __VMLINUX_H__ */")


if __name__ == "__main__":
    main()
