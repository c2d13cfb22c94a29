// SPDX-License-Identifier: GPL-2.0
/*
 * Task policy MPOL_INTERLEAVE over nodes {0,1}.
 *
 * In linux-6.1 an anonymous fault under an interleave policy picks the node
 * with interleave_nid() -> offset_il_node(): (vma->vm_pgoff + page index) %
 * nr_nodes, so 64 consecutive pages split exactly 32/32 (deterministic, not
 * a statistical check).  Each such page allocated on its intended node bumps
 * NUMA_INTERLEAVE_HIT ("numa_interleave" in /proc/vmstat) when
 * vm.numa_stat is enabled (alloc_page_interleave()).
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include "numa_util.h"

#define NPAGES	64

FIXTURE(interleave) {
	char *buf;
	size_t len;
};

FIXTURE_SETUP(interleave)
{
	if (!nu_have_two_nodes())
		SKIP(return, "needs NUMA nodes 0 and 1");
	self->len = NPAGES * nu_page_size();
}

FIXTURE_TEARDOWN(interleave)
{
	nu_free(self->buf, NPAGES);
	set_mempolicy(MPOL_DEFAULT, NULL, 0);
}

static int numa_stat_enabled(void)
{
	char buf[16];

	if (nu_read_file("/proc/sys/vm/numa_stat", buf, sizeof(buf)))
		return 1;	/* no knob: stats always on */
	return buf[0] != '0';
}

TEST_F(interleave, task_policy_64_pages)
{
	unsigned long mask = NU_MASK(0) | NU_MASK(1), got = 0;
	long long before, after;
	long on0, on1;
	int mode = -1;

	NU_RETURN_IF_SKIPPED();
	before = nu_vmstat("numa_interleave");
	ASSERT_GE(before, 0);

	ASSERT_EQ(0, set_mempolicy(MPOL_INTERLEAVE, &mask, NU_MAXNODE));
	ASSERT_EQ(0, get_mempolicy(&mode, &got, NU_MAXNODE, NULL, 0));
	EXPECT_EQ(MPOL_INTERLEAVE, mode);
	EXPECT_EQ(mask, got);

	self->buf = nu_alloc(NPAGES);
	ASSERT_NE(NULL, self->buf);
	nu_fill(self->buf, self->len, 0xa1);

	on0 = nu_count_on_node(self->buf, NPAGES, 0);
	on1 = nu_count_on_node(self->buf, NPAGES, 1);
	TH_LOG("node0 %ld pages, node1 %ld pages", on0, on1);
	EXPECT_EQ(NPAGES, on0 + on1);
	/* each node gets 40%..60% of the pages */
	EXPECT_GE(on0 * 100, NPAGES * 40);
	EXPECT_LE(on0 * 100, NPAGES * 60);
	EXPECT_GE(on1 * 100, NPAGES * 40);
	EXPECT_LE(on1 * 100, NPAGES * 60);
	ASSERT_EQ(-1, nu_verify(self->buf, self->len, 0xa1));

	after = nu_vmstat("numa_interleave");
	TH_LOG("numa_interleave %lld -> %lld", before, after);
	EXPECT_GE(after, before);
	if (numa_stat_enabled())
		EXPECT_GE(after - before, NPAGES);

	/* Back to default; get_mempolicy must agree. */
	ASSERT_EQ(0, set_mempolicy(MPOL_DEFAULT, NULL, 0));
	mode = -1;
	ASSERT_EQ(0, get_mempolicy(&mode, NULL, 0, NULL, 0));
	EXPECT_EQ(MPOL_DEFAULT, mode);
	ASSERT_EQ(-1, nu_verify(self->buf, self->len, 0xa1));
}

TEST_F(interleave, reset_restores_local_alloc)
{
	unsigned long mask = NU_MASK(0) | NU_MASK(1);
	int mode = -1;

	NU_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, set_mempolicy(MPOL_INTERLEAVE, &mask, NU_MAXNODE));
	ASSERT_EQ(0, set_mempolicy(MPOL_DEFAULT, NULL, 0));
	ASSERT_EQ(0, get_mempolicy(&mode, NULL, 0, NULL, 0));
	ASSERT_EQ(MPOL_DEFAULT, mode);

	/* Default = local: running on node 1 CPUs, new pages come from node 1. */
	ASSERT_EQ(0, nu_pin_to_node(1));
	self->buf = nu_alloc(NPAGES);
	ASSERT_NE(NULL, self->buf);
	nu_fill(self->buf, self->len, 0xa2);
	EXPECT_EQ(NPAGES, nu_count_on_node(self->buf, NPAGES, 1));
	ASSERT_EQ(-1, nu_verify(self->buf, self->len, 0xa2));
}

TEST_HARNESS_MAIN
