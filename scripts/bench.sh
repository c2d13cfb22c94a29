#!/bin/bash
# make bench: boot the guest once and run every scenario of the locality
# benchmark (tests/bench/numabench.c) in every mode, BENCH_SECS (default 40)
# seconds each, then write results/bench.md (the table) and
# results/locality.png (locality over time, one panel per scenario).
set -u
. "$(dirname "$0")/lib.sh"
mkdir -p "$TOP/results"
export RUN_SECS=${BENCH_SECS:-40}
export BOOT_TIMEOUT=${BOOT_TIMEOUT:-1800}
export RUN_SCENARIOS=${BENCH_SCENARIOS:-stream disturb disturb-3x newhogs newhogs-3x misplaced wrongnode lazy threads threads-groups}
export LOG=$OUT/bench-console.log
export BENCH_MD=$TOP/results/bench.md BENCH_PNG=$TOP/results/locality.png
# After the scenarios: the cost of mbind(2)'s lazy paths, and numad and the
# wake-up latency with thousands of processes and NUMA groups.
export RUN_EXTRA=${BENCH_EXTRA:-mbindbench scalebench}
"$TOP/scripts/run.sh"
rc=$?
if grep -aqE '^(mbindbench|scalebench) ' "$LOG"; then
	{
		echo
		echo "## mbind(2) cost and scale (same boot)"
		echo
		echo '```'
		grep -aE '^(mbindbench|scalebench|# [0-9]+ processes)' "$LOG" | tr -d '\r'
		echo '```'
	} >> "$BENCH_MD"
	grep -aE '^(mbindbench|scalebench) ' "$LOG"
fi
exit $rc
