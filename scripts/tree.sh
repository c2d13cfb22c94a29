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

if [ ! -f "$PRISTINE/Makefile" ]; then
	[ -f "$TARBALL" ] || die "$TARBALL missing: install linux-source-6.1 (make deps)"
	unpack() {
		local tmp=$CACHE/src/.unpack.$$
		rm -rf "$tmp" && mkdir -p "$tmp" &&
		tar -C "$tmp" -xf "$TARBALL" &&
		mv "$tmp"/linux-source-6.1 "$PRISTINE" && rm -rf "$tmp"
	}
	step "unpack $(basename "$TARBALL")" unpack || die "unpacking $TARBALL failed"
fi

have=$(tree_version "$PRISTINE")
want=$(series_version)
if [ -n "$want" ] && [ "$have" != "$want" ]; then
	warn "tree is $have, series was refreshed against $want; applying anyway (fuzz 0)"
fi

# Nothing to do when the series, its patches and the pristine tree are the
# ones the current $TREE was derived from.
# (The cover letter, patches/0000-cover-letter.patch, is not applied.)
sum=$( (echo "$have"; cat "$TOP/series"
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
