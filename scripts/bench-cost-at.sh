#!/bin/bash
# make bench-cost-at AT=N: make bench-cost for the kernel with the first N
# patches of the series only, to find which patch costs a figure.  The
# partial tree and its build are $CACHE/bisect-tree and bisect-build (the
# ones of make series-build; ccache has their objects from it); the report
# goes to results/cost-at-N.md.  Use with COST_CASES=a,b: a full run of
# every case takes as long as make bench-cost.
set -u
. "$(dirname "$0")/lib.sh"
at=${AT:?AT=N: the number of patches of the series to apply}
btree=$CACHE/bisect-tree
bbuild=$CACHE/bisect-build
last=none	# the last patch applied, named in the report
apply() {
	rm -rf "$btree" && cp -al "$PRISTINE" "$btree" || return 1
	local n=0 p
	for p in $(grep -v '^[[:space:]]*#' "$TOP/series" | awk 'NF{print $1}'); do
		[ "$n" -lt "$at" ] || break
		(cd "$btree" && patch -p1 -s --fuzz=0 < "$TOP/patches/$p") ||
			{ echo "$p does not apply" >&2; return 1; }
		n=$((n + 1))
		last=$p
	done
	echo "applied $n patches, the last $last"
}
step "apply the first $at patches to $btree" apply || die "apply failed"
mkdir -p "$bbuild/out" && cp "$BUILD/.config" "$bbuild/.config" || die "no config in $BUILD"
b() { flock "$CACHE/build.lock" make -s -C "$btree" O="$bbuild" CC="ccache gcc" \
	-j$(( $(nproc) + 1 )) olddefconfig bzImage > "$bbuild/build.log" 2>&1; }
step "build the kernel with $at patches" b || { tail -n 20 "$bbuild/build.log" >&2; die "build failed"; }
# The guest's initramfs and swap disk are the full series' (its tests and
# costbench handle a kernel without sched/numa: those modes are n/a)
for f in initramfs.cpio.gz swap.img; do
	ln -sf "$OUT/$f" "$bbuild/out/$f" || die "no $OUT/$f (make initramfs)"
done
md=$TOP/results/cost-at-$at.md
env BUILD="$bbuild" OUT="$bbuild/out" COST_MD="$md" "$TOP/scripts/bench-cost.sh" || exit
# Say which kernel the report is of, under its title
sed -i "1a\\
\\
Kernel: the series' first $at patches, the last $last." "$md"
