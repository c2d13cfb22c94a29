#!/bin/bash
# make cover-letter: write patches/0000-cover-letter.patch, the series'
# cover letter in git format-patch --cover-letter form (not in series,
# not applied), from scripts/cover-letter.in (the prose), the figures of
# results/bench.md and results/cost.md, the series' shortlog and its
# diffstat (the patched tree against the pristine one).
# cover-letter.sh --check: fail if the committed one differs from what
# would be written now (make check runs it, so figures never go stale).
set -u
. "$(dirname "$0")/lib.sh"
out=$TOP/patches/0000-cover-letter.patch
mapfile -t patches < <(grep -v '^[[:space:]]*#' "$TOP/series" | awk 'NF{print $1}')
n=${#patches[@]}
[ -d "$TREE" ] && [ -d "$PRISTINE" ] || die "no trees: make tree first"

# The second-half locality and pages migrated of every scenario
locality() {
	awk -F'|' '
		function t(s) { gsub(/^ +| +$/, "", s); gsub(/±/, "+-", s); return s }
		/^\| [a-z]/ && t($2) != "scenario" { sc = t($2) }
		/^\|/ && (t($3) == "second-half locality" || t($3) == "pages migrated") {
			printf "%-15s %-15s %-19s %-19s %s\n", sc, t($3) == "pages migrated" ? "pages migrated" : "locality", t($4), t($5), t($6)
			sc = ""
		}' "$TOP/results/bench.md"
}
# The first table of results/cost.md, without the unpatched autonuma column
# ("off-after-on": off again, once sched-numa has started the counts)
cost() {
	awk -F'|' '
		function t(s) { gsub(/^ +| +$/, "", s); gsub(/±/, "+-", s); return s }
		/^\| case/ { n++ }
		n == 1 && /^\| [a-z]/ && t($2) != "case" {
			printf "%-13s %-15s %-12s %-12s %-12s %s\n", t($2), t($3), t($4), t($6), t($7), t($8)
		}' "$TOP/results/cost.md"
}
# git shortlog: subjects per author, in series order
shortlog() {
	local p
	for p in "${patches[@]}"; do
		awk '/^From: / { sub(/^From: /, ""); sub(/ <.*/, ""); gsub(/"/, ""); a = $0 }
			/^Subject: / { s = $0; sub(/^Subject: \[PATCH [0-9]+\/[0-9]+\] /, "", s); getline
				while ($0 ~ /^ /) { s = s $0; getline } print a "\t" s; exit }' "$TOP/patches/$p"
	done | awk -F'\t' '!($1 in n) { o[++k] = $1 } { n[$1]++; l[$1] = l[$1] "  " $2 "\n" }
		END { for (i = 1; i <= k; i++) printf "%s (%d):\n%s\n", o[i], n[o[i]], l[o[i]] }'
}
diffs() {
	local f
	cat "${patches[@]/#/$TOP/patches/}" | sed -n 's#^+++ b/##p' | sort -u | while read -r f; do
		diff -uN --label "a/$f" --label "b/$f" "$PRISTINE/$f" "$TREE/$f"
	done | diffstat -p1 -w 72
}
body() {
	echo "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001"
	echo 'From: "sched-numa 6.1 port" <port@invalid>'
	sed -n 's/^Date: /Date: /p' "$TOP/patches/${patches[$((n - 1))]}" | head -n1
	echo "Subject: [PATCH 00/$n] sched/numa: home nodes, numad and NUMA groups for 6.1"
	echo
	awk -v loc="$(printf '%-15s %-15s %-19s %-19s %s\n' scenario measure off autonuma sched-numa; locality)" \
	    -v cost="$(printf '%-13s %-15s %-12s %-12s %-12s %s\n' case '6.1' off autonuma sched-numa 'off-after-on'; cost)" \
	    -v slog="$(shortlog)" -v dstat="$(diffs)" '
		$0 == "@LOCALITY@" { print loc; next }
		$0 == "@COST@" { print cost; next }
		$0 == "@SHORTLOG@" { print slog; next }
		$0 == "@DIFFSTAT@" { print dstat; next }
		{ print }' "$TOP/scripts/cover-letter.in"
	echo
	echo "-- "
	echo "sched-numa 6.1 port"
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
body > "$tmp" || die "cover letter: generation failed"
if [ "${1:-}" = --check ]; then
	if cmp -s "$tmp" "$out"; then
		echo "PASS cover-letter: patches/0000-cover-letter.patch is up to date"
	else
		diff -u "$out" "$tmp" | head -n 20 >&2
		echo "FAIL cover-letter: patches/0000-cover-letter.patch is stale (make cover-letter)"
		exit 1
	fi
else
	cp "$tmp" "$out" && echo "wrote $out"
fi
