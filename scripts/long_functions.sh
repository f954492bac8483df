#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# long_functions.sh - the house rule "functions under ~80 lines", enforced:
# lists every function of the tree's C files (src, tools, include, tests,
# bench, fuzz) whose body, from its opening '{' to its closing '}' (both in
# column 0, the tree's style), runs past MAX lines, unless the comment just
# above it, or the first lines of its body, give the reason with the words
# "Long on purpose:" (for instance a switch that is a table in code form).
#
# usage: scripts/long_functions.sh [-n MAX] [-v] [ROOT]
#   -n MAX  the limit in lines (default 80)
#   -v      also list the functions let through by their written reason
# Prints "file:line: function: N lines" per long function; exit 1 if any.
set -u
max=80 verbose=0
while getopts n:v opt; do
	case $opt in
	n) max=$OPTARG ;;
	v) verbose=1 ;;
	*) echo "usage: $0 [-n MAX] [-v] [ROOT]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2

files=$(find src tools include tests bench fuzz -name '*.[ch]' 2>/dev/null | sort)
[ -n "$files" ] || { echo "long_functions: no C files under $root" >&2; exit 2; }

# Outside a body: a column-0 line with a '(' is the latest signature; a
# comment block or signature lines since the last blank line or top-level
# '}' are "above" the function. Inside: count to the column-0 '}'.
awk -v max="$max" -v verbose="$verbose" '
FNR == 1 { inbody = 0; sig = ""; above = "" }
!inbody && /^[ \t]*$/ { above = ""; next }
!inbody && /^[A-Za-z_].*\(/ && !/^#/ { sig = $0; sigline = FNR }
!inbody && /^\{/ {
	inbody = 1; start = FNR; reason = (above ~ /Long on purpose:/)
	name = sig; gsub(/__attribute__ *\(\([^)]*\)\)/, "", name); sub(/\(.*/, "", name)
	n = split(name, w, /[ \t*]+/); name = w[n]
	next
}
!inbody && !/^\}/ { above = above "\n" $0; next }
!inbody { above = ""; next }
inbody && FNR - start <= 3 && /Long on purpose:/ { reason = 1 }
inbody && /^\}/ {
	len = FNR - start + 1; inbody = 0; above = ""
	if (len > max && !reason) {
		printf "%s:%d: %s: %d lines (limit %d; split it, or say why at its top with \"Long on purpose:\")\n", FILENAME, sigline, name, len, max
		bad++
	} else if (len > max && verbose) {
		printf "%s:%d: %s: %d lines, long on purpose\n", FILENAME, sigline, name, len
	}
}
END { exit bad ? 1 : 0 }
' $files
