#!/bin/bash
# Build the guest bzImage out of tree in $BUILD with ccache.  Reconfigures
# (scripts/config.sh) only when the fragments, DEBUG or the tree version
# changed, so a one-patch change rebuilds only what that patch touched.
# Kernel builds on this machine are serialised by $CACHE/build.lock.
set -u
. "$(dirname "$0")/lib.sh"

[ -f "$TREE/Makefile" ] || die "no kernel tree at $TREE: run 'make tree' first"
command -v ccache >/dev/null || die "ccache missing: apt-get install ccache (make deps)"
mkdir -p "$BUILD" || die "cannot create $BUILD"

sum=$(cat "$TOP"/kconfig-fragments/*.config "$TOP"/kconfig-fragments/debug/*.config \
	"$TREE/kernel/configs/kvm_guest.config" "$TREE/Makefile" "$TOP/scripts/config.sh" |
	sha1sum | cut -c1-12)-$DEBUG
if [ ! -f "$BUILD/.config" ] || [ "$(cat "$BUILD/.fragments" 2>/dev/null)" != "$sum" ]; then
	step "config ($([ "$DEBUG" = 1 ] && echo debug || echo base))" "$TOP/scripts/config.sh" || exit 1
	echo "$sum" > "$BUILD/.fragments"
fi
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-10G}
jobs=${JOBS:-$(( $(nproc) + 1 ))}
build() {
	flock "$CACHE/build.lock" make -s -C "$TREE" O="$BUILD" CC="ccache gcc" -j"$jobs" bzImage \
		> "$BUILD/build.log" 2>&1 || { tail -n 30 "$BUILD/build.log" >&2; return 1; }
	# warnings are part of the result a reviewer sees
	grep -E 'warning:' "$BUILD/build.log" | head -n 20
	return 0
}
step "build bzImage in $BUILD (log: $BUILD/build.log)" build || die "kernel build failed: see $BUILD/build.log"
# The series' uapi (syscall numbers, <linux/sched_numa.h>) for the tests
flock "$CACHE/build.lock" make -s -C "$TREE" O="$BUILD" headers_install ||
	die "make headers_install failed"
