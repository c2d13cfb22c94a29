// SPDX-License-Identifier: GPL-2.0
/*
 * NUMA groups (RFC 21-24 of the 2012 sched/numa RFC forward-ported to 6.1):
 * numa_tbind(2) and numa_mbind(2), the lifetime of a group, and its RSS
 * accounting in debugfs.
 *
 * Interface under test (called by raw syscall() with the numbers of the
 * series' uapi header, __NR_numa_tbind and __NR_numa_mbind):
 *   long numa_tbind(int tid, int ng_id, unsigned long flags)
 *     tid 0 is the calling thread, else a thread of the caller's process.
 *     ng_id MS_ID_NEW (-1) creates a group (ids are >= 1), binds
 *     the thread to it (leaving its old group) and returns its id; MS_ID_GET
 *     (-2) returns the thread's group; a group id binds the thread to it and
 *     returns the id.  EINVAL: flags != 0, unknown id (0, freed, of another
 *     user namespace), MS_ID_GET on an unbound thread; ESRCH: unknown tid;
 *     EPERM: a thread of another process, or a group made by a process the
 *     caller may not ptrace (ptrace_may_access(), creator's dumpable state
 *     included); ENOSPC: /proc/sys/user/max_numa_groups groups alive.
 *     kernel.sched_numa = 0: MS_ID_NEW
 *     and binding fail with EOPNOTSUPP, MS_ID_GET still works.  A bound
 *     thread's home node (/proc/PID/task/TID/sched) is the group's node.
 *     New threads and fork children are not bound; execve() and thread exit
 *     leave the group.
 *   long numa_mbind(void *addr, unsigned long len, int ng_id,
 *                   unsigned long flags)
 *     binds [addr, addr + len) of the caller's mm to the group: its pages
 *     are allocated on the group's node, existing pages move there on their
 *     next touch.  EINVAL: flags != 0, addr not page aligned, unknown id;
 *     ENOMEM: part of the range not mapped; EPERM: a group the caller may
 *     not use; EOPNOTSUPP: sched_numa = 0.  len 0 returns 0.
 *   A group lives while a thread or a VMA (any process; fork children
 *   inherit VMA bindings) is bound to it; then its id is invalid.  VMA
 *   split, merge, mprotect() and mremap() keep bindings.
 *   /sys/kernel/debug/sched/numa_groups: a '#' header line, then per live
 *   group "id node nr_tasks anon file shmem swapents", the last four the
 *   pages mapped by VMAs bound to the group.
 *
 * Tests (fixture ng; setup saves kernel.sched_numa and kernel.numa_balancing
 * and sets them to 1 and 0, teardown kills the children and restores them):
 *   einval_flags         flags != 0 on both calls, with a valid group: EINVAL,
 *                        the caller stays in its group, nothing gets bound.
 *   einval_unaligned     numa_mbind() at buf + 1 and buf + ps/2: EINVAL.
 *   einval_unknown_id    ids 0, -3, 1000000 and a freed id: EINVAL from both.
 *   esrch_unknown_tid    a tid above pid_max and a reaped child's pid:
 *                        ESRCH for MS_ID_NEW, MS_ID_GET and a group id; no
 *                        group created.
 *   einval_get_unbound   MS_ID_GET on this thread and a new thread, none
 *                        bound: EINVAL; on a fork child: EPERM.
 *   enomem_unmapped      a range with a hole, a range running past its
 *                        mapping and a fully unmapped range: ENOMEM.
 *   eopnotsupp_when_off  sched_numa = 0: MS_ID_NEW, binding (self or another
 *                        thread) and numa_mbind() give EOPNOTSUPP, MS_ID_GET
 *                        still answers; back to 1 all of them work again.
 *   len0_ok              numa_mbind() of 0 bytes (mapped or not) returns 0
 *                        and binds nothing (the group dies with its thread).
 *   eperm_unprivileged   a child dropped to uid/gid 65534 gets EPERM joining
 *                        root's group, binding root's thread and binding its
 *                        own page to root's group, but creates and uses its
 *                        own group; root gets EPERM for the child's thread
 *                        but may join the child's group (CAP_SYS_PTRACE).
 *   new_get_rebind       create, get, create again (the first group dies),
 *                        bind another thread by tid, home nodes = group node,
 *                        threads and fork children of bound threads unbound,
 *                        rebinding empties and frees a group.
 *   mbind_follows_group  8 MiB on the other node (1 if the group's node is
 *                        0, else 0) moves to the group's node
 *                        when touched; a bound new range fills on the
 *                        group's node from a thread pinned to the other node
 *                        and from a fork child with MPOL_PREFERRED {other}.
 *   rss_accounting       anon = touched pages of the bound range, also pages
 *                        touched before the binding; a fork child's copies
 *                        add to it; munmap() of half halves it; munmap() of
 *                        the rest frees the group.
 *   lifecycle_vma_outlives_creator
 *                        the creating thread exits, the bound buffer keeps
 *                        the group (nr_tasks 0); a fork child's inherited
 *                        binding keeps it after the parent unmaps; the
 *                        child's exit frees it.
 *   split_merge_mremap_mprotect
 *                        mprotect() of the middle (split), back (merge),
 *                        growing mremap(MREMAP_MAYMOVE), munmap() of the
 *                        first page: the group lives on its VMAs only, anon
 *                        follows the touched pages, re-binding works,
 *                        contents intact; the last munmap() frees it.
 *   exec_leaves_group    a bound child execve()s this program: MS_ID_GET in
 *                        the new image is EINVAL (a constructor answers
 *                        before the harness starts) and the group is gone.
 *   exit_race_and_stress 30 s of creating, joining, querying and rebinding
 *                        from 4 workers and their short-lived threads, of
 *                        binding and unmapping 64 KiB buffers, of forking
 *                        children of an inherited bound buffer, and of
 *                        binding threads that may be exiting by tid: only
 *                        EINVAL and ESRCH where a race allows them, contents
 *                        intact, and no group of the test left at the end.
 *   numa02_like          4 threads streaming over private 8 MiB slices first
 *                        touched on node 0: locality (share of sampled pages
 *                        on the node of the thread's CPU) logged without
 *                        groups, then with two groups of two threads each
 *                        (four of one where nodes have one CPU, as on 4n
 *                        and 8n; SKIP when the groups cannot each have a
 *                        node with CPUs and memory, as on memless)
 *                        binding their slices: some 2 s window within 20 s
 *                        must average >= 0.9.  Placement, not speed.
 *   legacy_numbers_enosys  451 (cachestat), 452 (fchmodat2) and every number
 *                        up to __NR_numa_mbind - 1 answer ENOSYS.
 *   eperm_other_process  two uid 65534 processes: the creator's child joins
 *                        its group, gets EPERM for the creator's thread, and
 *                        EPERM for the group once the creator is not
 *                        dumpable; its own binding is kept.
 *   userns_invisible     in a new user namespace the outer group's id is
 *                        EINVAL for both calls, and a group made inside is
 *                        EINVAL outside.
 *   enospc_limit         max_numa_groups 16 (default 4096): the 17th group of
 *                        a uid 65534 process fails with ENOSPC and changes
 *                        nothing, a freed group makes room, all 16 can be
 *                        made again once freed, none is left.
 *   rss_swap             a bound range paged out (MADV_PAGEOUT) to a swap
 *                        device (/dev/vda): anon + swapents stays the
 *                        range's size through swap-in by fault and
 *                        swapoff(), swapents equals VmSwap, data intact.
 *   mbind_default_unbinds  mbind(MPOL_DEFAULT) over a bound range: MPOL_DEFAULT
 *                        reported, the group (only held by it) gone.
 *   rss_merge_into_bound  3 touched pages, the group held by the main thread:
 *                        numa_mbind() of page 0, then of page 1 (the VMA
 *                        merges into page 0's, bound to the same group):
 *                        anon 2; mbind(MPOL_DEFAULT) of page 1 (merges into
 *                        page 2's unbound VMA): anon 1; of page 0: anon 0;
 *                        after munmap() still 0, data intact.  Before the
 *                        fix the merges skipped the count (1, then 0, -1).
 *
 * The accounting checks need the debugfs file; without it they are logged as
 * not checked and a group's life is told by numa_tbind() and numa_mbind()
 * alone (EINVAL once it is gone).  A group is "gone" once the last thread or
 * VMA left it; thread exit may finish after pthread_join() returns, so the
 * tests poll for that for up to GONE_GUARD_MS (a hang guard, not a speed
 * requirement).
 *
 * Where the spec is silent, the tests assume: groups outlive sched_numa = 0
 * (MS_ID_GET still returns the id, and binding works again once it is 1);
 * root may join (not bind) the groups of other users' processes;
 * a VMA's group binding wins over the faulting task's own policy (the fork
 * child of mbind_follows_group has MPOL_PREFERRED {other}); the part a
 * growing mremap() adds is bound like the rest of the VMA; anon is exact
 * (polled for GONE_GUARD_MS, in case the kernel updates it late); a 0-byte
 * numa_mbind() binds nothing.  In exit_race_and_stress a thread's own
 * MS_ID_NEW must always work and its own MS_ID_GET must give the group it
 * last joined: EINVAL and ESRCH are allowed only where another thread's
 * exit or rebinding can cause them.  The group moving later (numad) and its
 * memory following is only covered by numa02_like.
 *
 * Worker threads and children never use the harness's ASSERTs: they record
 * what went wrong and the main thread checks.  The whole fixture SKIPs
 * without /proc/sys/kernel/sched_numa, when not root, without nodes 0 and 1
 * with CPUs, or when either syscall gives ENOSYS (kernel without the series).
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "numa_util.h"

/* The series' uapi headers (tests/Makefile: UAPI=, make headers_install) */
#include <asm/unistd.h>		/* __NR_numa_mbind, __NR_numa_tbind */
#include <linux/sched_numa.h>	/* MS_ID_GET, MS_ID_NEW */
#include <sys/mman.h>
#include <sys/swap.h>

#define SCHED_NUMA	NU_SCHED_NUMA
#define BALANCING	NU_BALANCING
#ifndef NG_DEBUGFS
#define NG_DEBUGFS	NU_DEBUGFS "/sched/numa_groups"
#endif
#define EXEC_ENV	"NGTEST_EXEC"	/* "1": the exec probe image */
#define EXEC_FD_ENV	"NGTEST_FD"	/* its reply pipe */
#define EXEC_WAIT_ENV	"NGTEST_WAIT"	/* it waits for EOF on this one */

#define KIB		(1UL << 10)
#define SEED		0x6e67ULL
#define MAX_KIDS	8
#define NOBODY		65534

/* Seconds (harness timeouts; the guest runs under TCG). */
#define NG_TIMEOUT	120
#define STRESS_SECS	30
#define STRESS_TIMEOUT	300
#define N2_TIMEOUT	240
/* Hang guards (ms) for things that happen at once or nearly so. */
#define GONE_GUARD_MS	5000
#define POLL_MS		10

/* At least 90% of n, rounded up. */
#define PCT90(n)	(((long)(n) * 9 + 9) / 10)

/* ------------------------------------------------------------------ */
/* Syscalls, time. */

static inline long ng_tbind(int tid, int id, unsigned long flags)
{
	return syscall(__NR_numa_tbind, (long)tid, (long)id, flags);
}

static inline long ng_mbind(void *addr, unsigned long len, int id,
			    unsigned long flags)
{
	return syscall(__NR_numa_mbind, addr, len, (long)id, flags);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ------------------------------------------------------------------ */
/* The debugfs listing. */

struct ng_info {
	int id, node, nr_tasks;
	long anon, file, shmem, swapents;
};

#define NG_ABSENT	(-1)	/* no line for the group */
#define NG_NOFILE	(-2)	/* NG_DEBUGFS cannot be read */
#define NG_BADFMT	(-3)	/* no '#' header, or a line that does not parse */

static int ng_have_dbg;		/* set by the fixture setup */

typedef void ng_visit_fn(const struct ng_info *in, void *arg);

/* Call fn for every group line.  Number of groups, NG_NOFILE or NG_BADFMT. */
static int ng_dbg_scan(ng_visit_fn *fn, void *arg)
{
	int n = 0, header = 0;
	char line[256];
	FILE *f;

	f = fopen(NG_DEBUGFS, "re");
	if (!f)
		return NG_NOFILE;
	while (fgets(line, sizeof(line), f)) {
		struct ng_info in;
		char extra;

		if (!header) {
			if (line[0] != '#') {
				n = NG_BADFMT;
				break;
			}
			header = 1;
			continue;
		}
		if (line[strspn(line, " \t\n")] == '\0' || line[0] == '#')
			continue;
		if (sscanf(line, "%d %d %d %ld %ld %ld %ld %c", &in.id,
			   &in.node, &in.nr_tasks, &in.anon, &in.file,
			   &in.shmem, &in.swapents, &extra) != 7) {
			n = NG_BADFMT;
			break;
		}
		fn(&in, arg);
		n++;
	}
	if (!header)
		n = NG_BADFMT;
	fclose(f);
	return n;
}

struct ng_find {
	int id;
	int found;
	struct ng_info in;
};

static void find_visit(const struct ng_info *in, void *arg)
{
	struct ng_find *f = arg;

	if (in->id == f->id) {
		f->found++;
		f->in = *in;
	}
}

/* Group id's line: 0 (in filled), NG_ABSENT, NG_NOFILE or NG_BADFMT. */
static int ng_dbg_find(int id, struct ng_info *in)
{
	struct ng_find f = { .id = id };
	int n;

	n = ng_dbg_scan(find_visit, &f);
	if (n < 0)
		return n;
	if (f.found != 1)
		return f.found ? NG_BADFMT : NG_ABSENT;	/* listed twice */
	if (in)
		*in = f.in;
	return 0;
}

struct ng_idset {
	int *ids;
	int n, max;
};

static void idset_visit(const struct ng_info *in, void *arg)
{
	struct ng_idset *s = arg;

	if (s->n < s->max)
		s->ids[s->n] = in->id;
	s->n++;
}

static int idset_has(const struct ng_idset *s, int id)
{
	int i;

	for (i = 0; i < s->n && i < s->max; i++)
		if (s->ids[i] == id)
			return 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Liveness probes: side-effect free whether the group lives or not. */

struct probe {
	int id;
	long ret;
	int err;
};

static void *probe_fn(void *p)
{
	struct probe *q = p;

	errno = 0;
	q->ret = ng_tbind(0, q->id, 0);
	q->err = q->ret < 0 ? errno : 0;
	return NULL;	/* and leaves the group again by exiting */
}

/*
 * numa_tbind(0, id) from a new thread that exits at once: 1 if it bound
 * (the group lives), 0 for EINVAL (no such group), -errno otherwise
 * (-EPROTO: it returned another id).
 */
static int ng_probe(int id)
{
	struct probe q = { .id = id, .ret = -1 };
	pthread_t t;
	int e;

	e = pthread_create(&t, NULL, probe_fn, &q);
	if (e)
		return -e;
	pthread_join(t, NULL);
	if (q.ret == id)
		return 1;
	if (q.ret < 0)
		return q.err == EINVAL ? 0 : -q.err;
	return -EPROTO;
}

/*
 * numa_mbind() of a fresh, untouched, read-only page (no merge with a
 * neighbour) that is unmapped right away: 1 if it bound, 0 for EINVAL,
 * -errno otherwise.  Cheaper than ng_probe(), and leaves nr_tasks alone.
 */
static int ng_mprobe(int id)
{
	size_t ps = nu_page_size();
	void *p;
	long r;
	int e;

	p = mmap(NULL, ps, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	errno = 0;
	r = ng_mbind(p, ps, id, 0);
	e = errno;
	munmap(p, ps);
	if (r == 0)
		return 1;
	return e == EINVAL ? 0 : -e;
}

static const char *probe_str(int p)
{
	if (p == 1)
		return "bound: the group lives";
	if (p == 0)
		return "EINVAL";
	if (p == -EPROTO)
		return "returned another id";
	return strerror(-p);
}

/* ------------------------------------------------------------------ */
/* A thread that runs numa_tbind() calls for the main thread. */

enum sv_op {
	SV_TBIND = 1,	/* numa_tbind(0, arg, 0) */
	SV_SPAWN_GET,	/* a new thread of this one: numa_tbind(0, GET) */
};

struct sv_req {
	int op;
	int arg;
};

struct sv_rep {
	long ret;
	int err;	/* errno of the call, 0 if it returned >= 0 */
	int spawn_err;	/* SV_SPAWN_GET: pthread_create() failed */
};

struct servant {
	pthread_t thr;
	int req[2], rep[2];
	pid_t tid;
	int live;
};

static void *spawn_get_fn(void *p)
{
	struct sv_rep *r = p;

	errno = 0;
	r->ret = ng_tbind(0, MS_ID_GET, 0);
	r->err = r->ret < 0 ? errno : 0;
	return NULL;
}

static void *servant_fn(void *p)
{
	struct servant *s = p;
	pid_t tid = nu_gettid();
	struct sv_req q;
	struct sv_rep r;
	pthread_t t;

	if (nu_write_full(s->rep[1], &tid, sizeof(tid)) != sizeof(tid))
		return NULL;
	while (nu_read_full(s->req[0], &q, sizeof(q)) == sizeof(q)) {
		memset(&r, 0, sizeof(r));
		switch (q.op) {
		case SV_TBIND:
			errno = 0;
			r.ret = ng_tbind(0, q.arg, 0);
			r.err = r.ret < 0 ? errno : 0;
			break;
		case SV_SPAWN_GET:
			r.spawn_err = pthread_create(&t, NULL, spawn_get_fn,
						     &r);
			if (!r.spawn_err)
				pthread_join(t, NULL);
			break;
		default:
			r.ret = -1;
			r.err = ENOTSUP;
		}
		if (nu_write_full(s->rep[1], &r, sizeof(r)) != sizeof(r))
			break;
	}
	return NULL;	/* EOF on its request pipe: exit */
}

static void servant_start(struct __test_metadata *_metadata,
			  struct servant *s)
{
	int e;

	memset(s, 0, sizeof(*s));
	ASSERT_EQ(0, pipe2(s->req, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(s->rep, O_CLOEXEC));
	e = pthread_create(&s->thr, NULL, servant_fn, s);
	ASSERT_EQ(0, e) TH_LOG("pthread_create: %s", strerror(e));
	s->live = 1;
	ASSERT_EQ((ssize_t)sizeof(s->tid),
		  nu_read_full(s->rep[0], &s->tid, sizeof(s->tid)));
}

/* Run one call in the servant; *err gets its errno (0 if it worked). */
static long servant_call(struct __test_metadata *_metadata, struct servant *s,
			 int op, int arg, int *err)
{
	struct sv_req q = { .op = op, .arg = arg };
	struct sv_rep r;

	ASSERT_TRUE(s->live);
	ASSERT_EQ((ssize_t)sizeof(q), nu_write_full(s->req[1], &q, sizeof(q)));
	ASSERT_EQ((ssize_t)sizeof(r), nu_read_full(s->rep[0], &r, sizeof(r)))
		TH_LOG("no reply from thread %d", s->tid);
	ASSERT_EQ(0, r.spawn_err)
		TH_LOG("pthread_create in thread %d: %s", s->tid,
		       strerror(r.spawn_err));
	*err = r.err;
	return r.ret;
}

/* The servant exits (and so leaves its group); joined. */
static void servant_stop(struct servant *s)
{
	if (!s->live)
		return;
	close(s->req[1]);
	pthread_join(s->thr, NULL);
	close(s->req[0]);
	close(s->rep[0]);
	close(s->rep[1]);
	s->live = 0;
}

/* ------------------------------------------------------------------ */
/* The exec probe: a replaced image answers before the harness starts. */

struct exec_rep {
	long ret;	/* numa_tbind(0, MS_ID_GET, 0) in the new image */
	int err;
	int home;	/* its home node */
};

static void __attribute__((constructor)) exec_probe(void)
{
	const char *s = getenv(EXEC_ENV), *fd, *wait_fd;
	struct exec_rep r;
	char c;

	if (!s || strcmp(s, "1"))
		return;
	errno = 0;
	r.ret = syscall(__NR_numa_tbind, 0L, (long)MS_ID_GET, 0UL);
	r.err = r.ret < 0 ? errno : 0;
	r.home = nu_home_node(0, 0);
	fd = getenv(EXEC_FD_ENV);
	wait_fd = getenv(EXEC_WAIT_ENV);
	if (fd && nu_write_full(atoi(fd), &r, sizeof(r)) != sizeof(r))
		_exit(2);
	/* Alive until the test has looked at the group. */
	if (wait_fd)
		while (nu_read_full(atoi(wait_fd), &c, 1) == 1)
			;
	_exit(r.ret == -1 && r.err == EINVAL ? 0 : 1);
}

/* ------------------------------------------------------------------ */
/* Fixture. */

FIXTURE(ng) {
	struct nu_numa_sysctls sysctls;
	int restore;
	pid_t kid[MAX_KIDS];
};

FIXTURE_SETUP(ng)
{
	const char *why;
	long ret;
	int r, e;

	if (access(SCHED_NUMA, F_OK))
		SKIP(return, "kernel lacks sched/numa (no " SCHED_NUMA ")");
	if (geteuid() != 0)
		SKIP(return, "needs root for the sysctls and debugfs");
	why = nu_no_two_cpu_nodes();
	if (why)
		SKIP(return, "%s", why);
	/* No side effect: nothing here is bound. */
	errno = 0;
	ret = ng_tbind(0, MS_ID_GET, 0);
	e = errno;
	if (ret == -1 && e == ENOSYS)
		SKIP(return, "kernel lacks numa_tbind (syscall %d: %s)",
		     __NR_numa_tbind, strerror(e));
	ASSERT_EQ(-1, ret) TH_LOG("a new test process is in group %ld", ret);
	ASSERT_EQ(EINVAL, e)
		TH_LOG("numa_tbind(0, MS_ID_GET, 0), unbound: %s", strerror(e));
	errno = 0;
	ret = ng_mbind(NULL, 0, 1, 0);
	if (ret == -1 && errno == ENOSYS)
		SKIP(return, "kernel lacks numa_mbind (syscall %d)",
		     __NR_numa_mbind);

	r = nu_debugfs_mount();
	ng_have_dbg = !access(NG_DEBUGFS, R_OK);
	if (!ng_have_dbg)
		TH_LOG("no %s (debugfs: %s): accounting checks are only logged",
		       NG_DEBUGFS, r ? strerror(-r) : "mounted");
	/* A dead child must fail a write, not kill the test. */
	signal(SIGPIPE, SIG_IGN);

	r = nu_numa_sysctls_enter(&self->sysctls, 1);
	ASSERT_EQ(0, r) TH_LOG("sched_numa 1, numa_balancing 0: %s",
			       strerror(-r));
	self->restore = 1;
}

FIXTURE_TEARDOWN(ng)
{
	int i, status;

	/*
	 * A failed ASSERT longjmp()s here with ->trigger still set, which
	 * would print the log of the next passing EXPECT.
	 */
	_metadata->trigger = 0;
	for (i = 0; i < MAX_KIDS; i++) {
		if (self->kid[i] <= 0)
			continue;
		kill(self->kid[i], SIGKILL);
		waitpid(self->kid[i], &status, 0);
	}
	if (self->restore)
		NU_EXPECT_SYSCTLS_RESTORED(&self->sysctls);
}

/* fork() a child that teardown kills if the test fails before reaping it. */
static pid_t kid_fork(struct __test_metadata *_metadata,
		      FIXTURE_DATA(ng) *self)
{
	pid_t pid;
	int i;

	for (i = 0; i < MAX_KIDS && self->kid[i] > 0; i++)
		;
	ASSERT_LT(i, MAX_KIDS);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	ASSERT_LE(0, pid) TH_LOG("fork: %s", strerror(errno));
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		return 0;
	}
	self->kid[i] = pid;
	return pid;
}

/* Reap a kid_fork() child: its wait status. */
static int kid_wait(struct __test_metadata *_metadata, FIXTURE_DATA(ng) *self,
		    pid_t pid)
{
	int i, status = 0;

	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	for (i = 0; i < MAX_KIDS; i++)
		if (self->kid[i] == pid)
			self->kid[i] = 0;
	return status;
}

/* ------------------------------------------------------------------ */
/* Checks. */

/* The call must fail with errno want. */
#define EXPECT_ERR(want, call, ...) do {				\
	char __w[160];							\
	long __r;							\
	int __e;							\
	snprintf(__w, sizeof(__w), __VA_ARGS__);			\
	errno = 0;							\
	__r = (call);							\
	__e = errno;							\
	EXPECT_EQ(-1, __r)						\
		TH_LOG("%s: returned %ld, want -1 with %s", __w, __r,	\
		       strerror(want));					\
	if (__r == -1)							\
		EXPECT_EQ(want, __e)					\
			TH_LOG("%s: %s, want %s", __w, strerror(__e),	\
			       strerror(want));				\
} while (0)

/* The call must return want. */
#define EXPECT_RET(want, call, ...) do {				\
	char __w[160];							\
	long __r;							\
	int __e;							\
	snprintf(__w, sizeof(__w), __VA_ARGS__);			\
	errno = 0;							\
	__r = (call);							\
	__e = errno;							\
	EXPECT_EQ((long)(want), __r)					\
		TH_LOG("%s: returned %ld (%s), want %ld", __w, __r,	\
		       __r < 0 ? strerror(__e) : "no error",		\
		       (long)(want));					\
} while (0)

/* Zeroed memory shared with the children the test forks */
static void *shared_zalloc(struct __test_metadata *_metadata, size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, p);
	memset(p, 0, size);
	return p;
}

/* npages of fresh anonymous memory, filled with the SEED pattern. */
static char *filled_buf(struct __test_metadata *_metadata, size_t npages)
{
	char *buf = nu_alloc(npages);

	ASSERT_NE(NULL, buf);
	nu_fill(buf, npages * nu_page_size(), SEED);
	return buf;
}

/* numa_tbind(0, MS_ID_NEW, 0) in the calling (main) thread. */
static int new_group(struct __test_metadata *_metadata, const char *who)
{
	long g;

	errno = 0;
	g = ng_tbind(0, MS_ID_NEW, 0);
	ASSERT_LE(1, g) TH_LOG("%s: numa_tbind(0, MS_ID_NEW, 0): %ld (%s)",
			       who, g, strerror(errno));
	return (int)g;
}

/* The same in a servant: the group's only task is that thread. */
static int servant_new_group(struct __test_metadata *_metadata,
			     struct servant *s)
{
	long g;
	int e;

	g = servant_call(_metadata, s, SV_TBIND, MS_ID_NEW, &e);
	ASSERT_LE(1, g) TH_LOG("thread %d: numa_tbind(0, MS_ID_NEW, 0): %ld (%s)",
			       s->tid, g, strerror(e));
	return (int)g;
}

/* Lookup that must not fail for lack of the file or of the format. */
static int dbg_find(struct __test_metadata *_metadata, int id,
		    struct ng_info *in)
{
	int r = ng_dbg_find(id, in);

	ASSERT_NE(NG_BADFMT, r)
		TH_LOG(NG_DEBUGFS ": no '#' header, a malformed line or group %d twice",
		       id);
	ASSERT_NE(NG_NOFILE, r) TH_LOG("cannot read " NG_DEBUGFS " any more");
	return r;
}

/*
 * Poll group id's line until it is listed with nr_tasks tasks and anon
 * pages (-1: any), GONE_GUARD_MS at most.  The last lookup's result.
 */
static int dbg_wait(struct __test_metadata *_metadata, int id, int nr_tasks,
		    long anon, struct ng_info *in)
{
	long long t0 = now_ms();
	int r;

	for (;;) {
		r = dbg_find(_metadata, id, in);
		if (!r && (nr_tasks < 0 || in->nr_tasks == nr_tasks) &&
		    (anon < 0 || in->anon == anon))
			return r;
		if (now_ms() - t0 >= GONE_GUARD_MS)
			return r;
		sleep_ms(POLL_MS);
	}
}

/*
 * May node be a group's (or a home) node: one with CPUs and memory?  On
 * two nodes: node 0 or 1.
 */
static int ng_valid_node(int node)
{
	return node >= 0 && node < (int)NU_MAXNODE &&
	       nu_node_nr_cpus(node) > 0 && nu_node_has_memory(node) == 1;
}

/*
 * Group id is listed with a valid node, nr_tasks tasks and anon pages of
 * anonymous memory (-1: not checked; without the file: only logged).  Returns its node, -1
 * without the file.
 */
static int expect_listed(struct __test_metadata *_metadata, int id,
			 int nr_tasks, long anon, const char *when)
{
	struct ng_info in;
	int r;

	if (!ng_have_dbg) {
		TH_LOG("group %d %s: no " NG_DEBUGFS ", nr_tasks %d and anon %ld not checked",
		       id, when, nr_tasks, anon);
		return -1;
	}
	memset(&in, 0, sizeof(in));
	r = dbg_wait(_metadata, id, nr_tasks, anon, &in);
	EXPECT_EQ(0, r) TH_LOG("group %d %s: not listed in " NG_DEBUGFS, id,
			       when);
	if (r)
		return -1;
	EXPECT_TRUE(ng_valid_node(in.node))
		TH_LOG("group %d %s: node %d, not one with CPUs and memory",
		       id, when, in.node);
	if (nr_tasks >= 0) {
		EXPECT_EQ(nr_tasks, in.nr_tasks)
			TH_LOG("group %d %s: nr_tasks %d, want %d", id, when,
			       in.nr_tasks, nr_tasks);
	}
	if (anon >= 0) {
		EXPECT_EQ(anon, in.anon)
			TH_LOG("group %d %s: anon %ld pages, want %ld", id,
			       when, in.anon, anon);
	}
	return in.node;
}

/*
 * Group id lives: numa_mbind() of a scratch page to it works (so only for
 * groups of our credentials), and expect_listed().
 */
static int expect_alive(struct __test_metadata *_metadata, int id,
			int nr_tasks, long anon, const char *when)
{
	int p = ng_mprobe(id);

	EXPECT_EQ(1, p) TH_LOG("group %d %s: numa_mbind() to it: %s", id,
			       when, probe_str(p));
	return expect_listed(_metadata, id, nr_tasks, anon, when);
}

/*
 * Group id is gone: not listed, and both numa_tbind(0, id) from a new thread
 * and numa_mbind() to it give EINVAL.  Polled for GONE_GUARD_MS.
 */
static void expect_gone(struct __test_metadata *_metadata, int id,
			const char *when)
{
	long long t0 = now_ms(), waited;
	struct ng_info in;
	int r, p, mp;

	if (ng_have_dbg) {
		memset(&in, 0, sizeof(in));
		while (!(r = dbg_find(_metadata, id, &in)) &&
		       now_ms() - t0 < GONE_GUARD_MS)
			sleep_ms(POLL_MS);
		EXPECT_EQ(NG_ABSENT, r)
			TH_LOG("group %d %s: still listed after %d ms (nr_tasks %d, anon %ld)",
			       id, when, GONE_GUARD_MS, in.nr_tasks, in.anon);
	}
	while ((p = ng_probe(id)) == 1 && now_ms() - t0 < GONE_GUARD_MS)
		sleep_ms(POLL_MS);
	EXPECT_EQ(0, p) TH_LOG("group %d %s: numa_tbind(0, %d, 0): %s", id,
			       when, id, probe_str(p));
	mp = ng_mprobe(id);
	EXPECT_EQ(0, mp) TH_LOG("group %d %s: numa_mbind(.., %d, 0): %s", id,
				when, id, probe_str(mp));
	waited = now_ms() - t0;
	if (waited >= 100)
		TH_LOG("group %d %s: gone after %lld ms", id, when, waited);
}

/* The node of group id: debugfs, else the home node of its thread tid. */
static int group_node(struct __test_metadata *_metadata, int id, pid_t tid)
{
	struct ng_info in;
	int node;

	if (ng_have_dbg) {
		ASSERT_EQ(0, dbg_find(_metadata, id, &in))
			TH_LOG("group %d is not listed", id);
		node = in.node;
	} else {
		node = nu_home_node(getpid(), tid);
	}
	ASSERT_TRUE(ng_valid_node(node))
		TH_LOG("group %d: node %d (%s)", id, node,
		       ng_have_dbg ? "debugfs" : "home node of its thread");
	return node;
}

/*
 * Home node of a task (tid > 0: that thread of pid) must be want.  Without
 * /proc/PID/sched (CONFIG_SCHED_DEBUG=n) it is only logged; with the sysctl
 * present, a file without a home_node line is a failure.
 */
static void expect_home(struct __test_metadata *_metadata, int want, int pid,
			int tid, const char *who)
{
	int h = nu_home_node(pid, tid);

	if (h == NU_HOME_NOFILE) {
		TH_LOG("%s: no /proc/PID/sched, home node not checked", who);
		return;
	}
	EXPECT_EQ(want, h) TH_LOG("%s: home_node %d%s, want %d", who, h,
				  h == NU_HOME_NOLINE ? " (no home_node line)" :
							"", want);
}

/* MS_ID_GET of the calling thread must give want (0: unbound, EINVAL). */
static void expect_own_group(struct __test_metadata *_metadata, int want,
			     const char *when)
{
	if (want > 0)
		EXPECT_RET(want, ng_tbind(0, MS_ID_GET, 0),
			   "numa_tbind(0, MS_ID_GET, 0) %s", when);
	else
		EXPECT_ERR(EINVAL, ng_tbind(0, MS_ID_GET, 0),
			   "numa_tbind(0, MS_ID_GET, 0) %s (unbound)", when);
}

/*
 * A fresh 8-byte-patterned buffer of npages placed on node: MPOL_BIND while
 * it is filled, then MPOL_DEFAULT again.  >= 90% must land there.
 */
static char *placed_buf(struct __test_metadata *_metadata, size_t npages,
			int node, uint64_t seed)
{
	size_t len = npages * nu_page_size();
	unsigned long mask = NU_MASK(node);
	long on;
	char *p;

	p = nu_alloc(npages);
	ASSERT_NE(NULL, p) TH_LOG("mmap %zu pages: %s", npages,
				  strerror(errno));
	ASSERT_EQ(0, mbind(p, len, MPOL_BIND, &mask, NU_MAXNODE, 0))
		TH_LOG("mbind(BIND {%d}): %s", node, strerror(errno));
	nu_fill(p, len, seed);
	ASSERT_EQ(0, mbind(p, len, MPOL_DEFAULT, NULL, 0, 0))
		TH_LOG("mbind(DEFAULT): %s", strerror(errno));
	on = nu_count_on_node(p, npages, node);
	ASSERT_GE(on, PCT90(npages))
		TH_LOG("placing on node %d: %ld of %zu pages there", node, on,
		       npages);
	return p;
}

/* ------------------------------------------------------------------ */
/* Bad input. */

TEST_F_TIMEOUT(ng, einval_flags, NG_TIMEOUT)
{
	static const unsigned long bad[] = { 1, 2, 1UL << 31, 1UL << 63 };
	size_t ps = nu_page_size(), i;
	char *buf;
	int g;

	NU_RETURN_IF_SKIPPED();
	g = new_group(_metadata, "main thread");
	buf = filled_buf(_metadata, 4);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_ERR(EINVAL, ng_tbind(0, MS_ID_NEW, bad[i]),
			   "numa_tbind(0, MS_ID_NEW, 0x%lx)", bad[i]);
		EXPECT_ERR(EINVAL, ng_tbind(0, MS_ID_GET, bad[i]),
			   "numa_tbind(0, MS_ID_GET, 0x%lx), bound", bad[i]);
		EXPECT_ERR(EINVAL, ng_tbind(0, g, bad[i]),
			   "numa_tbind(0, %d, 0x%lx)", g, bad[i]);
		EXPECT_ERR(EINVAL, ng_tbind(nu_gettid(), g, bad[i]),
			   "numa_tbind(own tid, %d, 0x%lx)", g, bad[i]);
		EXPECT_ERR(EINVAL, ng_mbind(buf, 4 * ps, g, bad[i]),
			   "numa_mbind(buf, 4 pages, %d, 0x%lx)", g, bad[i]);
	}
	/* Still in g, no other group made, nothing of buf bound. */
	expect_own_group(_metadata, g, "after the refused calls");
	expect_alive(_metadata, g, 1, 0, "after the refused calls");
	EXPECT_EQ(-1, nu_verify(buf, 4 * ps, SEED));
	nu_free(buf, 4);
}

TEST_F_TIMEOUT(ng, einval_unaligned, NG_TIMEOUT)
{
	size_t ps = nu_page_size();
	char *buf;
	int g;

	NU_RETURN_IF_SKIPPED();
	g = new_group(_metadata, "main thread");
	buf = filled_buf(_metadata, 4);
	EXPECT_ERR(EINVAL, ng_mbind(buf + 1, ps, g, 0),
		   "numa_mbind(buf + 1, 1 page, %d, 0)", g);
	EXPECT_ERR(EINVAL, ng_mbind(buf + ps / 2, 2 * ps, g, 0),
		   "numa_mbind(buf + ps/2, 2 pages, %d, 0)", g);
	EXPECT_ERR(EINVAL, ng_mbind(buf + ps - 8, 8, g, 0),
		   "numa_mbind(buf + ps - 8, 8 bytes, %d, 0)", g);
	expect_alive(_metadata, g, 1, 0, "after unaligned numa_mbind()");
	EXPECT_EQ(-1, nu_verify(buf, 4 * ps, SEED));
	nu_free(buf, 4);
}

TEST_F_TIMEOUT(ng, einval_unknown_id, NG_TIMEOUT)
{
	static const int bad[] = { 0, -3, 1000000 };
	size_t ps = nu_page_size(), i;
	struct servant s;
	char *buf;
	int freed, e;
	long r;

	NU_RETURN_IF_SKIPPED();
	buf = filled_buf(_metadata, 2);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_ERR(EINVAL, ng_tbind(0, bad[i], 0),
			   "numa_tbind(0, %d, 0)", bad[i]);
		EXPECT_ERR(EINVAL, ng_mbind(buf, 2 * ps, bad[i], 0),
			   "numa_mbind(buf, 2 pages, %d, 0)", bad[i]);
	}

	/* A freed id: its only thread exited. */
	servant_start(_metadata, &s);
	freed = servant_new_group(_metadata, &s);
	servant_stop(&s);
	expect_gone(_metadata, freed, "after its only thread exited");
	EXPECT_ERR(EINVAL, ng_tbind(0, freed, 0),
		   "numa_tbind(0, freed id %d, 0)", freed);
	EXPECT_ERR(EINVAL, ng_mbind(buf, 2 * ps, freed, 0),
		   "numa_mbind(buf, 2 pages, freed id %d, 0)", freed);

	/* Another thread, by tid: the same. */
	servant_start(_metadata, &s);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_ERR(EINVAL, ng_tbind(s.tid, bad[i], 0),
			   "numa_tbind(tid %d, %d, 0)", s.tid, bad[i]);
	r = servant_call(_metadata, &s, SV_TBIND, MS_ID_GET, &e);
	EXPECT_TRUE(r == -1 && e == EINVAL)
		TH_LOG("that thread is in group %ld (%s) after refused binds",
		       r, strerror(e));
	servant_stop(&s);
	expect_own_group(_metadata, 0, "after the refused calls");
	EXPECT_EQ(-1, nu_verify(buf, 2 * ps, SEED));
	nu_free(buf, 2);
}

static void count_visit(const struct ng_info *in, void *arg)
{
	(void)in;
	(*(int *)arg)++;
}

/* Kernel threads (kthreadd is pid 2) have neither home node nor group. */
TEST_F_TIMEOUT(ng, einval_kernel_thread, NG_TIMEOUT)
{
	int n0 = 0, n1 = 0;
	char comm[64];

	NU_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, nu_read_file("/proc/2/comm", comm, sizeof(comm)));
	ASSERT_STREQ("kthreadd", comm);
	if (ng_have_dbg)
		ASSERT_LE(0, ng_dbg_scan(count_visit, &n0));
	EXPECT_ERR(EINVAL, ng_tbind(2, MS_ID_NEW, 0),
		   "numa_tbind(kthreadd, MS_ID_NEW, 0)");
	EXPECT_ERR(EINVAL, ng_tbind(2, MS_ID_GET, 0),
		   "numa_tbind(kthreadd, MS_ID_GET, 0)");
	if (ng_have_dbg) {
		ASSERT_LE(0, ng_dbg_scan(count_visit, &n1));
		EXPECT_EQ(n0, n1) TH_LOG("no group was made for kthreadd");
	}
}

TEST_F_TIMEOUT(ng, esrch_unknown_tid, NG_TIMEOUT)
{
	int tids[2], i, g, n0 = 0, n1 = 0, status;
	pid_t pid;

	NU_RETURN_IF_SKIPPED();
	g = new_group(_metadata, "main thread");
	if (ng_have_dbg) {
		ASSERT_LE(0, ng_dbg_scan(count_visit, &n0));
	}

	/* Above pid_max, and a reaped child's pid (pids are not reused soon). */
	tids[0] = nu_unused_pid();
	pid = kid_fork(_metadata, self);
	if (pid == 0)
		_exit(0);
	status = kid_wait(_metadata, self, pid);
	ASSERT_TRUE(WIFEXITED(status));
	tids[1] = pid;

	for (i = 0; i < 2; i++) {
		EXPECT_ERR(ESRCH, ng_tbind(tids[i], MS_ID_NEW, 0),
			   "numa_tbind(%d, MS_ID_NEW, 0)", tids[i]);
		EXPECT_ERR(ESRCH, ng_tbind(tids[i], MS_ID_GET, 0),
			   "numa_tbind(%d, MS_ID_GET, 0)", tids[i]);
		EXPECT_ERR(ESRCH, ng_tbind(tids[i], g, 0),
			   "numa_tbind(%d, %d, 0)", tids[i], g);
	}
	/* The refused MS_ID_NEW created nothing. */
	if (ng_have_dbg) {
		ASSERT_LE(0, ng_dbg_scan(count_visit, &n1));
		EXPECT_EQ(n0, n1)
			TH_LOG("%d groups listed before, %d after the refused MS_ID_NEW",
			       n0, n1);
	}
	expect_own_group(_metadata, g, "after the refused calls");
	expect_alive(_metadata, g, 1, 0, "after the refused calls");
}

TEST_F_TIMEOUT(ng, einval_get_unbound, NG_TIMEOUT)
{
	int p2c[2], status, e;
	struct servant s;
	pid_t pid;
	char c;
	long r;

	NU_RETURN_IF_SKIPPED();
	expect_own_group(_metadata, 0, "in a new test process");
	EXPECT_ERR(EINVAL, ng_tbind(nu_gettid(), MS_ID_GET, 0),
		   "numa_tbind(own tid, MS_ID_GET, 0)");

	servant_start(_metadata, &s);
	r = servant_call(_metadata, &s, SV_TBIND, MS_ID_GET, &e);
	EXPECT_TRUE(r == -1 && e == EINVAL)
		TH_LOG("new thread, own view: %ld (%s), want EINVAL", r,
		       strerror(e));
	EXPECT_ERR(EINVAL, ng_tbind(s.tid, MS_ID_GET, 0),
		   "numa_tbind(new thread %d, MS_ID_GET, 0)", s.tid);
	servant_stop(&s);

	/* Another process. */
	ASSERT_EQ(0, pipe2(p2c, O_CLOEXEC));
	pid = kid_fork(_metadata, self);
	if (pid == 0) {
		close(p2c[1]);
		nu_read_full(p2c[0], &c, 1);
		_exit(0);
	}
	close(p2c[0]);
	/* Not a thread of ours: EPERM, even for root */
	EXPECT_ERR(EPERM, ng_tbind(pid, MS_ID_GET, 0),
		   "numa_tbind(child %d, MS_ID_GET, 0)", pid);
	close(p2c[1]);
	status = kid_wait(_metadata, self, pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_F_TIMEOUT(ng, enomem_unmapped, NG_TIMEOUT)
{
	size_t ps = nu_page_size();
	char *p;
	int g;

	NU_RETURN_IF_SKIPPED();
	g = new_group(_metadata, "main thread");
	p = filled_buf(_metadata, 3);

	/* A hole in the middle. */
	ASSERT_EQ(0, munmap(p + ps, ps));
	EXPECT_ERR(ENOMEM, ng_mbind(p, 3 * ps, g, 0),
		   "numa_mbind() of 3 pages, the middle one unmapped");
	/* Running past the end of a mapping. */
	EXPECT_ERR(ENOMEM, ng_mbind(p, 2 * ps, g, 0),
		   "numa_mbind() of a page and the hole after it");
	EXPECT_ERR(ENOMEM, ng_mbind(p + ps, ps, g, 0),
		   "numa_mbind() of the hole alone");
	EXPECT_EQ(-1, nu_verify_range(p, 0, ps, SEED));
	EXPECT_EQ(-1, nu_verify_range(p, 2 * ps, ps, SEED));

	/* Nothing mapped at all. */
	ASSERT_EQ(0, munmap(p, 3 * ps));
	EXPECT_ERR(ENOMEM, ng_mbind(p, 3 * ps, g, 0),
		   "numa_mbind() of 3 unmapped pages");
	expect_alive(_metadata, g, 1, -1, "after ENOMEM");
}

TEST_F_TIMEOUT(ng, eopnotsupp_when_off, NG_TIMEOUT)
{
	size_t ps = nu_page_size();
	struct servant s;
	char *buf;
	int g, e;
	long r;

	NU_RETURN_IF_SKIPPED();
	g = new_group(_metadata, "main thread");
	buf = filled_buf(_metadata, 2);
	servant_start(_metadata, &s);	/* unbound */

	ASSERT_EQ(0, nu_write_file(SCHED_NUMA, "0"));
	expect_own_group(_metadata, g, "with sched_numa = 0");
	EXPECT_ERR(EOPNOTSUPP, ng_tbind(0, MS_ID_NEW, 0),
		   "sched_numa = 0: numa_tbind(0, MS_ID_NEW, 0)");
	EXPECT_ERR(EOPNOTSUPP, ng_tbind(0, g, 0),
		   "sched_numa = 0: numa_tbind(0, own group %d, 0)", g);
	EXPECT_ERR(EOPNOTSUPP, ng_tbind(s.tid, g, 0),
		   "sched_numa = 0: numa_tbind(thread %d, %d, 0)", s.tid, g);
	EXPECT_ERR(EOPNOTSUPP, ng_tbind(s.tid, MS_ID_NEW, 0),
		   "sched_numa = 0: numa_tbind(thread %d, MS_ID_NEW, 0)",
		   s.tid);
	EXPECT_ERR(EOPNOTSUPP, ng_mbind(buf, 2 * ps, g, 0),
		   "sched_numa = 0: numa_mbind(buf, 2 pages, %d, 0)", g);
	r = servant_call(_metadata, &s, SV_TBIND, MS_ID_NEW, &e);
	EXPECT_TRUE(r == -1 && e == EOPNOTSUPP)
		TH_LOG("sched_numa = 0: thread's own MS_ID_NEW: %ld (%s)", r,
		       strerror(e));
	/* MS_ID_GET still works, both ways. */
	expect_own_group(_metadata, g, "with sched_numa = 0, after refusals");
	EXPECT_ERR(EINVAL, ng_tbind(s.tid, MS_ID_GET, 0),
		   "sched_numa = 0: numa_tbind(unbound %d, MS_ID_GET, 0)",
		   s.tid);
	r = servant_call(_metadata, &s, SV_TBIND, MS_ID_GET, &e);
	EXPECT_TRUE(r == -1 && e == EINVAL)
		TH_LOG("sched_numa = 0: unbound thread's own MS_ID_GET: %ld (%s)",
		       r, strerror(e));

	/* Back on: the same calls work (control). */
	ASSERT_EQ(0, nu_write_file(SCHED_NUMA, "1"));
	EXPECT_RET(0, ng_mbind(buf, 2 * ps, g, 0),
		   "sched_numa = 1 again: numa_mbind(buf, 2 pages, %d, 0)", g);
	EXPECT_RET(g, ng_tbind(s.tid, g, 0),
		   "sched_numa = 1 again: numa_tbind(thread %d, %d, 0)", s.tid,
		   g);
	r = servant_call(_metadata, &s, SV_TBIND, MS_ID_GET, &e);
	EXPECT_EQ(g, r) TH_LOG("the thread's own MS_ID_GET: %ld (%s)", r,
			       strerror(e));
	expect_alive(_metadata, g, 2, 2, "with sched_numa = 1 again");
	servant_stop(&s);
	EXPECT_EQ(-1, nu_verify(buf, 2 * ps, SEED));
	nu_free(buf, 2);
}

TEST_F_TIMEOUT(ng, len0_ok, NG_TIMEOUT)
{
	size_t ps = nu_page_size();
	struct servant s;
	char *buf, *hole;
	int g, h;

	NU_RETURN_IF_SKIPPED();
	g = new_group(_metadata, "main thread");
	buf = filled_buf(_metadata, 2);
	hole = nu_alloc(1);
	ASSERT_NE(NULL, hole);
	ASSERT_EQ(0, munmap(hole, ps));

	EXPECT_RET(0, ng_mbind(buf, 0, g, 0), "numa_mbind(buf, 0, %d, 0)", g);
	EXPECT_RET(0, ng_mbind(buf + ps, 0, g, 0),
		   "numa_mbind(buf + ps, 0, %d, 0)", g);
	EXPECT_RET(0, ng_mbind(hole, 0, g, 0),
		   "numa_mbind(unmapped address, 0, %d, 0)", g);
	expect_alive(_metadata, g, 1, 0, "after 0-byte numa_mbind()");

	/* A 0-byte binding does not keep a group alive. */
	servant_start(_metadata, &s);
	h = servant_new_group(_metadata, &s);
	EXPECT_RET(0, ng_mbind(buf, 0, h, 0), "numa_mbind(buf, 0, %d, 0)", h);
	servant_stop(&s);
	expect_gone(_metadata, h, "after its thread exited (0-byte binding)");
	EXPECT_EQ(-1, nu_verify(buf, 2 * ps, SEED));
	nu_free(buf, 2);
}

/* ------------------------------------------------------------------ */
/* Credentials. */

enum ep_check {
	EP_GET_UNBOUND,	/* fork child, dropped: MS_ID_GET -> EINVAL */
	EP_JOIN_G,	/* numa_tbind(0, G) -> EPERM */
	EP_NEW_PARENT,	/* numa_tbind(parent, MS_ID_NEW) -> EPERM */
	EP_JOIN_PARENT,	/* numa_tbind(parent, G) -> EPERM */
	EP_MBIND_G,	/* numa_mbind(own page, G) -> EPERM */
	EP_OWN_NEW,	/* numa_tbind(0, MS_ID_NEW) >= 1, MS_ID_GET == it */
	EP_OWN_MBIND,	/* numa_mbind(own page, own group) -> 0 */
	EP_NCHECK,
};
#define EP_DROP_FAILED	0x80	/* exit bit: could not become 65534 */

static const char *const ep_names[EP_NCHECK] = {
	[EP_GET_UNBOUND] = "numa_tbind(0, MS_ID_GET) in the fork child",
	[EP_JOIN_G] = "numa_tbind(0, root's group)",
	[EP_NEW_PARENT] = "numa_tbind(root's thread, MS_ID_NEW)",
	[EP_JOIN_PARENT] = "numa_tbind(root's thread, root's group)",
	[EP_MBIND_G] = "numa_mbind(own page, root's group)",
	[EP_OWN_NEW] = "numa_tbind(0, MS_ID_NEW), then MS_ID_GET",
	[EP_OWN_MBIND] = "numa_mbind(own page, own group)",
};

/* In shared memory: what the unprivileged child saw. */
struct ep_shared {
	int own;		/* its own group */
	long ret[EP_NCHECK];
	int err[EP_NCHECK];
};

static int ep_child(struct ep_shared *sh, int g, pid_t parent, int ready,
		    int wait_fd)
{
	size_t ps = nu_page_size();
	int fails = 0;
	char *p, c = 'R';
	long get;

#define EP_CALL(i, call) do {						\
	errno = 0;							\
	sh->ret[i] = (call);						\
	sh->err[i] = sh->ret[i] < 0 ? errno : 0;			\
} while (0)
#define EP_FAILS_WITH(i, e) do {					\
	if (!(sh->ret[i] == -1 && sh->err[i] == (e)))			\
		fails |= 1 << (i);					\
} while (0)

	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY) ||
	    geteuid() != NOBODY || getegid() != NOBODY)
		return EP_DROP_FAILED;
	p = nu_alloc(1);
	if (!p)
		return EP_DROP_FAILED;
	EP_CALL(EP_GET_UNBOUND, ng_tbind(0, MS_ID_GET, 0));
	EP_FAILS_WITH(EP_GET_UNBOUND, EINVAL);
	EP_CALL(EP_JOIN_G, ng_tbind(0, g, 0));
	EP_FAILS_WITH(EP_JOIN_G, EPERM);
	EP_CALL(EP_NEW_PARENT, ng_tbind(parent, MS_ID_NEW, 0));
	EP_FAILS_WITH(EP_NEW_PARENT, EPERM);
	EP_CALL(EP_JOIN_PARENT, ng_tbind(parent, g, 0));
	EP_FAILS_WITH(EP_JOIN_PARENT, EPERM);
	EP_CALL(EP_MBIND_G, ng_mbind(p, ps, g, 0));
	EP_FAILS_WITH(EP_MBIND_G, EPERM);
	EP_CALL(EP_OWN_NEW, ng_tbind(0, MS_ID_NEW, 0));
	get = ng_tbind(0, MS_ID_GET, 0);
	if (sh->ret[EP_OWN_NEW] < 1 || get != sh->ret[EP_OWN_NEW])
		fails |= 1 << EP_OWN_NEW;
	else
		sh->own = (int)sh->ret[EP_OWN_NEW];
	EP_CALL(EP_OWN_MBIND, sh->own ? ng_mbind(p, ps, sh->own, 0) : -1);
	if (sh->ret[EP_OWN_MBIND] != 0)
		fails |= 1 << EP_OWN_MBIND;
	p[0] = 1;	/* one page for the group's anon count */
#undef EP_CALL
#undef EP_FAILS_WITH
	nu_write_full(ready, &c, 1);
	while (nu_read_full(wait_fd, &c, 1) == 1)
		;
	return fails;
}

TEST_F_TIMEOUT(ng, eperm_unprivileged, NG_TIMEOUT)
{
	int p2c[2], c2p[2], g, i, status, code;
	struct ep_shared *sh;
	pid_t parent = getpid(), pid;
	char c;

	NU_RETURN_IF_SKIPPED();
	g = new_group(_metadata, "root's main thread");
	sh = shared_zalloc(_metadata, sizeof(*sh));
	ASSERT_EQ(0, pipe2(p2c, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(c2p, O_CLOEXEC));
	pid = kid_fork(_metadata, self);
	if (pid == 0) {
		close(p2c[1]);
		close(c2p[0]);
		_exit(ep_child(sh, g, parent, c2p[1], p2c[0]));
	}
	close(p2c[0]);
	close(c2p[1]);
	if (nu_read_full(c2p[0], &c, 1) != 1) {
		/* It exited early: report why. */
		status = kid_wait(_metadata, self, pid);
		ASSERT_TRUE(WIFEXITED(status) &&
			    WEXITSTATUS(status) != EP_DROP_FAILED)
			TH_LOG("child could not become uid/gid %d (status 0x%x)",
			       NOBODY, status);
		ASSERT_TRUE(0) TH_LOG("child exited early, status 0x%x",
				      status);
	}
	for (i = 0; i < EP_NCHECK; i++)
		TH_LOG("uid %d: %s: %ld (%s)", NOBODY, ep_names[i], sh->ret[i],
		       sh->err[i] ? strerror(sh->err[i]) : "ok");

	/*
	 * Root acts on its own threads only (EPERM for the child's, as in the
	 * 2012 RFC), but a thread of root's may join the child's group: root
	 * may ptrace the child (CAP_SYS_PTRACE).
	 */
	if (sh->own > 0) {
		struct servant s;
		long r;
		int e;

		EXPECT_ERR(EPERM, ng_tbind(pid, MS_ID_GET, 0),
			   "root: numa_tbind(child %d, MS_ID_GET, 0)", pid);
		EXPECT_ERR(EPERM, ng_tbind(pid, g, 0),
			   "root: numa_tbind(child %d, %d, 0)", pid, g);
		expect_listed(_metadata, sh->own, 1, 1,
			      "of the unprivileged child");
		servant_start(_metadata, &s);
		r = servant_call(_metadata, &s, SV_TBIND, sh->own, &e);
		EXPECT_EQ(sh->own, r)
			TH_LOG("root's thread joins child's group %d: %ld (%s)",
			       sh->own, r, strerror(e));
		expect_listed(_metadata, sh->own, 2, 1, "with root's thread");
		servant_stop(&s);
		expect_listed(_metadata, sh->own, 1, 1, "once root's thread left");
	}
	expect_own_group(_metadata, g, "after the child's attempts");

	close(p2c[1]);
	status = kid_wait(_metadata, self, pid);
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("child status 0x%x", status);
	code = WEXITSTATUS(status);
	EXPECT_EQ(0, code & EP_DROP_FAILED)
		TH_LOG("child could not become uid/gid %d", NOBODY);
	for (i = 0; i < EP_NCHECK; i++) {
		const char *name = ep_names[i];
		long ret = sh->ret[i];
		int err = sh->err[i];

		EXPECT_EQ(0, code & (1 << i))
			TH_LOG("uid %d: %s: %ld (%s), unexpected", NOBODY,
			       name, ret, err ? strerror(err) : "ok");
	}
	if (sh->own > 0)
		expect_gone(_metadata, sh->own, "after the child exited");
	expect_alive(_metadata, g, 1, -1, "after the child exited");
	munmap(sh, sizeof(*sh));
}

/* ------------------------------------------------------------------ */
/* Success paths. */

TEST_F_TIMEOUT(ng, new_get_rebind, NG_TIMEOUT)
{
	pid_t me = nu_gettid(), pid;
	int g1, g2, g3, node, hm, ht, e, status, p2c[2];
	struct servant t;
	long r;
	char c;

	NU_RETURN_IF_SKIPPED();
	g1 = new_group(_metadata, "main thread");
	expect_own_group(_metadata, g1, "after MS_ID_NEW");
	EXPECT_RET(g1, ng_tbind(me, MS_ID_GET, 0),
		   "numa_tbind(own tid, MS_ID_GET, 0)");
	node = expect_alive(_metadata, g1, 1, 0, "new");
	if (node >= 0)
		expect_home(_metadata, node, getpid(), me, "main thread in g1");

	/* A second MS_ID_NEW leaves g1, which had nothing else: freed. */
	g2 = new_group(_metadata, "main thread, again");
	EXPECT_NE(g1, g2);
	expect_own_group(_metadata, g2, "after the second MS_ID_NEW");
	expect_gone(_metadata, g1, "once its only thread moved on");

	/* Another thread, bound by tid. */
	servant_start(_metadata, &t);
	EXPECT_ERR(EINVAL, ng_tbind(t.tid, MS_ID_GET, 0),
		   "numa_tbind(new thread %d, MS_ID_GET, 0)", t.tid);
	EXPECT_RET(g2, ng_tbind(t.tid, g2, 0),
		   "numa_tbind(thread %d, %d, 0)", t.tid, g2);
	EXPECT_RET(g2, ng_tbind(t.tid, MS_ID_GET, 0),
		   "numa_tbind(thread %d, MS_ID_GET, 0)", t.tid);
	r = servant_call(_metadata, &t, SV_TBIND, MS_ID_GET, &e);
	EXPECT_EQ(g2, r) TH_LOG("thread %d, own view: %ld (%s)", t.tid, r,
				strerror(e));
	node = expect_alive(_metadata, g2, 2, 0, "with two threads");
	hm = nu_home_node(getpid(), me);
	ht = nu_home_node(getpid(), t.tid);
	TH_LOG("group %d: node %d; home_node: main %d, thread %d", g2, node,
	       hm, ht);
	if (node >= 0) {
		expect_home(_metadata, node, getpid(), me, "main thread in g2");
		expect_home(_metadata, node, getpid(), t.tid,
			    "second thread in g2");
	} else if (hm != NU_HOME_NOFILE) {
		/* No debugfs: the same valid node for both. */
		EXPECT_EQ(hm, ht) TH_LOG("threads of one group, home nodes differ");
		EXPECT_TRUE(ng_valid_node(hm))
			TH_LOG("bound thread: home_node %d", hm);
	}

	/* A thread created by a bound thread is not bound. */
	r = servant_call(_metadata, &t, SV_SPAWN_GET, 0, &e);
	EXPECT_TRUE(r == -1 && e == EINVAL)
		TH_LOG("thread of a bound thread: MS_ID_GET %ld (%s), want EINVAL",
		       r, strerror(e));
	/* Nor is a fork child of a bound thread. */
	ASSERT_EQ(0, pipe2(p2c, O_CLOEXEC));
	pid = kid_fork(_metadata, self);
	if (pid == 0) {
		close(p2c[1]);
		errno = 0;
		r = ng_tbind(0, MS_ID_GET, 0);
		e = errno;
		nu_read_full(p2c[0], &c, 1);
		_exit(r == -1 && e == EINVAL ? 0 : 1);
	}
	close(p2c[0]);
	/* Its own view is checked in the child; ours is EPERM */
	EXPECT_ERR(EPERM, ng_tbind(pid, MS_ID_GET, 0),
		   "numa_tbind(fork child %d, MS_ID_GET, 0)", pid);
	close(p2c[1]);
	status = kid_wait(_metadata, self, pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("fork child of a bound thread, own view: bound (status 0x%x)",
		       status);
	expect_alive(_metadata, g2, 2, 0, "after the thread and fork children");

	/* Rebinding: the thread to a new group, then main follows it. */
	errno = 0;
	r = ng_tbind(t.tid, MS_ID_NEW, 0);
	ASSERT_LE(1, r) TH_LOG("numa_tbind(thread %d, MS_ID_NEW, 0): %s", t.tid,
			       strerror(errno));
	g3 = (int)r;
	EXPECT_NE(g2, g3);
	EXPECT_RET(g3, ng_tbind(t.tid, MS_ID_GET, 0),
		   "numa_tbind(thread %d, MS_ID_GET, 0) after MS_ID_NEW", t.tid);
	expect_alive(_metadata, g2, 1, 0, "once the thread left");
	expect_alive(_metadata, g3, 1, 0, "made for the thread");
	EXPECT_RET(g3, ng_tbind(0, g3, 0), "numa_tbind(0, %d, 0)", g3);
	expect_gone(_metadata, g2, "once both threads left");
	expect_alive(_metadata, g3, 2, 0, "with both threads");
	servant_stop(&t);
	expect_alive(_metadata, g3, 1, 0, "after the thread exited");
	expect_own_group(_metadata, g3, "at the end");
}

#define MF_LEN		(8 * MIB)
#define MF_SEED2	(SEED + 2)
#define MF_SEED3	(SEED + 3)

struct mf_shared {
	int err;		/* errno of what failed in the child */
	char what[64];
	long on_node;		/* pages of b3 on the group's node */
	long bad_off;
};

/* Fork child: fill the inherited bound b3 preferring, and on, node other. */
static void mf_child(struct mf_shared *sh, char *b3, size_t np, int node,
		     int other)
{
	unsigned long mask = NU_MASK(other);
	int r;

	r = nu_pin_to_node(other);
	if (r) {
		sh->err = -r;
		snprintf(sh->what, sizeof(sh->what), "pin to node %d", other);
		_exit(1);
	}
	if (set_mempolicy(MPOL_PREFERRED, &mask, NU_MAXNODE)) {
		sh->err = errno;
		snprintf(sh->what, sizeof(sh->what), "set_mempolicy");
		_exit(1);
	}
	nu_fill(b3, np * nu_page_size(), MF_SEED3);
	sh->on_node = nu_count_on_node(b3, np, node);
	sh->bad_off = nu_verify(b3, np * nu_page_size(), MF_SEED3);
	_exit(0);
}

TEST_F_TIMEOUT(ng, mbind_follows_group, NG_TIMEOUT)
{
	size_t ps = nu_page_size(), np = MF_LEN / ps;
	struct mf_shared *sh;
	char *buf, *b2, *b3;
	cpu_set_t saved;
	int g, node, other, r, status;
	long on, off;
	pid_t pid;

	NU_RETURN_IF_SKIPPED();
	g = new_group(_metadata, "main thread");
	node = group_node(_metadata, g, nu_gettid());
	if (ng_have_dbg)
		expect_home(_metadata, node, getpid(), nu_gettid(),
			    "main thread");
	other = node == 0 ? 1 : 0;	/* 1 - node on two nodes */
	TH_LOG("group %d on node %d; buffers start on node %d", g, node, other);

	/* Existing pages move on their next touch (a read). */
	buf = placed_buf(_metadata, np, other, SEED);
	ASSERT_EQ(0, ng_mbind(buf, MF_LEN, g, 0))
		TH_LOG("numa_mbind(8 MiB, %d, 0): %s", g, strerror(errno));
	TH_LOG("before the touch: %ld of %zu pages on node %d",
	       nu_count_on_node(buf, np, node), np, node);
	off = nu_verify(buf, MF_LEN, SEED);
	EXPECT_EQ(-1, off) TH_LOG("contents after the move: bad at %ld", off);
	on = nu_count_on_node(buf, np, node);
	EXPECT_GE(on, PCT90(np))
		TH_LOG("after reading: %ld of %zu pages on the group's node %d",
		       on, np, node);
	off = nu_verify(buf, MF_LEN, SEED);
	EXPECT_EQ(-1, off) TH_LOG("contents, second read: bad at %ld", off);

	/* New pages of a bound range: the group's node, wherever we run. */
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(saved), &saved));
	b2 = nu_alloc(np);
	ASSERT_NE(NULL, b2);
	ASSERT_EQ(0, ng_mbind(b2, MF_LEN, g, 0))
		TH_LOG("numa_mbind(new 8 MiB, %d, 0): %s", g, strerror(errno));
	r = nu_pin_to_node(other);
	ASSERT_EQ(0, r) TH_LOG("pin to node %d: %s", other, strerror(-r));
	nu_fill(b2, MF_LEN, MF_SEED2);
	TH_LOG("filled from CPU %d (node %d)", sched_getcpu(), other);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(saved), &saved));
	on = nu_count_on_node(b2, np, node);
	EXPECT_GE(on, PCT90(np))
		TH_LOG("new range filled on node %d's CPUs: %ld of %zu pages on node %d",
		       other, on, np, node);
	off = nu_verify(b2, MF_LEN, MF_SEED2);
	EXPECT_EQ(-1, off) TH_LOG("new range: bad at %ld", off);

	/*
	 * A fork child inherits the binding of b3 (bound, untouched): its
	 * pages go to the group's node although the child is not in the group,
	 * runs on the other node and prefers it (the VMA's binding wins).
	 */
	sh = shared_zalloc(_metadata, sizeof(*sh));
	sh->on_node = -1;
	b3 = nu_alloc(np);
	ASSERT_NE(NULL, b3);
	ASSERT_EQ(0, ng_mbind(b3, MF_LEN, g, 0))
		TH_LOG("numa_mbind(third 8 MiB, %d, 0): %s", g, strerror(errno));
	pid = kid_fork(_metadata, self);
	if (pid == 0)
		mf_child(sh, b3, np, node, other);
	status = kid_wait(_metadata, self, pid);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("fork child: %s: %s (status 0x%x)", sh->what,
		       strerror(sh->err), status);
	EXPECT_GE(sh->on_node, PCT90(np))
		TH_LOG("fork child with MPOL_PREFERRED {%d} on node %d's CPUs: %ld of %zu pages on node %d",
		       other, other, sh->on_node, np, node);
	EXPECT_EQ(-1, sh->bad_off) TH_LOG("fork child: bad at %ld",
					  sh->bad_off);

	/* The parent's two touched ranges (the child's copies are gone). */
	expect_alive(_metadata, g, 1, (long)(2 * np), "with two touched 8 MiB ranges");
	nu_free(buf, np);
	nu_free(b2, np);
	nu_free(b3, np);
	munmap(sh, sizeof(*sh));
}

#define RA_PAGES	1024

TEST_F_TIMEOUT(ng, rss_accounting, NG_TIMEOUT)
{
	size_t ps = nu_page_size(), half = RA_PAGES / 2 * ps;
	int g, p2c[2], c2p[2], status;
	struct ng_info in;
	struct servant s;
	pid_t pid;
	char *buf, c;

	NU_RETURN_IF_SKIPPED();
	/* Made by a thread that goes away: only buf keeps the group. */
	servant_start(_metadata, &s);
	g = servant_new_group(_metadata, &s);
	buf = nu_alloc(RA_PAGES);
	ASSERT_NE(NULL, buf);
	nu_fill(buf, half, SEED);			/* before the binding */
	ASSERT_EQ(0, ng_mbind(buf, RA_PAGES * ps, g, 0))
		TH_LOG("numa_mbind(%d pages, %d, 0): %s", RA_PAGES, g,
		       strerror(errno));
	expect_alive(_metadata, g, 1, RA_PAGES / 2, "half touched before binding");
	nu_fill(buf + half, half, SEED + 1);		/* after it */
	expect_alive(_metadata, g, 1, RA_PAGES, "all touched");
	servant_stop(&s);
	expect_alive(_metadata, g, 0, RA_PAGES, "after its thread exited");
	if (ng_have_dbg) {
		ASSERT_EQ(0, dbg_find(_metadata, g, &in));
		EXPECT_EQ(0, in.file) TH_LOG("file pages %ld", in.file);
		EXPECT_EQ(0, in.shmem) TH_LOG("shmem pages %ld", in.shmem);
		EXPECT_EQ(0, in.swapents) TH_LOG("swap entries %ld",
						 in.swapents);
	}

	/* A fork child's copies count as well while it lives. */
	ASSERT_EQ(0, pipe2(p2c, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(c2p, O_CLOEXEC));
	pid = kid_fork(_metadata, self);
	if (pid == 0) {
		close(p2c[1]);
		close(c2p[0]);
		nu_fill(buf, RA_PAGES * ps, SEED + 2);	/* CoW every page */
		c = nu_verify(buf, RA_PAGES * ps, SEED + 2) == -1 ? 'R' : 'X';
		nu_write_full(c2p[1], &c, 1);
		nu_read_full(p2c[0], &c, 1);
		_exit(0);
	}
	close(p2c[0]);
	close(c2p[1]);
	ASSERT_EQ(1, nu_read_full(c2p[0], &c, 1));
	EXPECT_EQ('R', c) TH_LOG("fork child: its copy is corrupted");
	if (ng_have_dbg) {
		ASSERT_EQ(0, dbg_find(_metadata, g, &in));
		EXPECT_GE(in.anon, 2 * RA_PAGES)
			TH_LOG("child wrote its copy: anon %ld, want >= %d",
			       in.anon, 2 * RA_PAGES);
		TH_LOG("with the fork child's copies: anon %ld (parent %d)",
		       in.anon, RA_PAGES);
	}
	close(p2c[1]);
	close(c2p[0]);
	status = kid_wait(_metadata, self, pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	expect_alive(_metadata, g, 0, RA_PAGES, "after the child exited");
	EXPECT_EQ(-1, nu_verify(buf, half, SEED));
	EXPECT_EQ(-1, nu_verify(buf + half, half, SEED + 1));

	/* Half unmapped: half the pages; all unmapped: no group. */
	ASSERT_EQ(0, munmap(buf + half, half));
	expect_alive(_metadata, g, 0, RA_PAGES / 2, "after munmap() of half");
	ASSERT_EQ(0, munmap(buf, half));
	expect_gone(_metadata, g, "after munmap() of all of it");
}

#define LC_PAGES	256	/* 1 MiB */

TEST_F_TIMEOUT(ng, lifecycle_vma_outlives_creator, NG_TIMEOUT)
{
	size_t ps = nu_page_size(), len = LC_PAGES * ps;
	int g, p2c[2], c2p[2], status;
	struct servant s;
	struct ng_info in;
	char *b1, *b2, c;
	pid_t pid;

	NU_RETURN_IF_SKIPPED();
	servant_start(_metadata, &s);
	g = servant_new_group(_metadata, &s);
	b1 = nu_alloc(LC_PAGES);
	ASSERT_NE(NULL, b1);
	ASSERT_EQ(0, ng_mbind(b1, len, g, 0))
		TH_LOG("numa_mbind(b1, %d, 0): %s", g, strerror(errno));
	nu_fill(b1, len, SEED);
	servant_stop(&s);		/* the creator exits */

	expect_alive(_metadata, g, 0, LC_PAGES, "after its creator exited");
	b2 = nu_alloc(LC_PAGES);
	ASSERT_NE(NULL, b2);
	EXPECT_RET(0, ng_mbind(b2, len, g, 0),
		   "numa_mbind(b2, %d, 0) after the creator exited", g);
	nu_fill(b2, len, SEED + 1);
	expect_alive(_metadata, g, 0, 2 * LC_PAGES, "with b1 and b2 bound");

	/* A fork child's inherited bindings keep it after we unmap. */
	ASSERT_EQ(0, pipe2(p2c, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(c2p, O_CLOEXEC));
	pid = kid_fork(_metadata, self);
	if (pid == 0) {
		close(p2c[1]);
		close(c2p[0]);
		c = nu_verify(b1, len, SEED) == -1 &&
		    nu_verify(b2, len, SEED + 1) == -1 ? 'R' : 'X';
		nu_write_full(c2p[1], &c, 1);
		while (nu_read_full(p2c[0], &c, 1) == 1)
			;
		_exit(0);
	}
	close(p2c[0]);
	close(c2p[1]);
	ASSERT_EQ(1, nu_read_full(c2p[0], &c, 1));
	EXPECT_EQ('R', c) TH_LOG("fork child: inherited buffers corrupted");
	ASSERT_EQ(0, munmap(b1, len));
	ASSERT_EQ(0, munmap(b2, len));
	expect_alive(_metadata, g, 0, -1, "with only the child's bindings");
	if (ng_have_dbg && !dbg_find(_metadata, g, &in))
		TH_LOG("group %d with the child's mappings only: anon %ld",
		       g, in.anon);

	close(p2c[1]);
	close(c2p[0]);
	status = kid_wait(_metadata, self, pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	expect_gone(_metadata, g, "after the fork child exited");
	EXPECT_ERR(EINVAL, ng_tbind(0, g, 0), "numa_tbind(0, %d, 0), gone", g);
	expect_own_group(_metadata, 0, "at the end");
}

#define SM_PAGES	16

TEST_F_TIMEOUT(ng, split_merge_mremap_mprotect, NG_TIMEOUT)
{
	size_t ps = nu_page_size(), len = SM_PAGES * ps;
	struct servant s;
	char *buf, *nb;
	int g;

	NU_RETURN_IF_SKIPPED();
	servant_start(_metadata, &s);
	g = servant_new_group(_metadata, &s);
	buf = nu_alloc(SM_PAGES);
	ASSERT_NE(NULL, buf);
	nu_fill(buf, len, SEED);
	ASSERT_EQ(0, ng_mbind(buf, len, g, 0))
		TH_LOG("numa_mbind(%d pages, %d, 0): %s", SM_PAGES, g,
		       strerror(errno));
	servant_stop(&s);	/* from now on only the VMAs keep g */
	expect_alive(_metadata, g, 0, SM_PAGES, "bound");

	/* Split in three. */
	ASSERT_EQ(0, mprotect(buf + 6 * ps, 4 * ps, PROT_READ));
	expect_alive(_metadata, g, 0, SM_PAGES, "after mprotect() of the middle");
	EXPECT_EQ(-1, nu_verify(buf, len, SEED));

	/* Merged again. */
	ASSERT_EQ(0, mprotect(buf + 6 * ps, 4 * ps, PROT_READ | PROT_WRITE));
	expect_alive(_metadata, g, 0, SM_PAGES, "after the merge");
	EXPECT_RET(0, ng_mbind(buf, len, g, 0),
		   "numa_mbind() again after the merge");
	expect_alive(_metadata, g, 0, SM_PAGES, "re-bound after the merge");

	/* Grown (and maybe moved): the new part is bound too. */
	nb = mremap(buf, len, 2 * len, MREMAP_MAYMOVE);
	ASSERT_NE(MAP_FAILED, nb) TH_LOG("mremap: %s", strerror(errno));
	expect_alive(_metadata, g, 0, SM_PAGES,
		     nb == buf ? "after mremap() in place" :
				 "after mremap() to a new place");
	EXPECT_EQ(-1, nu_verify(nb, len, SEED));
	nu_fill(nb + len, len, SEED + 1);
	expect_alive(_metadata, g, 0, 2 * SM_PAGES, "grown part touched");
	EXPECT_RET(0, ng_mbind(nb, 2 * len, g, 0),
		   "numa_mbind() again after mremap()");
	expect_alive(_metadata, g, 0, 2 * SM_PAGES, "re-bound after mremap()");

	/* The first page unmapped. */
	ASSERT_EQ(0, munmap(nb, ps));
	expect_alive(_metadata, g, 0, 2 * SM_PAGES - 1,
		     "after munmap() of the first page");
	EXPECT_RET(0, ng_mbind(nb + ps, 2 * len - ps, g, 0),
		   "numa_mbind() of the rest");
	expect_alive(_metadata, g, 0, 2 * SM_PAGES - 1, "rest re-bound");
	EXPECT_EQ(-1, nu_verify_range(nb, ps, len - ps, SEED));
	EXPECT_EQ(-1, nu_verify(nb + len, len, SEED + 1));

	ASSERT_EQ(0, munmap(nb + ps, 2 * len - ps));
	expect_gone(_metadata, g, "after the last munmap()");
}

TEST_F_TIMEOUT(ng, exec_leaves_group, NG_TIMEOUT)
{
	int p2c[2], c2p[2], node, status;
	struct exec_rep rep;
	pid_t pid;
	long g;
	char c = 'G';

	NU_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, pipe2(p2c, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(c2p, O_CLOEXEC));
	pid = kid_fork(_metadata, self);
	if (pid == 0) {
		char *argv[] = { "numa_groups-exec-probe", NULL };
		char fd_env[32], wait_env[32], exec_env[] = EXEC_ENV "=1";
		char *envp[] = { exec_env, fd_env, wait_env, NULL };

		close(p2c[1]);
		close(c2p[0]);
		g = ng_tbind(0, MS_ID_NEW, 0);
		nu_write_full(c2p[1], &g, sizeof(g));
		if (g < 1 || nu_read_full(p2c[0], &c, 1) != 1)
			_exit(3);
		snprintf(fd_env, sizeof(fd_env), EXEC_FD_ENV "=%d", c2p[1]);
		snprintf(wait_env, sizeof(wait_env), EXEC_WAIT_ENV "=%d",
			 p2c[0]);
		if (fcntl(c2p[1], F_SETFD, 0) || fcntl(p2c[0], F_SETFD, 0))
			_exit(4);
		execve("/proc/self/exe", argv, envp);
		_exit(5);
	}
	close(p2c[0]);
	close(c2p[1]);
	ASSERT_EQ((ssize_t)sizeof(g), nu_read_full(c2p[0], &g, sizeof(g)));
	ASSERT_LE(1, g) TH_LOG("child: numa_tbind(0, MS_ID_NEW, 0): %ld", g);
	/* Another process's thread: not ours to look at (EPERM) */
	EXPECT_ERR(EPERM, ng_tbind(pid, MS_ID_GET, 0),
		   "numa_tbind(child %d, MS_ID_GET, 0) before execve()", pid);
	node = expect_alive(_metadata, (int)g, 1, 0, "of the child");
	if (node >= 0)
		expect_home(_metadata, node, pid, 0, "bound child");

	ASSERT_EQ(1, nu_write_full(p2c[1], &c, 1));	/* go: execve() */
	memset(&rep, 0, sizeof(rep));
	if (nu_read_full(c2p[0], &rep, sizeof(rep)) != sizeof(rep)) {
		status = kid_wait(_metadata, self, pid);
		ASSERT_TRUE(0) TH_LOG("no answer from the new image (status 0x%x)",
				      status);
	}
	EXPECT_TRUE(rep.ret == -1 && rep.err == EINVAL)
		TH_LOG("after execve(), own view: MS_ID_GET %ld (%s), want EINVAL",
		       rep.ret, strerror(rep.err));
	TH_LOG("after execve(): home_node %d", rep.home);
	/* Its only thread left and its old mm is gone: so is the group. */
	expect_gone(_metadata, (int)g, "after its only thread's execve()");

	close(p2c[1]);
	close(c2p[0]);
	status = kid_wait(_metadata, self, pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("exec probe status 0x%x", status);
}

/* ------------------------------------------------------------------ */
/* Races. */

#define ST_WORKERS	4
#define ST_SLOTS	16		/* shared group ids */
#define ST_RECENT	64		/* tids of short-lived threads */
#define ST_FRESH	1000		/* at most this many spawns old */
#define ST_BUF		(64 * KIB)
#define ST_IDMAP_BITS	(1U << 22)	/* ids the leak check follows */
#define ST_MAX_LISTED	4096

enum st_count {
	C_NEW, C_BIND, C_BIND_EINVAL, C_GET, C_SPAWN, C_SHORT_EINVAL,
	C_MBIND, C_MBIND_EINVAL, C_FORK, C_FOREIGN, C_FOREIGN_OK,
	C_FOREIGN_ESRCH, C_FOREIGN_EINVAL, ST_NCOUNT,
};

static const char *const st_names[ST_NCOUNT] = {
	[C_NEW] = "new", [C_BIND] = "bind", [C_BIND_EINVAL] = "bind-EINVAL",
	[C_GET] = "get", [C_SPAWN] = "threads",
	[C_SHORT_EINVAL] = "thread-bind-EINVAL", [C_MBIND] = "mbind",
	[C_MBIND_EINVAL] = "mbind-EINVAL", [C_FORK] = "forks",
	[C_FOREIGN] = "by-tid", [C_FOREIGN_OK] = "by-tid-ok",
	[C_FOREIGN_ESRCH] = "by-tid-ESRCH",
	[C_FOREIGN_EINVAL] = "by-tid-EINVAL",
};

struct st_ctx;

struct st_thr {
	struct st_ctx *c;
	pthread_t thr;
	const char *name;
	unsigned int rnd;
	int mine;		/* group it is bound to, 0 for none */
	unsigned long n[ST_NCOUNT];
	int bad;
	char what[160];
};

struct st_ctx {
	volatile int stop;
	int slot[ST_SLOTS];
	uint64_t recent[ST_RECENT];	/* seq << 32 | tid */
	uint32_t spawned;
	unsigned char *created;		/* bitmap of ids made by the test */
	unsigned long created_over;	/* ids beyond ST_IDMAP_BITS */
	unsigned long made;		/* groups made, all in all */
	struct st_thr w[ST_WORKERS], mb, fk, main;
};

static void st_bad(struct st_thr *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void st_bad(struct st_thr *t, const char *fmt, ...)
{
	va_list ap;

	if (t->bad++)
		return;
	va_start(ap, fmt);
	vsnprintf(t->what, sizeof(t->what), fmt, ap);
	va_end(ap);
}

static void st_created(struct st_ctx *c, long id)
{
	__atomic_fetch_add(&c->made, 1, __ATOMIC_RELAXED);
	if (id > 0 && id < ST_IDMAP_BITS)
		__atomic_fetch_or(&c->created[id / 8],
				  (unsigned char)(1U << (id % 8)),
				  __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&c->created_over, 1, __ATOMIC_RELAXED);
}

static int st_pick(struct st_thr *t)
{
	return __atomic_load_n(&t->c->slot[rand_r(&t->rnd) % ST_SLOTS],
			       __ATOMIC_RELAXED);
}

static void st_publish(struct st_thr *t, int id)
{
	__atomic_store_n(&t->c->slot[rand_r(&t->rnd) % ST_SLOTS], id,
			 __ATOMIC_RELAXED);
}

struct st_short {
	struct st_ctx *c;
	int target;		/* MS_ID_NEW or a group id */
	long ret;
	int err;
};

/* Short-lived: announce its tid, bind itself, exit at once. */
static void *st_short_fn(void *p)
{
	struct st_short *s = p;
	uint32_t seq = __atomic_add_fetch(&s->c->spawned, 1, __ATOMIC_RELAXED);
	uint64_t v = (uint64_t)seq << 32 | (uint32_t)nu_gettid();

	__atomic_store_n(&s->c->recent[seq % ST_RECENT], v, __ATOMIC_RELAXED);
	errno = 0;
	s->ret = ng_tbind(0, s->target, 0);
	s->err = s->ret < 0 ? errno : 0;
	return NULL;
}

static void st_spawn(struct st_thr *t)
{
	struct st_short s = { .c = t->c, .ret = -1 };
	pthread_t thr;
	int e;

	s.target = rand_r(&t->rnd) & 1 ? st_pick(t) : 0;
	if (!s.target)
		s.target = MS_ID_NEW;
	e = pthread_create(&thr, NULL, st_short_fn, &s);
	if (e) {
		st_bad(t, "pthread_create: %s", strerror(e));
		return;
	}
	pthread_join(thr, NULL);
	t->n[C_SPAWN]++;
	if (s.target == MS_ID_NEW) {
		if (s.ret < 1)
			st_bad(t, "short thread: numa_tbind(0, MS_ID_NEW): %ld (%s)",
			       s.ret, strerror(s.err));
		else
			st_created(t->c, s.ret);
		if (s.ret >= 1 && rand_r(&t->rnd) % 4 == 0)
			st_publish(t, (int)s.ret);
	} else if (s.ret == -1 && s.err == EINVAL) {
		t->n[C_SHORT_EINVAL]++;
	} else if (s.ret != s.target) {
		st_bad(t, "short thread: numa_tbind(0, %d): %ld (%s)", s.target,
		       s.ret, strerror(s.err));
	}
}

static void *st_worker_fn(void *p)
{
	struct st_thr *t = p;
	struct st_ctx *c = t->c;
	long r;
	int id, e;

	while (!c->stop && !t->bad) {
		switch (rand_r(&t->rnd) % 4) {
		case 0:
			errno = 0;
			r = ng_tbind(0, MS_ID_NEW, 0);
			if (r < 1) {
				st_bad(t, "numa_tbind(0, MS_ID_NEW): %ld (%s)",
				       r, strerror(errno));
				break;
			}
			st_created(c, r);
			st_publish(t, (int)r);
			t->mine = (int)r;
			t->n[C_NEW]++;
			break;
		case 1:
			id = st_pick(t);
			if (!id)
				break;
			errno = 0;
			r = ng_tbind(0, id, 0);
			e = errno;
			if (r == id) {
				t->mine = id;
				t->n[C_BIND]++;
			} else if (r == -1 && e == EINVAL) {
				t->n[C_BIND_EINVAL]++;
			} else {
				st_bad(t, "numa_tbind(0, %d): %ld (%s)", id, r,
				       strerror(e));
			}
			break;
		case 2:
			/* Only this thread binds itself: it knows its group. */
			errno = 0;
			r = ng_tbind(0, MS_ID_GET, 0);
			e = errno;
			if (t->mine ? r != t->mine : !(r == -1 && e == EINVAL))
				st_bad(t, "numa_tbind(0, MS_ID_GET): %ld (%s), bound to %d",
				       r, strerror(e), t->mine);
			t->n[C_GET]++;
			break;
		default:
			st_spawn(t);
		}
	}
	return NULL;
}

/*
 * Bind the 64 KiB buffer @b to group @id, which another thread may free
 * meanwhile (EINVAL); anything else is a failure.  No-op for id 0.
 */
static void st_mbind(struct st_thr *t, char *b, int id)
{
	long r;
	int e;

	if (!id)
		return;
	errno = 0;
	r = ng_mbind(b, ST_BUF, id, 0);
	e = errno;
	if (r == 0)
		t->n[C_MBIND]++;
	else if (r == -1 && e == EINVAL)
		t->n[C_MBIND_EINVAL]++;
	else
		st_bad(t, "numa_mbind(64 KiB, %d): %ld (%s)", id, r,
		       strerror(e));
}

/* Map, fill, bind to a shared id (before or after the fill), check, unmap. */
static void *st_mbind_fn(void *p)
{
	size_t ps = nu_page_size(), np = ST_BUF / ps;
	struct st_thr *t = p;
	uint64_t seed = 0x3000;
	int id, before;
	char *b;
	long off;

	while (!t->c->stop && !t->bad) {
		b = nu_alloc(np);
		if (!b) {
			st_bad(t, "mmap: %s", strerror(errno));
			break;
		}
		seed++;
		id = st_pick(t);
		before = rand_r(&t->rnd) & 1;
		if (!before)
			nu_fill(b, ST_BUF, seed);
		st_mbind(t, b, id);
		if (before)
			nu_fill(b, ST_BUF, seed);
		off = nu_verify(b, ST_BUF, seed);
		if (off != -1)
			st_bad(t, "64 KiB buffer bound to %d: bad at %ld", id,
			       off);
		munmap(b, ST_BUF);
	}
	return NULL;
}

/* Fork children that check and write an inherited bound buffer. */
static void *st_fork_fn(void *p)
{
	size_t ps = nu_page_size(), np = ST_BUF / ps;
	struct st_thr *t = p;
	uint64_t seed = 0xf000;
	int id, status;
	long r, off;
	pid_t pid;
	char *b;

	errno = 0;
	r = ng_tbind(0, MS_ID_NEW, 0);
	if (r < 1) {
		st_bad(t, "numa_tbind(0, MS_ID_NEW): %ld (%s)", r,
		       strerror(errno));
		return NULL;
	}
	st_created(t->c, r);
	t->mine = (int)r;
	b = nu_alloc(np);
	if (!b) {
		st_bad(t, "mmap: %s", strerror(errno));
		return NULL;
	}
	nu_fill(b, ST_BUF, seed);
	if (ng_mbind(b, ST_BUF, t->mine, 0))
		st_bad(t, "numa_mbind(64 KiB, own %d): %s", t->mine,
		       strerror(errno));
	while (!t->c->stop && !t->bad) {
		id = st_pick(t);
		st_mbind(t, b, id);
		pid = fork();
		if (pid == 0) {
			/* Async-signal-safe only: a fork of a threaded process. */
			errno = 0;
			r = ng_tbind(0, MS_ID_GET, 0);
			if (!(r == -1 && errno == EINVAL))
				_exit(3);
			if (nu_verify(b, ST_BUF, seed) != -1)
				_exit(1);
			nu_fill(b, ST_BUF, seed + 1);
			if (nu_verify(b, ST_BUF, seed + 1) != -1)
				_exit(2);
			_exit(0);
		}
		if (pid < 0) {
			st_bad(t, "fork: %s", strerror(errno));
			break;
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		t->n[C_FORK]++;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			st_bad(t, "fork child: status 0x%x (1: inherited copy bad, 2: own copy bad, 3: bound)",
			       status);
		off = nu_verify(b, ST_BUF, seed);
		if (off != -1)
			st_bad(t, "parent's copy after the child wrote: bad at %ld",
			       off);
	}
	munmap(b, ST_BUF);
	return NULL;
}

/* Main thread: bind recent short-lived threads by tid while they exit. */
static void st_foreign(struct st_ctx *c, struct st_thr *t)
{
	uint64_t v = __atomic_load_n(&c->recent[rand_r(&t->rnd) % ST_RECENT],
				     __ATOMIC_RELAXED);
	uint32_t seq = v >> 32, now;
	int tid = (int)(uint32_t)v, target, e;
	long r;

	now = __atomic_load_n(&c->spawned, __ATOMIC_RELAXED);
	/* Older tids could have been reused by now: leave them. */
	if (!v || now - seq > ST_FRESH)
		return;
	switch (rand_r(&t->rnd) % 3) {
	case 0:
		target = MS_ID_NEW;
		break;
	case 1:
		target = st_pick(t);
		if (target)
			break;
		/* fall through */
	default:
		target = MS_ID_GET;
	}
	errno = 0;
	r = ng_tbind(tid, target, 0);
	e = errno;
	t->n[C_FOREIGN]++;
	if (r >= 0) {
		if ((target == MS_ID_NEW || target == MS_ID_GET) ? r < 1 :
								 r != target)
			st_bad(t, "numa_tbind(%d, %d): returned %ld", tid,
			       target, r);
		else if (target == MS_ID_NEW)
			st_created(c, r);
		t->n[C_FOREIGN_OK]++;
	} else if (e == ESRCH) {
		t->n[C_FOREIGN_ESRCH]++;
	} else if (e == EINVAL) {
		t->n[C_FOREIGN_EINVAL]++;
	} else {
		st_bad(t, "numa_tbind(%d, %d): %s", tid, target, strerror(e));
	}
}

static void st_log(struct __test_metadata *_metadata, const struct st_thr *t)
{
	char line[512];
	size_t len = 0;
	int i;

	for (i = 0; i < ST_NCOUNT && len < sizeof(line); i++)
		if (t->n[i])
			len += snprintf(line + len, sizeof(line) - len,
					" %s=%lu", st_names[i], t->n[i]);
	line[len < sizeof(line) ? len : sizeof(line) - 1] = '\0';
	TH_LOG("%s:%s", t->name, len ? line : " nothing");
}

static unsigned long st_sum(const struct st_ctx *c, int k)
{
	unsigned long sum = c->mb.n[k] + c->fk.n[k] + c->main.n[k];
	int i;

	for (i = 0; i < ST_WORKERS; i++)
		sum += c->w[i].n[k];
	return sum;
}

TEST_F_TIMEOUT(ng, exit_race_and_stress, STRESS_TIMEOUT)
{
	static const char *const wnames[ST_WORKERS] = {
		"worker 0", "worker 1", "worker 2", "worker 3",
	};
	int before_ids[ST_MAX_LISTED], after_ids[ST_MAX_LISTED];
	struct ng_idset before = { before_ids, 0, ST_MAX_LISTED };
	struct ng_idset after = { after_ids, 0, ST_MAX_LISTED };
	struct st_thr *all[ST_WORKERS + 3];
	int i, e, nall = 0, alive, nleft, shown, extra, *left;
	long long t0;
	struct st_ctx *c;
	unsigned int id;

	NU_RETURN_IF_SKIPPED();
	c = calloc(1, sizeof(*c));
	ASSERT_NE(NULL, c);
	c->created = calloc(ST_IDMAP_BITS / 8, 1);
	ASSERT_NE(NULL, c->created);
	if (ng_have_dbg) {
		ASSERT_LE(0, ng_dbg_scan(idset_visit, &before));
		ASSERT_GE(ST_MAX_LISTED, before.n);
	}

	for (i = 0; i < ST_WORKERS; i++) {
		c->w[i].name = wnames[i];
		all[nall++] = &c->w[i];
	}
	c->mb.name = "mbind thread";
	c->fk.name = "fork thread";
	c->main.name = "main thread (by tid)";
	all[nall++] = &c->mb;
	all[nall++] = &c->fk;
	all[nall++] = &c->main;
	for (i = 0; i < nall; i++) {
		all[i]->c = c;
		all[i]->rnd = 0x5eed + i;
	}
	for (i = 0; i < ST_WORKERS; i++) {
		e = pthread_create(&c->w[i].thr, NULL, st_worker_fn, &c->w[i]);
		ASSERT_EQ(0, e) TH_LOG("pthread_create: %s", strerror(e));
	}
	e = pthread_create(&c->mb.thr, NULL, st_mbind_fn, &c->mb);
	ASSERT_EQ(0, e) TH_LOG("pthread_create: %s", strerror(e));
	e = pthread_create(&c->fk.thr, NULL, st_fork_fn, &c->fk);
	ASSERT_EQ(0, e) TH_LOG("pthread_create: %s", strerror(e));

	t0 = now_ms();
	while (now_ms() - t0 < STRESS_SECS * 1000LL && !c->main.bad) {
		st_foreign(c, &c->main);
		sched_yield();
	}
	c->stop = 1;
	for (i = 0; i < ST_WORKERS; i++)
		pthread_join(c->w[i].thr, NULL);
	pthread_join(c->mb.thr, NULL);
	pthread_join(c->fk.thr, NULL);

	for (i = 0; i < nall; i++) {
		st_log(_metadata, all[i]);
		EXPECT_EQ(0, all[i]->bad)
			TH_LOG("%s: %d failures, the first: %s", all[i]->name,
			       all[i]->bad, all[i]->what);
	}
	/* Every kind of operation happened (else the run proves nothing). */
	EXPECT_LT(0UL, st_sum(c, C_NEW));
	EXPECT_LT(0UL, st_sum(c, C_SPAWN));
	EXPECT_LT(0UL, st_sum(c, C_MBIND) + st_sum(c, C_MBIND_EINVAL));
	EXPECT_LT(0UL, st_sum(c, C_FORK));
	EXPECT_LT(0UL, st_sum(c, C_FOREIGN));

	/*
	 * Nothing is bound any more: every group the test made must go.
	 * Pre-existing groups (listed before the run) are left alone.
	 */
	if (c->created_over)
		TH_LOG("%lu ids above %u not followed one by one",
		       c->created_over, ST_IDMAP_BITS);
	for (id = 1, nleft = 0; id < ST_IDMAP_BITS; id++)
		nleft += (c->created[id / 8] >> (id % 8)) & 1;
	TH_LOG("%lu groups made, %d distinct ids", c->made, nleft);
	left = calloc(nleft ? nleft : 1, sizeof(*left));
	ASSERT_NE(NULL, left);
	for (id = 1, nleft = 0; id < ST_IDMAP_BITS; id++)
		if (((c->created[id / 8] >> (id % 8)) & 1) &&
		    !idset_has(&before, (int)id))
			left[nleft++] = (int)id;
	/* Exits finish asynchronously: poll, GONE_GUARD_MS at most. */
	t0 = now_ms();
	for (;;) {
		for (i = alive = 0; i < nleft; i++) {
			e = ng_mprobe(left[i]);
			if (e == 1)
				left[alive++] = left[i];
			EXPECT_LE(0, e)
				TH_LOG("group %d made by the test: numa_mbind() to it at the end: %s",
				       left[i], probe_str(e));
		}
		nleft = alive;
		if (!nleft || now_ms() - t0 >= GONE_GUARD_MS)
			break;
		sleep_ms(100);
	}
	for (i = 0; i < nleft && i < 8; i++)
		TH_LOG("group %d made by the test still lives at the end",
		       left[i]);
	EXPECT_EQ(0, nleft) TH_LOG("%d groups made by the test still live",
				   nleft);
	free(left);

	if (ng_have_dbg) {
		ASSERT_LE(0, ng_dbg_scan(idset_visit, &after));
		ASSERT_GE(ST_MAX_LISTED, after.n);
		for (i = extra = shown = 0; i < after.n; i++) {
			struct ng_info in;

			if (idset_has(&before, after.ids[i]))
				continue;
			extra++;
			if (shown++ < 8 && !ng_dbg_find(after.ids[i], &in))
				TH_LOG("left over: group %d node %d nr_tasks %d anon %ld",
				       in.id, in.node, in.nr_tasks, in.anon);
		}
		EXPECT_EQ(0, extra)
			TH_LOG("%d groups listed at the end that were not there before (%d before)",
			       extra, before.n);
	} else {
		TH_LOG("no " NG_DEBUGFS ": leak check by numa_mbind() only");
	}
	free(c->created);
	free(c);
}

/* ------------------------------------------------------------------ */
/* Locality with groups (numa02-like). */

#define N2_THREADS	4
#define N2_SLICE	(8 * MIB)
#define N2_CHUNK	(256 * KIB)
#define N2_NCHUNK	(N2_SLICE / N2_CHUNK)
#define N2_STRIDE	8		/* sample every 8th page */
#define N2_A_MS		10000
#define N2_B_MS		20000
#define N2_PERIOD_MS	500
#define N2_WINDOW	4		/* samples: 2 s */
#define N2_GOAL		0.9
#define N2_MAX_SAMPLES	(N2_B_MS / N2_PERIOD_MS + 2)

struct n2_run;

struct n2_thr {
	struct n2_run *run;
	pthread_t thr;
	int idx;
	volatile pid_t tid;
	uint64_t *slice;
	uint64_t seed;
	volatile int cpu;	/* sched_getcpu() after each chunk */
	unsigned long passes[N2_NCHUNK];
	int err;
	char what[64];
};

struct n2_run {
	int groups;
	int gsize;		/* threads a group: CPUs of a node, at most 2 */
	volatile int stop;
	int gid[N2_THREADS];
	pthread_barrier_t made, start;
	struct n2_thr t[N2_THREADS];
	double sample[N2_MAX_SAMPLES];
	int nsamples;
	int pass_at;		/* sample index where the goal was met, -1 */
	double best;		/* best window average */
};

static void n2_fail(struct n2_thr *t, const char *what, int err)
{
	if (t->err)
		return;
	t->err = err ? err : EIO;
	snprintf(t->what, sizeof(t->what), "%s", what);
}

static void *n2_fn(void *p)
{
	struct n2_thr *t = p;
	struct n2_run *run = t->run;
	size_t cw = N2_CHUNK / sizeof(uint64_t), c, i;
	int g = t->idx / run->gsize;
	long r;

	t->tid = nu_gettid();
	t->cpu = sched_getcpu();
	if (run->groups) {
		/*
		 * The first thread of a group creates it, the others join:
		 * with groups of two threads 0 and 2 create, 1 and 3 join.
		 */
		if (!(t->idx % run->gsize)) {
			errno = 0;
			r = ng_tbind(0, MS_ID_NEW, 0);
			if (r < 1)
				n2_fail(t, "numa_tbind(0, MS_ID_NEW)", errno);
			else
				run->gid[g] = (int)r;
		}
		pthread_barrier_wait(&run->made);
		if (!run->gid[g])
			n2_fail(t, "no group from its creator", EINVAL);
		else if ((t->idx % run->gsize) &&
			 ng_tbind(0, run->gid[g], 0) != run->gid[g])
			n2_fail(t, "numa_tbind(0, group)", errno);
		if (!t->err && ng_mbind(t->slice, N2_SLICE, run->gid[g], 0))
			n2_fail(t, "numa_mbind(slice, group)", errno);
	}
	pthread_barrier_wait(&run->start);
	while (!run->stop) {
		for (c = 0; c < N2_NCHUNK && !run->stop; c++) {
			uint64_t *w = t->slice + c * cw;

			for (i = 0; i < cw; i++)
				w[i] += 1;
			t->passes[c]++;
			t->cpu = sched_getcpu();
		}
	}
	return NULL;
}

/* Offset of the first word that is not pattern + passes, or -1. */
static long n2_verify(const struct n2_thr *t)
{
	size_t cw = N2_CHUNK / sizeof(uint64_t), i;

	for (i = 0; i < N2_SLICE / sizeof(uint64_t); i++)
		if (t->slice[i] != nu_pattern(i * sizeof(uint64_t), t->seed) +
				   t->passes[i / cw])
			return (long)(i * sizeof(uint64_t));
	return -1;
}

/*
 * Mean over threads of the share of the thread's sampled pages on the node
 * of the CPU it last ran on; -1 if no thread has run yet, -2 on error.
 */
static double n2_sample(struct n2_run *run, const int *cpu_node)
{
	enum { NS = N2_SLICE / (N2_STRIDE * 4096) };
	size_t stride = N2_STRIDE * nu_page_size(), ns, k;
	void *pages[NS];
	int status[NS], i, n = 0;
	double sum = 0;

	ns = N2_SLICE / stride;
	if (ns > NS)
		ns = NS;
	for (i = 0; i < N2_THREADS; i++) {
		struct n2_thr *t = &run->t[i];
		int cpu = t->cpu, node, local = 0;

		if (cpu < 0 || cpu >= CPU_SETSIZE || cpu_node[cpu] < 0)
			continue;
		node = cpu_node[cpu];
		for (k = 0; k < ns; k++)
			pages[k] = (char *)t->slice + k * stride;
		if (move_pages(0, ns, pages, NULL, status, 0))
			return -2;
		for (k = 0; k < ns; k++)
			local += status[k] == node;
		sum += (double)local / ns;
		n++;
	}
	return n ? sum / n : -1;
}

/*
 * One run: slices placed on node 0 by this thread, then 4 streams; with
 * groups, N2_THREADS / gsize groups of gsize threads.
 */
static void n2_phase(struct __test_metadata *_metadata, struct n2_run *run,
		     int groups, int gsize, long dur_ms, const int *cpu_node)
{
	size_t ps = nu_page_size(), np = N2_THREADS * N2_SLICE / ps;
	struct ng_info in;
	long long t0, next;
	char *map;
	double s;
	long off, on;
	int i, e;

	memset(run, 0, sizeof(*run));
	run->groups = groups;
	run->gsize = gsize;
	run->pass_at = -1;
	run->best = -1;
	map = placed_buf(_metadata, np, 0, 0);	/* on node 0 */
	for (i = 0; i < N2_THREADS; i++) {
		struct n2_thr *t = &run->t[i];

		t->run = run;
		t->idx = i;
		t->cpu = -1;
		t->seed = 0x200 + i;
		t->slice = (uint64_t *)(map + i * N2_SLICE);
		nu_fill(t->slice, N2_SLICE, t->seed);
	}
	on = nu_count_on_node(map, np, 0);
	TH_LOG("%s: %ld of %zu pages first touched on node 0",
	       groups ? "groups" : "no groups", on, np);
	ASSERT_EQ(0, pthread_barrier_init(&run->made, NULL, N2_THREADS));
	ASSERT_EQ(0, pthread_barrier_init(&run->start, NULL, N2_THREADS + 1));
	for (i = 0; i < N2_THREADS; i++) {
		e = pthread_create(&run->t[i].thr, NULL, n2_fn, &run->t[i]);
		ASSERT_EQ(0, e) TH_LOG("pthread_create: %s", strerror(e));
	}
	pthread_barrier_wait(&run->start);

	t0 = now_ms();
	for (next = t0 + N2_PERIOD_MS; next - t0 <= dur_ms;
	     next += N2_PERIOD_MS) {
		long long d = next - now_ms();

		if (d > 0)
			sleep_ms(d);
		s = n2_sample(run, cpu_node);
		ASSERT_NE(-2, s) TH_LOG("move_pages(): %s", strerror(errno));
		if (s < 0 || run->nsamples >= N2_MAX_SAMPLES)
			continue;
		run->sample[run->nsamples++] = s;
		if (run->nsamples >= N2_WINDOW) {
			double w = 0;

			for (i = run->nsamples - N2_WINDOW; i < run->nsamples;
			     i++)
				w += run->sample[i];
			w /= N2_WINDOW;
			if (w > run->best)
				run->best = w;
			if (groups && w >= N2_GOAL) {
				run->pass_at = run->nsamples - 1;
				break;
			}
		}
	}
	if (groups) {
		for (i = 0; i < N2_THREADS / gsize; i++)
			if (ng_have_dbg && run->gid[i] > 0 &&
			    !ng_dbg_find(run->gid[i], &in))
				TH_LOG("group %d: node %d nr_tasks %d anon %ld",
				       in.id, in.node, in.nr_tasks, in.anon);
		for (i = 0; i < N2_THREADS; i++)
			TH_LOG("thread %d: group %d, home_node %d, CPU %d", i,
			       run->gid[i / gsize],
			       nu_home_node(getpid(), run->t[i].tid),
			       run->t[i].cpu);
	}
	run->stop = 1;
	for (i = 0; i < N2_THREADS; i++)
		pthread_join(run->t[i].thr, NULL);
	for (i = 0; i < N2_THREADS; i++) {
		struct n2_thr *t = &run->t[i];

		EXPECT_EQ(0, t->err) TH_LOG("thread %d: %s: %s", i, t->what,
					    strerror(t->err));
		off = n2_verify(t);
		EXPECT_EQ(-1, off) TH_LOG("thread %d: slice bad at offset %ld",
					  i, off);
	}
	pthread_barrier_destroy(&run->made);
	pthread_barrier_destroy(&run->start);
	nu_free(map, np);
}

static void n2_log(struct __test_metadata *_metadata, const char *name,
		   const struct n2_run *run)
{
	char line[N2_MAX_SAMPLES * 6 + 1];
	size_t len = 0;
	double mean = 0;
	int i;

	for (i = 0; i < run->nsamples; i++) {
		mean += run->sample[i];
		len += snprintf(line + len, sizeof(line) - len, " %.2f",
				run->sample[i]);
		if (len >= sizeof(line))
			break;
	}
	line[len < sizeof(line) ? len : sizeof(line) - 1] = '\0';
	if (run->nsamples)
		mean /= run->nsamples;
	TH_LOG("%s: %d samples, mean locality %.2f, best 2 s window %.2f:%s",
	       name, run->nsamples, mean, run->best, line);
}

/*
 * Groups are as large as the nodes that can hold one: the fewest CPUs of
 * a node with CPUs and memory, at most N2_THREADS / 2 (so two groups of
 * two threads on 2n, and on any node of more CPUs; four groups of one
 * thread on 4n and 8n, one CPU a node).  A thread's locality counts pages
 * on the node of its CPU, so a group on a memoryless node could never be
 * local: those nodes hold none.  Fills cpu_node for every node; returns
 * the group size, or 0 with why set when the groups do not fit on the
 * nodes with CPUs and memory, one node each.
 */
static int n2_group_size(int *cpu_node, char *why, size_t wlen)
{
	int node, cpu, gsize = N2_THREADS / 2, fit = 0, nodes = 0, ncpus;
	int cpus[NU_MAXNODE] = { 0 };
	cpu_set_t set;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		cpu_node[cpu] = -1;
	for (node = 0; node < (int)NU_MAXNODE; node++) {
		if (!nu_node_exists(node) || nu_node_cpuset(node, &set))
			continue;
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &set))
				cpu_node[cpu] = node;
		ncpus = CPU_COUNT(&set);
		if (!ncpus || nu_node_has_memory(node) != 1)
			continue;
		cpus[node] = ncpus;
		nodes++;
		if (ncpus < gsize)
			gsize = ncpus;
	}
	for (node = 0; node < (int)NU_MAXNODE; node++)
		fit += cpus[node] / gsize;
	if (!nodes || fit < N2_THREADS / gsize) {
		snprintf(why, wlen,
			 "%d groups of %d thread(s) do not fit the %d nodes with CPUs and memory, one node each",
			 N2_THREADS / gsize, gsize, nodes);
		return 0;
	}
	return gsize;
}

TEST_F_TIMEOUT(ng, numa02_like, N2_TIMEOUT)
{
	int cpu_node[CPU_SETSIZE], gsize;
	struct n2_run *run;
	char why[160], name[32];

	NU_RETURN_IF_SKIPPED();
	gsize = n2_group_size(cpu_node, why, sizeof(why));
	if (!gsize)
		SKIP(return, "%s", why);
	snprintf(name, sizeof(name), "%d groups of %d", N2_THREADS / gsize,
		 gsize);
	if (gsize != 2)
		TH_LOG("%s threads: the fewest CPUs of a node with memory is %d",
		       name, gsize);
	run = calloc(1, sizeof(*run));
	ASSERT_NE(NULL, run);

	/*
	 * Mode A, no groups: logged only (about 0.5 expected with two nodes
	 * of two CPUs).
	 */
	n2_phase(_metadata, run, 0, gsize, N2_A_MS, cpu_node);
	n2_log(_metadata, "no groups, 10 s", run);

	/* Mode B, groups of gsize threads (two of two on 2n), slices bound. */
	n2_phase(_metadata, run, 1, gsize, N2_B_MS, cpu_node);
	n2_log(_metadata, name, run);
	if (run->pass_at >= 0)
		TH_LOG("%s: 2 s window >= %.2f after %.1f s", name, N2_GOAL,
		       (run->pass_at + 1) * N2_PERIOD_MS / 1000.0);
	EXPECT_LE(0, run->pass_at)
		TH_LOG("%s: no 2 s window averaged >= %.2f in %d s (best %.2f)",
		       name, N2_GOAL, N2_B_MS / 1000, run->best);
	free(run);
}

/* ------------------------------------------------------------------ */
/* ABI: numbers, permissions across processes and user namespaces, limits. */

/*
 * The series' numbers are its uapi header's, far above mainline's; every
 * number between mainline's last in 6.1 (450) and them answers ENOSYS, as
 * on 6.1, so that C libraries probing mainline's newer calls fall back:
 * cachestat (451) and fchmodat2 (452, glibc's lchmod()) included.
 */
TEST_F_TIMEOUT(ng, legacy_numbers_enosys, NG_TIMEOUT)
{
	char path[] = "/tmp/ng-fchmodat2-XXXXXX";
	long nr, r;
	int fd, bad = 0;

	NU_RETURN_IF_SKIPPED();
	EXPECT_EQ(900, __NR_numa_mbind);
	EXPECT_EQ(901, __NR_numa_tbind);
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	errno = 0;
	r = syscall(452, AT_FDCWD, path, 0600, AT_SYMLINK_NOFOLLOW);
	EXPECT_TRUE(r == -1 && errno == ENOSYS)
		TH_LOG("fchmodat2 (452): %ld (%s), want ENOSYS", r,
		       strerror(errno));
	errno = 0;
	r = syscall(451, fd, NULL, NULL, 0);
	EXPECT_TRUE(r == -1 && errno == ENOSYS)
		TH_LOG("cachestat (451): %ld (%s), want ENOSYS", r,
		       strerror(errno));
	close(fd);
	unlink(path);
	for (nr = 451; nr < __NR_numa_mbind; nr++) {
		errno = 0;
		r = syscall(nr, 0L, 0L, 0L, 0L, 0L, 0L);
		if (r != -1 || errno != ENOSYS) {
			if (bad++ < 5)
				TH_LOG("syscall %ld: %ld (%s), want ENOSYS",
				       nr, r, strerror(errno));
		}
	}
	EXPECT_EQ(0, bad) TH_LOG("%d numbers in 451..%d do not answer ENOSYS",
				 bad, __NR_numa_mbind - 1);
}

/* Drop to uid/gid NOBODY; 0 or -1. */
static int drop_to_nobody(void)
{
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY) ||
	    geteuid() != NOBODY || getegid() != NOBODY)
		return -1;
	return 0;
}

enum xp_check {
	XP_JOIN,	/* another process, may ptrace the creator: joins */
	XP_GET_OTHER,	/* numa_tbind(creator, MS_ID_GET) -> EPERM */
	XP_BIND_OTHER,	/* numa_tbind(creator, G) -> EPERM */
	XP_JOIN_NODUMP,	/* creator not dumpable: numa_tbind(0, G) -> EPERM */
	XP_MBIND_NODUMP, /* ... numa_mbind(page, G) -> EPERM */
	XP_OWN_STILL,	/* its own binding is kept: MS_ID_GET == G */
	XP_NCHECK,
};

static const char *const xp_names[XP_NCHECK] = {
	[XP_JOIN] = "join the creator's group (may ptrace it)",
	[XP_GET_OTHER] = "numa_tbind(creator, MS_ID_GET)",
	[XP_BIND_OTHER] = "numa_tbind(creator, G)",
	[XP_JOIN_NODUMP] = "join again, creator not dumpable",
	[XP_MBIND_NODUMP] = "numa_mbind(page, G), creator not dumpable",
	[XP_OWN_STILL] = "MS_ID_GET after the refusals",
};

struct xp_shared {
	int g;
	long ret[XP_NCHECK];
	int err[XP_NCHECK];
};

/*
 * The joiner: a child of the creator, both uid NOBODY, so that
 * ptrace_may_access() decides by the creator's dumpable state alone.
 */
static int xp_joiner(struct xp_shared *sh, pid_t creator, int to_c,
		     int from_c)
{
	char *p = nu_alloc(1), c = 'J';
	int fails = 0;

#define XP_CALL(i, call, ok) do {					\
	errno = 0;							\
	sh->ret[i] = (call);						\
	sh->err[i] = sh->ret[i] < 0 ? errno : 0;			\
	if (!(ok))							\
		fails |= 1 << (i);					\
} while (0)
	if (!p)
		return 0xff;
	XP_CALL(XP_JOIN, ng_tbind(0, sh->g, 0), sh->ret[XP_JOIN] == sh->g);
	XP_CALL(XP_GET_OTHER, ng_tbind(creator, MS_ID_GET, 0),
		sh->ret[XP_GET_OTHER] == -1 && sh->err[XP_GET_OTHER] == EPERM);
	XP_CALL(XP_BIND_OTHER, ng_tbind(creator, sh->g, 0),
		sh->ret[XP_BIND_OTHER] == -1 &&
		sh->err[XP_BIND_OTHER] == EPERM);
	/* The creator makes itself not dumpable (PR_SET_DUMPABLE 0) */
	nu_write_full(to_c, &c, 1);
	if (nu_read_full(from_c, &c, 1) != 1)
		return 0xff;
	XP_CALL(XP_JOIN_NODUMP, ng_tbind(0, sh->g, 0),
		sh->ret[XP_JOIN_NODUMP] == -1 &&
		sh->err[XP_JOIN_NODUMP] == EPERM);
	XP_CALL(XP_MBIND_NODUMP, ng_mbind(p, nu_page_size(), sh->g, 0),
		sh->ret[XP_MBIND_NODUMP] == -1 &&
		sh->err[XP_MBIND_NODUMP] == EPERM);
	XP_CALL(XP_OWN_STILL, ng_tbind(0, MS_ID_GET, 0),
		sh->ret[XP_OWN_STILL] == sh->g);
#undef XP_CALL
	return fails;
}

static int xp_creator(struct xp_shared *sh)
{
	int to_c[2], from_c[2], status;
	pid_t pid;
	char c;

	/* setuid() made it not dumpable (suid_dumpable 0): undo that */
	if (drop_to_nobody() || prctl(PR_SET_DUMPABLE, 1))
		return 0xfe;
	sh->g = ng_tbind(0, MS_ID_NEW, 0);
	if (sh->g < 1)
		return 0xfd;
	if (pipe(to_c) || pipe(from_c))
		return 0xfc;
	pid = fork();
	if (pid < 0)
		return 0xfc;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(xp_joiner(sh, getppid(), to_c[1], from_c[0]));
	}
	if (nu_read_full(to_c[0], &c, 1) != 1)
		c = 0;
	prctl(PR_SET_DUMPABLE, 0);
	nu_write_full(from_c[1], &c, 1);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 0xfb;
	return WEXITSTATUS(status);
}

/*
 * numa_tbind() binds threads of the caller's process only; a group made
 * by another process may be joined, or have ranges bound to it, by a
 * process that may ptrace its creator (ptrace_may_access(), which checks
 * the creator's dumpable state too): a copy of the credential compare
 * that 6.1's ptrace does would not.
 */
TEST_F_TIMEOUT(ng, eperm_other_process, NG_TIMEOUT)
{
	struct xp_shared *sh;
	int status, code, i;
	pid_t pid;

	NU_RETURN_IF_SKIPPED();
	sh = shared_zalloc(_metadata, sizeof(*sh));
	pid = kid_fork(_metadata, self);
	if (pid == 0)
		_exit(xp_creator(sh));
	status = kid_wait(_metadata, self, pid);
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("creator: status 0x%x", status);
	code = WEXITSTATUS(status);
	ASSERT_GT(0xf0, code) TH_LOG("set-up failed (0x%x; group %d)", code,
				     sh->g);
	for (i = 0; i < XP_NCHECK; i++) {
		TH_LOG("uid %d: %s: %ld (%s)", NOBODY, xp_names[i], sh->ret[i],
		       sh->err[i] ? strerror(sh->err[i]) : "ok");
		EXPECT_EQ(0, code & (1 << i))
			TH_LOG("uid %d: %s: unexpected", NOBODY, xp_names[i]);
	}
	if (sh->g > 0)
		expect_gone(_metadata, sh->g, "after both processes exited");
	munmap(sh, sizeof(*sh));
}

struct un_shared {
	int own;		/* the group made inside the namespace */
	long join, mbind, get;	/* on the outer group */
	int join_err, mbind_err;
	int unshare_err;
};

/*
 * Group ids are not seen across user namespaces: inside a new one, the
 * outer group's id is unknown (EINVAL) to both calls; a group made inside
 * is unknown outside.
 */
TEST_F_TIMEOUT(ng, userns_invisible, NG_TIMEOUT)
{
	int p2c[2], c2p[2], g, status;
	struct un_shared *sh;
	pid_t pid;
	char c;

	NU_RETURN_IF_SKIPPED();
	g = new_group(_metadata, "the outer namespace's main thread");
	sh = shared_zalloc(_metadata, sizeof(*sh));
	ASSERT_EQ(0, pipe2(p2c, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(c2p, O_CLOEXEC));
	pid = kid_fork(_metadata, self);
	if (pid == 0) {
		char *p = nu_alloc(1);

		close(p2c[1]);
		close(c2p[0]);
		if (unshare(CLONE_NEWUSER)) {
			sh->unshare_err = errno;
		} else if (p) {
			errno = 0;
			sh->join = ng_tbind(0, g, 0);
			sh->join_err = errno;
			errno = 0;
			sh->mbind = ng_mbind(p, nu_page_size(), g, 0);
			sh->mbind_err = errno;
			sh->own = ng_tbind(0, MS_ID_NEW, 0);
			sh->get = ng_tbind(0, MS_ID_GET, 0);
		}
		c = 'R';
		nu_write_full(c2p[1], &c, 1);
		nu_read_full(p2c[0], &c, 1);
		_exit(0);
	}
	close(p2c[0]);
	close(c2p[1]);
	ASSERT_EQ(1, nu_read_full(c2p[0], &c, 1));
	if (sh->unshare_err) {
		close(p2c[1]);
		kid_wait(_metadata, self, pid);
		SKIP(return, "unshare(CLONE_NEWUSER): %s",
		     strerror(sh->unshare_err));
	}
	EXPECT_TRUE(sh->join == -1 && sh->join_err == EINVAL)
		TH_LOG("inside: numa_tbind(0, outer %d): %ld (%s), want EINVAL",
		       g, sh->join, strerror(sh->join_err));
	EXPECT_TRUE(sh->mbind == -1 && sh->mbind_err == EINVAL)
		TH_LOG("inside: numa_mbind(outer %d): %ld (%s), want EINVAL",
		       g, sh->mbind, strerror(sh->mbind_err));
	EXPECT_LE(1, sh->own) TH_LOG("inside: MS_ID_NEW: %d", sh->own);
	EXPECT_EQ(sh->own, sh->get) TH_LOG("inside: MS_ID_GET %ld", sh->get);
	if (sh->own > 0) {
		EXPECT_ERR(EINVAL, ng_tbind(0, sh->own, 0),
			   "outside: numa_tbind(0, inner %d, 0)", sh->own);
		EXPECT_EQ(0, ng_mprobe(sh->own))
			TH_LOG("outside: numa_mbind(.., inner %d): not EINVAL",
			       sh->own);
	}
	expect_own_group(_metadata, g, "after the inner attempts");
	close(p2c[1]);
	status = kid_wait(_metadata, self, pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	munmap(sh, sizeof(*sh));
}

#define LIM_MAX		16
#define LIM_SYSCTL	"/proc/sys/user/max_numa_groups"

struct lim_shared {
	int ids[LIM_MAX + 1];
	long over;		/* MS_ID_NEW beyond the limit */
	int over_err;
	long get_after;		/* MS_ID_GET after the refusal */
	long again;		/* MS_ID_NEW after one was freed */
	int again_err;
	int second_round;	/* groups made after all were freed */
	int fail;		/* set-up step that failed, 0 if none */
};

/* Keep LIM_MAX groups alive by a bound page each, as uid NOBODY. */
static void lim_child(struct lim_shared *sh)
{
	size_t ps = nu_page_size();
	char *pages[LIM_MAX + 1];
	int i;

	if (drop_to_nobody()) {
		sh->fail = 1;
		return;
	}
	for (i = 0; i < LIM_MAX; i++) {
		pages[i] = nu_alloc(1);
		sh->ids[i] = ng_tbind(0, MS_ID_NEW, 0);
		if (!pages[i] || sh->ids[i] < 1 ||
		    ng_mbind(pages[i], ps, sh->ids[i], 0)) {
			sh->fail = 2;
			return;
		}
		pages[i][0] = (char)i;
	}
	errno = 0;
	sh->over = ng_tbind(0, MS_ID_NEW, 0);
	sh->over_err = errno;
	sh->get_after = ng_tbind(0, MS_ID_GET, 0);

	/* One group freed (its page unmapped): room for one more */
	munmap(pages[0], ps);
	errno = 0;
	sh->again = ng_tbind(0, MS_ID_NEW, 0);
	sh->again_err = errno;
	sh->ids[LIM_MAX] = sh->again;

	/* Everything freed: the whole limit is available again */
	for (i = 1; i < LIM_MAX; i++)
		munmap(pages[i], ps);
	for (i = 0; i < LIM_MAX; i++) {
		pages[i] = nu_alloc(1);
		if (!pages[i] || ng_tbind(0, MS_ID_NEW, 0) < 1)
			break;
		if (ng_mbind(pages[i], ps, ng_tbind(0, MS_ID_GET, 0), 0))
			break;
	}
	sh->second_round = i;
}

/*
 * A user may have max_numa_groups groups alive; MS_ID_NEW beyond fails
 * with ENOSPC and changes nothing, and freed groups give their count back.
 */
TEST_F_TIMEOUT(ng, enospc_limit, NG_TIMEOUT)
{
	struct lim_shared *sh;
	char old[32];
	int i, status;
	pid_t pid;

	NU_RETURN_IF_SKIPPED();
	if (nu_read_file(LIM_SYSCTL, old, sizeof(old)))
		SKIP(return, "no " LIM_SYSCTL);
	EXPECT_EQ(4096, atoi(old)) TH_LOG(LIM_SYSCTL " default: %s", old);
	ASSERT_EQ(0, nu_write_file(LIM_SYSCTL, "16"));
	sh = shared_zalloc(_metadata, sizeof(*sh));
	pid = kid_fork(_metadata, self);
	if (pid == 0) {
		lim_child(sh);
		_exit(0);
	}
	status = kid_wait(_metadata, self, pid);
	nu_write_file(LIM_SYSCTL, old);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(0, sh->fail) TH_LOG("set-up step %d failed", sh->fail);
	EXPECT_TRUE(sh->over == -1 && sh->over_err == ENOSPC)
		TH_LOG("group %d of %d: %ld (%s), want ENOSPC", LIM_MAX + 1,
		       LIM_MAX, sh->over, strerror(sh->over_err));
	EXPECT_EQ(sh->ids[LIM_MAX - 1], sh->get_after)
		TH_LOG("the refusal changed the thread's group");
	EXPECT_LE(1, sh->again) TH_LOG("after one was freed: %s",
				       strerror(sh->again_err));
	EXPECT_EQ(LIM_MAX, sh->second_round)
		TH_LOG("after all were freed, only %d of %d could be made",
		       sh->second_round, LIM_MAX);
	/* Nothing leaked: the child's exit freed every group */
	for (i = 0; i <= LIM_MAX; i++)
		if (sh->ids[i] > 0)
			expect_gone(_metadata, sh->ids[i], "after the child exited");
	munmap(sh, sizeof(*sh));
}

/*
 * Swap: a bound range's pages paged out (MADV_PAGEOUT) move from the
 * group's anon count to its swap entries, and back when they are touched
 * (do_swap_page()) or brought back by swapoff() (unuse_pte()); the counts
 * match /proc/self/status, and the data is intact.  Needs a disk to swap
 * on: scripts/boot.sh gives the guest /dev/vda.
 */
#define SW_DEV		"/dev/vda"
#define SW_PAGES	512

static long status_kb(const char *field)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)))
			kb = atol(line + strlen(field));
	fclose(f);
	return kb;
}

/*
 * The faulting task keeps its own RSS counter deltas (SPLIT_RSS_COUNTING)
 * until 64 faults have passed: fault that many fresh pages, so that
 * /proc/self/status is exact again.
 */
static void rss_sync(void)
{
	char *p = nu_alloc(2 * 64);

	if (p) {
		memset(p, 1, 2 * 64 * nu_page_size());
		nu_free(p, 2 * 64);
	}
}

/* mkswap: a version 1 header on the device's first page */
static int sw_mkswap(int fd, size_t ps)
{
	off_t size = lseek(fd, 0, SEEK_END);
	char *hdr = calloc(1, ps);
	uint32_t *w;
	int ret = -1;

	if (!hdr || size < (off_t)(16 * ps))
		goto out;
	w = (uint32_t *)(hdr + 1024);
	w[0] = 1;				/* version */
	w[1] = size / ps - 1;			/* last_page */
	memcpy(hdr + ps - 10, "SWAPSPACE2", 10);
	if (pwrite(fd, hdr, ps, 0) == (ssize_t)ps && !fsync(fd))
		ret = 0;
out:
	free(hdr);
	return ret;
}

TEST_F_TIMEOUT(ng, rss_swap, NG_TIMEOUT)
{
	size_t ps = nu_page_size(), len = SW_PAGES * ps;
	long swapped = 0, vmswap, half;
	struct ng_info in;
	int g, fd, i;
	char *buf;

	NU_RETURN_IF_SKIPPED();
	if (!ng_have_dbg)
		SKIP(return, "needs " NG_DEBUGFS);
	fd = open(SW_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		SKIP(return, "no swap device " SW_DEV ": %s", strerror(errno));
	ASSERT_EQ(0, sw_mkswap(fd, ps));
	close(fd);
	if (swapon(SW_DEV, 0))
		SKIP(return, "swapon(" SW_DEV "): %s", strerror(errno));

	g = new_group(_metadata, "the main thread");
	buf = nu_alloc(SW_PAGES);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, ng_mbind(buf, len, g, 0));
	nu_fill(buf, len, SEED);
	expect_listed(_metadata, g, 1, SW_PAGES, "all touched");

	/* Freshly faulted pages may sit in a pagevec: ask a few times */
	for (i = 0; i < 20 && !swapped; i++) {
		ASSERT_EQ(0, madvise(buf, len, MADV_PAGEOUT))
			TH_LOG("MADV_PAGEOUT: %s", strerror(errno));
		ASSERT_EQ(0, dbg_find(_metadata, g, &in));
		swapped = in.swapents;
		if (!swapped)
			sleep_ms(50);
	}
	vmswap = status_kb("VmSwap:");
	TH_LOG("paged out: %ld of %d pages (VmSwap %ld kB)", swapped,
	       SW_PAGES, vmswap);
	EXPECT_LT(0, swapped) TH_LOG("nothing went to swap");
	EXPECT_EQ(SW_PAGES, in.anon + in.swapents)
		TH_LOG("anon %ld + swapents %ld, want %d", in.anon,
		       in.swapents, SW_PAGES);
	EXPECT_EQ(vmswap, in.swapents * (long)(ps / 1024))
		TH_LOG("group swapents %ld, VmSwap %ld kB", in.swapents,
		       vmswap);

	/* Swap-in by fault of the first half */
	half = len / 2;
	EXPECT_EQ(-1, nu_verify(buf, half, SEED));
	rss_sync();
	ASSERT_EQ(0, dbg_find(_metadata, g, &in));
	vmswap = status_kb("VmSwap:");
	EXPECT_EQ(SW_PAGES, in.anon + in.swapents)
		TH_LOG("after swap-in by fault: anon %ld + swapents %ld, want %d",
		       in.anon, in.swapents, SW_PAGES);
	EXPECT_EQ(vmswap, in.swapents * (long)(ps / 1024))
		TH_LOG("after swap-in by fault: swapents %ld, VmSwap %ld kB",
		       in.swapents, vmswap);

	/* The rest by swapoff() */
	ASSERT_EQ(0, swapoff(SW_DEV)) TH_LOG("swapoff: %s", strerror(errno));
	expect_listed(_metadata, g, 1, SW_PAGES, "after swapoff()");
	ASSERT_EQ(0, dbg_find(_metadata, g, &in));
	EXPECT_EQ(0, in.swapents);
	EXPECT_EQ(0, status_kb("VmSwap:"));
	EXPECT_EQ(-1, nu_verify(buf, len, SEED));
	nu_free(buf, SW_PAGES);
}

/*
 * mbind(MPOL_DEFAULT) over a bound range removes the binding, as over any
 * range policy: get_mempolicy() reports MPOL_DEFAULT and, with the range
 * its only reference, the group goes.
 */
TEST_F_TIMEOUT(ng, mbind_default_unbinds, NG_TIMEOUT)
{
	size_t ps = nu_page_size();
	unsigned long nodes;
	int g, mode;
	char *buf;

	NU_RETURN_IF_SKIPPED();
	g = new_group(_metadata, "the main thread");
	buf = filled_buf(_metadata, 16);
	ASSERT_EQ(0, ng_mbind(buf, 16 * ps, g, 0));
	/* The main thread leaves it for a new group */
	ASSERT_LE(1, ng_tbind(0, MS_ID_NEW, 0));
	expect_alive(_metadata, g, 0, 16, "bound by the range only");
	ASSERT_EQ(0, mbind(buf, 16 * ps, MPOL_DEFAULT, NULL, 0, 0));
	mode = -1;
	ASSERT_EQ(0, get_mempolicy(&mode, &nodes, NU_MAXNODE, buf,
				   MPOL_F_ADDR));
	EXPECT_EQ(MPOL_DEFAULT, mode);
	expect_gone(_metadata, g, "after mbind(MPOL_DEFAULT) of its range");
	EXPECT_EQ(-1, nu_verify(buf, 16 * ps, SEED));
	nu_free(buf, 16);
}

/* vma_merge() brings a range into a bound neighbour, or out to an unbound one */
TEST_F_TIMEOUT(ng, rss_merge_into_bound, NG_TIMEOUT)
{
	size_t ps = nu_page_size();
	char *buf;
	int g;

	NU_RETURN_IF_SKIPPED();
	g = new_group(_metadata, "the main thread");
	buf = filled_buf(_metadata, 3);
	ASSERT_EQ(0, ng_mbind(buf, ps, g, 0));
	expect_alive(_metadata, g, 1, 1, "page 0 bound");
	ASSERT_EQ(0, ng_mbind(buf + ps, ps, g, 0));
	expect_alive(_metadata, g, 1, 2, "page 1 bound, merged into page 0");
	ASSERT_EQ(0, mbind(buf + ps, ps, MPOL_DEFAULT, NULL, 0, 0));
	expect_alive(_metadata, g, 1, 1,
		     "page 1 unbound, merged into unbound page 2");
	ASSERT_EQ(0, mbind(buf, ps, MPOL_DEFAULT, NULL, 0, 0));
	expect_alive(_metadata, g, 1, 0, "page 0 unbound too");
	EXPECT_EQ(-1, nu_verify(buf, 3 * ps, SEED));
	nu_free(buf, 3);
	expect_alive(_metadata, g, 1, 0, "after munmap()");
}

/* ------------------------------------------------------------------ */
/* The third review's findings (group ids, the RSS hooks' key, exited
 * leaders). */

/*
 * "# ngroup_rss_key N" of the debugfs listing: how many groups hold the
 * RSS hooks on; -1 if there is no such line.
 */
static int ng_rss_key(void)
{
	char line[256];
	int n = -1;
	FILE *f = fopen(NG_DEBUGFS, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "# ngroup_rss_key %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/*
 * A freed group's id is not handed out again soon: a child makes a group
 * and exits; the ids of the next groups are all new and increasing.
 * With xa_alloc() (lowest free id) the child's id came back at once.
 */
TEST_F_TIMEOUT(ng, ids_not_reused, NG_TIMEOUT)
{
	int fd[2], status, i, prev, id, first = -1;
	pid_t pid;

	NU_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, pipe2(fd, O_CLOEXEC));
	pid = kid_fork(_metadata, self);
	if (pid == 0) {
		int g = ng_tbind(0, MS_ID_NEW, 0);

		_exit(nu_write_full(fd[1], &g, sizeof(g)) == sizeof(g) ? 0 : 1);
	}
	close(fd[1]);
	ASSERT_EQ((ssize_t)sizeof(first),
		  nu_read_full(fd[0], &first, sizeof(first)));
	close(fd[0]);
	status = kid_wait(_metadata, self, pid);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_LE(1, first) TH_LOG("child's numa_tbind(0, MS_ID_NEW, 0): %d",
				   first);
	expect_gone(_metadata, first, "after its only thread exited");

	/* Each new group frees the previous one (its only thread leaves) */
	prev = first;
	for (i = 0; i < 64; i++) {
		id = new_group(_metadata, "main thread");
		EXPECT_NE(first, id)
			TH_LOG("group %d of the exited child named again (new group %d)",
			       first, i);
		EXPECT_LT(prev, id)
			TH_LOG("new group %d: id %d after %d", i, id, prev);
		prev = id;
	}
}

/*
 * The RSS hooks' static key is held by groups that exist, and only by
 * them: while sched/numa is off, numa_tbind(0, MS_ID_NEW, 0) fails with
 * EOPNOTSUPP and patches no code.  Before, the call took the key before
 * it checked kernel.sched_numa and dropped it a second later
 * (static_branch_slow_dec_deferred()), so an unprivileged loop made the
 * kernel patch its text (text_poke_bp(), an IPI to every CPU) about once
 * a second; right after such a loop the key read 1.  The positive half
 * proves the key is seen: a group holds it.
 */
TEST_F_TIMEOUT(ng, rss_key_only_with_groups, NG_TIMEOUT)
{
	int fd[2], status, key, i;
	long long t0;
	pid_t pid;
	char c;

	NU_RETURN_IF_SKIPPED();
	if (!ng_have_dbg)
		SKIP(return, "no %s", NG_DEBUGFS);
	ASSERT_LE(0, ng_rss_key()) TH_LOG("no '# ngroup_rss_key' line in %s",
					  NG_DEBUGFS);

	/* A group holds the key: a child makes one and looks */
	pid = kid_fork(_metadata, self);
	if (pid == 0)
		_exit(ng_tbind(0, MS_ID_NEW, 0) >= 1 && ng_rss_key() >= 1 ? 0 : 1);
	status = kid_wait(_metadata, self, pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("a live group did not hold ngroup_rss_key");
	/* Its group is gone with it; the key drops a second later */
	t0 = now_ms();
	while ((key = ng_rss_key()) != 0 && now_ms() - t0 < GONE_GUARD_MS)
		sleep_ms(POLL_MS);
	ASSERT_EQ(0, key) TH_LOG("no group alive, ngroup_rss_key %d after %d ms",
				 key, GONE_GUARD_MS);

	/* sched/numa off: an unprivileged MS_ID_NEW loop */
	ASSERT_EQ(0, nu_numa_sysctls_set(0));
	ASSERT_EQ(0, pipe2(fd, O_CLOEXEC));
	pid = kid_fork(_metadata, self);
	if (pid == 0) {
		int bad = 0;

		close(fd[0]);
		if (drop_to_nobody())
			_exit(0xfe);
		for (i = 0; i < 2000; i++) {
			errno = 0;
			if (ng_tbind(0, MS_ID_NEW, 0) != -1 ||
			    errno != EOPNOTSUPP)
				bad++;
		}
		c = bad ? 'B' : 'D';
		nu_write_full(fd[1], &c, 1);
		_exit(0);
	}
	close(fd[1]);
	c = 0;
	ASSERT_EQ(1, nu_read_full(fd[0], &c, 1));
	key = ng_rss_key();
	close(fd[0]);
	kid_wait(_metadata, self, pid);
	EXPECT_EQ('D', c) TH_LOG("uid %d: numa_tbind(0, MS_ID_NEW, 0) did not fail with EOPNOTSUPP while sched/numa was off",
				 NOBODY);
	EXPECT_EQ(0, key) TH_LOG("right after 2000 failed MS_ID_NEW calls: ngroup_rss_key %d",
				 key);
}

/*
 * Joining a group of another process needs ptrace access to a live thread
 * of the creator's process.  Once the creator's leader has exited (other
 * threads live on), the leader has no mm and __ptrace_may_access() would
 * skip the creator's dumpable test: a same-uid process could join a group
 * of a process that is not dumpable.
 */
struct le_shared {
	int g;
	volatile int joined;	/* 1: the second thread joined, -1: failed */
};

static void *le_thread(void *arg)
{
	struct le_shared *sh = arg;

	sh->joined = ng_tbind(nu_gettid(), sh->g, 0) == sh->g ? 1 : -1;
	for (;;)
		pause();
	return NULL;
}

TEST_F_TIMEOUT(ng, eperm_creator_leader_exited, NG_TIMEOUT)
{
	struct le_shared *sh;
	pid_t creator, joiner;
	int status, fd[2];
	long r;
	int e;

	NU_RETURN_IF_SKIPPED();
	sh = shared_zalloc(_metadata, sizeof(*sh));
	ASSERT_EQ(0, pipe2(fd, O_CLOEXEC));
	creator = kid_fork(_metadata, self);
	if (creator == 0) {
		pthread_t t;
		char c = 'R';

		if (drop_to_nobody())
			_exit(0xfe);
		prctl(PR_SET_DUMPABLE, 0);
		sh->g = ng_tbind(0, MS_ID_NEW, 0);
		if (sh->g < 1)
			_exit(0xfd);
		/* A second thread joins, so the group outlives the leader */
		if (pthread_create(&t, NULL, le_thread, sh))
			_exit(0xfc);
		while (!sh->joined)
			sched_yield();
		if (sh->joined < 0)
			_exit(0xfb);
		nu_write_full(fd[1], &c, 1);
		pthread_exit(NULL);
	}
	close(fd[1]);
	{
		char c;

		ASSERT_EQ(1, nu_read_full(fd[0], &c, 1))
			TH_LOG("the creator did not get going");
	}
	close(fd[0]);
	ASSERT_LE(1, sh->g) TH_LOG("creator's group: %d", sh->g);
	/* Wait until the leader is a zombie: "Z" in /proc/PID/stat */
	{
		long long t0 = now_ms();
		char state = 0;

		while (now_ms() - t0 < GONE_GUARD_MS) {
			char buf[512], path[64], *p;

			snprintf(path, sizeof(path), "/proc/%d/stat", creator);
			if (!nu_read_file(path, buf, sizeof(buf)) &&
			    (p = strrchr(buf, ')')) && p[1] == ' ') {
				state = p[2];
				if (state == 'Z')
					break;
			}
			sleep_ms(POLL_MS);
		}
		ASSERT_EQ('Z', state) TH_LOG("creator's leader state %c", state);
	}

	joiner = kid_fork(_metadata, self);
	if (joiner == 0) {
		if (drop_to_nobody())
			_exit(0xfe);
		errno = 0;
		r = ng_tbind(0, sh->g, 0);
		e = errno;
		_exit(r == -1 && e == EPERM ? 0 : r == sh->g ? 1 : 2);
	}
	status = kid_wait(_metadata, self, joiner);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("uid %d joined group %d of a non-dumpable process whose leader exited (%s)",
		       NOBODY, sh->g,
		       WEXITSTATUS(status) == 1 ? "it joined" : "another error");
	kill(creator, SIGKILL);
	kid_wait(_metadata, self, creator);
	munmap(sh, sizeof(*sh));
}

TEST_HARNESS_MAIN
