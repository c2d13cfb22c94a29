#!/bin/bash
# Install the Debian packages the harness uses, when any is missing:
# 'apt-get update' once, then a non-interactive install.  Without root or
# apt, one line naming what is missing.
set -u
pkgs="linux-source-6.1 quilt qemu-system-x86 busybox-static numactl libnuma-dev
gcc make flex bison bc libelf-dev libssl-dev cpio ccache xz-utils rsync file
gnuplot-nox python3 util-linux dwarves diffstat"
missing=$(for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || echo "$p"
done | xargs)
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
	echo "error: missing packages: $missing (as root: apt-get install $missing)" >&2
	exit 1
fi
echo "==> installing: $missing"
t0=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing > /tmp/sched-numa-apt.log 2>&1 ||
	{ tail -n 20 /tmp/sched-numa-apt.log >&2; echo "error: apt-get install $missing failed" >&2; exit 1; }
echo "==> installing done in $(( $(date +%s) - t0 ))s"
