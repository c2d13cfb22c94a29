#!/bin/bash
# Build the kernel after every patch of the series (bisectability), in a
# separate tree and build directory ($CACHE/bisect-*), reusing ccache.
# FROM=N applies every patch but builds only from the N-th on (resuming).
# OBJS=1: instead of a bzImage, compile after each patch only the C files
# it touches that this config builds, and the series' core files
# (SERIES_OBJS): a quick check that catches what does not compile, not
# what does not link.
set -u
. "$(dirname "$0")/lib.sh"
btree=$CACHE/bisect-tree
bbuild=$CACHE/bisect-build
rm -rf "$btree" && cp -al "$PRISTINE" "$btree" || exit 1
mkdir -p "$bbuild" && cp "$CACHE/build/.config" "$bbuild/.config" 2>/dev/null ||
	TREE=$btree BUILD=$bbuild "$TOP/scripts/config.sh" || exit 1
n=0
for p in $(grep -v '^[[:space:]]*#' "$TOP/series" | awk 'NF{print $1}'); do
	n=$((n + 1))
	(cd "$btree" && patch -p1 -s --fuzz=0 < "$TOP/patches/$p") || die "patch $p does not apply"
	# FROM=N: resume, building only from the N-th patch on
	[ "$n" -lt "${FROM:-1}" ] && continue
	targets=bzImage
	if [ "${OBJS:-0}" = 1 ]; then
		targets=
		for o in $(sed -n 's|^+++ b/\(.*\)\.c$|\1.o|p' "$TOP/patches/$p") \
			 ${SERIES_OBJS:-kernel/sched/core.o kernel/sched/fair.o kernel/sched/numa.o \
			   kernel/sched/build_utility.o mm/mempolicy.o kernel/fork.o mm/memory.o \
			   arch/x86/entry/common.o arch/x86/entry/syscall_64.o arch/x86/entry/syscall_x32.o}; do
			# only what this config builds: the full build ($CACHE/build) has it
			[ -f "$CACHE/build/$o" ] && [ -f "$btree/${o%.o}.c" ] && targets="$targets $o"
		done
		targets=$(echo $targets | tr ' ' '\n' | sort -u | xargs)
	fi
	# The full config again at every step: olddefconfig drops a symbol the
	# tree does not have yet (CONFIG_SCHED_NUMA before 0004), and would
	# otherwise never take it back
	[ -f "$CACHE/build/.config" ] && cp "$CACHE/build/.config" "$bbuild/.config"
	b() { flock "$CACHE/build.lock" make -s -C "$btree" O="$bbuild" CC="ccache gcc" \
		-j$(( $(nproc) + 1 )) olddefconfig $targets > "$bbuild/build.log" 2>&1; }
	step "build after $n: $p${OBJS:+ (objects: $targets)}" b ||
		{ tail -n 20 "$bbuild/build.log" >&2; die "build fails after $p"; }
	grep -E 'warning:' "$bbuild/build.log" | head -n 10
done
if [ "${OBJS:-0}" = 1 ]; then
	echo "the files each of the $n patches touches compile after it"
else
	echo "kernel builds after each of the $n patches"
fi
