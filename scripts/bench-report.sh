#!/bin/bash
# bench-report.sh LOG[,LOG...] [MD] [PNG]: turn the ##BENCH/##SERIES lines
# numabench printed in guest console logs (one per boot) into one markdown
# table (modes as columns, one block of rows per scenario; with several
# boots every cell gives each boot's figure, "boot 1 / boot 2") on stdout or
# in MD, and, given PNG, a plot of locality over time of the first boot (one
# panel per scenario, one line per mode).
set -u
[ $# -ge 1 ] || { echo "usage: $0 CONSOLE-LOG[,LOG...] [OUT.md] [OUT.png]" >&2; exit 2; }
IFS=, read -r -a logs <<< "$1"
for l in "${logs[@]}"; do [ -f "$l" ] || { echo "$0: no log $l" >&2; exit 2; }; done
log=${logs[0]} md=${2:-/dev/stdout} png=${3:-}
for l in "${logs[@]}"; do echo "##BOOT"; tr -d '\r' < "$l"; done | awk '
function kv(line,   i, n, a, b) {
	delete f; n = split(line, a, " ")
	for (i = 2; i <= n; i++) if (split(a[i], b, "=") == 2) f[b[1]] = b[2]
}
/^##BOOT/ { boot++; nboots = boot; next }
/^##BENCH / {
	kv($0); s = f["scenario"]; m = f["mode"]
	if (!(s in seen)) { seen[s] = 1; scen[++ns] = s }
	if (!(m in mseen)) { mseen[m] = 1; mode[++nm] = m }
	b = boot
	if (f["absent"] == 1) { v[s, m, "absent", b] = 1; next }
	v[s, m, "mean", b] = f["mean"]; v[s, m, "half", b] = f["second_half"]
	v[s, m, "dist", b] = ("distance" in f) ? f["distance"] : "-"
	v[s, m, "t90", b] = f["t90"]; v[s, m, "mig", b] = f["migrated"]
	v[s, m, "hint", b] = ("hint_faults" in f) ? f["hint_faults"] : "-"
	v[s, m, "work", b] = f["work_mib"]; v[s, m, "numad", b] = f["numad_cpu_ms"]
	v[s, m, "data", b] = f["data"]
	if ("life" in f) { lf[s] = 1; v[s, m, "life", b] = f["life"] }
	if ("must_move" in f) {
		mm[s] = 1; v[s, m, "must", b] = f["must_move"]
		if ("numa_migrated" in f) v[s, m, "nmig", b] = f["numa_migrated"]
	}
}
function cell1(s, m, k, b,   w) {
	if (!((s, m, "absent", b) in v) && !((s, m, "mean", b) in v)) return "not run"
	if ((s, m, "absent", b) in v) return "absent"
	if (k == "work") {
		w = v[s, "off", "work", b]
		return (w > 0) ? sprintf("%.2f", v[s, m, "work", b] / w) : "-"
	}
	if (k == "ratio" || k == "nratio") {	# migrated / what must move (numa01-thp)
		if (k == "nratio" && !((s, m, "nmig", b) in v)) return "-"
		w = (k == "ratio") ? v[s, m, "mig", b] : v[s, m, "nmig", b]
		return (v[s, m, "must", b] > 0) ? sprintf("%.3f", w / v[s, m, "must", b]) : "-"
	}
	if (k == "t90") return (v[s, m, k, b] == "never") ? "never" : v[s, m, k, b] " s"
	return v[s, m, k, b]
}
# The figure of every boot, "boot 1 / boot 2 / ..."; one when they agree on a
# word (absent, ok).
function cell(s, m, k,   b, c, out, same) {
	out = cell1(s, m, k, 1); same = 1
	for (b = 2; b <= nboots; b++) {
		c = cell1(s, m, k, b)
		if (c != cell1(s, m, k, 1)) same = 0
		out = out " / " c
	}
	if (same && (k == "data" || out ~ /absent|not run/)) return cell1(s, m, k, 1)
	return out
}
END {
	nk = split("mean|life|half|dist|t90|mig|ratio|nratio|hint|work|numad|data", keys, "|")
	split("mean locality|locality over each process'"'"'s life (shortjobs)|second-half locality|second-half mean distance (SLIT, 10: local)|time to 0.9|pages migrated|pages migrated / one process'"'"'s buffer|pages migrated on NUMA faults (numa_pages_migrated) / one process'"'"'s buffer|NUMA hinting faults|work vs off|numad CPU ms|data check", names, "|")
	# The RFC cover letter figure, for reference: 48 stream instances on a
	# real 2-node machine, share of local DRAM accesses (PMU), not placement.
	rfc = "0.50 without, 0.86 with sched/numa (48 stream, real 2-node box, PMU)"
	printf "| scenario | measure |"; for (j = 1; j <= nm; j++) printf " %s |", mode[j]
	printf " RFC 2012 |\n|---|---|"; for (j = 1; j <= nm; j++) printf "---|"; printf "---|\n"
	for (i = 1; i <= ns; i++)
		for (k = 1; k <= nk; k++) {
			if (keys[k] ~ /ratio/ && !(scen[i] in mm)) continue
			if (keys[k] == "life" && !(scen[i] in lf)) continue
			printf "| %s | %s |", (k == 1 ? scen[i] : ""), names[k]
			for (j = 1; j <= nm; j++) printf " %s |", cell(scen[i], mode[j], keys[k])
			printf " %s |\n", (scen[i] == "stream" && k == 1) ? rfc : ""
		}
}' > "$md"
[ -n "$png" ] || exit 0
command -v gnuplot >/dev/null || { echo "gnuplot missing: apt-get install gnuplot-nox" >&2; exit 1; }
dat=$(mktemp -d) || exit 1
trap 'rm -rf "$dat"' EXIT
tr -d '\r' < "$log" | awk -v d="$dat" '/^##SERIES / { print $4, $5 > (d "/" $2 "@" $3) }'
# Panels in the order the scenarios ran.
scens=$(tr -d '\r' < "$log" | awk '/^##SERIES / && !seen[$2]++ { print $2 }')
n=$(echo "$scens" | wc -w)
[ "$n" -gt 0 ] || { echo "no ##SERIES lines in $log" >&2; exit 1; }
{
	echo "set terminal pngcairo size 760,$((240 * n)) font ',9'"
	echo "set output '$png'"
	echo "set multiplot layout $n,1"
	echo "set yrange [0:1.05]; set ylabel 'locality'; set xlabel 'seconds'"
	# The legend outside the plot, where it hides no line.
	echo "set key outside right top vertical samplen 3 width 2"
	# The same plot width in every panel, whichever modes it shows
	echo "set lmargin at screen 0.1; set rmargin at screen 0.78"
	# One colour and dash style per mode, the same in every panel.
	echo "set linetype 1 lc rgb '#808080' dt 2 lw 2"
	echo "set linetype 2 lc rgb '#1f77b4' dt 4 lw 2"
	echo "set linetype 3 lc rgb '#d62728' dt 1 lw 2"
	for s in $scens; do
		echo "set title '$s'"
		printf "plot "
		sep=""
		for m in off autonuma sched-numa; do
			f=$dat/$s@$m lt=1
			[ $m = autonuma ] && lt=2
			[ $m = sched-numa ] && lt=3
			[ -f "$f" ] || continue
			printf "%s'%s' using 1:2 with lines lt %d title '%s'" "$sep" "$f" $lt $m
			sep=", "
		done
		echo
	done
	echo "unset multiplot"
} | gnuplot
