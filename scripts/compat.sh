#!/bin/bash
# make compat: the memory-policy tests that do not use the series (6.1's
# own mbind/set_mempolicy/get_mempolicy/move_pages/migrate_pages ABI, the
# tree's vm/migration selftest, numactl and numastat) on the patched kernel
# and on the unpatched tree built with the same configuration, in one boot
# each; the verdicts must be the same.  Ends with "N same, N different".
set -u
. "$(dirname "$0")/lib.sh"
tests=${COMPAT_TESTS:-mempolicy_abi,mbind_basic,migrate_pages,move_pages,interleave,vm_migration}
pbuild=$PBUILD

# The unpatched kernel (lib.sh), the same initramfs.
build_pristine

for k in patched unpatched; do
	b=$BUILD; [ $k = unpatched ] && b=$pbuild
	log=$OUT/compat-$k.log
	step "boot the $k kernel: $tests" env BUILD="$b" OUT="$OUT" LOG="$log" \
		"$TOP/scripts/boot.sh" "$tests" > /dev/null
	"$TOP/scripts/results.sh" "$log" | sort > "$OUT/compat-$k.txt"
	"$TOP/scripts/check-console.sh" "$log" ||
		echo "FAIL console: $k kernel reported a problem" >> "$OUT/compat-$k.txt"
done
echo "verdicts, patched | unpatched:"
diff -y -W 160 "$OUT/compat-patched.txt" "$OUT/compat-unpatched.txt"
same=$(comm -12 "$OUT/compat-patched.txt" "$OUT/compat-unpatched.txt" | wc -l)
differ=$(( $(sort -u "$OUT/compat-patched.txt" "$OUT/compat-unpatched.txt" | wc -l) - same ))
echo "$same same, $differ different"
[ "$differ" -eq 0 ]
