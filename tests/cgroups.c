// SPDX-License-Identifier: GPL-2.0
/*
 * sched/numa under cgroup v2 (scripts/boot.sh's guest mounts it at
 * /sys/fs/cgroup with the cpuset, cpu and memory controllers enabled for
 * children), as on a distribution that runs systemd.
 *
 *   cpuset_home_follows    a process moved into a cpuset of the other
 *                          node's CPUs and memory gets that node as its
 *                          home, and its memory goes there (cpuset's own
 *                          migration with v2's memory_migrate); the cpuset's
 *                          CPUs rewritten to the first node: the home comes
 *                          back.  Data checked by the process on every pass.
 *   cpuset_mems_rule       CPUs of one node, mems of the other: the home
 *                          follows the CPUs, the memory stays within the
 *                          mems over 3 of the process's passes over it.
 *   memcg_at_limit_moves   a process in a memory cgroup whose memory.max is
 *                          its usage plus 256 KiB, first touched on one
 *                          node, then made to run on the other: numad moves
 *                          it and its memory follows on next touch, with no
 *                          OOM kill in the group and the data intact.
 *   memcg_move_between     the same after the process moved from one memory
 *                          cgroup to another (the charges stay behind, as
 *                          v2 does).
 *
 * The waits are hang guards (GUARD_S), not timed assertions: what is
 * checked is where the home and the pages end up.
 */
#define _GNU_SOURCE
#include "numa_util.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <time.h>
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#define CG		"/sys/fs/cgroup"
#define CG_A		CG "/sn_test_a"
#define CG_B		CG "/sn_test_b"
#define NPAGES		8192		/* 32 MiB */
#define SEED		0x6367ULL
#define GUARD_S		120
#define TIMEOUT		400

struct worker {
	char *buf;			/* in the worker's address space */
	volatile long passes;		/* full passes over buf */
	volatile long bad;		/* pattern mismatches seen */
	volatile int ready;
};

/* Fill buf where it runs, then read it over and over, checking it. */
static void worker_main(struct worker *w, int node)
{
	size_t len = (size_t)NPAGES * nu_page_size();

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (node >= 0 && nu_pin_to_node(node))
		_exit(2);
	w->buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->buf == MAP_FAILED)
		_exit(3);
	nu_fill(w->buf, len, SEED);
	w->ready = 1;
	for (;;) {
		if (nu_verify(w->buf, len, SEED) != -1)
			w->bad++;
		w->passes++;
	}
}

static int cg_write(const char *dir, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return nu_write_file(path, val);
}

static long long cg_read_ll(const char *dir, const char *file,
			    const char *key)
{
	char path[256], buf[4096], *p;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (nu_read_file(path, buf, sizeof(buf)))
		return -1;
	if (!key)
		return atoll(buf);
	p = strstr(buf, key);
	return p ? atoll(p + strlen(key)) : -1;
}

static int cg_attach(const char *dir, pid_t pid)
{
	char val[32];

	snprintf(val, sizeof(val), "%d", pid);
	return cg_write(dir, "cgroup.procs", val);
}

static int node_cpulist(int node, char *buf, size_t size)
{
	char path[80];

	snprintf(path, sizeof(path), NU_SYSNODE "/node%d/cpulist", node);
	return nu_read_file(path, buf, size);
}

FIXTURE(cg) {
	struct nu_numa_sysctls sysctls;
	int restore;
	struct worker *w;
	pid_t pid;
};

FIXTURE_SETUP(cg)
{
	char ctl[256];
	int r;

	if (geteuid() != 0)
		SKIP(return, "needs root");
	if (access(NU_SCHED_NUMA, F_OK))
		SKIP(return, "kernel lacks sched/numa");
	if (nu_read_file(CG "/cgroup.subtree_control", ctl, sizeof(ctl)) ||
	    !strstr(ctl, "cpuset") || !strstr(ctl, "memory"))
		SKIP(return, "no cgroup v2 with cpuset and memory at " CG);
	if (nu_no_two_cpu_nodes())
		SKIP(return, "%s", nu_no_two_cpu_nodes());
	rmdir(CG_A);
	rmdir(CG_B);
	ASSERT_EQ(0, mkdir(CG_A, 0755)) TH_LOG("mkdir " CG_A ": %s",
					       strerror(errno));
	ASSERT_EQ(0, mkdir(CG_B, 0755)) TH_LOG("mkdir " CG_B ": %s",
					       strerror(errno));
	self->w = mmap(NULL, sizeof(*self->w), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->w);
	r = nu_numa_sysctls_enter(&self->sysctls, 1);
	ASSERT_EQ(0, r) TH_LOG("sched_numa 1: %s", strerror(-r));
	self->restore = 1;
}

FIXTURE_TEARDOWN(cg)
{
	int status;

	_metadata->trigger = 0;
	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		waitpid(self->pid, &status, 0);
	}
	if (self->restore)
		NU_EXPECT_SYSCTLS_RESTORED(&self->sysctls);
	/* Empty once the worker is reaped */
	EXPECT_EQ(0, rmdir(CG_A)) TH_LOG("rmdir " CG_A ": %s", strerror(errno));
	EXPECT_EQ(0, rmdir(CG_B)) TH_LOG("rmdir " CG_B ": %s", strerror(errno));
}

/* Start the worker (in cgroup @dir unless NULL) first touching on @node */
static void start_worker(struct __test_metadata *_metadata,
			 FIXTURE_DATA(cg) *self, const char *dir, int node)
{
	long long t0 = time(NULL);
	int fd[2];
	char c;

	ASSERT_EQ(0, pipe(fd));
	fflush(stdout);
	fflush(stderr);
	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (self->pid == 0) {
		close(fd[1]);
		/* Into its cgroup before it allocates anything */
		if (read(fd[0], &c, 1) != 1)
			_exit(1);
		worker_main(self->w, node);
	}
	close(fd[0]);
	if (dir)
		ASSERT_EQ(0, cg_attach(dir, self->pid));
	ASSERT_EQ(1, write(fd[1], "g", 1));
	close(fd[1]);
	while (!self->w->ready) {
		ASSERT_LT(time(NULL) - t0, GUARD_S)
			TH_LOG("worker not ready after %d s", GUARD_S);
		usleep(10000);
	}
}

/* Wait (hang guard) until the worker's home node is @node */
static void wait_home(struct __test_metadata *_metadata,
		      FIXTURE_DATA(cg) *self, int node, const char *when)
{
	long long t0 = time(NULL);
	int h;

	while ((h = nu_home_node(self->pid, 0)) != node &&
	       time(NULL) - t0 < GUARD_S)
		usleep(20000);
	EXPECT_EQ(node, h) TH_LOG("%s: home node %d, want %d (after %d s)",
				  when, h, node, GUARD_S);
}

/* Wait (hang guard) until >= 90% of the worker's pages are on @node */
static long wait_pages(struct __test_metadata *_metadata,
		       FIXTURE_DATA(cg) *self, int node, const char *when)
{
	long long t0 = time(NULL);
	long n;

	while ((n = nu_count_on_node_pid(self->pid, self->w->buf, NPAGES,
					 node)) < NPAGES * 9 / 10 &&
	       time(NULL) - t0 < GUARD_S)
		usleep(100000);
	EXPECT_LE(NPAGES * 9 / 10, n)
		TH_LOG("%s: %ld of %d pages on node %d after %d s", when, n,
		       NPAGES, node, GUARD_S);
	return n;
}

/* Let the worker make @n more passes over its memory */
static void wait_passes(struct __test_metadata *_metadata,
			FIXTURE_DATA(cg) *self, long n)
{
	long long t0 = time(NULL);
	long want = self->w->passes + n;

	while (self->w->passes < want && time(NULL) - t0 < GUARD_S)
		usleep(10000);
	ASSERT_LE(want, self->w->passes) TH_LOG("worker stuck");
}

TEST_F_TIMEOUT(cg, cpuset_home_follows, TIMEOUT)
{
	char cpus[2][64];

	NU_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, node_cpulist(0, cpus[0], sizeof(cpus[0])));
	ASSERT_EQ(0, node_cpulist(1, cpus[1], sizeof(cpus[1])));
	ASSERT_EQ(0, cg_write(CG_A, "cpuset.cpus", cpus[1]));
	ASSERT_EQ(0, cg_write(CG_A, "cpuset.mems", "1"));

	start_worker(_metadata, self, NULL, 0);
	ASSERT_EQ(0, cg_attach(CG_A, self->pid));
	wait_home(_metadata, self, 1, "in a cpuset of node 1");
	wait_pages(_metadata, self, 1, "in a cpuset of node 1");

	/* The cpuset's CPUs change under it (and its mems, or it cannot
	 * allocate where it runs): the home follows. */
	ASSERT_EQ(0, cg_write(CG_A, "cpuset.mems", "0-1"));
	ASSERT_EQ(0, cg_write(CG_A, "cpuset.cpus", cpus[0]));
	wait_home(_metadata, self, 0, "the cpuset's CPUs now node 0's");
	wait_passes(_metadata, self, 3);
	EXPECT_EQ(0, self->w->bad) TH_LOG("the worker saw its data change");
}

TEST_F_TIMEOUT(cg, cpuset_mems_rule, TIMEOUT)
{
	char cpus[64];
	long n;

	NU_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, node_cpulist(1, cpus, sizeof(cpus)));
	ASSERT_EQ(0, cg_write(CG_A, "cpuset.cpus", cpus));
	ASSERT_EQ(0, cg_write(CG_A, "cpuset.mems", "0"));

	start_worker(_metadata, self, NULL, 0);
	ASSERT_EQ(0, cg_attach(CG_A, self->pid));
	wait_home(_metadata, self, 1, "CPUs of node 1, mems 0");
	wait_passes(_metadata, self, 3);
	n = nu_count_on_node_pid(self->pid, self->w->buf, NPAGES, 0);
	EXPECT_EQ(NPAGES, n) TH_LOG("%ld of %d pages on node 0, the cpuset's only memory",
				    n, NPAGES);
	EXPECT_EQ(0, self->w->bad) TH_LOG("the worker saw its data change");
}

/* Run the worker on node 1's CPUs: its home and memory follow */
static void move_to_node1(struct __test_metadata *_metadata,
			  FIXTURE_DATA(cg) *self)
{
	cpu_set_t set;

	ASSERT_EQ(0, nu_node_cpuset(1, &set));
	ASSERT_EQ(0, sched_setaffinity(self->pid, sizeof(set), &set));
	wait_home(_metadata, self, 1, "allowed on node 1 only");
	wait_pages(_metadata, self, 1, "allowed on node 1 only");
	wait_passes(_metadata, self, 2);
}

TEST_F_TIMEOUT(cg, memcg_at_limit_moves, TIMEOUT)
{
	long long cur, oom;
	char val[32];

	NU_RETURN_IF_SKIPPED();
	start_worker(_metadata, self, CG_A, 0);
	cur = cg_read_ll(CG_A, "memory.current", NULL);
	ASSERT_LT(0, cur);
	snprintf(val, sizeof(val), "%lld", cur + 256 * 1024);
	ASSERT_EQ(0, cg_write(CG_A, "memory.max", val));
	TH_LOG("memory.current %lld, memory.max %s", cur, val);

	move_to_node1(_metadata, self);
	oom = cg_read_ll(CG_A, "memory.events", "oom_kill ");
	EXPECT_EQ(0, oom) TH_LOG("OOM kills in the group: %lld", oom);
	EXPECT_EQ(0, kill(self->pid, 0)) TH_LOG("the worker is gone");
	EXPECT_EQ(0, self->w->bad) TH_LOG("the worker saw its data change");
}

TEST_F_TIMEOUT(cg, memcg_move_between, TIMEOUT)
{
	long long a, b;

	NU_RETURN_IF_SKIPPED();
	start_worker(_metadata, self, CG_A, 0);
	ASSERT_EQ(0, cg_attach(CG_B, self->pid));
	move_to_node1(_metadata, self);
	a = cg_read_ll(CG_A, "memory.current", NULL);
	b = cg_read_ll(CG_B, "memory.current", NULL);
	TH_LOG("memory.current: first group %lld, second %lld", a, b);
	/* v2 leaves the charges with the first group; migration keeps them */
	EXPECT_LE((long long)NPAGES * (long long)nu_page_size() * 9 / 10, a);
	EXPECT_EQ(0, self->w->bad) TH_LOG("the worker saw its data change");
}

TEST_HARNESS_MAIN
