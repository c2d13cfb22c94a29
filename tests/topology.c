// SPDX-License-Identifier: GPL-2.0
/*
 * Guest NUMA topology as seen through sysfs, checked against the layout
 * that scripts/boot.sh says it booted: it passes sntopo=<TOPO> on the
 * kernel command line (no sntopo= means 2n, the layout boot.sh boots when
 * TOPO is unset).  For every node of the layout: the online map, the node's
 * cpulist (empty for a CPU-less node), its SLIT row, and MemTotal > 0 for a
 * node with memory, 0 for a memoryless one; plus the has_cpu and
 * has_memory node maps.  The table below must follow the
 * case "${TOPO:-2n}" block of scripts/boot.sh.
 *
 * SKIPs for an sntopo= this test has no table for, and, without sntopo=,
 * when node1 is absent (a single-node host, not a guest of boot.sh).
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include "numa_util.h"

#define TOPO_MAX_NODES	8

#ifndef TOPO_CMDLINE	/* overridable, as NU_SYSNODE, for dry runs */
#define TOPO_CMDLINE	"/proc/cmdline"
#endif

struct topo_layout {
	const char *name;
	int nr_nodes;			/* nodes 0 .. nr_nodes - 1, all online */
	const char *cpulist[TOPO_MAX_NODES];	/* "" for no CPUs */
	int has_mem[TOPO_MAX_NODES];
	int dist[TOPO_MAX_NODES][TOPO_MAX_NODES];
};

static const struct topo_layout layouts[] = {
	{	/* two sockets of 2 CPUs and 1 GiB */
		.name = "2n", .nr_nodes = 2,
		.cpulist = { "0-1", "2-3" },
		.has_mem = { 1, 1 },
		.dist = {
			{ 10, 20 },
			{ 20, 10 },
		},
	},
	{	/* 1 CPU and 512 MiB a node; 0-1, 2-3 at 11, across 21 */
		.name = "4n", .nr_nodes = 4,
		.cpulist = { "0", "1", "2", "3" },
		.has_mem = { 1, 1, 1, 1 },
		.dist = {
			{ 10, 11, 21, 21 },
			{ 11, 10, 21, 21 },
			{ 21, 21, 10, 11 },
			{ 21, 21, 11, 10 },
		},
	},
	{	/* 1 CPU and 256 MiB a node; pair 11, socket 12, across 32 */
		.name = "8n", .nr_nodes = 8,
		.cpulist = { "0", "1", "2", "3", "4", "5", "6", "7" },
		.has_mem = { 1, 1, 1, 1, 1, 1, 1, 1 },
		.dist = {
			{ 10, 11, 12, 12, 32, 32, 32, 32 },
			{ 11, 10, 12, 12, 32, 32, 32, 32 },
			{ 12, 12, 10, 11, 32, 32, 32, 32 },
			{ 12, 12, 11, 10, 32, 32, 32, 32 },
			{ 32, 32, 32, 32, 10, 11, 12, 12 },
			{ 32, 32, 32, 32, 11, 10, 12, 12 },
			{ 32, 32, 32, 32, 12, 12, 10, 11 },
			{ 32, 32, 32, 32, 12, 12, 11, 10 },
		},
	},
	{	/* 2n plus a CPU-less 512 MiB node 2 at 40 */
		.name = "cxl", .nr_nodes = 3,
		.cpulist = { "0-1", "2-3", "" },
		.has_mem = { 1, 1, 1 },
		.dist = {
			{ 10, 20, 40 },
			{ 20, 10, 40 },
			{ 40, 40, 10 },
		},
	},
	{	/* node 2: CPU 3 and no memory, 11 from node 1 */
		.name = "memless", .nr_nodes = 3,
		.cpulist = { "0-1", "2", "3" },
		.has_mem = { 1, 1, 0 },
		.dist = {
			{ 10, 20, 20 },
			{ 20, 10, 11 },
			{ 20, 11, 10 },
		},
	},
};

/*
 * The value of sntopo= on the kernel command line, in val; 0 if found,
 * -ENOENT if absent, other -errno if TOPO_CMDLINE cannot be read.
 */
static int cmdline_sntopo(char *val, size_t size)
{
	static const char key[] = "sntopo=";
	char buf[4096], *p;
	int ret;

	ret = nu_read_file(TOPO_CMDLINE, buf, sizeof(buf));
	if (ret)
		return ret;
	for (p = buf; (p = strstr(p, key)); p++) {
		size_t len;

		if (p != buf && p[-1] != ' ')
			continue;	/* the tail of another parameter */
		p += sizeof(key) - 1;
		len = strcspn(p, " \t\n");
		if (len >= size)
			len = size - 1;
		memcpy(val, p, len);
		val[len] = '\0';
		return 0;
	}
	return -ENOENT;
}

/* "0-2", "0-1,3", "" as the kernel prints a node map (%*pbl). */
static void format_nodelist(const int *in, int n, char *buf, size_t size)
{
	size_t len = 0;
	int a = 0;

	buf[0] = '\0';
	while (a < n) {
		int b;

		if (!in[a]) {
			a++;
			continue;
		}
		for (b = a; b + 1 < n && in[b + 1]; b++)
			;
		if (b == a)
			len += snprintf(buf + len, size - len, "%s%d",
					len ? "," : "", a);
		else
			len += snprintf(buf + len, size - len, "%s%d-%d",
					len ? "," : "", a, b);
		a = b + 1;
	}
}

FIXTURE(topology) {
	char buf[4096];
	char path[128];
	const struct topo_layout *l;
};

FIXTURE_SETUP(topology)
{
	char name[64];
	size_t i;
	int ret;

	ret = cmdline_sntopo(name, sizeof(name));
	if (ret == -ENOENT) {
		if (!nu_node_exists(1))
			SKIP(return, "no sntopo= and %s/node1 absent: not a guest of boot.sh",
			     NU_SYSNODE);
		strcpy(name, "2n");
	} else {
		ASSERT_EQ(0, ret) TH_LOG(TOPO_CMDLINE ": %s", strerror(-ret));
	}
	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (!strcmp(name, layouts[i].name))
			self->l = &layouts[i];
	if (!self->l)
		SKIP(return, "sntopo=%s: no such layout in this test (2n 4n 8n cxl memless)",
		     name);
	TH_LOG("layout %s", self->l->name);
}

FIXTURE_TEARDOWN(topology)
{
}

TEST_F(topology, nodes_online)
{
	int all[TOPO_MAX_NODES], node;
	char want[64];

	NU_RETURN_IF_SKIPPED();
	for (node = 0; node < TOPO_MAX_NODES; node++)
		all[node] = node < self->l->nr_nodes;
	format_nodelist(all, TOPO_MAX_NODES, want, sizeof(want));
	ASSERT_EQ(0, nu_read_file(NU_SYSNODE "/online", self->buf,
				  sizeof(self->buf)));
	EXPECT_STREQ(want, self->buf);
}

TEST_F(topology, node_cpulists)
{
	int node;

	NU_RETURN_IF_SKIPPED();
	for (node = 0; node < self->l->nr_nodes; node++) {
		snprintf(self->path, sizeof(self->path),
			 NU_SYSNODE "/node%d/cpulist", node);
		/* a CPU-less node's cpulist is an empty line */
		ASSERT_EQ(0, nu_read_file(self->path, self->buf,
					  sizeof(self->buf)))
			TH_LOG("%s", self->path);
		EXPECT_STREQ(self->l->cpulist[node], self->buf)
			TH_LOG("%s", self->path);
	}
}

/* has_cpu and has_memory: the nodes with CPUs, with memory. */
TEST_F(topology, node_states)
{
	int cpu[TOPO_MAX_NODES] = { 0 }, node;
	char want[64];

	NU_RETURN_IF_SKIPPED();
	for (node = 0; node < self->l->nr_nodes; node++)
		cpu[node] = self->l->cpulist[node][0] != '\0';
	format_nodelist(cpu, TOPO_MAX_NODES, want, sizeof(want));
	ASSERT_EQ(0, nu_read_file(NU_SYSNODE "/has_cpu", self->buf,
				  sizeof(self->buf)));
	EXPECT_STREQ(want, self->buf) TH_LOG("has_cpu");
	format_nodelist(self->l->has_mem, TOPO_MAX_NODES, want, sizeof(want));
	ASSERT_EQ(0, nu_read_file(NU_SYSNODE "/has_memory", self->buf,
				  sizeof(self->buf)));
	EXPECT_STREQ(want, self->buf) TH_LOG("has_memory");
}

TEST_F(topology, node_meminfo)
{
	int node;

	NU_RETURN_IF_SKIPPED();
	for (node = 0; node < self->l->nr_nodes; node++) {
		long long total = -1;
		char *line;
		int n;

		snprintf(self->path, sizeof(self->path),
			 NU_SYSNODE "/node%d/meminfo", node);
		ASSERT_EQ(0, nu_read_file(self->path, self->buf,
					  sizeof(self->buf)))
			TH_LOG("%s", self->path);
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
		if (self->l->has_mem[node]) {
			EXPECT_GT(total, 0) TH_LOG("node%d should have memory",
						   node);
		} else {
			EXPECT_EQ(0, total) TH_LOG("node%d should have no memory",
						   node);
		}
	}
}

TEST_F(topology, node_distance)
{
	int node, to;

	NU_RETURN_IF_SKIPPED();
	for (node = 0; node < self->l->nr_nodes; node++) {
		char want[TOPO_MAX_NODES * 4 + 1];
		size_t len = 0;

		/* one entry per online node, which are nodes 0 .. nr - 1 */
		want[0] = '\0';
		for (to = 0; to < self->l->nr_nodes; to++)
			len += snprintf(want + len, sizeof(want) - len, "%s%d",
					to ? " " : "", self->l->dist[node][to]);
		snprintf(self->path, sizeof(self->path),
			 NU_SYSNODE "/node%d/distance", node);
		ASSERT_EQ(0, nu_read_file(self->path, self->buf,
					  sizeof(self->buf)))
			TH_LOG("%s", self->path);
		EXPECT_STREQ(want, self->buf) TH_LOG("%s", self->path);
	}
}

TEST_HARNESS_MAIN
