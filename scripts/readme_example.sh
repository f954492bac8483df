#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Extracts the C embedding example from README.md (between the markers
# "<!-- example:begin -->" and "<!-- example:end -->"), compiles it against the
# built static library with -Wall -Wextra -Werror, and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
O=${O:-build}
make -j2 lib >/dev/null
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
awk '/<!-- example:begin -->/{on=1;next} /<!-- example:end -->/{on=0} on && !/^```/' README.md >"$tmp/example.c"
[ -s "$tmp/example.c" ] || { echo "readme_example: no example found in README.md" >&2; exit 1; }
# The library needs nothing but threads and libm (the engines and liburing are iolat's).
cc -std=c11 -Wall -Wextra -Werror -Iinclude "$tmp/example.c" "$O/libiolatency.a" -lpthread -lm -o "$tmp/example"
"$tmp/example"
echo "readme_example: compiled and ran"
