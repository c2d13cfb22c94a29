// SPDX-License-Identifier: GPL-2.0
/*
 * Per-node resident pages of a process (NumaRss: in /proc/PID/status), and
 * numad moving memory that sits off its process's home node.
 *
 * Interface under test:
 *   /proc/PID/status has "NumaRss:\tN0=<kB> kB N1=<kB> kB": the pages the
 *   process maps on each node, counted where pages enter and leave its page
 *   tables, in the processes made once sched/numa was first switched on.  Each node's figure is the sum of the N<node>= fields of
 *   /proc/PID/numa_maps (pages) over the process's mappings (no hugetlb
 *   here), exactly, whenever nothing changes the mappings meanwhile.
 *   With sched/numa on and the NUMA_MISPLACED feature, numad marks the
 *   pages a process has off its home node to move home on next touch,
 *   once its counts show more than 1 MiB and 1/8 of it there; after a
 *   walk that marked nothing, it backs off (1, 2, 4 ... intervals).
 *   /sys/kernel/debug/sched/numad counts the walks (misplaced_walks).
 *
 * numa_rss fixture, the counters (sched/numa off; counting started by
 * start_counting() before the harness forks the tests):
 *   counting_starts    counting starts the first time sched/numa is
 *                      switched on: init (made at boot) has no counts unless
 *                      booted with sched_numa=1, a process made before has
 *                      none and its child made after has, and the switch
 *                      races processes faulting, forking and exiting (make
 *                      check runs this program first, tests/Makefile).
 *   matches_numa_maps  NumaRss == numa_maps after faults on both nodes (4K
 *                      and THP), migration both ways (mbind MOVE, 4K and
 *                      THP), a fork child's view before and after COW, the
 *                      parent after the child's exit, mremap, MADV_DONTNEED,
 *                      munmap, shared anonymous memory, and exec (a fresh
 *                      image checks its own counts).  Contents verified
 *                      after every migration.  An unbalanced count would
 *                      also print "BUG: Bad numa_rss state" at exit, which
 *                      fails the run (console check).
 *   fork_exit_many     200 children fault, fork grandchildren and exit while
 *                      the parent's counts are checked: no BUG at exit.
 * misplaced fixture (sched/numa on, numad interval 200 ms):
 *   fixed              a child with a home node first touches 32 MiB under
 *                      MPOL_BIND to the other node, drops the policy and
 *                      keeps reading: >= 90% of it moves home, the contents
 *                      intact, and numad counted walks.
 *   from_cpuless       the same from a node with memory and no CPUs
 *                      (TOPO=cxl; SKIP without one), 32 MiB: watched
 *                      through NumaRss, every page comes home, and
 *                      pgmigrate_success grew by exactly those pages;
 *                      NumaRss == numa_maps, contents intact.  Prints how
 *                      many numad intervals it took.
 *   feature_off        the same with NUMA_MISPLACED off, observed for 10
 *                      intervals: every page stays, no walk.
 *   sched_numa_off     the same with kernel.sched_numa=0: the child has no
 *                      home node, and for 2 s (numad sleeps) nothing is
 *                      walked or marked, every page stays.
 *   backoff            16 MiB of shared anonymous memory (shmem: numad does
 *                      not move it) off home: over 16 numad intervals numad
 *                      walks the process at most 6 times, not 16.
 *   pinned_thread      16 MiB off home, first touched and read by a thread
 *                      pinned to the other node, whose own home is there:
 *                      every walk marks the pages again and no hinting
 *                      fault moves them.  Over 60 intervals after the first
 *                      walk numad walks the child at most 7 times (backing
 *                      off on what moved: 5; on what was marked, as the
 *                      first version did: 15), the child keeps its home,
 *                      every page stays where it is, intact.
 *   walk_bounded       272 MiB off home: the first walk that marks pages
 *                      marks at most 256 MiB (65,536 pages), later walks
 *                      the rest; >= 90% moves home, contents intact.  SKIP
 *                      where a node with CPUs has less than 336 MiB (8n).
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "numa_util.h"

#define HPAGE		(2 * MIB)
#define THP_ENABLED	"/sys/kernel/mm/transparent_hugepage/enabled"
#define INTERVAL	"/proc/sys/kernel/sched_numa_interval_ms"
#define TEST_INTERVAL	"200"
#define NUMAD_STATS	"/sys/kernel/debug/sched/numad"
#define FEATURE		"NUMA_MISPLACED"
#define EXEC_ENV	"NUMA_RSS_EXEC_CHECK"
#define RSS_TIMEOUT	300	/* seconds; the guest runs under TCG */

/* At least p% of n, rounded up */
#define PCT(n, p)	(((long)(n) * (p) + 99) / 100)

/* Per-node pages, from one of the two sources */
struct nodes {
	long n[NU_MAXNODE];
};

/*
 * Read /proc/@pid/@file into @buf, whose pages are touched first: a read
 * into them must not fault in pages of the process it measures.
 * 0 or -errno.
 */
static int read_proc(pid_t pid, const char *file, char *buf, size_t size)
{
	char path[64];
	ssize_t len;
	int fd;

	memset(buf, 0, size);
	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = nu_read_full(fd, buf, size - 1);
	close(fd);
	if (len < 0)
		return -EIO;
	buf[len] = '\0';
	return 0;
}

/* Sum of the N<node>=<pages> fields of /proc/PID/numa_maps.  0 or -errno. */
static int numa_maps_nodes(pid_t pid, struct nodes *out)
{
	static char buf[1 << 20];
	char *line, *save;
	int r;

	memset(out, 0, sizeof(*out));
	r = read_proc(pid, "numa_maps", buf, sizeof(buf));
	if (r)
		return r;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *tok, *s2;

		if (strstr(line, " huge "))	/* hugetlb: not counted */
			continue;
		for (tok = strtok_r(line, " ", &s2); tok;
		     tok = strtok_r(NULL, " ", &s2)) {
			int node;
			long pages;

			if (sscanf(tok, "N%d=%ld", &node, &pages) == 2 &&
			    node >= 0 && node < (int)NU_MAXNODE)
				out->n[node] += pages;
		}
	}
	return 0;
}

/* The NumaRss: line of /proc/PID/status, in pages.  0 or -errno. */
static int numa_rss_nodes(pid_t pid, struct nodes *out)
{
	return nu_numa_rss(pid, out->n);
}

/*
 * Compare the two for @pid, which must not change its mappings meanwhile;
 * numa_maps is read before and after, and a change between (khugepaged)
 * means another try.  0 if equal, 1 if not (both left in @a, @b), -errno.
 */
static int compare_nodes(pid_t pid, struct nodes *a, struct nodes *b)
{
	struct nodes again;
	int tries, r;

	for (tries = 0; tries < 10; tries++) {
		r = numa_maps_nodes(pid, a);
		if (!r)
			r = numa_rss_nodes(pid, b);
		if (!r)
			r = numa_maps_nodes(pid, &again);
		if (r)
			return r;
		if (memcmp(a, &again, sizeof(again)))
			continue;
		return memcmp(a, b, sizeof(*a)) ? 1 : 0;
	}
	return 1;
}

/* Check self and log both if they differ; returns compare_nodes() */
static int check_self(struct __test_metadata *_metadata, const char *what)
{
	static struct nodes maps, rss;	/* static: no new stack page */
	int r = compare_nodes(getpid(), &maps, &rss);

	EXPECT_EQ(0, r) {
		TH_LOG("%s: NumaRss N0=%ld N1=%ld, numa_maps N0=%ld N1=%ld (pages; r=%d)",
		       what, rss.n[0], rss.n[1], maps.n[0], maps.n[1], r);
	}
	return r;
}

/* Touch [p, p + len) with the pattern, its pages placed on @node by BIND */
static int fill_on(char *p, size_t len, int node, uint64_t seed)
{
	unsigned long mask = NU_MASK(node);

	if (mbind(p, len, MPOL_BIND, &mask, NU_MAXNODE, 0))
		return -errno;
	nu_fill(p, len, seed);
	return 0;
}

/* mbind(MPOL_BIND, MPOL_MF_MOVE) of [p, p + len) to @node */
static int move_to(char *p, size_t len, int node)
{
	unsigned long mask = NU_MASK(node);

	return mbind(p, len, MPOL_BIND, &mask, NU_MAXNODE,
		     MPOL_MF_MOVE) ? -errno : 0;
}

static char *map_thp(size_t len)
{
	char *raw = mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p;

	if (raw == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)raw + HPAGE - 1) & ~(uintptr_t)(HPAGE - 1));
	madvise(p, len, MADV_HUGEPAGE);
	return p;
}

/* A fresh image checks its own counts (exec case): exit 0 if they match */
__attribute__((constructor)) static void exec_check(void)
{
	struct nodes a, b;

	if (!getenv(EXEC_ENV))
		return;
	_exit(compare_nodes(getpid(), &a, &b) == 0 ? 0 : 1);
}

/*
 * Counting starts the first time sched/numa is switched on in the boot.
 * Before the harness forks a test, this switches it on once (and back),
 * so that the tests' processes are counted.  When counting was off until
 * then (make check runs this program first: tests/Makefile), it does so
 * with CHURNERS processes faulting, forking and unmapping meanwhile, so
 * that the switch races mms being made and torn down (a count gone wrong
 * prints "BUG: Bad numa_rss state" at exit, which fails the run), and
 * with one process made before, which the counting_starts test asks.
 */
#define CHURNERS	3

static pid_t old_pid;			/* made before counting started */
static int old_go[2], old_res[2];	/* to it, from it */
static int start_failed;		/* -errno of the switch */
static int churn_bad;			/* churners that failed */

/* Does a process made now have a NumaRss: line?  1, 0 or -errno */
static int counting_now(void)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		struct nodes n;

		_exit(numa_rss_nodes(getpid(), &n) == 0 ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -ECHILD;
	return WEXITSTATUS(status) == 0;
}

/* Fault, fork (the child COWs and exits) and unmap until killed */
static void churn(int id)
{
	const size_t len = 2 * MIB;

	for (uint64_t i = 0;; i++) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		pid_t pid;

		if (p == MAP_FAILED)
			_exit(1);
		nu_fill(p, len, id * 1000 + i);
		pid = fork();
		if (pid == 0) {
			memset(p, 0, len / 2);
			_exit(nu_verify_range(p, len / 2, len / 2,
					      id * 1000 + i) == -1 ? 0 : 1);
		}
		if (pid < 0 || waitpid(pid, NULL, 0) != pid ||
		    nu_verify(p, len, id * 1000 + i) != -1)
			_exit(1);
		munmap(p, len);
	}
}

/* The process from before: when told, report whether it and a child it
 * makes then have counts (0: it has none, the child has)
 */
static void old_process(void)
{
	struct nodes n;
	char c, r = 0;

	if (read(old_go[0], &c, 1) != 1)
		_exit(1);
	if (numa_rss_nodes(getpid(), &n) != -ENOENT)
		r |= 1;
	if (counting_now() != 1)
		r |= 2;
	_exit(write(old_res[1], &r, 1) == 1 ? 0 : 1);
}

__attribute__((constructor)) static void start_counting(void)
{
	struct nu_numa_sysctls sysctls;
	pid_t churners[CHURNERS];
	int i, status;

	if (getenv(EXEC_ENV) || !nu_have_two_nodes() || counting_now() != 0)
		return;
	if (!pipe(old_go) && !pipe(old_res)) {
		old_pid = fork();
		if (old_pid == 0)
			old_process();
	}
	for (i = 0; i < CHURNERS; i++) {
		churners[i] = fork();
		if (churners[i] == 0)
			churn(i);
	}
	usleep(200 * 1000);
	start_failed = nu_numa_sysctls_enter(&sysctls, 1);
	if (!start_failed)
		start_failed = nu_numa_sysctls_restore(&sysctls);
	usleep(500 * 1000);
	for (i = 0; i < CHURNERS; i++) {
		if (churners[i] < 0) {
			churn_bad++;
			continue;
		}
		kill(churners[i], SIGKILL);
		/* Killed is how it should end; exit(1) is a failed check */
		if (waitpid(churners[i], &status, 0) != churners[i] ||
		    !WIFSIGNALED(status))
			churn_bad++;
	}
}

FIXTURE(numa_rss) {
	int skip;
};

FIXTURE_SETUP(numa_rss)
{
	struct nodes n;

	self->skip = 0;
	if (!nu_have_two_nodes()) {
		self->skip = 1;
		SKIP(return, "needs two NUMA nodes");
	}
	ASSERT_EQ(0, numa_rss_nodes(getpid(), &n))
		TH_LOG("no NumaRss: line in /proc/self/status");
}

FIXTURE_TEARDOWN(numa_rss)
{
}

/*
 * Counting starts with sched/numa: init, made at boot, has no counts
 * unless sched_numa=1 was on the command line; a process made after has.
 * If counting started in this program's constructor: it started without
 * a failed check in the processes churning meanwhile, and the process
 * made before it has no counts while a child it makes after has.
 */
TEST_F(numa_rss, counting_starts)
{
	char cmdline[4096];
	struct nodes n;
	int booted_on, r;
	char c = 1;

	if (self->skip)
		return;
	ASSERT_EQ(0, nu_read_file("/proc/cmdline", cmdline, sizeof(cmdline)));
	booted_on = strstr(cmdline, "sched_numa=1") != NULL;
	r = numa_rss_nodes(1, &n);
	EXPECT_EQ(booted_on ? 0 : -ENOENT, r)
		TH_LOG("init's NumaRss: line (sched_numa=1 at boot: %d)",
		       booted_on);
	EXPECT_EQ(1, counting_now());
	EXPECT_EQ(0, start_failed);
	if (!old_pid) {
		TH_LOG("counting was on before this program started: the race and the process from before not run");
		return;
	}
	EXPECT_EQ(0, churn_bad);
	ASSERT_GT(old_pid, 0);
	ASSERT_EQ(1, write(old_go[1], &c, 1));
	ASSERT_EQ(1, read(old_res[0], &c, 1));
	EXPECT_EQ(0, c)
		TH_LOG("bit 0: the process from before has counts; bit 1: its child made after has none");
}

TEST_F_TIMEOUT(numa_rss, matches_numa_maps, RSS_TIMEOUT)
{
	const size_t len = 8 * MIB, thp_len = 4 * MIB, shm_len = 2 * MIB;
	struct nodes before, after;
	char *a0, *a1, *t, *s, *m;
	int status, thp;
	pid_t pid;

	if (self->skip)
		return;
	ASSERT_EQ(0, check_self(_metadata, "start"));
	ASSERT_EQ(0, numa_rss_nodes(getpid(), &before));

	/* Faults, 4K pages, on each node */
	a0 = nu_alloc(len / nu_page_size());
	a1 = nu_alloc(len / nu_page_size());
	ASSERT_NE(NULL, a0);
	ASSERT_NE(NULL, a1);
	ASSERT_EQ(0, fill_on(a0, len, 0, 1));
	ASSERT_EQ(0, fill_on(a1, len, 1, 2));
	ASSERT_EQ(0, check_self(_metadata, "4K faults"));
	ASSERT_EQ(0, numa_rss_nodes(getpid(), &after));
	/*
	 * The buffers' pages are on their nodes and counted there.  Not a
	 * difference of the process's counts: other pages of the process
	 * may come and go meanwhile (one page of node 1 went, on the debug
	 * kernel); check_self() compares every count with numa_maps.
	 */
	EXPECT_EQ((long)(len / nu_page_size()),
		  nu_count_on_node(a0, len / nu_page_size(), 0));
	EXPECT_EQ((long)(len / nu_page_size()),
		  nu_count_on_node(a1, len / nu_page_size(), 1));
	EXPECT_GE(after.n[0], (long)(len / nu_page_size()));
	EXPECT_GE(after.n[1], (long)(len / nu_page_size()));

	/* THP faults on node 1, if THP is there at all */
	t = map_thp(thp_len);
	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, fill_on(t, thp_len, 1, 3));
	ASSERT_EQ(0, check_self(_metadata, "THP faults"));
	thp = access(THP_ENABLED, F_OK) == 0;

	/* Migration both ways, contents after each */
	ASSERT_EQ(0, move_to(a0, len, 1));
	ASSERT_EQ(0, check_self(_metadata, "4K migration 0->1"));
	EXPECT_EQ(-1, nu_verify(a0, len, 1));
	ASSERT_EQ(0, move_to(a1, len, 0));
	ASSERT_EQ(0, check_self(_metadata, "4K migration 1->0"));
	EXPECT_EQ(-1, nu_verify(a1, len, 2));
	ASSERT_EQ(0, move_to(t, thp_len, 0));
	ASSERT_EQ(0, check_self(_metadata, "THP migration 1->0"));
	EXPECT_EQ(-1, nu_verify(t, thp_len, 3));
	EXPECT_EQ((long)(thp_len / nu_page_size()),
		  nu_count_on_node(t, thp_len / nu_page_size(), 0));

	/* Shared anonymous memory (shmem, page_add_file_rmap()) */
	s = mmap(NULL, shm_len, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, s);
	ASSERT_EQ(0, fill_on(s, shm_len, 1, 4));
	ASSERT_EQ(0, check_self(_metadata, "shmem faults"));

	/* fork: the child's counts before and after COW, then the parent's */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct nodes x, y;

		if (compare_nodes(getpid(), &x, &y))
			_exit(1);
		/* COW: half of each private region, and a split THP */
		memset(a0, 0x5a, len / 2);
		memset(t + 4096, 0x5a, 4096);
		if (compare_nodes(getpid(), &x, &y))
			_exit(2);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("fork child: status %#x (1: before COW, 2: after)",
		       status);
	ASSERT_EQ(0, check_self(_metadata, "after the fork child's exit"));
	EXPECT_EQ(-1, nu_verify(a0, len, 1));
	EXPECT_EQ(-1, nu_verify(t, thp_len, 3));

	/* mremap to a place reserved for it, contents kept */
	m = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, m);
	m = mremap(a1, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, m);
	ASSERT_NE(MAP_FAILED, m);
	ASSERT_EQ(0, check_self(_metadata, "mremap"));
	EXPECT_EQ(-1, nu_verify(m, len, 2));

	/* MADV_DONTNEED, munmap (part of a THP too) */
	ASSERT_EQ(0, madvise(a0, len / 4, MADV_DONTNEED));
	ASSERT_EQ(0, check_self(_metadata, "MADV_DONTNEED"));
	ASSERT_EQ(0, munmap(t + HPAGE / 2, HPAGE / 2));
	ASSERT_EQ(0, check_self(_metadata, "munmap of half a THP"));
	ASSERT_EQ(0, munmap(a0, len));
	ASSERT_EQ(0, munmap(s, shm_len));
	ASSERT_EQ(0, check_self(_metadata, "munmap"));

	/* exec: a fresh image of this program checks its own counts */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		setenv(EXEC_ENV, "1", 1);
		execl("/proc/self/exe", "numa_rss", (char *)NULL);
		_exit(3);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("exec'ed image: status %#x (1: mismatch, 3: exec)",
		       status);
	if (!thp)
		TH_LOG("no THP in this kernel: the THP cases ran on 4K pages");
}

TEST_F_TIMEOUT(numa_rss, fork_exit_many, RSS_TIMEOUT)
{
	const int nr = 200;
	char *p;
	int i, status, bad = 0;

	if (self->skip)
		return;
	p = map_thp(4 * MIB);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, fill_on(p, 4 * MIB, 1, 5));
	for (i = 0; i < nr; i++) {
		pid_t pid = fork();

		ASSERT_GE(pid, 0);
		if (pid == 0) {
			/* COW some, fault some new, a grandchild, exit */
			p[(size_t)(i % 1024) * 4096] = 1;
			if (fork() == 0) {
				p[HPAGE] = 2;
				_exit(0);
			}
			wait(NULL);
			_exit(nu_verify_range(p, HPAGE + 8192, 8192, 5) == -1 ?
			      0 : 1);
		}
		if (i % 50 == 0)
			check_self(_metadata, "while children come and go");
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, check_self(_metadata, "after 200 children"));
	EXPECT_EQ(-1, nu_verify(p, 4 * MIB, 5));
}

/* ------------------------------------------------------------------ */

FIXTURE(misplaced) {
	int skip;
	struct nu_numa_sysctls sysctls;
	char interval[32];
	int feature;
};

FIXTURE_SETUP(misplaced)
{
	int r;

	self->skip = 0;
	self->feature = -1;
	if (!nu_have_two_nodes() || nu_no_two_cpu_nodes()) {
		self->skip = 1;
		SKIP(return, "needs two NUMA nodes with CPUs");
	}
	ASSERT_EQ(0, nu_debugfs_mount());
	self->feature = nu_sched_feat(FEATURE);
	ASSERT_GE(self->feature, 0) TH_LOG("no %s feature", FEATURE);
	ASSERT_EQ(0, nu_read_file(INTERVAL, self->interval,
				  sizeof(self->interval)));
	r = nu_numa_sysctls_enter(&self->sysctls, 1);
	ASSERT_EQ(0, r) TH_LOG("sched_numa=1: %s", strerror(-r));
	EXPECT_EQ(0, nu_write_file(INTERVAL, TEST_INTERVAL));
}

FIXTURE_TEARDOWN(misplaced)
{
	if (self->skip)
		return;
	if (self->feature >= 0)
		EXPECT_EQ(0, nu_sched_feat_set(FEATURE, self->feature));
	EXPECT_EQ(0, nu_write_file(INTERVAL, self->interval));
	NU_EXPECT_SYSCTLS_RESTORED(&self->sysctls);
}

/*
 * A column of /sys/kernel/debug/sched/numad: numad/@node's, or (@node -1)
 * the sum over the nodes
 */
static long long numad_stat_node(int node, int col)
{
	char buf[4096], *line, *save;
	long long sum = 0;

	if (nu_read_file(NUMAD_STATS, buf, sizeof(buf)))
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		long long v[6];

		if (line[0] == '#')
			continue;
		if (sscanf(line, "%lld %lld %lld %lld %lld %lld", &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5]) != 6)
			return -1;
		if (node < 0 || v[0] == node)
			sum += v[col];
	}
	return sum;
}

static long long numad_stat(int col)
{
	return numad_stat_node(-1, col);
}

#define STAT_PASSES	1
#define STAT_WALKS	4
#define STAT_MARKED	5

/*
 * Wait until numad/@node, the numad of the child's node (the one that walks
 * it), has done @n more passes: @n of its intervals.  Counting the passes
 * of both numads instead let a debug kernel's walk_bounded end its wait
 * while the child's numad had done a few passes only.
 */
static int wait_passes(int node, long long n)
{
	long long start = numad_stat_node(node, STAT_PASSES), now;
	int i;

	if (start < 0)
		return -1;
	for (i = 0; i < 6000; i++) {
		now = numad_stat_node(node, STAT_PASSES);
		if (now < 0)
			return -1;
		if (now - start >= n)
			return 0;
		usleep(20000);
	}
	return -1;
}

/* What the child's buffer is, and who reads it */
enum kid_kind {
	KID_PRIVATE,	/* private anonymous, read by the main thread */
	KID_SHARED,	/* MAP_SHARED anonymous (shmem) */
	KID_PINNED,	/* private, read by a thread pinned to the other node */
};

struct reader {
	char *p;
	size_t len;
	int node;	/* pinned to its CPUs, or -1 */
};

static void __attribute__((noreturn)) read_forever(const struct reader *r)
{
	volatile uint64_t sum = 0;
	size_t i;

	for (;;) {
		for (i = 0; i < r->len; i += 4096)
			sum += ((volatile char *)r->p)[i];
		usleep(10000);
	}
}

static void *pinned_reader(void *arg)
{
	const struct reader *r = arg;
	cpu_set_t set;

	if (nu_node_cpuset(r->node, &set) ||
	    sched_setaffinity(0, sizeof(set), &set))
		_exit(5);
	read_forever(r);
}

/* Where the child first touches its buffer; -1: the other home node */
static int kid_from = -1;

/*
 * The child: a home node, @len bytes first touched on the other node (or
 * on node kid_from) under MPOL_BIND, the policy dropped, then read again and again.  Reports its
 * home and the other node through @out, then reads until killed.
 * @kind: enum kid_kind.
 */
static void __attribute__((noreturn)) child_main(int out, size_t len,
						 int kind)
{
	int shared = kind == KID_SHARED;
	static struct reader r;
	pthread_t t;
	int home = nu_home_node(0, 0), other;
	char *p;

	/* Gone with the test, whichever assertion ends it */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	other = kid_from >= 0 ? kid_from :
		home == 0 ? 1 : 0;	/* no home (-1): node 0 */
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
	if (home < NU_HOME_NOLINE + 1 || p == MAP_FAILED)
		_exit(1);	/* -1 (no home) is fine: sched_numa_off */
	madvise(p, len, MADV_NOHUGEPAGE);
	if (fill_on(p, len, other, 7))
		_exit(2);
	if (mbind(p, len, MPOL_DEFAULT, NULL, 0, 0))
		_exit(3);
	if (nu_write_full(out, &home, sizeof(home)) != sizeof(home) ||
	    nu_write_full(out, &p, sizeof(p)) != sizeof(p))
		_exit(4);
	r.p = p;
	r.len = len;
	r.node = -1;
	if (kind != KID_PINNED)
		read_forever(&r);
	/* The main thread, at the process's home, never touches the buffer */
	r.node = other;
	if (pthread_create(&t, NULL, pinned_reader, &r))
		_exit(6);
	for (;;)
		pause();
}

struct kid {
	pid_t pid;
	int home;
	char *p;
};

static int kid_start(struct kid *k, size_t len, int kind)
{
	int fds[2];

	if (pipe(fds))
		return -errno;
	k->pid = fork();
	if (k->pid < 0)
		return -errno;
	if (k->pid == 0) {
		close(fds[0]);
		child_main(fds[1], len, kind);
	}
	close(fds[1]);
	if (nu_read_full(fds[0], &k->home, sizeof(k->home)) !=
	    sizeof(k->home) ||
	    nu_read_full(fds[0], &k->p, sizeof(k->p)) != sizeof(k->p)) {
		close(fds[0]);
		return -EIO;
	}
	close(fds[0]);
	return 0;
}

static void kid_stop(struct kid *k)
{
	if (k->pid > 0) {
		kill(k->pid, SIGKILL);
		waitpid(k->pid, NULL, 0);
		k->pid = 0;
	}
}

/* Pages of the kid's buffer on @node, by move_pages(2) on its pid */
static long kid_on(struct kid *k, size_t len, int node)
{
	return nu_count_on_node_pid(k->pid, k->p, len / nu_page_size(), node);
}

/* The kid's buffer, read through /proc/PID/mem, against the pattern */
static long kid_verify(struct kid *k, size_t len)
{
	char *copy = malloc(len), path[64];
	size_t done = 0;
	long r = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", k->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (!copy || fd < 0) {
		r = -2;
		goto out;
	}
	while (done < len) {
		ssize_t n = pread(fd, copy + done, len - done,
				  (off_t)(uintptr_t)k->p + (off_t)done);

		if (n <= 0) {
			r = -3;
			goto out;
		}
		done += (size_t)n;
	}
	r = nu_verify(copy, len, 7);
out:
	if (fd >= 0)
		close(fd);
	free(copy);
	return r;
}

/*
 * Up to @max numad intervals for 90% of the kid's buffer to be at its
 * home, printing how far it got; the pages at home.
 */
static long kid_wait_home(struct kid *k, size_t len, int max)
{
	long npages = len / 4096, home = 0;
	int i;

	for (i = 0; i < max; i++) {
		home = kid_on(k, len, k->home);
		if (home >= PCT(npages, 90) || wait_passes(k->home, 1))
			break;
	}
	printf("# home %d: %ld of %ld pages home after %d intervals\n",
	       k->home, home, npages, i);
	return home;
}

/*
 * A kid with @len bytes off home (@kind: enum kid_kind), then
 * NUMA_MISPLACED @feature; returns numad's walks before the feature was set.
 * The feature is off while the kid fills its buffer: under the kid's
 * MPOL_BIND numad's walks of it mark nothing, and each whole lap that
 * marks nothing doubles the back-off: on the debug kernel, whose fill is
 * slow, the buffer then sat unmarked for 20 intervals after the fill.
 */
static long long misplaced_start(struct __test_metadata *_metadata,
				 struct kid *k, size_t len, int kind,
				 int feature)
{
	long long walks;
	int r;

	ASSERT_EQ(0, nu_sched_feat_set(FEATURE, 0)) {
		return -1;
	}
	r = kid_start(k, len, kind);
	ASSERT_EQ(0, r) {
		TH_LOG("child: %s", strerror(-r));
		return -1;
	}
	ASSERT_GE(k->home, 0) {
		TH_LOG("the child has no home node");
		kid_stop(k);
		return -1;
	}
	walks = numad_stat(STAT_WALKS);
	ASSERT_GE(walks, 0) {
		kid_stop(k);
		return -1;
	}
	ASSERT_EQ(0, nu_sched_feat_set(FEATURE, feature)) {
		kid_stop(k);
		return -1;
	}
	return walks;
}

TEST_F_TIMEOUT(misplaced, fixed, RSS_TIMEOUT)
{
	const size_t len = 32 * MIB;
	const long npages = len / 4096;
	long long walks;
	struct kid k = { 0 };

	if (self->skip)
		return;
	walks = misplaced_start(_metadata, &k, len, KID_PRIVATE, 1);
	EXPECT_EQ(npages, kid_on(&k, len, !k.home))
		TH_LOG("first touch under MPOL_BIND went elsewhere");
	/* Up to 50 intervals: walks, marks, touches, migrations */
	EXPECT_GE(kid_wait_home(&k, len, 50), PCT(npages, 90));
	EXPECT_GT(numad_stat(STAT_WALKS), walks);
	EXPECT_EQ(-1, kid_verify(&k, len));
	kid_stop(&k);
}

/* A node with memory and no CPUs (CXL-like), or -1 */
static int cpuless_node(void)
{
	for (int n = 0; n < (int)NU_MAXNODE; n++)
		if (nu_node_exists(n) && nu_node_has_memory(n) == 1 &&
		    nu_node_nr_cpus(n) == 0)
			return n;
	return -1;
}

TEST_F_TIMEOUT(misplaced, from_cpuless, RSS_TIMEOUT)
{
	const size_t len = 32 * MIB;
	const long npages = len / 4096;
	long long mig0, mig;
	long pages[NU_MAXNODE];
	struct nodes maps, rss;
	struct kid k = { 0 };
	int i;

	if (self->skip)
		return;
	kid_from = cpuless_node();
	if (kid_from < 0)
		SKIP(return, "no node with memory and no CPUs (TOPO=cxl)");
	misplaced_start(_metadata, &k, len, KID_PRIVATE, 0);
	ASSERT_EQ(npages, kid_on(&k, len, kid_from))
		TH_LOG("first touch under MPOL_BIND went elsewhere");
	/*
	 * Watched through NumaRss (no page reference: a move_pages(2) query
	 * would fail the migrations that meet it), every page comes home,
	 * and those are all the pages migrated meanwhile.
	 */
	mig0 = nu_vmstat("pgmigrate_success");
	ASSERT_EQ(0, nu_sched_feat_set(FEATURE, 1));
	for (i = 0; i < 50; i++) {
		ASSERT_EQ(0, nu_numa_rss(k.pid, pages));
		if (!pages[kid_from] || wait_passes(k.home, 1))
			break;
	}
	mig = nu_vmstat("pgmigrate_success") - mig0;
	TH_LOG("node %d to home %d: NumaRss there %ld pages after %d intervals, %lld pages migrated",
	       kid_from, k.home, pages[kid_from], i, mig);
	EXPECT_EQ(0, pages[kid_from]);
	EXPECT_EQ(npages, kid_on(&k, len, k.home));
	EXPECT_EQ(npages, mig);
	EXPECT_EQ(0, compare_nodes(k.pid, &maps, &rss));
	EXPECT_EQ(-1, kid_verify(&k, len));
	kid_from = -1;
	kid_stop(&k);
}

TEST_F_TIMEOUT(misplaced, feature_off, RSS_TIMEOUT)
{
	const size_t len = 16 * MIB;
	const long npages = len / 4096;
	long long walks;
	struct kid k = { 0 };

	if (self->skip)
		return;
	walks = misplaced_start(_metadata, &k, len, KID_PRIVATE, 0);
	ASSERT_EQ(0, wait_passes(k.home, 10));
	EXPECT_EQ(npages, kid_on(&k, len, !k.home));
	EXPECT_EQ(walks, numad_stat(STAT_WALKS));
	EXPECT_EQ(-1, kid_verify(&k, len));
	kid_stop(&k);
}

TEST_F_TIMEOUT(misplaced, sched_numa_off, RSS_TIMEOUT)
{
	const size_t len = 16 * MIB;
	const long npages = len / 4096;
	long long walks, marked;
	struct kid k = { 0 };
	int r;

	if (self->skip)
		return;
	ASSERT_EQ(0, nu_sched_feat_set(FEATURE, 1));
	ASSERT_EQ(0, nu_numa_sysctls_set(0));
	walks = numad_stat(STAT_WALKS);
	marked = nu_vmstat("numa_lazy_marked");
	r = kid_start(&k, len, KID_PRIVATE);
	ASSERT_EQ(0, r) TH_LOG("child: %s", strerror(-r));
	EXPECT_EQ(-1, k.home) TH_LOG("a home node with sched_numa=0");
	/*
	 * numad sleeps while sched/numa is off, so there are no intervals
	 * to count: ten of the test's intervals' worth of reading instead.
	 */
	usleep(10 * 200 * 1000);
	EXPECT_EQ(npages, kid_on(&k, len, 0));
	EXPECT_EQ(walks, numad_stat(STAT_WALKS));
	EXPECT_EQ(marked, nu_vmstat("numa_lazy_marked"));
	EXPECT_EQ(-1, kid_verify(&k, len));
	kid_stop(&k);
}

TEST_F_TIMEOUT(misplaced, backoff, RSS_TIMEOUT)
{
	const size_t len = 16 * MIB;
	const long npages = len / 4096;
	long long walks, first;
	struct kid k = { 0 };
	int i;

	if (self->skip)
		return;
	first = misplaced_start(_metadata, &k, len, KID_SHARED, 1);
	/* The first walk, within a few intervals */
	for (i = 0; i < 20 && numad_stat(STAT_WALKS) == first; i++)
		ASSERT_EQ(0, wait_passes(k.home, 1));
	walks = numad_stat(STAT_WALKS);
	ASSERT_GT(walks, first) TH_LOG("numad never walked the child");
	ASSERT_EQ(0, wait_passes(k.home, 16));
	walks = numad_stat(STAT_WALKS) - walks;
	TH_LOG("%lld walks in 16 intervals", walks);
	/* Backing off 1, 2, 4, 8: 4 walks; every interval would be 16 */
	EXPECT_LE(walks, 6);
	EXPECT_EQ(npages, kid_on(&k, len, !k.home));
	EXPECT_EQ(-1, kid_verify(&k, len));
	kid_stop(&k);
}

/* Wait up to @max intervals of numad/@node for a first walk after @before */
static long long first_walk(int node, long long before, int max)
{
	int i;

	for (i = 0; i < max && numad_stat(STAT_WALKS) == before; i++)
		if (wait_passes(node, 1))
			return -1;
	return numad_stat(STAT_WALKS);
}

TEST_F_TIMEOUT(misplaced, pinned_thread, RSS_TIMEOUT)
{
	const size_t len = 16 * MIB;
	const long npages = len / 4096;
	long long walks, first;
	struct kid k = { 0 };

	if (self->skip)
		return;
	first = misplaced_start(_metadata, &k, len, KID_PINNED, 1);
	walks = first_walk(k.home, first, 20);
	ASSERT_GT(walks, first) TH_LOG("numad never walked the child");
	ASSERT_EQ(0, wait_passes(k.home, 60));
	walks = numad_stat(STAT_WALKS) - walks;
	TH_LOG("%lld walks in 60 intervals", walks);
	/* Moved whole to the reader's node, it has nothing off home left */
	ASSERT_EQ(k.home, nu_home_node(k.pid, 0))
		TH_LOG("the child's home moved: nothing to test");
	/* 1, 2, 4, 8, 16 intervals' back-off, 3 after each walk: 5 walks */
	EXPECT_LE(walks, 7);
	EXPECT_EQ(npages, kid_on(&k, len, !k.home));
	EXPECT_EQ(-1, kid_verify(&k, len));
	kid_stop(&k);
}

/*
 * The smallest MemTotal (kB) of the nodes with CPUs and memory (where the
 * child's home, and the other node its buffer starts on, may be); -1 if a
 * meminfo cannot be read.
 */
static long long smallest_home_node_kb(void)
{
	long long min = -1;
	char path[80], buf[256];
	int node;

	for (node = 0; node < (int)NU_MAXNODE; node++) {
		long long kb;

		if (!nu_node_exists(node) || nu_node_nr_cpus(node) <= 0 ||
		    nu_node_has_memory(node) != 1)
			continue;
		snprintf(path, sizeof(path), NU_SYSNODE "/node%d/meminfo",
			 node);
		/* "Node N MemTotal:  X kB", the first line */
		if (nu_read_file(path, buf, sizeof(buf)) ||
		    sscanf(buf, "Node %*d MemTotal: %lld", &kb) != 1)
			return -1;
		if (min < 0 || kb < min)
			min = kb;
	}
	return min;
}

TEST_F_TIMEOUT(misplaced, walk_bounded, RSS_TIMEOUT)
{
	const size_t len = 272 * MIB;
	const long npages = len / 4096, bound = 256 * MIB / 4096;
	long long walks, first, marked, kb;
	struct kid k = { 0 };
	int i;

	if (self->skip)
		return;
	/*
	 * The buffer must fit one node, and the kernel's and the other
	 * tests' memory with it: not on 256 MiB nodes (8n).
	 */
	kb = smallest_home_node_kb();
	ASSERT_LT(0, kb) TH_LOG("cannot read the nodes' MemTotal");
	if (kb < (long long)(len + 64 * MIB) / 1024)
		SKIP(return, "a node with CPUs has %lld MiB, not room for %zu MiB",
		     kb / 1024, len / MIB);
	marked = numad_stat(STAT_MARKED);
	first = misplaced_start(_metadata, &k, len, KID_PRIVATE, 1);
	/* The first walk that marks pages; the next waits NUMAD_SETTLE */
	for (i = 0; i < 20 && numad_stat(STAT_MARKED) == marked; i++)
		ASSERT_EQ(0, wait_passes(k.home, 1));
	walks = numad_stat(STAT_WALKS);
	marked = numad_stat(STAT_MARKED) - marked;
	TH_LOG("%lld walks, %lld pages marked", walks - first, marked);
	EXPECT_GT(marked, 0) TH_LOG("numad never marked the child's pages");
	EXPECT_LE(marked, bound);
	/* Then the rest: up to 100 intervals */
	EXPECT_GE(kid_wait_home(&k, len, 100), PCT(npages, 90));
	EXPECT_EQ(-1, kid_verify(&k, len));
	kid_stop(&k);
}

TEST_HARNESS_MAIN
