#!/bin/bash
# boot.sh [-i] [TESTS]: boot the guest kernel on a QEMU NUMA machine (TOPO:
# 2n, the default, is 2 sockets x 2 cores, 1 GiB per node, SLIT 10/20; 4n,
# 8n, cxl and memless below) with the initramfs, run
# TESTS (comma separated, or "all") and power off.  The whole console log is
# kept in $LOG.  -i gives an interactive shell on the serial console.
# KVM is used only when a quick probe shows it works; otherwise TCG.
set -u
. "$(dirname "$0")/lib.sh"

interactive=0
[ "${1:-}" = -i ] && { interactive=1; shift; }
tests=${1:-all}
LOG=${LOG:-$OUT/console.log}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-900}
# The debug kernel's tests took 2059 s in the guest on 2026-12-06: 3600 s
[ "$DEBUG" = 1 ] && BOOT_TIMEOUT=${BOOT_TIMEOUT_DEBUG:-3600}

# QEMU=path: another QEMU binary (the int3 experiment runs QEMU 7.2 so)
qemu=${QEMU:-$(command -v qemu-system-x86_64)} || die "qemu-system-x86_64 missing: apt-get install qemu-system-x86 (make deps)"
kernel=$BUILD/arch/x86/boot/bzImage
[ -f "$kernel" ] || die "no kernel at $kernel: run 'make kernel' first"
[ -f "$OUT/initramfs.cpio.gz" ] || die "no initramfs: run 'make initramfs' first"

# TCG unless ACCEL=kvm.  A 3-second probe cannot tell a working KVM from a
# nested one that starts the firmware and then hangs in the kernel's boot
# (seen on these machines: the probe passed, the guest never reached init),
# so KVM is opt-in, and then only if the probe passes: a working KVM is
# still running when timeout stops it (status 124); a broken one aborts.
accel=tcg
if [ "${ACCEL:-tcg}" = kvm ] && [ -w /dev/kvm ]; then
	# (the echo keeps bash from reporting qemu's abort as a job message)
	rc=$(timeout 3 "$qemu" -accel kvm -cpu host -smp 4,sockets=2,cores=2 \
		-m 256 -display none -nodefaults -no-reboot >/dev/null 2>&1
	     echo $?)
	[ "$rc" = 124 ] && accel=kvm
fi
echo "boot: accelerator $accel, topology ${TOPO:-2n}${QEMU_OPTS:+ ($QEMU_OPTS)}"
# pmu=off: QEMU 10.0's "max" CPU under TCG offers a PMU that QEMU 7.2's
# did not; without it the guest sees what it saw on 7.2 ("PMU not
# available due to virtualization"), the CPU every figure in results/ was
# measured on.  (It was first blamed for the debug kernel's early-boot
# hang, as was the LAPIC TSC-deadline timer; neither was the cause, see
# below.)
cpu=max,pmu=off; [ $accel = kvm ] && cpu=host
# The debug kernel runs without the TSC-deadline timer (the LAPIC one-shot
# timer instead) under TCG because it is faster so: with the RCU-tasks fix
# in place, 3 boots with it reached ##GUEST-UP in 32-44 s, 4 boots
# without it in 66-89 s (2026-12-06, same bzImage, idle host), and each
# whole boot took about 125 s against 65-80 s.
[ "$DEBUG" = 1 ] && [ $accel != kvm ] && cpu=$cpu,-tsc-deadline

# QEMU's gdbstub on a local port, so that a guest that hangs before
# ##GUEST-UP can be looked at (scripts/guest-tasks.py, below).
# (a port something already listens on is skipped: QEMU would not start)
gport=$((20000 + $$ % 20000))
while (exec 3<>"/dev/tcp/127.0.0.1/$gport") 2>/dev/null; do gport=$((gport + 1)); done

# QEMU_OPTS: more options for QEMU.
# A scratch disk (/dev/vda) for the swap tests; a sparse file, recreated
# every boot.
swapimg=$OUT/swap.img
rm -f "$swapimg" && truncate -s 256M "$swapimg" || die "cannot create $swapimg"

# init_on_alloc=0: Debian's kernel zeroes every allocation by default
# (INIT_ON_ALLOC_DEFAULT_ON), which would hide a field left uninitialised;
# the series must be correct without that hardening.
append="console=ttyS0 loglevel=5 panic=-1 rdinit=/init init_on_alloc=0 sntests=$tests sntopo=${TOPO:-2n} ${APPEND:-}"
# The debug kernel under TCG: with KASAN and kmemleak saving a stack trace
# per allocation, the boot's ACPI table parsing runs 25-30 s of guest time
# in one initcall without rescheduling, and the soft-lockup (2 x
# watchdog_thresh = 20 s) and RCU stall (21 s) detectors fire on emulation
# speed.  120 s still catches a CPU that is stuck for good.
# The hung-task detector (30 s in kconfig-fragments/distro.config) gets
# 120 s there for the same reason.
[ "$DEBUG" = 1 ] && append="$append watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120 sysctl.kernel.hung_task_timeout_secs=120"
# tests/static_keys.c: fewer rounds of key flips on the debug kernel,
# where each takes about ten times as long
[ "$DEBUG" = 1 ] && case " ${APPEND:-} " in *" snflips="*) ;; *) append="$append snflips=100" ;; esac
# and fewer iterations of mpol_lazy_errors' race_munmap: 2000 took about
# 300 s there (2026-12-06), 500 still race munmap() against mbind() for
# a few minutes of the debug kernel's checks
[ "$DEBUG" = 1 ] && case " ${APPEND:-} " in *" snrace="*) ;; *) append="$append snrace=500" ;; esac
[ $interactive = 1 ] && append="$append snshell=1"
# PREALLOC=1 (make bench-cost): QEMU touches the guest's RAM before the
# boot, so that no benchmark pays for the host's first touch of it.
mem=; [ "${PREALLOC:-0}" = 1 ] && mem=,prealloc=on
# TOPO: the NUMA layout (README, "Topologies"); each a QEMU -numa layout
# with its SLIT.  TCG runs one host thread per vCPU on this 2-core host,
# so no layout has more than 8 vCPUs.
topo=()
# topo_node ID CPUS MEM: a node, CPUS a cpu list, MEM a size; "-": none
topo_node() {
	local opt="node,nodeid=$1"
	[ "$2" != - ] && opt="$opt,cpus=$2"
	if [ "$3" != - ]; then
		topo+=(-object "memory-backend-ram,id=m$1,size=$3$mem")
		opt="$opt,memdev=m$1"
	fi
	topo+=(-numa "$opt")
}
# dist A B D: the SLIT distance between nodes A and B, both ways
dist() { topo+=(-numa "dist,src=$1,dst=$2,val=$3"); }
case "${TOPO:-2n}" in
2n)	# two sockets of 2 CPUs and 1 GiB: the layout of every figure in results/
	smp=4,sockets=2,cores=2 ram=2G
	topo_node 0 0-1 1G; topo_node 1 2-3 1G
	dist 0 1 20 ;;
4n)	# two sockets, each of two sub-NUMA clusters of 1 CPU and 512 MiB:
	# 11 within a socket, 21 across.  Each node is a QEMU socket of its
	# own: QEMU 10.0 shares the L3 per socket (dies=2 did not split it),
	# and a CPU that shares its LLC with another node's makes the guest
	# WARN in topology_sane(); the SLIT alone says which are near.
	smp=4,sockets=4,cores=1 ram=2G
	for n in 0 1 2 3; do topo_node $n $n 512M; done
	dist 0 1 11; dist 2 3 11
	dist 0 2 21; dist 0 3 21; dist 1 2 21; dist 1 3 21 ;;
8n)	# AMD 2P in NPS4: two sockets of four nodes, 1 CPU and 256 MiB each;
	# 11 to the neighbour, 12 within the socket, 32 across; a node is a
	# QEMU socket, for its own L3 (as a CCD's on EPYC), see 4n
	smp=8,sockets=8,cores=1 ram=2G
	for n in 0 1 2 3 4 5 6 7; do topo_node $n $n 256M; done
	for a in 0 1 2 3 4 5 6 7; do
		for b in 0 1 2 3 4 5 6 7; do
			[ $b -gt $a ] || continue
			if [ $((a / 4)) != $((b / 4)) ]; then dist $a $b 32
			elif [ $((a / 2)) = $((b / 2)) ]; then dist $a $b 11
			else dist $a $b 12; fi
		done
	done ;;
cxl)	# 2n plus a CPU-less 512 MiB memory node (a CXL expander), farther
	# than the other socket
	smp=4,sockets=2,cores=2 ram=2560M
	topo_node 0 0-1 1G; topo_node 1 2-3 1G; topo_node 2 - 512M
	dist 0 1 20; dist 0 2 40; dist 1 2 40 ;;
memless) # node 2 has a CPU and no memory, next to node 1; one CPU a
	# socket, so that CPUs 2 and 3 (nodes 1 and 2) share no LLC (4n)
	smp=4,sockets=4,cores=1 ram=2G
	topo_node 0 0-1 1G; topo_node 1 2 1G; topo_node 2 3 -
	dist 0 1 20; dist 0 2 20; dist 1 2 11 ;;
*)	die "TOPO=$TOPO: one of 2n 4n 8n cxl memless" ;;
esac
cmd=("$qemu" -accel "$accel" -cpu "$cpu" -m "$ram" -smp "$smp"
	"${topo[@]}"
	-drive file="$swapimg",if=virtio,format=raw,cache=unsafe
	-kernel "$kernel" -initrd "$OUT/initramfs.cpio.gz"
	-append "$append" -nographic -no-reboot -nodefaults -serial stdio
	-gdb tcp:127.0.0.1:$gport
	${QEMU_OPTS:-})
echo "+ ${cmd[*]}"
if [ $interactive = 1 ]; then
	"${cmd[@]}"
	exit
fi
mkdir -p "$(dirname "$LOG")"
# A guest that has not printed ##GUEST-UP (initramfs/init) within
# BOOT_UP_TIMEOUT seconds is stopped and booted again, at most BOOT_TRIES
# times in all, so that the run still gives its tests' results; but such
# a hang is a kernel bug until shown otherwise, and it fails the run:
# each one is recorded in $LOG.early-hangs (scripts/check.sh turns that
# into a FAIL line), its console kept as $LOG.stuck-N and, before QEMU is
# stopped, the guest's tasks and their stacks dumped through the gdbstub
# into $LOG.stuck-N.tasks (scripts/guest-tasks.py; gdb from make deps).
# That dump is how the debug kernel's hang of 2026-12-05/06 ("Running
# RCU-tasks wait API self tests" its last line, 9 of 10 boots in one CI
# run) was found to be an RCU-tasks deadlock in 6.1 itself, fixed by the
# upstream commit in patches/base/; until then, this retry
# had hidden it.  A hang after ##GUEST-UP is never retried.
rm -f "$LOG.early-hangs" "$LOG".stuck-* "$LOG".qemu-abort-*
up_timeout=${BOOT_UP_TIMEOUT:-150} tries=${BOOT_TRIES:-8}
for try in $(seq 1 "$tries"); do
	timeout --foreground -k 10 "$BOOT_TIMEOUT" "${cmd[@]}" < /dev/null > "$LOG" 2>&1 &
	qpid=$!
	t_up=$SECONDS
	while kill -0 $qpid 2>/dev/null && ! grep -aq '^##GUEST-UP' "$LOG" &&
	      [ $((SECONDS - t_up)) -lt "$up_timeout" ]; do
		sleep 2
	done
	# QEMU itself aborting before the guest is up (QEMU 10.0.2 once, at
	# 22:33 UTC on 2026-12-05, during the kernel's PCI probe:
	# "system/physmem.c:2678: iotlb_to_section: Assertion `section_index <
	# d->map.sections_nb' failed") is retried too, its console kept as
	# $LOG.qemu-abort-N; a guest that stopped by itself (a panic: -no-reboot)
	# never is.
	if ! kill -0 $qpid 2>/dev/null && ! grep -aq '^##GUEST-UP' "$LOG" &&
	   tail -n 3 "$LOG" | grep -aq '^qemu-system-[^:]*: .*Assertion .* failed' &&
	   [ "$try" != "$tries" ]; then
		wait $qpid 2>/dev/null
		echo "boot: QEMU aborted before ##GUEST-UP: $(tail -n 1 "$LOG" | cut -c1-160); attempt $try of $tries; console kept in $LOG.qemu-abort-$try" >&2
		cp "$LOG" "$LOG.qemu-abort-$try"
		continue
	fi
	if ! kill -0 $qpid 2>/dev/null || grep -aq '^##GUEST-UP' "$LOG"; then
		break
	fi
	echo "boot: no ##GUEST-UP after ${up_timeout}s (early-boot hang), attempt $try of $tries; console kept in $LOG.stuck-$try, tasks in $LOG.stuck-$try.tasks" >&2
	if command -v gdb >/dev/null && [ -f "$BUILD/vmlinux" ]; then
		timeout 120 gdb -q -batch "$BUILD/vmlinux" \
			-ex "target remote 127.0.0.1:$gport" \
			-x "$TOP/scripts/guest-tasks.py" > "$LOG.stuck-$try.tasks" 2>&1
	fi
	kill $qpid 2>/dev/null; wait $qpid 2>/dev/null
	cp "$LOG" "$LOG.stuck-$try"
	echo "attempt $try: $(tail -n 1 "$LOG.stuck-$try" | tr -d '\r' | cut -c1-120)" >> "$LOG.early-hangs"
	[ "$try" = "$tries" ] && { echo "boot: $tries early-boot hangs, giving up" >&2; exit 1; }
done
# Progress: one line per finished test program or benchmark run.
t0=$SECONDS
tail -n +1 -F --pid=$qpid "$LOG" 2>/dev/null | while IFS= read -r l; do
	case $l in
	"##TEST-END "*)
		set -- ${l%$'\r'}
		printf '  [%4ds] %s %s %s\n' $((SECONDS - t0)) "$2" "$3" "$4" ;;
	esac
done
wait $qpid
rc=$?
if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo "boot: guest did not power off within ${BOOT_TIMEOUT}s (hang?): see $LOG" >&2
	exit 1
fi
grep -q '^##ALL-DONE' "$LOG" || { echo "boot: guest stopped before finishing its tests (panic?): see $LOG" >&2; exit 1; }
exit 0
