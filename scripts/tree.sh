#!/bin/bash
# Unpack Debian's linux-source-6.1 tarball once into $PRISTINE, then derive
# the patched tree $TREE from it: a hard-linked copy of the pristine tree in a
# staging directory gets the quilt series pushed with --fuzz=0, and only the
# files whose content differs from $TREE are rewritten there (rsync
# --checksum, no time preservation).  So a changed or removed patch never
# meets stale state, and the out-of-tree build only recompiles what changed.
set -u
. "$(dirname "$0")/lib.sh"

mkdir -p "$CACHE" 2>/dev/null && [ -w "$CACHE" ] ||
	die "cache directory $CACHE is not writable: set CACHE=/some/writable/dir"

unpack() {
	[ -f "$TARBALL" ] || die "$TARBALL missing: install linux-source-6.1 (make deps)"
	local tmp=$CACHE/src/.unpack.$$
	rm -rf "$tmp" && mkdir -p "$tmp" &&
	tar -C "$tmp" -xf "$TARBALL" &&
	mv "$tmp"/linux-source-6.1 "$PRISTINE" && rm -rf "$tmp"
}
if [ ! -f "$PRISTINE/Makefile" ]; then
	rm -f "$CACHE/src/base-fixes.sum"
	step "unpack $(basename "$TARBALL")" unpack || die "unpacking $TARBALL failed"
fi

# Upstream fixes the guest kernels carry under the series (patches/base/:
# each says why; the series itself does not need them): applied to
# $PRISTINE itself, once, so that the patched tree, the unpatched builds
# and the per-patch builds all have them and the series' diff against
# $PRISTINE is the series alone.  $CACHE/src/base-fixes.sum records the
# set applied (their diffs: an edit to a changelog is not another set);
# another set means a fresh unpack.
base_sum=$(for p in "$TOP"/patches/base/*.patch; do
	[ -f "$p" ] && sed -n '/^--- /,$p' "$p"; done | sha1sum | cut -c1-16)
if [ "$(cat "$CACHE/src/base-fixes.sum" 2>/dev/null)" != "$base_sum" ]; then
	if [ -f "$CACHE/src/base-fixes.sum" ]; then
		rm -rf "$PRISTINE" "$CACHE/src/base-fixes.sum"
		step "unpack $(basename "$TARBALL") (other base fixes)" unpack ||
			die "unpacking $TARBALL failed"
	fi
	base_fixes() {
		local p
		for p in "$TOP"/patches/base/*.patch; do
			[ -f "$p" ] || continue
			echo "base fix: ${p#"$TOP"/}"
			patch -d "$PRISTINE" -p1 -s --fuzz=0 --no-backup-if-mismatch < "$p" || return 1
		done
	}
	step "apply base fixes to $PRISTINE" base_fixes ||
		die "a base fix does not apply to $PRISTINE: rm -rf $PRISTINE and run again"
	echo "$base_sum" > "$CACHE/src/base-fixes.sum"
fi

have=$(tree_version "$PRISTINE")
want=$(series_version)
if [ -n "$want" ] && [ "$have" != "$want" ]; then
	warn "tree is $have, series was refreshed against $want; applying anyway (fuzz 0)"
fi

# Nothing to do when the series, its patches and the pristine tree are the
# ones the current $TREE was derived from.
# (The cover letter, patches/0000-cover-letter.patch, is not applied.)
sum=$( (echo "$have $base_sum"; cat "$TOP/series"
	ls "$TOP"/patches/*.patch | grep -v /0000-cover-letter.patch | xargs cat) |
	sha1sum | cut -c1-16)
if [ -f "$TREE/Makefile" ] && [ "$(cat "$CACHE/tree.sum" 2>/dev/null)" = "$sum" ]; then
	echo "tree: $have at $TREE, series unchanged"
	exit 0
fi

stage=$CACHE/stage
derive() {
	# Hard links are safe: patch(1) writes a new file and renames it over
	# the old name, so the pristine inode is never written.
	rm -rf "$stage" && cp -al "$PRISTINE" "$stage" || return 1
	"$TOP/scripts/apply.sh" "$stage" || return 1
	mkdir -p "$TREE"
	rsync -r --links --perms --checksum --delete --exclude=/.pc "$stage/" "$TREE/"
}
rm -f "$CACHE/tree.sum"
step "apply series and derive $TREE" derive || exit 1
echo "$sum" > "$CACHE/tree.sum"
echo "tree: $have at $TREE"
