#!/bin/bash
# make build-matrix: the kernel test robot's discipline.  The series (as
# committed: `git archive HEAD`, snapshotted at the start) is applied to a copy
# of the pristine tree in $CACHE/matrix/patched; the pristine tree itself
# ($PRISTINE, never written: O= builds only) is the unpatched side.  Each
# configuration of the matrix is configured on the patched tree, the same
# .config is given to the unpatched tree (olddefconfig drops the series'
# own option there), both get olddefconfig, prepare and scripts, then only
# the objects the series touches that the config builds (its .c files, the
# syscall tables, kernel/sys_ni.o) are compiled with W=1 C=2 (sparse forced
# on them; CONFIG_WERROR off).
# Compiler and sparse warnings of both trees are normalised (no tree path,
# no line:column) and compared: the verdict is PASS when the patched tree
# builds and has no warning the unpatched tree lacks.  The guest-based
# configurations (3, 4, 7) also link a full vmlinux of the patched tree.
# Writes results/build-matrix.md.
#
#   1 x86_64 defconfig + NUMA + SCHED_NUMA
#   2 Debian's amd64 config (linux-config-6.1) + SCHED_NUMA
#   3 the guest config with SCHED_NUMA=n        (+ vmlinux: 3v)
#   4 the guest config with NUMA=n              (+ vmlinux: 4v)
#   5 i386 defconfig + NUMA/SCHED_NUMA as far as Kconfig allows
#   6 arm64 defconfig + SCHED_NUMA, cross-built (asm-generic unistd.h)
#   7 the guest config with X86_X32_ABI=y       (+ vmlinux: 7v)
#
# Env: MATRIX_PARTS (default "3 3v 4 4v 7 6 1 5 2 7v", run in that order;
# a run of some parts keeps the others' last results, and the report shows
# every run since the last full one; $CACHE/matrix/results/notes, if any,
# is printed after the tables),
# MATRIX_REPORT_ONLY=1 (rewrite the results file from the last run),
# MATRIX_DEADLINE (HH:MM UTC: a part whose estimate would not end by then is
# skipped and said so), JOBS (2).  Every make that compiles kernel code
# takes $CACHE/build.lock, one step at a time.
set -u
. "$(dirname "$0")/lib.sh"

MX=${MATRIX_DIR:-$CACHE/matrix}
PARTS=${MATRIX_PARTS:-"3 3v 4 4v 7 6 1 5 2 7v"}
JOBS=${JOBS:-2}
RESULTS=${MATRIX_RESULTS:-$TOP/results/build-matrix.md}
DEADLINE=
[ -n "${MATRIX_DEADLINE:-}" ] && DEADLINE=$(date -u -d "${MATRIX_DEADLINE}" +%s)
LOCK=$CACHE/build.lock
SNAP=$MX/snapshot
PTREE=$MX/patched
RES=$MX/results
T_START=$(date +%s)

# Rough costs on 2 cores (seconds), to keep within MATRIX_DEADLINE.
declare -A EST=([1]=600 [2]=700 [3]=300 [4]=300 [5]=500 [6]=600 [7]=300 [3v]=480 [4v]=480 [7v]=480)

declare -A DESC=(
	[1]="x86_64 defconfig + NUMA + SCHED_NUMA"
	[2]="Debian amd64 config (config.amd64_none_amd64) + SCHED_NUMA"
	[3]="guest config, SCHED_NUMA=n"
	[4]="guest config, NUMA=n"
	[5]="i386 defconfig + NUMA/SCHED_NUMA where possible"
	[6]="arm64 defconfig + SCHED_NUMA (cross)"
	[7]="guest config + X86_X32_ABI=y"
)

ts() { date -u +%H:%M:%S; }
tstep() { local n=$1; shift; step "[$(ts)] $n" "$@"; }
# logged FILE CMD...: CMD's output into FILE (the step lines stay on stdout)
logged() { local f=$1; shift; "$@" > "$f" 2>&1; }

# The packages this target needs beyond scripts/deps.sh's (kept here so the
# CI path does not change).
matrix_deps() {
	local p missing=
	for p in sparse gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu linux-config-6.1; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	[ "$(id -u)" = 0 ] || die "missing packages:$missing (as root: apt-get install$missing)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing \
		> "$MX/apt.log" 2>&1 || { tail -n 20 "$MX/apt.log" >&2; die "apt-get install$missing failed"; }
}

# The committed series (HEAD), its patches and fragments: what is built
# does not change when someone edits the working tree meanwhile.
snapshot() {
	rm -rf "$SNAP" && mkdir -p "$SNAP" || return 1
	git -C "$TOP" archive HEAD series patches kconfig-fragments | tar -x -C "$SNAP" || return 1
	git -C "$TOP" rev-parse --short HEAD > "$SNAP/commit"
	grep -v '^[[:space:]]*#' "$SNAP/series" | awk 'NF{print $1}' > "$SNAP/list"
	[ -s "$SNAP/list" ]
}

pristine_clean() {
	[ -f "$PRISTINE/Makefile" ] || die "no pristine tree at $PRISTINE: run 'make tree' first"
	local f
	for f in .config include/config include/generated arch/x86/include/generated \
		 arch/arm64/include/generated scripts/basic/fixdep; do
		[ -e "$PRISTINE/$f" ] && die "$PRISTINE is not clean ($f exists): O= builds need a clean source tree"
	done
	return 0
}

# Hard-linked copy of the pristine tree; every file a patch touches is first
# replaced by a real copy, so no write can reach a pristine inode.
derive_patched() {
	local sum p f
	sum=$(cat "$SNAP/series" $(sed "s|^|$SNAP/patches/|" "$SNAP/list") | sha1sum | cut -c1-16)
	if [ -f "$PTREE/.matrix-sum" ] && [ "$(cat "$PTREE/.matrix-sum")" = "$sum" ]; then
		echo "patched tree up to date ($PTREE)"
		return 0
	fi
	rm -rf "$PTREE" && cp -al "$PRISTINE" "$PTREE" || return 1
	while read -r p; do
		for f in $(sed -n 's|^+++ b/||p' "$SNAP/patches/$p"); do
			[ -f "$PTREE/$f" ] && [ "$(stat -c %h "$PTREE/$f")" -gt 1 ] &&
				{ cp --remove-destination "$PRISTINE/$f" "$PTREE/$f" || return 1; }
		done
		(cd "$PTREE" && patch -p1 -s --fuzz=0 -N < "$SNAP/patches/$p") ||
			{ echo "patch $p does not apply" >&2; return 1; }
	done < "$SNAP/list"
	echo "$sum" > "$PTREE/.matrix-sum"
}

# The objects the series touches: its .c files (a file #included by
# another, like kernel/sched/debug.c in build_utility.c, maps to the
# includer), kernel/sys_ni.o and the architecture's syscall tables.
series_objs() {
	local arch=$1 f d inc
	for f in $(sed -n 's|^+++ b/\(.*\.c\)$|\1|p' $(sed "s|^|$SNAP/patches/|" "$SNAP/list") | sort -u); do
		case "$f" in tools/*|Documentation/*|scripts/*|samples/*) continue ;; esac
		d=$(dirname "$f")
		inc=$(grep -l "^[[:space:]#]*include \"$(basename "$f")\"" "$PTREE/$d"/*.c 2>/dev/null | head -n1)
		if [ -n "$inc" ]; then echo "${inc#$PTREE/}" | sed 's/\.c$/.o/'; else echo "${f%.c}.o"; fi
	done
	echo kernel/sys_ni.o
	case "$arch" in
	x86_64) echo arch/x86/entry/syscall_64.o arch/x86/entry/syscall_x32.o arch/x86/entry/syscall_32.o ;;
	i386) echo arch/x86/entry/syscall_32.o ;;
	arm64) echo arch/arm64/kernel/sys.o arch/arm64/kernel/sys32.o ;;
	esac
}

# in_config SRC OBJ CONFIG: does this .config build OBJ?  A single-target
# make compiles any .o that has a source, whatever the config, so the
# directory's Makefile is read: the variables that name OBJ (continuation
# lines joined), obj-y/mmu-y or obj-$(CONFIG_X) with X=y|m.  An object the
# Makefile does not name literally (syscall_$(BITS).o) is left to make.
in_config() {
	local src=$1 o=$2 cfg=$3 dir name vars v sym
	dir=${o%/*}; name=${o##*/}; name=${name//./\\.}
	vars=$(sed -e ':a' -e '/\\$/{N;s/\\\n/ /;ba' -e '}' "$src/$dir/Makefile" 2>/dev/null |
		grep -E "(^|[[:space:]])$name([[:space:]]|\$)" |
		sed -n 's/^[[:space:]]*\([^+:=[:space:]]*\)[[:space:]]*[+:]\{0,1\}=.*/\1/p')
	[ -z "$vars" ] && return 0
	for v in $vars; do
		case "$v" in
		*'$(CONFIG_'*')') sym=${v#*\$(}; sym=${sym%)}
			grep -qE "^$sym=(y|m)\$" "$cfg" && return 0 ;;
		*) return 0 ;;
		esac
	done
	return 1
}

# kmake CFG SIDE ARGS...: make in the build directory of one side.
# --output-sync: the lines of one compiler or sparse run stay together
# (sparse's "expected/got" lines follow their warning; -j2 interleaved
# them, and a warning then differed between the trees by its tail).
kmake() {
	local c=$1 side=$2 src
	shift 2
	[ "$side" = patched ] && src=$PTREE || src=$PRISTINE
	flock "$LOCK" make -C "$src" O="$MX/build/c$c-$side" ARCH="${ARCH_OF[$c]}" \
		${CROSS_OF[$c]:+CROSS_COMPILE=${CROSS_OF[$c]}} CC="${CC_OF[$c]}" -j"$JOBS" \
		--output-sync=target "$@"
}
declare -A ARCH_OF=([1]=x86_64 [2]=x86_64 [3]=x86_64 [4]=x86_64 [5]=i386 [6]=arm64 [7]=x86_64)
declare -A CROSS_OF=([6]=aarch64-linux-gnu-)
# the syscall table every kernel of the architecture has (syscall_$(BITS).o)
declare -A ALWAYS_OF=([1]=arch/x86/entry/syscall_64.o [2]=arch/x86/entry/syscall_64.o
	[3]=arch/x86/entry/syscall_64.o [4]=arch/x86/entry/syscall_64.o [5]=arch/x86/entry/syscall_32.o
	[6]=arch/arm64/kernel/sys.o [7]=arch/x86/entry/syscall_64.o)
declare -A CC_OF=([1]="ccache gcc" [2]="ccache gcc" [3]="ccache gcc" [4]="ccache gcc"
	[5]="ccache gcc" [6]="ccache aarch64-linux-gnu-gcc" [7]="ccache gcc")

# configure CFG: the .config of the patched side.
configure() {
	local c=$1 b=$MX/build/c$1-patched cfg
	rm -rf "$b" && mkdir -p "$b" || return 1
	cfg() { "$PTREE/scripts/config" --file "$b/.config" "$@"; }
	case $c in
	1) kmake $c patched -s defconfig && cfg -e NUMA -e NUMA_BALANCING -e SCHED_NUMA ;;
	2) xzcat /usr/src/linux-config-6.1/config.amd64_none_amd64.xz > "$b/.config" &&
	   # no Debian keys, no pahole/BTF; no debug info (it changes no diagnostic, only time)
	   cfg -e SCHED_NUMA --set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
	       --set-str MODULE_SIG_KEY "certs/signing_key.pem" -d DEBUG_INFO_BTF \
	       -d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT -d DEBUG_INFO -e DEBUG_INFO_NONE ;;
	3|4|7) kmake $c patched -s tinyconfig > /dev/null || return 1
	   case $c in
	   3) echo "# CONFIG_SCHED_NUMA is not set" ;;
	   4) echo "# CONFIG_NUMA is not set" ;;
	   7) printf '%s\n' CONFIG_IA32_EMULATION=y CONFIG_X86_X32_ABI=y ;;
	   esac > "$b/variant.config"
	   "$PTREE/scripts/kconfig/merge_config.sh" -m -O "$b" "$b/.config" \
		"$PTREE/kernel/configs/kvm_guest.config" "$SNAP"/kconfig-fragments/*.config \
		"$b/variant.config" > "$b/merge_config.log" 2>&1 ;;
	5) kmake $c patched -s defconfig &&
	   cfg -d HIGHMEM4G -e HIGHMEM64G -e X86_BIGSMP -e NUMA -e NUMA_BALANCING -e SCHED_NUMA ;;
	6) kmake $c patched -s defconfig && cfg -e NUMA -e NUMA_BALANCING -e SCHED_NUMA ;;
	esac || return 1
	# W=1 adds -Wmissing-prototypes, which 6.1's kernel/exit.c (abort())
	# fails under CONFIG_WERROR (x86_64 and i386 defconfig): warnings are
	# what is compared, so they must not stop a compile
	cfg -d WERROR || return 1
	kmake $c patched -s olddefconfig || return 1
	# the same choices for the unpatched side
	local u=$MX/build/c$c-unpatched
	rm -rf "$u" && mkdir -p "$u" && cp "$b/.config" "$u/.config" &&
		kmake $c unpatched -s olddefconfig
}

opts_of() {
	local o v
	for o in NUMA NUMA_BALANCING SCHED_NUMA SMP HIGHMEM64G X86_BIGSMP IA32_EMULATION X86_X32_ABI COMPAT MODULES; do
		v=$(sed -n "s/^CONFIG_$o=\(.*\)/\1/p" "$1/.config")
		echo -n "$o=${v:-n} "
	done
}

# Keep warning and error lines, without tree paths and line:column numbers.
# A warning printed by several compilation units (a header's) counts once;
# the same message at two places of a file counts twice, numbered " [2]",
# so that a second instance of an old message is new.  Sparse's
# "expected ... / got ..." lines are joined to their message.
joined() {
	local side=$1 c=$2
	sed -e "s|$PTREE/||g; s|$PRISTINE/||g; s|$MX/build/c$c-$side/||g" -e 's|^\./||' |
		awk '/(warning|error):/ { if (m != "") print m; m = $0; next }
		     m != "" && /:[0-9]+:[0-9]+:    / { sub(/^.*:[0-9]+:[0-9]+: +/, ""); m = m " | " $0; next }
		     { if (m != "") print m; m = "" }
		     END { if (m != "") print m }' | sort -u
}
normalise() {
	joined "$@" | sed -e 's/:[0-9]\+:[0-9]\+:/:/g; s/:[0-9]\+:/:/g' | sort |
		awk '{ n[$0]++; print $0 (n[$0] > 1 ? " [" n[$0] "]" : "") }' | sort
}

warnings_of() {
	local b=$MX/build/c$1-$2
	cat "$b/prepare.log" "$b/objs.log" | normalise $2 $1 > "$b/warnings"
}

# The files the series changes (every patch's "+++ b/" lines)
series_files() {
	sed -n 's|^+++ b/||p' $(sed "s|^|$SNAP/patches/|" "$SNAP/list") | sort -u
}

# Warnings with their quoted names (gcc's ‘x’, sparse's 'x') as '*'
masked() {
	sed -e "s/‘[^’]*’/'*'/g" -e "s/'[^' ]*'/'*'/g" -e 's/ \[[0-9]*\]$//'
}

# compare CFG: new (patched only), old (both), gone (unpatched only).  Of
# the new, those reported in a file the series does not change that the
# unpatched tree gives in the same file, with the same text but for a
# quoted name, go to CFG.inst: a new use of a macro of the tree that
# warns at every use (arm64's COND_SYSCALL() without a prototype, W=1).
# A new warning in a file of the series always counts as new.
compare() {
	local c=$1 b=$MX/build/c$1-patched u=$MX/build/c$1-unpatched w
	comm -13 "$u/warnings" "$b/warnings" > "$RES/$c.new.all"
	comm -12 "$u/warnings" "$b/warnings" > "$RES/$c.old"
	comm -23 "$u/warnings" "$b/warnings" > "$RES/$c.gone"
	: > "$RES/$c.new"; : > "$RES/$c.inst"
	series_files > "$RES/$c.files"
	masked < "$u/warnings" > "$RES/$c.old.masked"
	while IFS= read -r w; do
		if ! grep -qxF "${w%%:*}" "$RES/$c.files" &&
		   grep -qxF "$(printf '%s\n' "$w" | masked)" "$RES/$c.old.masked"; then
			printf '%s\n' "$w" >> "$RES/$c.inst"
		else
			printf '%s\n' "$w" >> "$RES/$c.new"
		fi
	done < "$RES/$c.new.all"
}

# build_side CFG SIDE: prepare + scripts, then the objects with W=1 C=2.
build_side() {
	local c=$1 side=$2 b=$MX/build/c$1-$2 objs o rc
	local src=$PRISTINE all off=
	[ "$side" = patched ] && src=$PTREE
	all=$(series_objs "${ARCH_OF[$c]}" | tr ' ' '\n' | sort -u | xargs)
	objs=
	for o in $all; do
		# a file the series adds is not in the unpatched tree
		if [ ! -f "$src/${o%.o}.c" ]; then off="$off $o"
		elif [ "$o" = "${ALWAYS_OF[$c]:-}" ] || in_config "$src" "$o" "$b/.config"; then objs="$objs $o"; else off="$off $o"; fi
	done
	tstep "config $c, $side: prepare scripts" logged "$b/prepare.log" kmake $c $side prepare scripts ||
		{ tail -n 20 "$b/prepare.log" >&2; echo fail > "$b/status"; return 1; }
	# remove earlier outputs so that "built" means built now
	for o in $objs; do rm -f "$b/$o"; done
	tstep "config $c, $side: $(echo $objs | wc -w) objects with W=1 C=2" \
		logged "$b/objs.log" kmake $c $side -k W=1 C=2 $objs
	rc=$?
	: > "$b/built"; : > "$b/failed"
	echo $off | tr ' ' '\n' | sed '/^$/d' > "$b/notbuilt"
	for o in $objs; do
		if [ -f "$b/$o" ]; then echo "$o" >> "$b/built"
		elif grep -q "No rule to make target '$o'" "$b/objs.log"; then echo "$o" >> "$b/notbuilt"
		elif [ "$side" = unpatched ] && [ ! -f "$PRISTINE/${o%.o}.c" ]; then echo "$o" >> "$b/notbuilt"
		else echo "$o" >> "$b/failed"
		fi
	done
	warnings_of $c $side
	[ -s "$b/failed" ] && echo fail > "$b/status" || echo ok > "$b/status"
	echo "  built $(wc -l < "$b/built"), not in this config $(wc -l < "$b/notbuilt"), failed $(wc -l < "$b/failed") (make rc $rc), $(wc -l < "$b/warnings") distinct warnings"
	return 0
}

# Syscall-table checks: the new entries in the generated tables, and which
# object defines the symbols the tables reference.
syscall_check() {
	local c=$1 b=$MX/build/c$1-patched u=$MX/build/c$1-unpatched f
	{
	case "${ARCH_OF[$c]}" in
	x86_64|i386)
		for f in syscalls_64.h syscalls_x32.h syscalls_32.h unistd_64.h unistd_x32.h unistd_32.h; do
			for t in "$b/arch/x86/include/generated/asm/$f" "$b/arch/x86/include/generated/uapi/asm/$f"; do
				[ -f "$t" ] || continue
				echo "- \`${t#$b/}\` (patched): $(grep -c 'numa_[mt]bind' "$t") numa_[mt]bind lines: $(grep 'numa_[mt]bind' "$t" | tr '\n' ';' | sed 's/;$//; s/;/; /g')"
				echo "  (unpatched: $(grep -c 'numa_[mt]bind' "$u/${t#$b/}" 2>/dev/null; true))"
			done
		done ;;
	arm64)
		echo "- \`include/uapi/asm-generic/unistd.h\` (patched): $(grep -E '__NR_numa_[mt]bind|^#define __NR_syscalls' "$PTREE/include/uapi/asm-generic/unistd.h" | tr '\n' ';')"
		echo "- \`arch/arm64/include/asm/unistd.h\` (patched): $(grep -E '__NR_compat_syscalls' "$PTREE/arch/arm64/include/asm/unistd.h" | tr '\n' ';')" ;;
	esac
	for f in $(cat "$b/built"); do
		case "$f" in *syscall_*.o|*/sys.o|*/sys32.o)
			echo "- \`$f\` references: $(nm "$b/$f" 2>/dev/null | grep -i 'numa_[mt]bind' | awk '{print $1 " " $2}' | xargs)" ;;
		esac
	done
	local defs=
	for f in $(cat "$b/built"); do
		case "$f" in *syscall_*.o|*/sys.o|*/sys32.o) continue ;; esac
		d=$(nm "$b/$f" 2>/dev/null | awk '$2 ~ /^[TtWw]$/ && $3 ~ /sys_numa_[mt]bind$/ {print $2 " " $3}' | xargs)
		[ -n "$d" ] && defs="$defs $f: $d;"
	done
	echo "- defined in:${defs:- nothing compiled here}"
	} > "$RES/$c.syscalls"
}

run_config() {
	local c=$1 t0=$(date +%s) b=$MX/build/c$1-patched u=$MX/build/c$1-unpatched
	tstep "config $c (${DESC[$c]}): olddefconfig, both trees" logged "$RES/$c.configure.log" configure $c ||
		{ tail -n 20 "$RES/$c.configure.log" >&2; echo "configure failed" > "$RES/$c.error"; return 1; }
	echo "patched: $(opts_of "$b")" > "$RES/$c.opts"
	echo "unpatched: $(opts_of "$u")" >> "$RES/$c.opts"
	diff <(grep '^CONFIG_' "$u/.config") <(grep '^CONFIG_' "$b/.config") | grep '^[<>]' > "$RES/$c.configdiff"
	cat "$RES/$c.opts"
	build_side $c unpatched
	build_side $c patched
	compare $c
	syscall_check $c
	echo $(( $(date +%s) - t0 )) > "$RES/$c.time"
	echo "  config $c: $(wc -l < "$RES/$c.new") new warnings, $(wc -l < "$RES/$c.inst") new instances, $(wc -l < "$RES/$c.old") pre-existing"
}

run_vmlinux() {
	local c=$1 t0=$(date +%s) b=$MX/build/c$1-patched
	[ -f "$b/.config" ] || { echo "no config $c" > "$RES/${c}v.error"; return 1; }
	if tstep "config $c, patched: full vmlinux" logged "$b/vmlinux.log" kmake $c patched vmlinux; then
		echo ok > "$RES/${c}v.status"
	else
		echo fail > "$RES/${c}v.status"
		grep -E 'error|Error|undefined' "$b/vmlinux.log" | head -n 40 > "$RES/${c}v.error"
		tail -n 20 "$b/vmlinux.log" >&2
	fi
	normalise patched $c < "$b/vmlinux.log" > "$RES/${c}v.warnings"
	echo $(( $(date +%s) - t0 )) > "$RES/${c}v.time"
}

fits() {
	[ -z "$DEADLINE" ] && return 0
	[ $(( $(date +%s) + ${EST[$1]} )) -le "$DEADLINE" ]
}

main() {
# ---------------------------------------------------------------------------
mkdir -p "$MX" "$RES" "$(dirname "$RESULTS")" || die "cannot create $MX"
if [ "${MATRIX_REPORT_ONLY:-0}" = 1 ]; then
	# rewrite results/build-matrix.md from the last run's results
	COMMIT=$(cat "$SNAP/commit"); T_START=$(cat "$RES/start"); T_END=$(cat "$RES/end")
	for c in 1 2 3 4 5 6 7; do
		[ -f "$RES/$c.time" ] || continue
		warnings_of $c unpatched; warnings_of $c patched; compare $c; syscall_check $c
	done
	for c in 3 4 7; do
		[ -f "$RES/${c}v.status" ] && [ -f "$MX/build/c$c-patched/vmlinux.log" ] &&
			normalise patched $c < "$MX/build/c$c-patched/vmlinux.log" > "$RES/${c}v.warnings"
	done
else
# a run of some parts keeps the results of the others
for part in $PARTS; do rm -f "$RES/$part".*; done
[ -z "${MATRIX_PARTS:-}" ] && rm -f "$RES/runs" "$RES/notes"
echo "$T_START" > "$RES/start"
tstep "packages" matrix_deps || exit 1
tstep "snapshot of the committed series" snapshot || die "snapshot failed"
COMMIT=$(cat "$SNAP/commit")
echo "series commit $COMMIT, $(wc -l < "$SNAP/list") patches"
pristine_clean
tstep "apply the series to $PTREE (fuzz 0)" derive_patched || die "the series does not apply"
echo "$PARTS" > "$RES/parts"
for part in $PARTS; do
	if ! fits "$part"; then
		echo "==> [$(ts)] part $part skipped: would not end before ${MATRIX_DEADLINE}"
		echo "skipped: not enough time before the deadline (${MATRIX_DEADLINE} UTC; estimate ${EST[$part]} s)" > "$RES/$part.skipped"
		continue
	fi
	case $part in
	*v) run_vmlinux "${part%v}" ;;
	*) run_config "$part" ;;
	esac
done
T_END=$(date +%s)
echo "$T_END" > "$RES/end"
echo "$(date -u -d @"$T_START" +%H:%M)-$(date -u -d @"$T_END" +%H:%M) UTC: parts $PARTS" >> "$RES/runs"
fi

# ---------------------------------------------------------------------------
report() {
	local c v n
	echo "# Build matrix"
	echo
	echo "\`make build-matrix\` (\`scripts/build-matrix.sh\`), $(date -u -d @"$T_END" '+%Y-%m-%d'); runs: $(sed 's/$/;/' "$RES/runs" 2>/dev/null | xargs echo | sed 's/;$/./')"
	echo "Series commit \`$COMMIT\` ($(wc -l < "$SNAP/list") patches, \`git archive HEAD\` at the start), applied with \`patch -p1 --fuzz=0\`"
	echo "to Debian's linux-source $(tree_version "$PRISTINE")$(ls "$TOP"/patches/base/*.patch >/dev/null 2>&1 && echo " with the upstream fixes of \`patches/base/\`"); the unpatched side is that tree, built out of tree with the same \`.config\`"
	echo "(the patched side's, then \`olddefconfig\`)."
	echo "$(gcc --version | head -n1); $(aarch64-linux-gnu-gcc --version | head -n1); sparse $(sparse --version 2>/dev/null); ccache; \`-j$JOBS\`."
	echo
	echo "Per configuration: \`olddefconfig\`, \`prepare scripts\`, then only the objects the series touches"
	echo "(its \`.c\` files, an \`#include\`d one as its includer, \`kernel/sys_ni.o\`, the syscall tables) with \`W=1 C=2\`, in both trees."
	echo "Warnings (compiler and sparse, \`prepare\` included) are compared with tree paths and line:column numbers stripped;"
	echo "a new warning is one the patched tree has and the unpatched lacks.  PASS: the patched objects build and there is no new warning."
	echo "Not counted as new but listed (\"new instances\"): a warning in a file the series does not change that the unpatched tree"
	echo "gives in the same file with the same text but for a quoted name, i.e. a new use of a macro of the tree that warns at"
	echo "every use (arm64's \`COND_SYSCALL()\` has no prototype under W=1: one warning per conditional system call).  A warning"
	echo "in a file of the series always counts as new."
	echo
	echo "| # | configuration | options (patched) | verdict | objects patched / unpatched | new warnings | new instances | pre-existing | time |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for c in 1 2 3 4 5 6 7; do
		if [ -f "$RES/$c.skipped" ]; then
			echo "| $c | ${DESC[$c]} | | not run | | | | | $(cat "$RES/$c.skipped") |"
			continue
		elif [ -f "$RES/$c.error" ]; then
			echo "| $c | ${DESC[$c]} | | FAIL | | | | | $(cat "$RES/$c.error") |"
			continue
		elif [ ! -f "$RES/$c.time" ]; then
			echo "| $c | ${DESC[$c]} | | not run | | | | | not in MATRIX_PARTS |"
			continue
		fi
		local b=$MX/build/c$c-patched u=$MX/build/c$c-unpatched verdict=PASS
		if [ "$(cat "$b/status")" != ok ]; then
			# an object failing in both trees is not the series' failure
			if [ -z "$(comm -23 <(sort "$b/failed") <(sort "$u/failed"))" ]; then
				verdict="PASS (fails in both trees: $(xargs < "$b/failed"))"
			else
				verdict="FAIL (patched build)"
			fi
		fi
		case "$verdict" in PASS*) [ -s "$RES/$c.new" ] && verdict="NEW WARNINGS" ;; esac
		n=$(wc -l < "$RES/$c.new")
		echo "| $c | ${DESC[$c]} | $(sed -n 's/^patched: //p' "$RES/$c.opts" | tr ' ' '\n' |
			grep -E '^(NUMA|NUMA_BALANCING|SCHED_NUMA)=|=y$' | grep -vE '^(SMP|MODULES)=' | xargs | sed 's/ /, /g') | $verdict | $(wc -l < "$b/built") / $(wc -l < "$u/built") | $n | $(cat "$RES/$c.inst" 2>/dev/null | wc -l) | $(wc -l < "$RES/$c.old") | $(cat "$RES/$c.time") s |"
	done
	echo
	echo "Full \`vmlinux\` of the patched tree (guest-based configurations):"
	echo
	echo "| # | configuration | result | warnings | time |"
	echo "|---|---|---|---|---|"
	for v in 3v 4v 7v; do
		c=${v%v}
		if [ -f "$RES/$v.skipped" ]; then echo "| $c | ${DESC[$c]} | not run | | $(cat "$RES/$v.skipped") |"
		elif [ -f "$RES/$v.status" ]; then
			echo "| $c | ${DESC[$c]} | $( [ "$(cat "$RES/$v.status")" = ok ] && echo "links" || echo "FAIL") | $(wc -l < "$RES/$v.warnings") | $(cat "$RES/$v.time") s |"
		else echo "| $c | ${DESC[$c]} | not run | | $(cat "$RES/$v.error" 2>/dev/null || echo "not in MATRIX_PARTS") |"
		fi
	done
	[ -s "$RES/notes" ] && { echo; cat "$RES/notes"; }
	echo
	echo "## Details"
	echo
	echo "Per configuration; every build log is in \`\$CACHE/matrix/build/c<N>-<side>/\` (\`prepare.log\`, \`objs.log\`, \`vmlinux.log\`)."
	for c in 1 2 3 4 5 6 7; do
		[ -f "$RES/$c.time" ] || continue
		local b=$MX/build/c$c-patched u=$MX/build/c$c-unpatched
		echo
		echo "### $c. ${DESC[$c]}"
		echo
		echo "- options: $(sed -n 's/^patched: //p' "$RES/$c.opts")(patched); $(sed -n 's/^unpatched: //p' "$RES/$c.opts")(unpatched)"
		echo "- \`.config\` difference (unpatched \`<\`, patched \`>\`): $(sed 's/^/`/; s/$/`/' "$RES/$c.configdiff" | xargs echo | sed 's/` `/`, `/g')"
		echo "- compiled in the patched tree ($(wc -l < "$b/built")): $(xargs < "$b/built")"
		[ -s "$b/notbuilt" ] && echo "- not in this configuration (its Makefile line's option is off): $(xargs < "$b/notbuilt")"
		[ -s "$b/failed" ] && echo "- **FAILED in the patched tree**: $(xargs < "$b/failed")"
		[ -s "$u/failed" ] && echo "- failed in the unpatched tree: $(xargs < "$u/failed")"
		echo "- warnings: $(wc -l < "$b/warnings") distinct in the patched tree, $(wc -l < "$u/warnings") in the unpatched, $(wc -l < "$RES/$c.old") in both, $(wc -l < "$RES/$c.new") new, $(wc -l < "$RES/$c.gone") only in the unpatched"
		cat "$RES/$c.syscalls"
		if [ -s "$RES/$c.inst" ]; then
			echo
			echo "New instances of the unpatched tree's warnings, in files the series does not change (normalised):"
			echo
			echo '```'
			cat "$RES/$c.inst"
			echo '```'
		fi
		if [ -s "$RES/$c.new" ]; then
			echo
			echo "New warnings (normalised):"
			echo
			echo '```'
			cat "$RES/$c.new"
			echo '```'
			echo
			echo "As the compiler and sparse printed them (patched tree, with line numbers; sparse's expected/got lines indented; where a message is new because it occurs once more than in the unpatched tree, every instance is listed):"
			echo
			echo '```'
			cat "$b/prepare.log" "$b/objs.log" | joined patched $c |
				awk -v keys="$RES/$c.new" 'BEGIN { while ((getline k < keys) > 0) { sub(/ \[[0-9]+\]$/, "", k); want[k] = 1 } }
				     { l = $0; gsub(/:[0-9]+:[0-9]+:/, ":", l); gsub(/:[0-9]+:/, ":", l); if (l in want) print }' |
				sed 's/ | /\n        /g'
			echo '```'
		fi
		if [ -s "$b/failed" ]; then
			echo
			echo "Errors (patched tree):"
			echo
			echo '```'
			grep -E 'error:|Error [0-9]' "$b/objs.log" | sed "s|$PTREE/||g" | head -n 40
			echo '```'
		fi
	done
	for v in 3v 4v 7v; do
		[ -f "$RES/$v.status" ] || continue
		if [ -s "$RES/$v.warnings" ] || [ -s "$RES/$v.error" ]; then
			echo
			echo "### vmlinux of configuration ${v%v}: warnings and errors"
			echo
			echo '```'
			cat "$RES/$v.warnings" "$RES/$v.error" 2>/dev/null
			echo '```'
		fi
	done
	for v in 1 2 3 4 5 6 7 3v 4v 7v; do
		[ -f "$RES/$v.skipped" ] && echo && echo "Part $v ($( [ "${v%v}" = "$v" ] && echo "objects" || echo "vmlinux") of configuration ${v%v}) $(cat "$RES/$v.skipped")."
	done
	true
}
report > "$RESULTS"
if [ "${MATRIX_REPORT_ONLY:-0}" = 1 ]; then echo "==> report rewritten: $RESULTS"
else echo "==> [$(ts)] build matrix done in $(( T_END - T_START ))s: $RESULTS"; fi
sed -n '/^| # | configuration | options/,/^$/p' "$RESULTS"
}

# One line: bash has read it whole before main runs, so a run is not
# disturbed by an edit of this file.
main "$@"; exit $?
