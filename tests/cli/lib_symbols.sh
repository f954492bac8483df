#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shared library exports every function of include/iolatency.h (the fixed public
# API) and nothing of the core's internals; debian/libiolatency1.symbols (what the
# package promises to programs built against it) lists exactly those exports.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
so="$O/libiolatency.so"
[ -f "$so" ] || { echo "no $so"; exit 1; }
syms=$(nm -D --defined-only "$so" | awk '{print $3}' | sed 's/@.*//')
missing=0
for f in iolat_ctl_create iolat_ctl_destroy iolat_ctl_tick iolat_ctl_start_timer \
	 iolat_group_create iolat_group_destroy iolat_group_set_target \
	 iolat_throttle iolat_done iolat_throttle_async iolat_throttle_cancel \
	 iolat_maybe_throttle iolat_group_delay_due iolat_group_congested \
	 iolat_group_stat iolat_group_format_stat iolat_parse_duration; do
	grep -qx "$f" <<<"$syms" || { echo "missing export: $f"; missing=1; }
done
for f in iolat_check_scale_change iolat_core_ctl_init iolat_wake iolat_delay_add; do
	grep -qx "$f" <<<"$syms" && { echo "internal symbol exported: $f"; missing=1; }
done
listed=$(sed -n 's/^ \([A-Za-z0-9_]*\)@.*/\1/p' debian/libiolatency1.symbols | sort)
exported=$(nm -D --defined-only "$so" | awk '{print $3}' | sed 's/@.*//' | sort)
if [ "$listed" != "$exported" ]; then
	echo "debian/libiolatency1.symbols differs from the exports (add new functions with the version that brings them):"
	diff <(echo "$listed") <(echo "$exported") | sed 's/^/  /'
	missing=1
fi
[ $missing -eq 0 ] && echo "all $(wc -l <<<"$syms") exports checked, and listed in debian/libiolatency1.symbols"
exit $missing
