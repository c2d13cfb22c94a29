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
export RUN_SCENARIOS=${BENCH_SCENARIOS:-stream disturb wrongnode lazy threads threads-groups}
export LOG=$OUT/bench-console.log
export BENCH_MD=$TOP/results/bench.md BENCH_PNG=$TOP/results/locality.png
exec "$TOP/scripts/run.sh"
