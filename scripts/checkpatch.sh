#!/bin/bash
# Run the tree's scripts/checkpatch.pl --no-signoff on every patch of the
# series.  Fails when any patch has an error; warnings are printed.
set -u
. "$(dirname "$0")/lib.sh"
[ -x "$PRISTINE/scripts/checkpatch.pl" ] || die "no tree: run 'make tree' first"
errors=0
for p in $(grep -v '^[[:space:]]*#' "$TOP/series" | awk 'NF{print $1}'); do
	out=$(cd "$TREE" && perl "$PRISTINE/scripts/checkpatch.pl" --no-signoff --terse \
		--no-tree -q "$TOP/patches/$p" 2>&1)
	e=$(echo "$out" | grep -c ': ERROR:')
	w=$(echo "$out" | grep -c ': WARNING:')
	printf '%-70s %d errors, %d warnings\n' "$p" "$e" "$w"
	[ -n "$out" ] && echo "$out" | sed 's/^/    /'
	errors=$((errors + e))
done
[ $errors -eq 0 ] || die "checkpatch: $errors error(s)"
