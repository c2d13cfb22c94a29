#!/bin/bash
# Install the Debian packages the harness uses, when any is missing:
# 'apt-get update' once, then a non-interactive install.  Without root or
# apt, one line naming what is missing.
set -u
pkgs="linux-source-6.1 quilt busybox-static numactl libnuma-dev
gcc make flex bison bc libelf-dev libssl-dev cpio ccache xz-utils rsync file
gnuplot-nox python3 util-linux dwarves diffstat linux-perf gdb"
missing=$(for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || echo "$p"
done | xargs)
# QEMU 8.2.6 or later (bookworm-backports has 10.0): QEMU 7.2, bookworm's,
# lets a vCPU keep running a translated block made while another vCPU's
# text_poke_bp() had an int3 in place, after the int3 is gone; the guest
# kernel then dies of an unhandled int3 at a static key's site (QEMU
# commit deba78709ae8, "accel/tcg: Always lock pages before translation";
# README, "The int3 crash").
qemu_ok() {
	local v
	v=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null) || return 1
	dpkg --compare-versions "$v" ge 1:8.2.6
}
qemu_ok || missing="$missing qemu-system-x86"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
	echo "error: missing packages: $missing (as root: apt-get install $missing)" >&2
	exit 1
fi
echo "==> installing: $missing"
t0=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
bpo=/etc/apt/sources.list.d/bookworm-backports.sources
if ! qemu_ok && [ ! -f $bpo ]; then
	printf '%s\n' "Types: deb" "URIs: http://deb.debian.org/debian" \
		"Suites: bookworm-backports" "Components: main" \
		"Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" > $bpo
fi
rest=$(echo " $missing " | sed 's/ qemu-system-x86 / /' | xargs)
apt-get update -qq > /tmp/sched-numa-apt.log 2>&1 &&
	{ [ -z "$rest" ] || apt-get install -y -qq --no-install-recommends $rest >> /tmp/sched-numa-apt.log 2>&1; } &&
	{ qemu_ok || apt-get install -y -qq --no-install-recommends -t bookworm-backports \
		qemu-system-x86 >> /tmp/sched-numa-apt.log 2>&1; } && qemu_ok ||
	{ tail -n 20 /tmp/sched-numa-apt.log >&2; echo "error: apt-get install $missing failed" >&2; exit 1; }
echo "==> installing done in $(( $(date +%s) - t0 ))s"
