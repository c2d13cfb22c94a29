#!/bin/bash
# Build the guest initramfs: busybox-static, initramfs/init and the statically
# linked test programs from tests/.  Output: $OUT/initramfs.cpio.gz
set -u
. "$(dirname "$0")/lib.sh"

bb=$(command -v busybox) || bb=/bin/busybox
[ -x "$bb" ] && file -L "$bb" 2>/dev/null | grep -q 'statically linked' ||
	die "static busybox missing: apt-get install busybox-static (make deps)"
[ -f /usr/lib/x86_64-linux-gnu/libnuma.a ] || die "libnuma.a missing: apt-get install libnuma-dev (make deps)"

[ -f "$BUILD/usr/include/linux/sched_numa.h" ] ||
	die "no uapi headers of the patched tree in $BUILD/usr/include: run 'make kernel' first"
# tests/Makefile goes by mtimes, and $OUT is shared by every checkout that
# uses this CACHE: a test edited in one checkout before another checkout's
# build made its binary was not rebuilt (misplaced.from_cpuless missing from
# a run).  Another checkout than last time: build every test afresh.
[ "$(cat "$OUT/tests/.checkout" 2>/dev/null)" = "$TOP" ] || rm -rf "$OUT/tests"
mkdir -p "$OUT/tests" && echo "$TOP" > "$OUT/tests/.checkout" || exit 1
make -s -C "$TOP/tests" KSRC="$PRISTINE" UAPI="$BUILD/usr/include" OUT="$OUT/tests" || die "building the tests failed"

root=$OUT/initramfs-root
rm -rf "$root" && mkdir -p "$root"/{bin,dev,proc,sys,tmp,tests,etc} || exit 1
cp "$bb" "$root/bin/busybox"
cp "$TOP/initramfs/init" "$root/init"
cp "$OUT"/tests/* "$root/tests/"
# numactl/numastat are dynamically linked: copy them with their libraries;
# so is perf, for make bench's "perf bench numa mem" convergence tests: only
# with INITRAMFS_PERF=1 (make bench), since it doubles the initramfs (13 to
# 24 MB), which every boot of the debug kernel would unpack under KASAN.
bins="numactl numastat"
[ "${INITRAMFS_PERF:-0}" = 1 ] && bins="$bins perf"
for b in $bins; do
	p=$(command -v $b) || continue
	cp "$p" "$root/bin/"
	for l in $(ldd "$p" | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$l")" && cp -L "$l" "$root$l"
	done
done
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$OUT/initramfs.cpio.gz.tmp" &&
	mv "$OUT/initramfs.cpio.gz.tmp" "$OUT/initramfs.cpio.gz"
