// SPDX-License-Identifier: GPL-2.0
/*
 * Guest NUMA topology as seen through sysfs:
 *   node 0 = CPUs 0-1, node 1 = CPUs 2-3, memory on both, SLIT 10/20.
 * SKIPs when node1 is absent (e.g. a single-node host).
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include "numa_util.h"

FIXTURE(topology) {
	char buf[4096];
};

FIXTURE_SETUP(topology)
{
	if (!nu_node_exists(1))
		SKIP(return, "%s/node1 absent: not a 2-node system", NU_SYSNODE);
}

FIXTURE_TEARDOWN(topology)
{
}

TEST_F(topology, nodes_online)
{
	NU_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, nu_read_file(NU_SYSNODE "/online", self->buf,
				  sizeof(self->buf)));
	EXPECT_STREQ("0-1", self->buf);
}

TEST_F(topology, node_cpulists)
{
	NU_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, nu_read_file(NU_SYSNODE "/node0/cpulist", self->buf,
				  sizeof(self->buf)));
	EXPECT_STREQ("0-1", self->buf);
	ASSERT_EQ(0, nu_read_file(NU_SYSNODE "/node1/cpulist", self->buf,
				  sizeof(self->buf)));
	EXPECT_STREQ("2-3", self->buf);
}

TEST_F(topology, node_meminfo)
{
	int node;

	NU_RETURN_IF_SKIPPED();
	for (node = 0; node < 2; node++) {
		char path[80], *line;
		long long total = -1;
		int n;

		snprintf(path, sizeof(path), NU_SYSNODE "/node%d/meminfo", node);
		ASSERT_EQ(0, nu_read_file(path, self->buf, sizeof(self->buf)));
		/* "Node 0 MemTotal:        1048576 kB" */
		for (line = strtok(self->buf, "\n"); line;
		     line = strtok(NULL, "\n")) {
			long long v;

			if (sscanf(line, "Node %d MemTotal: %lld", &n, &v) == 2) {
				EXPECT_EQ(node, n);
				total = v;
				break;
			}
		}
		TH_LOG("node%d MemTotal %lld kB", node, total);
		EXPECT_GT(total, 0);
	}
}

TEST_F(topology, node_distance)
{
	NU_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, nu_read_file(NU_SYSNODE "/node0/distance", self->buf,
				  sizeof(self->buf)));
	EXPECT_STREQ("10 20", self->buf);
	ASSERT_EQ(0, nu_read_file(NU_SYSNODE "/node1/distance", self->buf,
				  sizeof(self->buf)));
	EXPECT_STREQ("20 10", self->buf);
}

TEST_HARNESS_MAIN
