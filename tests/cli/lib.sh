# SPDX-License-Identifier: MIT
# lib.sh - what the CLI tests share, sourced by each (tests/runtests.sh runs
# them with IOLAT and O set). A script starts with
#     set -u
#     . "$(dirname "$0")/lib.sh"
# and then has:
#   O, IOLAT, IOLATD      the build folder and the programs: the environment's,
#                         else build/iolat and build/iolatd
#   skip WHY...           "skip: WHY" and exit 77 (counted as skipped)
#   need_iolat, need_iolatd   skip unless that program is built
#   cli_tmpdir NAME [BASE]    $dir: a new directory NAME-XXXXXX under $TMPDIR
#                         (else BASE, else /var/tmp), removed at exit; skip if
#                         none can be made. A script with its own clean-up
#                         makes its directory and trap itself.
#   fail MSG...           "FAIL: MSG", then exit 1; after cli_collect_failures
#                         it records the failure (failed=1) and goes on, and
#                         the script ends with exit $failed
#   fail_hook             a function the script may define: run by fail after
#                         its line (iolatd's tests print the daemon's log)
# Context: sourced by bash, after set -u.

O=${O:-build}
IOLAT=${IOLAT:-$O/iolat}
IOLATD=${IOLATD:-$O/iolatd}
cli_fail_later=

skip() { echo "skip: $*"; exit 77; }

need_iolat() { [ -x "$IOLAT" ] || skip "$IOLAT not built"; }

need_iolatd() { [ -x "$IOLATD" ] || skip "$IOLATD not built"; }

cli_tmpdir() {
	dir=$(mktemp -d "${TMPDIR:-${2:-/var/tmp}}/$1-XXXXXX") || skip "no temp dir"
	trap 'rm -rf "$dir"' EXIT
}

cli_collect_failures() { cli_fail_later=1; failed=0; }

fail() {
	echo "FAIL: $*"
	if declare -F fail_hook >/dev/null; then fail_hook || true; fi
	if [ -n "$cli_fail_later" ]; then failed=1; else exit 1; fi
}
