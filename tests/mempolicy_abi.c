// SPDX-License-Identifier: GPL-2.0
/*
 * The memory-policy system calls as 6.1 defines them, case by case in the
 * manner of LTP's mbind, set_mempolicy, get_mempolicy, move_pages and
 * migrate_pages tests: modes, mode flags, node masks, ranges, flags and
 * permissions, each with its documented result.  Nothing here uses the
 * series: make compat runs these (and the other memory-policy tests) on
 * the patched kernel and on the unpatched tree built with the same config,
 * and requires the same verdicts; numactl(8) and numastat(8), which use
 * these calls through libnuma, are run as well.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include <grp.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "numa_util.h"

#ifndef MPOL_F_STATIC_NODES
#define MPOL_F_STATIC_NODES	(1 << 15)
#define MPOL_F_RELATIVE_NODES	(1 << 14)
#endif
#ifndef MPOL_F_NUMA_BALANCING
#define MPOL_F_NUMA_BALANCING	(1 << 13)
#endif
#ifndef MPOL_PREFERRED_MANY
#define MPOL_PREFERRED_MANY	5
#endif
#define BAD_MODE	42
#define NOBODY		65534

/* errno of a call that must fail, 0 if it succeeded */
#define ERR_OF(call) ({ errno = 0; (call) < 0 ? errno : 0; })

FIXTURE(abi) {
	int bad;		/* a node without memory: 5 up to 5 nodes */
	char *buf;
	size_t len;
};

FIXTURE_SETUP(abi)
{
	if (!nu_have_two_nodes())
		SKIP(return, "needs NUMA nodes 0 and 1");
	/* Node 5 on 2 to 5 nodes; on 8n (5 has memory) the first free id */
	self->bad = nu_node_without_memory(5);
	ASSERT_LE(5, self->bad) TH_LOG("no node id without memory below %d",
				       (int)NU_MAXNODE);
	self->len = 4 * nu_page_size();
	self->buf = nu_alloc(4);
	ASSERT_NE(NULL, self->buf);
	nu_fill(self->buf, self->len, 7);
}

FIXTURE_TEARDOWN(abi)
{
	if (self->buf)
		nu_free(self->buf, 4);
}

TEST_F(abi, set_mempolicy_modes)
{
	unsigned long m0 = 1, m01 = 3, none = 0, mbad;

	NU_RETURN_IF_SKIPPED();
	mbad = 1UL << self->bad;
	EXPECT_EQ(0, ERR_OF(set_mempolicy(MPOL_DEFAULT, NULL, 0)));
	EXPECT_EQ(EINVAL, ERR_OF(set_mempolicy(MPOL_DEFAULT, &m0, NU_MAXNODE)));
	EXPECT_EQ(0, ERR_OF(set_mempolicy(MPOL_BIND, &m01, NU_MAXNODE)));
	EXPECT_EQ(EINVAL, ERR_OF(set_mempolicy(MPOL_BIND, &none, NU_MAXNODE)));
	EXPECT_EQ(EINVAL, ERR_OF(set_mempolicy(MPOL_BIND, &mbad, NU_MAXNODE)));
	EXPECT_EQ(0, ERR_OF(set_mempolicy(MPOL_INTERLEAVE, &m01, NU_MAXNODE)));
	EXPECT_EQ(0, ERR_OF(set_mempolicy(MPOL_PREFERRED, &m0, NU_MAXNODE)));
	EXPECT_EQ(0, ERR_OF(set_mempolicy(MPOL_PREFERRED, &none, NU_MAXNODE)));
	EXPECT_EQ(0, ERR_OF(set_mempolicy(MPOL_LOCAL, NULL, 0)));
	EXPECT_EQ(EINVAL, ERR_OF(set_mempolicy(MPOL_LOCAL, &m0, NU_MAXNODE)));
	EXPECT_EQ(0, ERR_OF(set_mempolicy(MPOL_PREFERRED_MANY, &m01,
					  NU_MAXNODE)));
	EXPECT_EQ(EINVAL, ERR_OF(set_mempolicy(BAD_MODE, &m0, NU_MAXNODE)));
	EXPECT_EQ(EINVAL, ERR_OF(set_mempolicy(6, NULL, 0)))
		TH_LOG("mode 6 (MPOL_NOOP with the series) is mbind() only");
	EXPECT_EQ(EINVAL, ERR_OF(set_mempolicy(MPOL_BIND | MPOL_F_STATIC_NODES |
					       MPOL_F_RELATIVE_NODES, &m0,
					       NU_MAXNODE)));
	EXPECT_EQ(EINVAL, ERR_OF(set_mempolicy(MPOL_INTERLEAVE |
					       MPOL_F_NUMA_BALANCING, &m01,
					       NU_MAXNODE)));
	EXPECT_EQ(0, ERR_OF(set_mempolicy(MPOL_BIND | MPOL_F_NUMA_BALANCING,
					  &m01, NU_MAXNODE)));
	EXPECT_EQ(EFAULT, ERR_OF(set_mempolicy(MPOL_BIND, (void *)8,
					       NU_MAXNODE)));
	/* get_nodes(): more than a page of bits */
	EXPECT_EQ(EINVAL, ERR_OF(set_mempolicy(MPOL_BIND, &m0,
					       8 * nu_page_size() + 2)));
	EXPECT_EQ(0, ERR_OF(set_mempolicy(MPOL_DEFAULT, NULL, 0)));
}

TEST_F(abi, get_mempolicy_flags)
{
	unsigned long m01 = 3, got = 0;
	int mode = -1, page_node = INT_MIN;

	NU_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, set_mempolicy(MPOL_INTERLEAVE, &m01, NU_MAXNODE));
	EXPECT_EQ(0, ERR_OF(get_mempolicy(&mode, &got, NU_MAXNODE, NULL, 0)));
	EXPECT_EQ(MPOL_INTERLEAVE, mode);
	EXPECT_EQ(m01, got);
	/* MPOL_F_NODE alone: the next interleave node */
	EXPECT_EQ(0, ERR_OF(get_mempolicy(&mode, NULL, 0, NULL, MPOL_F_NODE)));
	EXPECT_TRUE(mode == 0 || mode == 1);
	EXPECT_EQ(0, ERR_OF(get_mempolicy(NULL, &got, NU_MAXNODE, NULL,
					  MPOL_F_MEMS_ALLOWED)));
	EXPECT_EQ(3UL, got & 3);
	EXPECT_EQ(EINVAL, ERR_OF(get_mempolicy(&mode, NULL, 0, self->buf,
					       MPOL_F_MEMS_ALLOWED |
					       MPOL_F_ADDR)));
	EXPECT_EQ(EINVAL, ERR_OF(get_mempolicy(&mode, NULL, 0, self->buf, 0)))
		TH_LOG("an address without MPOL_F_ADDR");
	EXPECT_EQ(EINVAL, ERR_OF(get_mempolicy(&mode, NULL, 0, NULL, 0x100)));
	EXPECT_EQ(EINVAL, ERR_OF(get_mempolicy(&mode, &got, 1, NULL, 0)))
		TH_LOG("maxnode below the number of possible nodes");
	EXPECT_EQ(EFAULT, ERR_OF(get_mempolicy(&mode, NULL, 0, (void *)4096,
					       MPOL_F_ADDR)));
	ASSERT_EQ(0, set_mempolicy(MPOL_DEFAULT, NULL, 0));
	EXPECT_EQ(0, ERR_OF(get_mempolicy(&mode, NULL, 0, self->buf,
					  MPOL_F_ADDR)));
	EXPECT_EQ(MPOL_DEFAULT, mode);
	/*
	 * MPOL_F_NODE | MPOL_F_ADDR: the node of the page, wherever setup's
	 * fill put it (the CPU it ran on may be on any node), as
	 * move_pages(2) reports it
	 */
	EXPECT_EQ(0, ERR_OF(get_mempolicy(&mode, NULL, 0, self->buf,
					  MPOL_F_NODE | MPOL_F_ADDR)));
	ASSERT_EQ(0, nu_page_nodes(0, self->buf, 1, &page_node));
	EXPECT_LE(0, page_node);
	EXPECT_EQ(page_node, mode);
}

TEST_F(abi, mbind_args)
{
	size_t ps = nu_page_size();
	unsigned long m0 = 1, m1 = 2, none = 0, mbad;
	char *hole;

	NU_RETURN_IF_SKIPPED();
	mbad = 1UL << self->bad;
	EXPECT_EQ(0, ERR_OF(mbind(self->buf, 0, MPOL_BIND, &m0, NU_MAXNODE, 0)));
	EXPECT_EQ(EINVAL, ERR_OF(mbind(self->buf + 1, ps, MPOL_BIND, &m0,
				       NU_MAXNODE, 0)));
	EXPECT_EQ(EINVAL, ERR_OF(mbind(self->buf, ps, BAD_MODE, &m0,
				       NU_MAXNODE, 0)));
	EXPECT_EQ(EINVAL, ERR_OF(mbind(self->buf, ps, MPOL_BIND, &none,
				       NU_MAXNODE, 0)));
	EXPECT_EQ(EINVAL, ERR_OF(mbind(self->buf, ps, MPOL_BIND, &mbad,
				       NU_MAXNODE, 0)));
	EXPECT_EQ(EINVAL, ERR_OF(mbind(self->buf, ps, MPOL_DEFAULT, &m0,
				       NU_MAXNODE, 0)));
	EXPECT_EQ(EINVAL, ERR_OF(mbind(self->buf, ps, MPOL_BIND, &m0,
				       NU_MAXNODE, 0x80)));
	/* mpol_new(): MPOL_DEFAULT ignores mode flags */
	EXPECT_EQ(0, ERR_OF(mbind(self->buf, ps, MPOL_DEFAULT |
				  MPOL_F_STATIC_NODES, NULL, 0, 0)));
	EXPECT_EQ(EINVAL, ERR_OF(mbind(self->buf, ps, MPOL_BIND, &m0,
				       8 * ps + 2, 0)));
	EXPECT_EQ(EFAULT, ERR_OF(mbind(self->buf, ps, MPOL_BIND, (void *)8,
				       NU_MAXNODE, 0)));
	EXPECT_EQ(0, ERR_OF(mbind(self->buf, ps, MPOL_PREFERRED, &none,
				  NU_MAXNODE, 0)));
	EXPECT_EQ(0, ERR_OF(mbind(self->buf, self->len, MPOL_INTERLEAVE, &m0,
				  NU_MAXNODE, MPOL_MF_MOVE)));
	EXPECT_EQ(0, ERR_OF(mbind(self->buf, self->len, MPOL_BIND, &m1,
				  NU_MAXNODE, MPOL_MF_MOVE | MPOL_MF_STRICT)));
	EXPECT_EQ(4, nu_count_on_node(self->buf, 4, 1));
	EXPECT_EQ(-1, nu_verify(self->buf, self->len, 7));

	/* A range with a hole: EFAULT; MPOL_DEFAULT over it: fine */
	hole = nu_alloc(3);
	ASSERT_NE(NULL, hole);
	ASSERT_EQ(0, munmap(hole + ps, ps));
	EXPECT_EQ(EFAULT, ERR_OF(mbind(hole, 3 * ps, MPOL_BIND, &m0,
				       NU_MAXNODE, 0)));
	EXPECT_EQ(0, ERR_OF(mbind(hole, 3 * ps, MPOL_DEFAULT, NULL, 0, 0)));
	munmap(hole, ps);
	munmap(hole + 2 * ps, ps);
}

TEST_F(abi, move_and_migrate_pages)
{
	size_t ps = nu_page_size();
	void *pages[4];
	int nodes[4], status[4], i;
	unsigned long from = 1, to = 2;

	NU_RETURN_IF_SKIPPED();
	for (i = 0; i < 4; i++) {
		pages[i] = self->buf + i * ps;
		nodes[i] = i & 1;
	}
	EXPECT_EQ(0, ERR_OF(move_pages(0, 4, pages, nodes, status,
				       MPOL_MF_MOVE)));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(i & 1, status[i]);
	EXPECT_EQ(0, ERR_OF(move_pages(0, 4, pages, NULL, status, 0)));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(i & 1, status[i]);
	EXPECT_EQ(0, ERR_OF(move_pages(0, 0, pages, nodes, status, 0)));
	EXPECT_EQ(EINVAL, ERR_OF(move_pages(0, 4, pages, nodes, status, 0x10)));
	nodes[0] = self->bad;
	EXPECT_EQ(ENODEV, ERR_OF(move_pages(0, 4, pages, nodes, status,
					    MPOL_MF_MOVE)));
	EXPECT_EQ(ESRCH, ERR_OF(move_pages(nu_unused_pid(), 4, pages, NULL,
					   status, 0)));
	pages[1] = (void *)4096;
	EXPECT_EQ(0, ERR_OF(move_pages(0, 2, pages, NULL, status, 0)));
	EXPECT_EQ(-EFAULT, status[1]);
	EXPECT_EQ(-1, nu_verify(self->buf, self->len, 7));

	EXPECT_LE(0, migrate_pages(0, NU_MAXNODE, &from, &to));
	EXPECT_EQ(4, nu_count_on_node(self->buf, 4, 1));
	EXPECT_EQ(-1, nu_verify(self->buf, self->len, 7));
	EXPECT_EQ(ESRCH, ERR_OF(migrate_pages(nu_unused_pid(), NU_MAXNODE,
					      &from, &to)));
	to = 1UL << self->bad;
	EXPECT_EQ(EINVAL, ERR_OF(migrate_pages(0, NU_MAXNODE, &from, &to)));
}

/* An unprivileged process and root's: EPERM, and MOVE_ALL is CAP_SYS_NICE */
TEST_F(abi, permissions)
{
	int status;
	pid_t pid;

	NU_RETURN_IF_SKIPPED();
	if (geteuid() != 0)
		SKIP(return, "needs root to drop to uid %d", NOBODY);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		unsigned long m0 = 1, m1 = 2;
		void *page = self->buf;
		int node = 1, st, bad = 0;

		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(100);
		bad |= ERR_OF(mbind(self->buf, nu_page_size(), MPOL_BIND, &m1,
				    NU_MAXNODE, MPOL_MF_MOVE_ALL)) != EPERM;
		bad |= (ERR_OF(move_pages(1, 1, &page, &node, &st,
					  MPOL_MF_MOVE)) != EPERM) << 1;
		bad |= (ERR_OF(migrate_pages(1, NU_MAXNODE, &m0, &m1)) !=
			EPERM) << 2;
		bad |= (ERR_OF(move_pages(0, 1, &page, &node, &st,
					  MPOL_MF_MOVE_ALL)) != EPERM) << 3;
		_exit(bad);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("failed checks (bits: mbind MOVE_ALL, move_pages other, migrate_pages other, move_pages MOVE_ALL): 0x%x",
		       WEXITSTATUS(status));
}

/* numactl(8) and numastat(8), dynamically linked, in the initramfs */
TEST_F(abi, numactl_numastat)
{
	NU_RETURN_IF_SKIPPED();
	if (access("/bin/numactl", X_OK) || access("/bin/numastat", X_OK))
		SKIP(return, "no numactl/numastat in the initramfs");
	EXPECT_EQ(0, system("numactl --hardware > /dev/null"));
	EXPECT_EQ(0, system("numactl --membind=1 -- true"));
	EXPECT_EQ(0, system("numactl --interleave=all -- true"));
	EXPECT_EQ(0, system("numactl --preferred=1 --cpunodebind=0 -- true"));
	EXPECT_EQ(0, system("numastat > /dev/null"));
	EXPECT_EQ(0, system("numastat -p 1 > /dev/null"));
}

TEST_HARNESS_MAIN
