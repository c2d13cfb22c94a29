#!/bin/bash
# make bench-interval: what numad's persistence buys and costs.  numad acts
# on an imbalance only after NUMAD_SETTLE (3) intervals in a row (0024), so
# kernel.sched_numa_interval_ms sets how long an imbalance must last before
# a process moves: 6 s at the default 2000 ms.  Boots the guest
# INTERVAL_BOOTS (2) times per interval of INTERVALS ("2000 500"), boots of
# the intervals alternating, the interval given on the kernel command line
# (sysctl.kernel.sched_numa_interval_ms=); each boot runs the sched-numa
# mode of INTERVAL_SCENARIOS, INTERVAL_SECS (30) s each, then perf bench
# numa mem's 2x2 convergence test in sched-numa and autonuma (autonuma does
# not read the interval: a same-boot reference).  Writes
# results/interval.md.  INTERVAL_REPORT_ONLY=1 rewrites it from the logs.
set -u
. "$(dirname "$0")/lib.sh"
ivs=${INTERVALS:-2000 500}
boots=${INTERVAL_BOOTS:-2}
secs=${INTERVAL_SECS:-30}
scen=${INTERVAL_SCENARIOS:-stream disturb newhogs misplaced numa01 wrongnode}
md=$TOP/results/interval.md

if [ "${INTERVAL_REPORT_ONLY:-0}" != 1 ]; then
	step "initramfs with perf" env INITRAMFS_PERF=1 "$TOP/scripts/initramfs.sh" || exit 1
	list=
	for s in $scen; do list="$list,bench:$s:sched-numa:$secs"; done
	list="${list#,},perfconv:2x2:sched-numa:60,perfconv:2x2:autonuma:60"
	for b in $(seq 1 "$boots"); do
		for iv in $ivs; do
			step "boot $b, interval $iv ms" env LOG="$OUT/interval-$iv-$b.log" \
				APPEND="sysctl.kernel.sched_numa_interval_ms=$iv" \
				"$TOP/scripts/boot.sh" "$list" > /dev/null
			"$TOP/scripts/check-console.sh" "$OUT/interval-$iv-$b.log" ||
				die "interval $iv, boot $b: the console log is not clean"
			grep -aq 'data=BAD' "$OUT/interval-$iv-$b.log" &&
				die "interval $iv, boot $b: a benchmark buffer was corrupted"
			echo "$(date -u '+%F %H:%M')" > "$OUT/interval-$iv-$b.when"
		done
	done
fi

# KEY=value of field F of the line of scenario S (bench) or mode M (perf)
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" | head -n1; }
cell() {	# cell IV KIND NAME FIELD: boot 1 / boot 2 ...
	local iv=$1 kind=$2 name=$3 f=$4 b v out=
	for b in $(seq 1 "$boots"); do
		local log=$OUT/interval-$iv-$b.log
		if [ "$kind" = bench ]; then
			v=$(grep -a "^##BENCH scenario=$name mode=sched-numa " "$log" | field x "$f")
		else
			v=$(grep -a "^##PERFCONV name=2x2 mode=$name " "$log" | field x "$f")
		fi
		out="$out${out:+ / }${v:-?}"
	done
	echo "$out"
}
{
	echo "# numad's interval: persistence against convergence (\`make bench-interval\`)"
	echo
	echo "$boots boots per interval ($(cat "$OUT"/interval-*-1.when 2>/dev/null | head -n1) UTC onwards), the intervals' boots"
	echo "alternating; sched-numa mode, $secs s per scenario (\`tests/bench/numabench.c\`), then \`perf bench"
	echo "numa mem\`'s 2x2 convergence test (\`make bench\`'s) in sched-numa and, as a same-boot reference,"
	echo "autonuma.  numad moves a process only after the same imbalance was seen at 3 intervals in a row"
	echo "(\`NUMAD_SETTLE\`, \`0024\`): 6 s at the default 2000 ms, 1.5 s at 500 ms.  Each cell: boot 1 / boot 2."
	echo
	printf '| scenario | measure |'; for iv in $ivs; do printf ' %s ms |' "$iv"; done; echo
	printf '|---|---|'; for iv in $ivs; do printf -- '---|'; done; echo
	for s in $scen; do
		for m in "second-half locality:second_half" "time to 0.9 (s):t90" "pages migrated:migrated"; do
			printf '| %s | %s |' "$([ "${m%%:*}" = "second-half locality" ] && echo "$s")" "${m%%:*}"
			for iv in $ivs; do printf ' %s |' "$(cell "$iv" bench "$s" "${m#*:}")"; done; echo
		done
	done
	for mode in sched-numa autonuma; do
		for m in "seconds to converge:latency" "pages migrated:migrated"; do
			printf '| %s | %s |' "$([ "${m%%:*}" = "seconds to converge" ] && echo "perf 2x2, $mode")" "${m%%:*}"
			for iv in $ivs; do printf ' %s |' "$(cell "$iv" perf "$mode" "${m#*:}")"; done; echo
		done
	done
} > "$md"
cat "$md"
