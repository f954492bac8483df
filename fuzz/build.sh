#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets with clang (ASan + UBSan) straight from the
# sources, into ${O:-build}/fuzz/<target>:
#   fuzz_duration  iolat_parse_duration()
#   fuzz_ctl       the controller, through fuzz/ctl_driver.c
#   fuzz_jobfile   the job-file parser (only when src/job/jobfile_parse.c exists)
# Needs clang and libclang-rt-14-dev (Debian). Usage: fuzz/build.sh [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
O=${O:-build}
CC=${FUZZ_CC:-clang}
out="$O/fuzz"
mkdir -p "$out"

CFLAGS=(-std=c11 -D_GNU_SOURCE -Iinclude -Isrc -Ifuzz -g -O1 -fno-omit-frame-pointer
	-Wall -Wextra -Werror -Wmissing-prototypes -Wshadow -Wno-unused-parameter
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all)
LIB_SRC=(src/core/*.c src/sync/*.c src/util/*.c)   # sync takes its condition variable from util

build() {
	local t=$1; shift
	echo "fuzz/build.sh: $out/$t"
	"$CC" "${CFLAGS[@]}" "${LIB_SRC[@]}" "$@" -o "$out/$t" -lpthread -lm
}

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_duration fuzz_ctl fuzz_jobfile)
for t in "${targets[@]}"; do
	case $t in
	fuzz_duration) build fuzz_duration fuzz/fuzz_duration.c ;;
	fuzz_ctl)
		# The driver's invariant loops need no comparison tracing (it made
		# up most of the run time); its edges are still counted.
		"$CC" "${CFLAGS[@]/-fsanitize=fuzzer,/-fsanitize=fuzzer-no-link,}" \
			-fno-sanitize-coverage=trace-cmp -c fuzz/ctl_driver.c -o "$out/ctl_driver.o"
		build fuzz_ctl fuzz/fuzz_ctl.c "$out/ctl_driver.o" ;;
	fuzz_jobfile)
		if [ -f src/job/jobfile_parse.c ] && [ -f fuzz/fuzz_jobfile.c ]; then
			# The parser (src/job, the whole layer) asks the engine registry
			# which ioengine= names exist.
			build fuzz_jobfile fuzz/fuzz_jobfile.c src/job/*.c src/conf/*.c src/engine/*.c
		else
			echo "fuzz/build.sh: skipping fuzz_jobfile (src/job/jobfile_parse.c not there yet)"
		fi ;;
	*) echo "fuzz/build.sh: unknown target $t" >&2; exit 2 ;;
	esac
done
