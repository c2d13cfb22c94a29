#!/bin/bash
# make bench-cost: what the series costs on hot paths (tests/bench/costbench.c)
# in the modes off, autonuma and sched-numa, against the unpatched 6.1 tree
# built with the same configuration (the kernel of make compat).  Each
# kernel is booted COST_BOOTS (2) times, alternately, with the guest's RAM
# preallocated by QEMU; every boot runs COST_ROUNDS (7) interleaved rounds
# of every mode and case after a warm-up round.  Writes results/cost.md
# (ratios of medians to the unpatched kernel, spreads, boot-to-boot
# repeatability, and the bytes the series adds to the structures it grows).
#
# Why not -icount: QEMU 7.2's instruction-counting clock would make TCG
# repeatable, but with a fixed shift this kernel hangs at "x86: Booting SMP
# configuration:" with 2 or 4 vCPUs (sleep on or off, lpj= given), and
# shift=auto ties the clock to the host's again.  So: medians of
# interleaved rounds, two boots of each kernel, and both shown.
set -u
. "$(dirname "$0")/lib.sh"
boots=${COST_BOOTS:-2}
rounds=${COST_ROUNDS:-7}
pbuild=$CACHE/build-pristine$([ "$DEBUG" = 1 ] && echo -debug)
env TREE="$PRISTINE" BUILD="$pbuild" OUT="$OUT" CONFIG_NOT_IN_TREE=CONFIG_SCHED_NUMA \
	"$TOP/scripts/build.sh" || die "building the unpatched kernel failed"

logs=()
for i in $(seq 1 "$boots"); do
	for k in unpatched patched; do
		b=$BUILD; [ $k = unpatched ] && b=$pbuild
		log=$OUT/cost-$k-$i.log
		step "boot $i of the $k kernel: costbench, $rounds rounds" \
			env BUILD="$b" OUT="$OUT" LOG="$log" PREALLOC=1 \
			APPEND="sncostrounds=$rounds" BOOT_TIMEOUT=3600 \
			"$TOP/scripts/boot.sh" costbench > /dev/null || die "boot failed: $log"
		"$TOP/scripts/check-console.sh" "$log" || die "the $k kernel reported a problem: $log"
		logs+=("$k:$i:$log")
	done
done

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

"$TOP/scripts/bench-cost-report.sh" "$OUT/cost-sizes.txt" "${logs[@]}" > "$TOP/results/cost.md" ||
	die "report failed"
cat "$TOP/results/cost.md"
