# sched/numa for Linux 6.1: quilt series, guest kernel, 2-node QEMU tests.
#
#   make run      boot the patched kernel on the 2-node guest, show locality
#   make bench    every benchmark scenario and mode, 40 s each: results/
#   make check    build what is stale, boot, run every test, "N passed, N failed"
#   make stress   random concurrent operations, STRESS_SECS (600) s; DEBUG=1 too
#   make compat   memory-policy tests on the patched and the unpatched kernel
#   make bench-cost  hot-path costs against the unpatched kernel: results/cost.md
#   make bench-cost-at AT=N [COST_CASES=a,b]  the same with the first N patches
#   make bench-interval  numad's interval 2000 vs 500 ms, sched-numa scenarios: results/interval.md
#   make int3-experiment  static key flips on QEMU 7.2 and the new QEMU: results/int3.md
#                         (DEBUG=1: the debug kernels, results/int3-debug.md)
#   make boot     interactive shell in the guest
#   make apply KSRC=/path/to/linux-6.1   apply the series to your own tree
#   make checkpatch                      scripts/checkpatch.pl on every patch
#   make cover-letter                    patches/0000-cover-letter.patch (make check checks it)
#   make series-build                    build the kernel after every patch
#   make build-matrix                    7 configs, patched vs unpatched, W=1 C=2: results/build-matrix.md
#
# Variables: CACHE (default ~/.cache/sched-numa) holds the unpacked tree, the
# patched tree and the build output; DEBUG=1 selects the debug kernel
# (lockdep, KASAN, kmemleak, ...) in its own build directory; TOPO= the
# guest's NUMA layout for check, run, bench and boot: 2n (default), 4n,
# 8n, cxl, memless (README, "Topologies").

CACHE ?= $(HOME)/.cache/sched-numa
DEBUG ?= 0
TOPO ?= 2n
export CACHE DEBUG TOPO

S := scripts

.PHONY: all deps tree apply config kernel initramfs check stress compat boot run bench bench-cost bench-cost-at bench-interval cover-letter \
	int3-experiment \
	checkpatch \
	series-build build-matrix clean distclean help

all: check

help:
	@sed -n '2,18s/^# \{0,1\}//p' Makefile

deps:
	@$(S)/deps.sh

tree: deps
	@$(S)/tree.sh

ifdef KSRC
apply: deps
	@$(S)/apply.sh $(KSRC)
else
apply:
	@echo "usage: make apply KSRC=/path/to/linux-6.1-tree" >&2; exit 2
endif

config: tree
	@$(S)/config.sh

kernel: tree
	@$(S)/build.sh

# The tests use the patched tree's uapi headers, installed by the kernel step.
initramfs: kernel
	@$(S)/step.sh "initramfs" $(S)/initramfs.sh

check: kernel initramfs
	@$(S)/check.sh $(TESTS)

stress: kernel initramfs
	@$(S)/stress.sh

compat: kernel initramfs
	@$(S)/compat.sh

boot: kernel initramfs
	@$(S)/boot.sh -i none

run: kernel initramfs
	@$(S)/run.sh

bench: kernel initramfs
	@$(S)/bench.sh

bench-cost: kernel initramfs
	@$(S)/bench-cost.sh

bench-cost-at: kernel initramfs
	@$(S)/bench-cost-at.sh

bench-interval: kernel initramfs
	@$(S)/bench-interval.sh

int3-experiment: kernel initramfs
	@$(S)/int3-experiment.sh

cover-letter: tree
	@$(S)/cover-letter.sh

checkpatch: tree
	@$(S)/checkpatch.sh

series-build: tree
	@$(S)/series-build.sh

# Needs only the pristine tree (make tree once); never touches $(CACHE)/tree.
build-matrix:
	@$(S)/build-matrix.sh

clean:
	rm -rf $(CACHE)/build/out $(CACHE)/build-debug/out

distclean:
	rm -rf $(CACHE)
