#!/bin/bash
# Configure the guest kernel in $BUILD: tinyconfig, then the tree's
# kernel/configs/kvm_guest.config and kconfig-fragments/*.config (plus
# kconfig-fragments/debug/*.config when DEBUG=1) merged with the tree's
# scripts/kconfig/merge_config.sh, then olddefconfig.  Fails listing every
# requested option that did not survive (usually an unmet dependency).
set -u
. "$(dirname "$0")/lib.sh"

usage() { echo "usage: $0   (env: TREE BUILD DEBUG)" >&2; exit 2; }
[ $# -eq 0 ] || usage
[ -f "$TREE/Makefile" ] || die "no kernel tree at $TREE: run 'make tree' first"
mkdir -p "$BUILD" || die "cannot create build directory $BUILD"

frags=("$TREE/kernel/configs/kvm_guest.config" "$TOP"/kconfig-fragments/*.config)
[ "$DEBUG" = 1 ] && frags+=("$TOP"/kconfig-fragments/debug/*.config)

run make -s -C "$TREE" O="$BUILD" tinyconfig >/dev/null || die "make tinyconfig failed"
run "$TREE/scripts/kconfig/merge_config.sh" -m -O "$BUILD" "$BUILD/.config" "${frags[@]}" \
	> "$BUILD/merge_config.log" 2>&1 || die "merge_config.sh failed: see $BUILD/merge_config.log"
run make -s -C "$TREE" O="$BUILD" olddefconfig >/dev/null || die "make olddefconfig failed"

# Every option our own fragments ask for must be in the final .config.
missing=0
for f in "$TOP"/kconfig-fragments/*.config $([ "$DEBUG" = 1 ] && echo "$TOP"/kconfig-fragments/debug/*.config); do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=n) want="# ${line%=n} is not set" ;;
		CONFIG_*=*) want=$line ;;
		*) continue ;;
		esac
		# make compat builds the unpatched tree with the same fragments
		case " ${CONFIG_NOT_IN_TREE:-} " in *" ${line%%=*} "*) continue ;; esac
		if [ "$want" = "# ${line%=n} is not set" ]; then
			grep -q "^${line%=n}=" "$BUILD/.config" || continue
		else
			grep -qx "$want" "$BUILD/.config" && continue
		fi
		echo "config: ${f#$TOP/}: $line did not survive olddefconfig (unmet dependency?)" >&2
		missing=$((missing + 1))
	done < "$f"
done
[ $missing -eq 0 ] || die "$missing requested config option(s) dropped; see the lines above"
exit 0
