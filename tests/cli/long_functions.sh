#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make check-functions` (scripts/long_functions.sh) passes on this tree and,
# on a small planted tree, fails on a function past the limit (naming its
# file, line, name and length, wherever its signature's return type sits,
# past an __attribute__), lets it through when the comment above it or the
# first lines of its body say "Long on purpose:", does not take a reason
# from the function before, and counts exactly (80 lines pass, 81 fail; -n
# changes the limit).
set -u
. "$(dirname "$0")/lib.sh"
cli_tmpdir iolat-longfn
check=scripts/long_functions.sh
cli_collect_failures

out=$("$check" 2>&1) && echo "ok   this tree: no function over 80 lines without a reason" ||
	fail "this tree: $out"

# body N: a function body of N lines, braces included
body() {
	echo "{"
	for ((k = 0; k < $1 - 2; k++)); do echo "	x++;"; done
	echo "}"
}
# plant FILE TEXT...: a tree holding only src/FILE
plant() {
	rm -rf "$dir/t"; mkdir -p "$dir/t/src"
	cat >"$dir/t/src/$1"
}
# expect RC WHAT PATTERN
expect() {
	local want=$1 what=$2 pat=$3 out rc
	out=$("$check" ${limit:+-n "$limit"} "$dir/t" 2>&1); rc=$?
	if [ $rc -eq "$want" ] && grep -q -- "$pat" <<<"$out"; then
		echo "ok   $what: $(grep -- "$pat" <<<"$out" | head -n 1)"
	else
		fail "$what: exit $rc (want $want): $out"
	fi
}
limit=

{ echo "static int x;"; echo; echo "static void"; echo "long_one(int a,"; echo "	 int b)"; body 81; } |
	plant a.c
expect 1 "81 lines" "^src/a.c:4: long_one: 81 lines"
{ echo "static int x;"; echo; echo "int exact(void)"; body 80; } | plant a.c
expect 0 "80 lines" "^$"
{ echo "/* Does a lot."; echo " * Long on purpose: a table in code form. */"; echo "int tab(void)"; body 120; } |
	plant a.c
expect 0 "a reason above" "^$"
{ echo "int tab(void)"; echo "{"; echo "	/* Long on purpose: one case a key. */"; body 120 | tail -n +2; } |
	plant a.c
expect 0 "a reason inside" "^$"
{ echo "/* Long on purpose: short anyway. */"; echo "int a(void)"; body 3; echo;
  echo "int b(void)"; body 90; } | plant a.c
expect 1 "a reason is not inherited" "^src/a.c:7: b: 90 lines"
{ echo "__attribute__((noinline)) static void attr_fn(void)"; body 90; } | plant a.c
expect 1 "named past __attribute__" "^src/a.c:1: attr_fn: 90 lines"
{ echo "int c(void)"; body 40; } | plant a.c
limit=30 expect 1 "-n 30" "c: 40 lines (limit 30"
exit $failed
