#!/bin/bash
# make bench: boot the guest BENCH_BOOTS (default 2) times and run every
# scenario of the locality benchmark (tests/bench/numabench.c) in every mode
# in each boot, BENCH_SECS (default 40) seconds each, then write
# results/bench.md (the table, every boot's figure side by side: a figure
# from one boot says nothing of its spread) and results/locality.png
# (locality over time in the first boot, one panel per scenario).
set -u
. "$(dirname "$0")/lib.sh"
mkdir -p "$TOP/results"
boots=${BENCH_BOOTS:-2}
export RUN_SECS=${BENCH_SECS:-40}
export BOOT_TIMEOUT=${BOOT_TIMEOUT:-2400}
scen="stream disturb disturb-3x newhogs newhogs-3x misplaced wrongnode lazy threads threads-groups numa01 numa01-thread-alloc numa02 numa02-smt numa02-2x shared numa01-thp bursty shortjobs"
# Memory first touched on the CPU-less node: where there is one
[ "${TOPO:-2n}" = cxl ] && scen="$scen farmem numa02-farmem"
export RUN_SCENARIOS=${BENCH_SCENARIOS:-$scen}
# After the scenarios: upstream's "perf bench numa mem" convergence tests
# for the shapes that can converge on 2 nodes of 2 CPUs (BENCH_PERF, PxT;
# none), each mode, BENCH_PERF_SECS (60) at most; then the cost of
# mbind(2)'s lazy paths, and numad and the wake-up latency with thousands
# of processes and NUMA groups.
perfl=
# "none": no such runs (make strips BENCH_PERF=" " on its command line to
# nothing, which meant the default)
shapes=${BENCH_PERF:-2x2 3x1 4x1}; [ "$shapes" = none ] && shapes=
for s in $shapes; do
	for m in off autonuma sched-numa; do
		perfl="$perfl perfconv:$s:$m:${BENCH_PERF_SECS:-60}"
	done
done
extra=${BENCH_EXTRA:-mbindbench scalebench}; [ "$extra" = none ] && extra=
export RUN_EXTRA="$perfl $extra"
[ -n "$perfl" ] && [ "${BENCH_REPORT_ONLY:-0}" != 1 ] &&
	{ step "initramfs with perf" env INITRAMFS_PERF=1 "$TOP/scripts/initramfs.sh" || exit 1; }
# TOPO (scripts/boot.sh): another layout's results beside the 2n ones
sfx=; [ "${TOPO:-2n}" != 2n ] && sfx=-$TOPO
md=$TOP/results/bench$sfx.md png=$TOP/results/locality$sfx.png
rc=0 logs=
for i in $(seq 1 "$boots"); do
	log=$OUT/bench-console$sfx-$i.log
	# run.sh prints this boot's table; the report of all boots comes last.
	# BENCH_REPORT_ONLY=1 writes the report again from the last logs.
	[ "${BENCH_REPORT_ONLY:-0}" = 1 ] ||
		env LOG="$log" BENCH_MD= BENCH_PNG= "$TOP/scripts/run.sh" || rc=1
	logs=${logs:+$logs,}$log
done
# (bench-report.sh writes its table to a file of its own: opening
# /dev/stdout again would truncate $md)
"$TOP/scripts/bench-report.sh" "$logs" "$md.table" "$png" || rc=1
{
	echo "# make bench${sfx:+ TOPO=$TOPO}: $boots boots, ${RUN_SECS} s per run, every mode in each boot"
	echo
	echo "Each cell: boot 1 / boot 2 / ...  Second half: the mean locality of the"
	echo "runs' second halves.  Hinting faults: numa_hint_faults (autonuma's"
	echo "scanning, and the lazy marks of sched/numa taken)."
	echo
	cat "$md.table"
} > "$md"
rm -f "$md.table"
first=${logs%%,*}
if grep -aq '^##PERFCONV ' "$first"; then
	{
		echo
		echo '## perf bench numa mem: convergence (every boot)'
		echo
		echo 'Upstream'"'"'s convergence tests (`tools/perf/bench/numa.c`, OPT_CONV: memory'
		echo 'first touched from CPU 0, the run stops once every process has all its'
		echo 'threads on one node), P processes x T threads, 256 MiB in all.  Each cell:'
		echo 'seconds to converge (or "no" within the limit), pages migrated; boot 1 / boot 2 / ...'
		echo
		echo '| shape | off | autonuma | sched-numa |'
		echo '|---|---|---|---|'
		for l in ${logs//,/ }; do grep -a '^##PERFCONV ' "$l" | tr -d '\r'; echo '##BOOT'; done |
		awk '
		/^##BOOT/ { boot++; next }
		{
			for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			c = f["converged"] == 1 ? sprintf("%.1f s", f["latency"]) : "no (" f["limit"] " s)"
			c = c ", " f["migrated"]
			k = f["name"] SUBSEP f["mode"]
			if (k in cell) c = cell[k] " / " c
			cell[k] = c
			if (!(f["name"] in seen)) { seen[f["name"]] = 1; order[++n] = f["name"] }
		}
		END {
			for (i = 1; i <= n; i++) {
				s = order[i]
				printf "| %s | %s | %s | %s |\n", s, cell[s SUBSEP "off"],
				       cell[s SUBSEP "autonuma"], cell[s SUBSEP "sched-numa"]
			}
		}'
	} >> "$md"
fi
if grep -aqE '^(mbindbench|scalebench) ' "$first"; then
	{
		echo
		echo "## mbind(2) cost and scale (every boot)"
		echo
		echo '```'
		for l in ${logs//,/ }; do
			grep -aE '^(mbindbench|scalebench|# [0-9]+ processes)' "$l" | tr -d '\r'
		done
		echo '```'
	} >> "$md"
fi
cat "$md"
exit $rc
