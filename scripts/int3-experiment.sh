#!/bin/bash
# int3-experiment.sh: is the "int3: 0000 [#1]" death at a static key's
# site QEMU's or the series'?  Boots tests/static_keys.c (key flips under
# load; snflips= rounds) INT3_BOOTS times in each arm:
#   unpatched tree, QEMU 7.2 (bookworm's) | unpatched tree, QEMU >= 8.2.6
#   patched tree,   QEMU 7.2              | patched tree,   QEMU >= 8.2.6
# all with multi-threaded TCG and the guest config of make check, and
# writes results/int3.md: per arm the boots that died of an int3, that
# failed otherwise, and that passed.  The unpatched kernel is the one of
# make compat ($CACHE/build-pristine); QEMU 7.2 is unpacked from Debian's
# package into $CACHE/qemu-7.2 (dpkg -x, not installed).
# INT3_ARMS= picks arms (e.g. "unpatched:7.2 patched:10").  With DEBUG=1
# the kernels are the debug builds (lockdep, KASAN...: make check DEBUG=1's)
# and the table goes to results/int3-debug.md.
set -u
. "$(dirname "$0")/lib.sh"
boots=${INT3_BOOTS:-15}
flips=${INT3_FLIPS:-300}
arms=${INT3_ARMS:-"unpatched:7.2 unpatched:new patched:new patched:7.2"}
pbuild=$PBUILD
q72dir=$CACHE/qemu-7.2
q72=$q72dir/usr/bin/qemu-system-x86_64
qnew=$(command -v qemu-system-x86_64) || die "no qemu-system-x86_64 (make deps)"

case " $arms" in *" unpatched:"*) build_pristine ;; esac
if [ ! -x "$q72" ]; then
	getq72() {
		local d
		# the binary, and its TCG accelerator module (qemu-system-common)
		d=$(mktemp -d) && (cd "$d" && apt-get download -qq "qemu-system-x86=1:7.2*" \
			"qemu-system-common=1:7.2*") && rm -rf "$q72dir" &&
		dpkg -x "$d"/qemu-system-x86_*.deb "$q72dir" &&
		dpkg -x "$d"/qemu-system-common_*.deb "$q72dir" && rm -rf "$d"
	}
	step "unpack QEMU 7.2 into $q72dir" getq72 || die "cannot get QEMU 7.2"
fi
newver=$("$qnew" --version | sed -n 's/.*version \([0-9.]*\).*/\1/p')

res=$OUT/int3
resname=int3.md; kind= kmoff=
# kmemleak=off on the debug kernel: its scan at the end of a boot takes a
# minute or more under TCG and has no part in text poking; lockdep, KASAN
# and the rest stay on
[ "$DEBUG" = 1 ] && resname=int3-debug.md kind="debug " kmoff=kmemleak=off
mkdir -p "$res"
for arm in $arms; do
	k=${arm%%:*} q=${arm#*:}
	b=$BUILD; [ "$k" = unpatched ] && b=$pbuild
	bin=$qnew; [ "$q" = 7.2 ] && bin=$q72
	int3=0 other=0 pass=0 secs=0
	for i in $(seq 1 "$boots"); do
		log=$res/$k-$q-$i.log
		rm -f "$log"	# boot.sh removes its own stuck-N and early-hangs files
		t0=$(date +%s)
		# QEMU 7.2 from $q72dir: its modules, and the firmware where
		# the installed QEMU's packages keep it
		q72env=; [ "$q" = 7.2 ] && q72env="QEMU_MODULE_DIR=$q72dir/usr/lib/x86_64-linux-gnu/qemu"
		env $q72env BUILD="$b" OUT="$OUT" LOG="$log" QEMU="$bin" BOOT_TIMEOUT=600 \
			QEMU_OPTS="$([ "$q" = 7.2 ] && echo "-L /usr/share/seabios -L /usr/share/qemu")" \
			APPEND="snflips=$flips $kmoff" "$TOP/scripts/boot.sh" static_keys > /dev/null 2>&1
		secs=$((secs + $(date +%s) - t0))
		if grep -qa 'int3: ' "$log"; then
			int3=$((int3 + 1)); v="int3 at $(grep -aom1 'RIP: 0010:[^ ]*' "$log" | head -n1 | cut -d: -f3)"
		elif grep -qa '^ok 1 sk.flip_under_load' "$log" && "$TOP/scripts/check-console.sh" "$log" 2>/dev/null; then
			pass=$((pass + 1)); v=pass
		else
			other=$((other + 1)); v=failed
		fi
		echo "  $k kernel, QEMU $q, boot $i: $v ($(( $(date +%s) - t0 ))s)"
	done
	# one row per arm, kept across runs (INT3_ARMS= reruns some)
	echo "$k/$q $(date -u +%H:%M) UTC;" > "$res/when-$k-$q"
	echo "| $kind$k | $([ "$q" = 7.2 ] && echo 7.2.22 || echo "$newver") | $boots | $int3 | $other | $pass | $((secs / boots)) |" > "$res/row-$k-$q"
done
{
	echo "# The int3 crash: QEMU or the series?"
	echo
	echo "\`make int3-experiment\` ($(date -u +%F)): tests/static_keys.c, $flips rounds of"
	echo "key flips (kernel.numa_balancing; kernel.sched_numa too on the patched"
	echo "kernel) under load, multi-threaded TCG, 4 vCPUs on $(nproc) host CPUs, the guest"
	echo "config of \`make check${kind:+ DEBUG=1}\` (JUMP_LABEL, -O2, SLUB...${kind:+; the ${kind}kernels: lockdep, KASAN...})."
	echo "Rows: $(cat "$res"/when-* 2>/dev/null | xargs)"
	echo
	echo "| kernel | QEMU | boots | died of int3 | failed otherwise | passed | s per boot |"
	echo "|---|---|---|---|---|---|---|"
	for r in unpatched-7.2 unpatched-new patched-new patched-7.2; do
		[ -f "$res/row-$r" ] && cat "$res/row-$r"
	done
} > "$TOP/results/$resname"
cat "$TOP/results/$resname"
