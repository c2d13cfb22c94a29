// SPDX-License-Identifier: GPL-2.0
/*
 * Which nodes may be homes, on every layout of scripts/boot.sh (0029):
 * a home needs memory for its tasks' pages and CPUs to run them, so a
 * CPU-less memory node (TOPO=cxl) is never one, nor a node whose CPUs have
 * no memory (TOPO=memless); a task that runs on such a node's CPUs gets
 * the node with CPUs and memory nearest to it (SLIT).  Node counts, CPUs,
 * memory and distances come from sysfs.
 *
 * homes fixture (sched/numa on, numad interval 100 ms):
 *   only_home_nodes      2 spinning processes per CPU, unpinned, for 20
 *                        intervals: every task of the system, polled every
 *                        200 ms, has no home or one on a node with CPUs
 *                        and memory.  On 2n and 4n every node qualifies and
 *                        the test checks the home is a node at all.
 *   memless_pinned       a spinning process pins itself to the CPUs of a
 *                        node without memory: its home is one of the
 *                        nodes nearest to that node that have CPUs and
 *                        memory, within 10 intervals, and still is 10
 *                        intervals later.  SKIP without such a node.
 *   memless_fork         a process pinned to those CPUs forks: the child's
 *                        home is one of those nodes from the start.  SKIP
 *                        as above.
 *   fork_spread          2 spinning children per CPU of the nodes that
 *                        can be homes (at most 64), forked one after the
 *                        other: each child's home, read as soon as it is
 *                        forked, is a node that can be one, and no node
 *                        gets more than its share by CPUs plus one, in
 *                        one of up to three rounds (a runnable task
 *                        elsewhere can tip one choice).  On
 *                        8n (32 across the sockets, above the 30 at which
 *                        the topology code stops fork balancing) the
 *                        children ran on their parent's socket whatever
 *                        their home, and the next choices, which count
 *                        runnable tasks where they run, sent every home
 *                        to the other socket: 4 on each of its nodes.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "numa_util.h"

#define INTERVAL	"/proc/sys/kernel/sched_numa_interval_ms"
#define TEST_INTERVAL_MS	100
#define MAXKIDS		64

FIXTURE(homes) {
	struct nu_numa_sysctls sysctls;
	char interval[32];
	int skip;
	int nnodes;
	int can_home[NU_MAXNODE];	/* CPUs and memory */
	int ncpus[NU_MAXNODE];
	pid_t kids[MAXKIDS];
	int nkids;
};

FIXTURE_SETUP(homes)
{
	int r;

	self->skip = 1;
	if (nu_home_node(0, 0) == NU_HOME_NOLINE)
		SKIP(return, "no home_node in /proc/self/sched (not this series)");
	if (getuid())
		SKIP(return, "needs root");
	for (int n = 0; n < (int)NU_MAXNODE; n++) {
		if (!nu_node_exists(n))
			continue;
		self->nnodes = n + 1;
		self->ncpus[n] = nu_node_nr_cpus(n);
		ASSERT_LE(0, self->ncpus[n]);
		r = nu_node_has_memory(n);
		ASSERT_LE(0, r);
		self->can_home[n] = self->ncpus[n] > 0 && r;
	}
	self->skip = 0;
	ASSERT_EQ(0, nu_read_file(INTERVAL, self->interval,
				  sizeof(self->interval)));
	r = nu_numa_sysctls_enter(&self->sysctls, 1);
	ASSERT_EQ(0, r) TH_LOG("sched_numa=1: %s", strerror(-r));
	EXPECT_EQ(0, nu_write_file(INTERVAL, "100"));	/* TEST_INTERVAL_MS */
}

FIXTURE_TEARDOWN(homes)
{
	for (int i = 0; i < self->nkids; i++) {
		kill(self->kids[i], SIGKILL);
		waitpid(self->kids[i], NULL, 0);
	}
	if (self->skip)
		return;
	EXPECT_EQ(0, nu_write_file(INTERVAL, self->interval));
	NU_EXPECT_SYSCTLS_RESTORED(&self->sysctls);
}

static void __attribute__((noreturn)) spin(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;)
		;
}

/*
 * SLIT distance from @a to @b (nodeA/distance), or -1.  Not libnuma's
 * numa_distance(): it pulls in libnuma.o and affinity.o, whose
 * getaddrinfo() draws glibc's static-link warning in every build.
 */
static int node_distance(int a, int b)
{
	char path[64], buf[1024], *p = buf, *e;

	snprintf(path, sizeof(path), NU_SYSNODE "/node%d/distance", a);
	if (nu_read_file(path, buf, sizeof(buf)))
		return -1;
	/* one figure per online node, in node order */
	for (int n = 0; n < (int)NU_MAXNODE; n++) {
		long d;

		if (!nu_node_exists(n))
			continue;
		d = strtol(p, &e, 10);
		if (e == p)
			return -1;
		if (n == b)
			return (int)d;
		p = e;
	}
	return -1;
}

/*
 * A node with CPUs and no memory, or -1; in @near the nodes that can be
 * homes at the least distance from it.
 */
static int memless_node(FIXTURE_DATA(homes) *self, int *near)
{
	int m, best = -1;

	for (m = 0; m < self->nnodes; m++)
		if (self->ncpus[m] > 0 && !self->can_home[m])
			break;
	if (m == self->nnodes)
		return -1;
	for (int n = 0; n < self->nnodes; n++) {
		int d = self->can_home[n] ? node_distance(m, n) : -1;

		near[n] = 0;
		if (d > 0 && (best < 0 || d < best))
			best = d;
	}
	for (int n = 0; n < self->nnodes; n++)
		near[n] = self->can_home[n] && best > 0 &&
			  node_distance(m, n) == best;
	return m;
}

/*
 * Every task's home: the first of them on a node that cannot be a home,
 * as "pid/tid home N" in @bad; 1 if there is one, 0 if not.
 */
static int bad_home(FIXTURE_DATA(homes) *self, char *bad, size_t size)
{
	DIR *d = opendir("/proc"), *td;
	struct dirent *p, *t;
	int found = 0;

	if (!d)
		return 0;
	while (!found && (p = readdir(d))) {
		char path[64];
		int pid = atoi(p->d_name);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		td = opendir(path);
		if (!td)
			continue;	/* gone */
		while (!found && (t = readdir(td))) {
			int tid = atoi(t->d_name), h;

			if (tid <= 0)
				continue;
			h = nu_home_node(pid, tid);
			if (h < 0)	/* none, or gone */
				continue;
			if (h >= self->nnodes || !self->can_home[h]) {
				snprintf(bad, size, "%d/%d home %d", pid, tid,
					 h);
				found = 1;
			}
		}
		closedir(td);
	}
	closedir(d);
	return found;
}

static pid_t spinner(int pin_node)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (pin_node >= 0 && nu_pin_to_node(pin_node))
			_exit(2);
		spin();
	}
	return pid;
}

TEST_F_TIMEOUT(homes, only_home_nodes, 300)
{
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), polls = 0;
	char bad[64] = "";

	NU_RETURN_IF_SKIPPED();
	for (int i = 0; i < 2 * ncpu && self->nkids < MAXKIDS; i++) {
		pid_t pid = spinner(-1);

		ASSERT_LT(0, pid);
		self->kids[self->nkids++] = pid;
	}
	/* 20 intervals of 100 ms, polled every 200 ms */
	for (polls = 0; polls < 10 && !bad_home(self, bad, sizeof(bad));
	     polls++)
		usleep(2 * TEST_INTERVAL_MS * 1000);
	EXPECT_STREQ("", bad) TH_LOG("a home on a node without CPUs or memory (poll %d)",
				     polls);
}

TEST_F_TIMEOUT(homes, memless_pinned, 300)
{
	int near[NU_MAXNODE], m, h = -1, i;

	NU_RETURN_IF_SKIPPED();
	m = memless_node(self, near);
	if (m < 0)
		SKIP(return, "no node with CPUs and no memory (TOPO=memless)");
	self->kids[self->nkids] = spinner(m);
	ASSERT_LT(0, self->kids[self->nkids]);
	self->nkids++;
	for (i = 0; i < 10; i++) {
		h = nu_home_node(self->kids[0], 0);
		if (h >= 0 && h < self->nnodes && near[h])
			break;
		usleep(TEST_INTERVAL_MS * 1000);
	}
	TH_LOG("pinned to node %d's CPUs: home %d after %d intervals", m, h,
	       i);
	ASSERT_TRUE(h >= 0 && h < self->nnodes && near[h]);
	usleep(10 * TEST_INTERVAL_MS * 1000);
	h = nu_home_node(self->kids[0], 0);
	EXPECT_TRUE(h >= 0 && h < self->nnodes && near[h])
		TH_LOG("10 intervals later: home %d", h);
}

TEST_F_TIMEOUT(homes, memless_fork, 300)
{
	int near[NU_MAXNODE], m, h, fds[2], st;
	pid_t pid;

	NU_RETURN_IF_SKIPPED();
	m = memless_node(self, near);
	if (m < 0)
		SKIP(return, "no node with CPUs and no memory (TOPO=memless)");
	ASSERT_EQ(0, pipe(fds));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* pinned there, then a child: its home from the start */
		pid_t c;

		close(fds[0]);
		if (nu_pin_to_node(m))
			_exit(2);
		c = fork();
		if (c == 0)
			spin();
		h = c > 0 ? nu_home_node(c, 0) : -100;
		if (c > 0) {
			kill(c, SIGKILL);
			waitpid(c, NULL, 0);
		}
		_exit(write(fds[1], &h, sizeof(h)) == sizeof(h) ? 0 : 3);
	}
	close(fds[1]);
	ASSERT_EQ((ssize_t)sizeof(h), nu_read_full(fds[0], &h, sizeof(h)));
	close(fds[0]);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	TH_LOG("forked on node %d's CPUs: home %d", m, h);
	EXPECT_TRUE(h >= 0 && h < self->nnodes && near[h]);
}

/*
 * One round of fork_spread: @n spinning children, each one's home read as
 * soon as it is forked; the first node over its share (by CPUs, rounded
 * up, plus one), or -1; the homes per node in @buf.
 */
static int fork_round(struct __test_metadata *_metadata,
		      FIXTURE_DATA(homes) *self, int n, int cpus, char *buf,
		      size_t size)
{
	int homes[NU_MAXNODE] = { 0 }, over = -1, h;
	size_t len = 0;

	for (int i = 0; i < n; i++) {
		pid_t pid = spinner(-1);

		if (pid <= 0)
			return -2;
		self->kids[self->nkids++] = pid;
		/* Its home as fork gave it, before numad can move it */
		h = nu_home_node(pid, 0);
		EXPECT_TRUE(h >= 0 && h < self->nnodes && self->can_home[h])
			TH_LOG("child %d: home %d", i, h);
		if (h < 0 || h >= self->nnodes || !self->can_home[h])
			return -2;
		homes[h]++;
	}
	buf[0] = '\0';
	for (int m = 0; m < self->nnodes; m++) {
		int share = (n * self->ncpus[m] + cpus - 1) / cpus + 1;

		if (!self->can_home[m])
			continue;
		len += snprintf(buf + len, size - len, "%snode %d: %d",
				len ? ", " : "", m, homes[m]);
		if (homes[m] > share && over < 0)
			over = m;
	}
	return over;
}

/*
 * A runnable task elsewhere (a kworker, the harness) can tip one choice:
 * up to three rounds, and one within the shares passes.  Before the fix
 * every round on 8n was far over (7 homes on one node of share 2).
 */
TEST_F_TIMEOUT(homes, fork_spread, 300)
{
	int cpus = 0, n, over = -1;
	char buf[256];

	NU_RETURN_IF_SKIPPED();
	for (int m = 0; m < self->nnodes; m++)
		cpus += self->can_home[m] ? self->ncpus[m] : 0;
	ASSERT_LT(0, cpus);
	n = 2 * cpus < MAXKIDS ? 2 * cpus : MAXKIDS;
	for (int round = 0; round < 3; round++) {
		over = fork_round(_metadata, self, n, cpus, buf, sizeof(buf));
		ASSERT_NE(-2, over);
		TH_LOG("round %d, %d children: %s", round, n, buf);
		for (int i = 0; i < self->nkids; i++) {
			kill(self->kids[i], SIGKILL);
			waitpid(self->kids[i], NULL, 0);
		}
		self->nkids = 0;
		if (over < 0)
			break;
	}
	EXPECT_EQ(-1, over) TH_LOG("node %d over its share in 3 rounds", over);
}

TEST_HARNESS_MAIN
