#!/bin/bash
# apply.sh DIR: push the repository's quilt series onto the kernel tree DIR
# with no fuzz.  On failure, print the patch and the hunk that failed.
# Used by tree.sh for the cache tree and by 'make apply KSRC=...'.
set -u
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || { echo "usage: $0 KERNEL-TREE" >&2; exit 2; }
dir=$1
[ -f "$dir/Makefile" ] || die "$dir is not a kernel tree"
command -v quilt >/dev/null || die "quilt missing: apt-get install quilt (make deps)"
have=$(tree_version "$dir")
case "$have" in 6.1.*) ;; *) die "$dir is Linux $have, the series is for 6.1" ;; esac

if ! grep -qv '^[[:space:]]*\(#\|$\)' "$TOP/series"; then
	echo "series: no patches to apply"
	exit 0
fi
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
cd "$dir" || exit 1
if ! QUILT_PATCHES="$TOP/patches" QUILT_SERIES="$TOP/series" QUILT_PC=.pc \
	quilt push -a -q --fuzz=0 > "$log" 2>&1; then
	bad=$(sed -n 's/^Patch \(.*\) does not apply.*/\1/p' "$log" | head -n1)
	hunk=$(grep -E 'Hunk #|FAILED|can.t find file|malformed|Reversed' "$log" | tr '\n' ' ')
	cat "$log" >&2
	want=$(series_version)
	die "patch ${bad##*/} does not apply to $have${want:+ (series refreshed against $want)}: ${hunk:-see above}"
fi
grep -c '^Applying patch' "$log" | sed 's/$/ patches applied/'
