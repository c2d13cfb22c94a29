// SPDX-License-Identifier: GPL-2.0
/*
 * Shared memory policies (tmpfs, memfd) under racing mbind(2) calls, with
 * sched/numa off: plain mbind(2), which any user may call.
 *
 *   split_race_memfd  two pairs of processes share a memfd of 3 pages each;
 *                     one of a pair rebinds the whole range (MPOL_BIND to a
 *                     node, then MPOL_DEFAULT), the other sets a policy on
 *                     the middle page only, 20,000 times each.  The middle
 *                     page's call splits the whole-range policy; when the
 *                     whole-range policy is gone by the time it comes back
 *                     from allocating (shared_policy_replace()'s alloc_new:
 *                     path), the spare policy it allocated is put unused.
 *                     With the series that put read mempolicy::ngroup,
 *                     never set on that path: with SLUB the free-list
 *                     pointer sits there (scrambled by
 *                     SLAB_FREELIST_HARDENED), and the guest died of a
 *                     general protection fault in ngroup_put() within
 *                     seconds (booted with init_on_alloc=0, as
 *                     scripts/boot.sh does; init_on_alloc=1 zeroes the
 *                     field and hides it).  Passes when every call returns
 *                     0, the data of the memfd is intact and the kernel
 *                     lives on (the console check).
 */
#define _GNU_SOURCE
#include "numa_util.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#define LOOPS		20000
#define NPAIRS		2
#define SEED		0x5350ULL

static int rebind_whole(char *p, size_t len, int loops)
{
	unsigned long mask = NU_MASK(0);
	int i;

	for (i = 0; i < loops; i++) {
		mask = (i & 2) ? NU_MASK(1) : NU_MASK(0);
		if (i & 1) {
			if (mbind(p, len, MPOL_DEFAULT, NULL, 0, 0))
				return 1;
		} else if (mbind(p, len, MPOL_BIND, &mask, NU_MAXNODE, 0)) {
			return 2;
		}
	}
	return 0;
}

static int set_middle(char *p, size_t ps, int loops)
{
	unsigned long mask = NU_MASK(0) | NU_MASK(1);
	int i;

	for (i = 0; i < loops; i++) {
		if (mbind(p + ps, ps, (i & 1) ? MPOL_INTERLEAVE : MPOL_PREFERRED,
			  &mask, NU_MAXNODE, 0))
			return 3;
	}
	return 0;
}

/* The harness's fixture functions have parameters these do not use */
#pragma GCC diagnostic ignored "-Wunused-parameter"
FIXTURE(sp) {
};

FIXTURE_SETUP(sp)
{
}

FIXTURE_TEARDOWN(sp)
{
}

/* Seconds on the debug kernel (KASAN, lockdep) under TCG; 0 on the base */
TEST_F_TIMEOUT(sp, split_race_memfd, 900)
{
	size_t ps = nu_page_size(), len = 3 * ps;
	pid_t pid[2 * NPAIRS];
	char *p[NPAIRS];
	int i, status, fails = 0;

	if (!nu_have_two_nodes())
		SKIP(return, "needs two NUMA nodes");
	for (i = 0; i < NPAIRS; i++) {
		int fd = memfd_create("shared_policy", MFD_CLOEXEC);

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, ftruncate(fd, len));
		p[i] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			    fd, 0);
		ASSERT_NE(MAP_FAILED, p[i]);
		close(fd);
		nu_fill(p[i], len, SEED + i);
	}
	for (i = 0; i < 2 * NPAIRS; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (pid[i] == 0) {
			char *q = p[i / 2];

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			_exit(i & 1 ? set_middle(q, ps, LOOPS) :
				      rebind_whole(q, len, LOOPS));
		}
	}
	for (i = 0; i < 2 * NPAIRS; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			TH_LOG("process %d (%s): status 0x%x", i,
			       i & 1 ? "middle page" : "whole range", status);
			fails++;
		}
	}
	EXPECT_EQ(0, fails);
	for (i = 0; i < NPAIRS; i++) {
		EXPECT_EQ(-1, nu_verify(p[i], len, SEED + i))
			TH_LOG("memfd %d: data changed", i);
		munmap(p[i], len);
	}
}

TEST_HARNESS_MAIN
