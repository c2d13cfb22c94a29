#!/bin/bash
# bench-cost-report.sh SIZES KERNEL:BOOT:LOG...: the markdown of
# results/cost.md from the consoles of make bench-cost (costbench lines;
# round 0, the warm-up, skipped) and pahole's sizes (SIZES: "kernel struct
# bytes ..." lines).  Medians over every round of every boot of a kernel;
# "±" is half the interquartile range, relative to the median.  KERNEL
# i-unpatched and i-patched are boots under QEMU's -icount clock: their
# "ns" are instructions, reported in a table of their own.
set -u
[ $# -ge 2 ] || { echo "usage: $0 SIZES KERNEL:BOOT:LOG..." >&2; exit 2; }
sizes=$1; shift
# When each kind of boot ran (the logs' times): a report written again
# (COST_REPORT_ONLY=1) may put boots of two runs side by side
wall= ic=
for a in "$@"; do
	k=${a%%:*} r=${a#*:} log=${r#*:} t=$(date -u -r "${r#*:}" "+%F %H:%M")
	case $k in i-*) ic="$ic${ic:+, }$t" ;; *) wall="$wall${wall:+, }$t" ;; esac
done
for a in "$@"; do
	k=${a%%:*} r=${a#*:} b=${r%%:*} log=${r#*:}
	tr -d '\r' < "$log" | sed -n "s/^costbench /$k $b /p"
done | awk -v sizes="$sizes" -v when="$(date -u +%F)" -v wall="$wall" -v ic="$ic" '
function sortv(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
}
function q(a, n, p,   x, i) {	# quantile p of sorted a[1..n], linear
	x = 1 + (n - 1) * p; i = int(x)
	return (i >= n) ? a[n] : a[i] + (x - i) * (a[i + 1] - a[i])
}
function stat(key,   n, i, a, parts) {	# median and half-IQR of vals[key]
	med = hiqr = 0
	if (!(key in vals)) return 0
	n = split(vals[key], parts, " ")
	for (i = 1; i <= n; i++) a[i] = parts[i] + 0
	sortv(a, n)
	med = q(a, n, 0.5); hiqr = (q(a, n, 0.75) - q(a, n, 0.25)) / 2
	return n
}
function human(ns) {
	if (ns >= 1e6) return sprintf("%.2f ms", ns / 1e6)
	if (ns >= 1e3) return sprintf("%.1f us", ns / 1e3)
	return sprintf("%.0f ns", ns)
}
function hinsn(n) {
	if (n >= 1e6) return sprintf("%.3f M", n / 1e6)
	if (n >= 1e3) return sprintf("%.2f k", n / 1e3)
	return sprintf("%.0f", n)
}
{
	kern = $1; boot = $2; delete f
	for (i = 3; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	if (f["round"] == 0) next
	c = f["case"]
	if (!(c in cseen)) { cseen[c] = 1; cases[++nc] = c }
	if (kern ~ /^i-/) {	# -icount: instructions
		col = "i:" substr(kern, 3) "/" f["mode"]
		if (boot > inb) inb = boot
	} else {
		col = kern "/" f["mode"]
		if (boot > nb) nb = boot
	}
	vals[c, col] = vals[c, col] " " f["ns"]
	vals[c, col, boot] = vals[c, col, boot] " " f["ns"]
}
END {
	ref = "unpatched/off"
	ncol = split("unpatched/off patched/off unpatched/autonuma patched/autonuma patched/sched-numa patched/off-after-on", cols, " ")
	split("6.1 unpatched|off|6.1 unpatched, autonuma|autonuma|sched-numa|off, after on", names, "|")
	print "# What the series costs: hot paths against unpatched 6.1"
	print ""
	printf "make bench-cost, %s: %d boots of each kernel (alternating), each with a\n", when, nb
	print "warm-up round and then interleaved rounds of the modes off and autonuma"
	print "(sched/numa never on yet in the boot) and then, in the patched kernel,"
	print "a warm-up round and interleaved rounds of sched-numa and \"off, after"
	print "on\" (off again, the per-node counts that sched-numa started running:"
	print "they go on until reboot); the guest RAM preallocated by QEMU; TCG on a"
	print "2-core host.  The first column is the unpatched kernel with automatic"
	print "NUMA balancing off, in time per operation; the others are ratios of"
	print "medians to it (lower is better), \"±\" half the interquartile range over"
	print "all rounds of all boots.  The autonuma rows of the two kernels compare"
	print "the series with 6.1 when the user chose autonuma."
	print ""
	if (wall != "") printf "Timed boots ended (UTC): %s.\n\n", wall
	printf "| case |"; for (j = 1; j <= ncol; j++) printf " %s |", names[j]; print ""
	printf "|---|"; for (j = 1; j <= ncol; j++) printf "---|"; print ""
	for (i = 1; i <= nc; i++) {
		c = cases[i]
		r0 = stat(c SUBSEP ref) ? med : 0
		printf "| %s |", c
		for (j = 1; j <= ncol; j++) {
			if (!((c, cols[j]) in vals)) { printf " n/a |"; continue }
			stat(c SUBSEP cols[j])
			sp = (med > 0) ? 100 * hiqr / med : 0
			if (j == 1) printf " %s ±%.0f%% |", human(med), sp
			else if (r0 > 0) printf " %.3f ±%.0f%% |", med / r0, sp
			else printf " %s ±%.0f%% |", human(med), sp
		}
		print ""
	}
	print ""
	print "n/a: the case needs what the kernel or mode lacks (MPOL_MF_LAZY and"
	print "MPOL_NOOP are the series'\''s; numa_tbind(2) and numa_mbind(2) answer"
	print "EOPNOTSUPP unless kernel.sched_numa is 1)."
	print ""
	if (inb) {
		print "## Instructions per operation (QEMU -icount)"
		print ""
		printf "The same cases in %d boots of each kernel under QEMU'\''s instruction-\n", inb
		print "counting clock (`-icount shift=0,sleep=off`: single-threaded TCG, one"
		print "nanosecond of guest time per guest instruction, none while all vCPUs"
		print "idle): instructions per operation, those of every vCPU while it ran,"
		print "not time.  First column: the unpatched kernel, balancing off; then"
		print "ratios of medians to it.  \"Boots\": how far apart the two boots'\'' medians"
		print "are, the largest over the row'\''s columns, relative to the median.  The"
		print "targets: at most 1.010 with sched/numa off, 1.030 with it on."
		print ""
		printf "Counted boots ended (UTC): %s.\n\n", ic
		printf "| case |"; for (j = 1; j <= ncol; j++) printf " %s |", names[j]; print " boots |"
		printf "|---|"; for (j = 1; j <= ncol; j++) printf "---|"; print "---|"
		for (i = 1; i <= nc; i++) {
			c = cases[i]; worst = 0; have = 0
			r0 = stat(c SUBSEP "i:" ref) ? med : 0
			printf "| %s |", c
			for (j = 1; j <= ncol; j++) {
				key = c SUBSEP "i:" cols[j]
				if (!(key in vals)) { printf " n/a |"; continue }
				stat(key); m = med; lo = hi = -1; have = 1
				for (b = 1; b <= inb; b++) {
					if (!((key, b) in vals)) continue
					stat(key SUBSEP b)
					if (lo < 0 || med < lo) lo = med
					if (hi < 0 || med > hi) hi = med
				}
				if (m > 0 && (hi - lo) / m > worst) worst = (hi - lo) / m
				if (j == 1) printf " %s |", hinsn(m)
				else if (r0 > 0) printf " %.3f |", m / r0
				else printf " %s |", hinsn(m)
			}
			if (have) printf " %.2f%% |\n", 100 * worst
			else print " n/a |"
		}
		print ""
	}
	print "## Repeatability: the median of each boot"
	print ""
	printf "| case |"
	for (j = 1; j <= ncol; j++) for (b = 1; b <= nb; b++) printf " %s #%d |", names[j], b
	print ""
	printf "|---|"; for (j = 1; j <= ncol * nb; j++) printf "---|"; print ""
	for (i = 1; i <= nc; i++) {
		c = cases[i]; printf "| %s |", c
		for (j = 1; j <= ncol; j++) for (b = 1; b <= nb; b++) {
			if (!((c, cols[j], b) in vals)) { printf " n/a |"; continue }
			stat(c SUBSEP cols[j] SUBSEP b); printf " %s |", human(med)
		}
		print ""
	}
	print ""
	print "## Memory: bytes per structure (pahole of the same config, x86-64)"
	print ""
	print "| structure | 6.1 unpatched | with the series | added |"
	print "|---|---|---|---|"
	while ((getline line < sizes) > 0) {
		split(line, w, "[ \t]+")
		if (w[2] == "fn") {
			fsz[w[1], w[3]] = w[4]
			if (!(w[3] in fseen)) { fseen[w[3]] = 1; fn[++nf] = w[3] }
			continue
		}
		if (w[2] !~ /^(task_struct|mm_struct|vm_area_struct|mempolicy|pglist_data|node_queue|numa_entity|numa_group|sched_entity|mm_rss_stat)$/) continue
		sz[w[1], w[2]] = w[3]
		if (!(w[2] in sseen)) { sseen[w[2]] = 1; st[++ns] = w[2] }
	}
	for (i = 1; i <= ns; i++) {
		s = st[i]; u = sz["unpatched", s]; p = sz["patched", s]
		printf "| struct %s | %s | %s | %s |\n", s, (u == "" ? "-" : u), p, (u == "" ? p : p - u)
	}
	print ""
	print "Per node: one node_queue (above) and one numad kernel thread (a"
	print "task_struct and its 16 KiB stack)."
	print ""
	print "## Code: bytes of the hot-path functions (nm -S vmlinux)"
	print ""
	print "What the series adds to the functions the cases above run (inlined"
	print "helpers included, a static key'\''s jump is 2 or 5 bytes), so that a"
	print "difference the timing cannot resolve is still visible."
	print ""
	print "| function | 6.1 unpatched | with the series | added |"
	print "|---|---|---|---|"
	for (i = 1; i <= nf; i++) {
		s = fn[i]; u = fsz["unpatched", s]; p = fsz["patched", s]
		if (u == "" && p == "") continue
		printf "| %s | %s | %s | %+d |\n", s, (u == "" ? "-" : u), (p == "" ? "-" : p), p - u
	}
}'
