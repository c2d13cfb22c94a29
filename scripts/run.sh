#!/bin/bash
# The main job: boot the patched kernel once on the guest (TOPO, 2n by
# default: scripts/boot.sh), run the locality benchmark's scenarios in
# every mode (off, autonuma, sched-numa) in that one boot, and print the
# table.  RUN_SECS sets each run's length;
# RUN_SCENARIOS the scenarios; BENCH_MD/BENCH_PNG where to write results.
set -u
. "$(dirname "$0")/lib.sh"
secs=${RUN_SECS:-20}
scenarios=${RUN_SCENARIOS:-stream disturb}
modes="off autonuma sched-numa"
list=showtopo
for s in $scenarios; do for m in $modes; do list="$list,bench:$s:$m:$secs"; done; done
# Programs to run after the scenarios (make bench: mbindbench, scalebench)
for x in ${RUN_EXTRA:-}; do list="$list,$x"; done
LOG=${LOG:-$OUT/run-console$([ "${TOPO:-2n}" != 2n ] && echo "-$TOPO").log}
step "boot guest: $scenarios x ($modes), ${secs}s each" env LOG="$LOG" "$TOP/scripts/boot.sh" "$list"
rc=$?
grep -a '^##BENCH' "$LOG" | sed 's/^##BENCH /  /'
echo
"$TOP/scripts/bench-report.sh" "$LOG" ${BENCH_MD:-} ${BENCH_PNG:-}
[ -n "${BENCH_MD:-}" ] && cat "$BENCH_MD"
"$TOP/scripts/check-console.sh" "$LOG" || rc=1
grep -aq 'data=BAD' "$LOG" && { echo "run: a benchmark buffer was corrupted" >&2; rc=1; }
exit $rc
