# Common settings and helpers for the harness scripts; sourced, not run.
# Every path can be overridden from the environment (the Makefile passes
# them through).

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${CACHE:-$HOME/.cache/sched-numa}
TARBALL=${TARBALL:-/usr/src/linux-source-6.1.tar.xz}
PRISTINE=${PRISTINE:-$CACHE/src/linux-6.1}
TREE=${TREE:-$CACHE/tree}
DEBUG=${DEBUG:-0}
if [ "$DEBUG" = 1 ]; then
	BUILD=${BUILD:-$CACHE/build-debug}
else
	BUILD=${BUILD:-$CACHE/build}
fi
OUT=${OUT:-$BUILD/out}

die() { echo "error: $*" >&2; exit 1; }
warn() { echo "warning: $*" >&2; }

# step NAME CMD...: print one line when a long step starts and one with the
# seconds it took; the step's own status is returned.
step() {
	local name=$1 t0 rc
	shift
	t0=$(date +%s)
	echo "==> $name ..."
	"$@"
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "==> $name done in $(( $(date +%s) - t0 ))s"
	else
		echo "==> $name FAILED after $(( $(date +%s) - t0 ))s" >&2
	fi
	return $rc
}

# Print a command before running it, so it can be repeated by hand.
run() {
	echo "+ $*"
	"$@"
}

# The tree version the series was last refreshed against: the one place it
# is recorded is the header of the series file.
series_version() {
	sed -n 's/^# *refreshed-against: *\([0-9.]*\).*/\1/p' "$TOP/series" | head -n1
}

tree_version() {
	local mk=$1/Makefile
	[ -f "$mk" ] || return 1
	awk '/^VERSION =/{v=$3} /^PATCHLEVEL =/{p=$3} /^SUBLEVEL =/{s=$3}
	     END{print v "." p "." s}' "$mk"
}

# The unpatched kernel (make compat, bench-cost, int3-experiment): the
# pristine tree built with the same fragments (the series' own option is
# not in that tree) in $PBUILD, one directory per DEBUG setting.
PBUILD=$CACHE/build-pristine$([ "$DEBUG" = 1 ] && echo -debug)
build_pristine() {
	env TREE="$PRISTINE" BUILD="$PBUILD" OUT="$OUT" CONFIG_NOT_IN_TREE=CONFIG_SCHED_NUMA \
		"$TOP/scripts/build.sh" || die "building the unpatched kernel failed"
}
