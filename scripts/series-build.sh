#!/bin/bash
# Build the kernel after every patch of the series (bisectability), in a
# separate tree and build directory ($CACHE/bisect-*), reusing ccache.
# FROM=N applies every patch but builds only from the N-th on (resuming).
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
	b() { flock "$CACHE/build.lock" make -s -C "$btree" O="$bbuild" CC="ccache gcc" \
		-j$(( $(nproc) + 1 )) olddefconfig bzImage > "$bbuild/build.log" 2>&1; }
	step "build after $n: $p" b || { tail -n 20 "$bbuild/build.log" >&2; die "build fails after $p"; }
done
echo "kernel builds after each of the $n patches"
