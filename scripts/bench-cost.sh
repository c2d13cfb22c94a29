#!/bin/bash
# make bench-cost: what the series costs on hot paths (tests/bench/costbench.c)
# in the modes off, autonuma and sched-numa, against the unpatched 6.1 tree
# built with the same configuration (the kernel of make compat).  Each
# kernel is booted COST_BOOTS (2) times, alternately, with the guest's RAM
# preallocated by QEMU; every boot runs COST_ROUNDS (7) interleaved rounds
# of every mode and case after a warm-up round, in two phases: off and
# autonuma first, then sched-numa and off again ("off-after-on"), because
# the first switch-on starts the per-node counts for good (costbench.c).
# Writes results/cost.md (ratios of medians to the unpatched kernel,
# spreads, boot-to-boot repeatability, and the bytes the series adds to
# the structures it grows).
#
# COST_REPORT_ONLY=1 writes the report again from the logs of the last run;
# COST_CASES=a,b runs only those cases (to bisect one figure); BUILD= and
# OUT= name another patched kernel and COST_MD= another report (make
# bench-cost-at, scripts/bench-cost-at.sh).
#
# Counted, not timed: timing under TCG resolves nothing below about 10%
# (one slow boot moves a median by 20%), so every kernel is also booted
# COST_ICOUNT_BOOTS (2) times under QEMU's instruction-counting clock
# (-icount shift=0,sleep=off: single-threaded TCG, one nanosecond of guest
# time per guest instruction, no time passing while every vCPU idles),
# with COST_ICOUNT_ROUNDS (5) rounds: the same costbench, whose "ns" are
# then instructions per operation, all vCPUs' together.  Those boots also
# turn off what the kernel randomizes per boot (nokaslr norandmaps
# randomize_kstack_offset=off): with it, fork-exit's count differed by
# 1.5% between two boots of one kernel, without it by 0.01%.  Medians of
# 5 rounds, since a 4-thread case now and then runs one round with its
# threads overlapping differently (5-20% fewer instructions).  The report
# shows how far apart the two boots are for each case.  COST_ICOUNT=0
# skips these boots.  QEMU 7.2 hung at "x86: Booting SMP
# configuration" with a fixed shift and more than one vCPU; QEMU 10.0,
# which make deps installs, boots so.
set -u
. "$(dirname "$0")/lib.sh"
boots=${COST_BOOTS:-2}
rounds=${COST_ROUNDS:-7}
pbuild=$PBUILD
build_pristine

quiet() { "$@" > /dev/null; }
logs=()
# costboot KIND ROUNDS I: boot I of the KIND (unpatched, patched, i-unpatched,
# i-patched: the same under -icount) kernel, its log appended to logs
costboot() {
	local kind=$1 r=$2 i=$3 k=${1#i-} b=$BUILD log qo= what=
	[ $k = unpatched ] && b=$pbuild
	log=$OUT/cost-$kind-$i.log
	local ap="sncostrounds=$r${COST_CASES:+ sncostcases=$COST_CASES}"
	[ $kind != $k ] && qo="-icount shift=0,sleep=off" what=", instructions counted" \
		ap="$ap nokaslr norandmaps randomize_kstack_offset=off"
	if [ "${COST_REPORT_ONLY:-0}" != 1 ]; then
		step "boot $i of the $k kernel: costbench, $r rounds$what" \
			quiet env BUILD="$b" OUT="$OUT" LOG="$log" PREALLOC=1 \
			QEMU_OPTS="$qo" \
			APPEND="$ap" \
			BOOT_TIMEOUT=3600 \
			"$TOP/scripts/boot.sh" costbench || die "boot failed: $log"
		"$TOP/scripts/check-console.sh" "$log" || die "the $k kernel reported a problem: $log"
	elif [ ! -f "$log" ]; then
		return		# not in the last run (COST_ICOUNT=0, say)
	fi
	logs+=("$kind:$i:$log")
}
for i in $(seq 1 "$boots"); do
	for k in unpatched patched; do
		costboot $k "$rounds" "$i"
	done
done
if [ "${COST_ICOUNT:-1}" != 0 ]; then
	for i in $(seq 1 "${COST_ICOUNT_BOOTS:-2}"); do
		for k in unpatched patched; do
			costboot i-$k "${COST_ICOUNT_ROUNDS:-5}" "$i"
		done
	done
fi

# Bytes per structure: one file of each kernel compiled again with -g (the
# kernels themselves have no debug information), read by pahole.
sizes() {	# BUILD FILE.c
	local b=$1 f=$2 tmp cmd
	tmp=$(mktemp -d)
	cmd=$(sed -n 's/^cmd_[^ ]* := //p' "$b/$(dirname "$f")/.$(basename "$f" .c).o.cmd" | head -n1)
	[ -n "$cmd" ] || { rm -rf "$tmp"; return 1; }
	cmd=$(echo "$cmd" | sed -e 's/-Wp,-MMD,[^ ]*//' -e "s# -o [^ ]*\\.o # -g -o $tmp/x.o #")
	(cd "$b" && eval "$cmd") >/dev/null 2>&1 && pahole -s "$tmp/x.o"
	rm -rf "$tmp"
}
{
	sizes "$pbuild" mm/mempolicy.c | sed 's/^/unpatched /'
	sizes "$BUILD" mm/mempolicy.c | sed 's/^/patched /'
	sizes "$BUILD" kernel/sched/numa.c | sed 's/^/patched /'
} > "$OUT/cost-sizes.txt"

# Code: the size of the hot-path functions in both kernels (nm -S; a
# function's .isra/.constprop/.part copies are added to it).  Timing under
# TCG cannot resolve a few instructions; this shows where they are.
fns="handle_mm_fault __handle_mm_fault do_anonymous_page vma_alloc_folio
get_task_policy policy_node alloc_pages zap_pte_range unmap_page_range
copy_process sched_fork wake_up_new_task copy_mm begin_new_exec sched_exec
do_exit try_to_wake_up select_task_rq_fair enqueue_task_fair
dequeue_task_fair pick_next_task_fair load_balance newidle_balance
task_tick_fair set_cpus_allowed_ptr __set_cpus_allowed_ptr do_mbind"
for k in unpatched patched; do
	b=$BUILD; [ $k = unpatched ] && b=$pbuild
	nm -S "$b/vmlinux" | awk -v k=$k -v fns="$fns" '
		function hex(h,   i, v) { v = 0; h = tolower(h); for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return v }
		BEGIN { n = split(fns, f, /[ \n]+/); for (i = 1; i <= n; i++) want[f[i]] = 1 }
		$3 ~ /^[tT]$/ { s = $4; sub(/\..*/, "", s); if (s in want) sz[s] += hex($2) }
		END { for (s in sz) print k, "fn", s, sz[s] }' | sort -k3,3
done >> "$OUT/cost-sizes.txt"

md=${COST_MD:-$TOP/results/cost.md}
"$TOP/scripts/bench-cost-report.sh" "$OUT/cost-sizes.txt" "${logs[@]}" > "$md" ||
	die "report failed"
cat "$md"
