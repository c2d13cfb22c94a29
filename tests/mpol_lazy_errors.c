// SPDX-License-Identifier: GPL-2.0
/*
 * mbind(2) MPOL_MF_LAZY and MPOL_NOOP: bad input and races (sched/numa RFC
 * "lazy migrate-on-fault" forward-ported to 6.1).  The success paths are in
 * mpol_lazy.c.
 *
 * Bad input (node 0 only; a failed call must leave the range's policy and
 * contents alone):
 *   einval_unknown_flag        flag bits other than STRICT/MOVE/MOVE_ALL/LAZY
 *                              (internal 1<<4, 1<<5, unused 1<<7, 1<<31)
 *   einval_lazy_without_move   LAZY alone or with STRICT only
 *   einval_noop_with_nodes     MPOL_NOOP with a non-empty nodemask
 *   einval_noop_without_lazy   MPOL_NOOP with flags 0 or MOVE only
 *   einval_set_mempolicy_noop  set_mempolicy(MPOL_NOOP): mbind()-only mode
 *   einval_unaligned           start not page aligned
 *   efault_hole                a page unmapped inside the range: EFAULT for
 *                              a policy (as plain mbind() in 6.1:
 *                              queue_pages_test_walk()); MPOL_NOOP, which
 *                              installs no policy, accepts holes as
 *                              MPOL_DEFAULT does (and as in the 2012 RFC);
 *                              either way policies and contents unchanged
 *   eperm_move_all_lazy_unprivileged
 *                              MOVE_ALL|LAZY needs CAP_SYS_NICE (EPERM after
 *                              dropping to uid 65534, where MOVE|LAZY still
 *                              works); as root MOVE_ALL|LAZY succeeds
 * Races (nodes 0 and 1; iteration counted, never time based):
 *   race_munmap  one thread LAZY-binds a 4 MiB range, alternating node 0/1,
 *                while another munmap()s and re-mmap()s a 1 MiB piece of it:
 *                mbind() returns 0, EFAULT or ENOMEM only; a 1 MiB region
 *                nobody unmaps is marked and touched every iteration; all
 *                contents are verified.
 *   race_exit    50 forked children: 4 threads touch their slices and
 *                pthread_exit() while the main thread LAZY-binds the area;
 *                the child verifies contents and placement.
 *
 * If /proc/vmstat has no numa_lazy_marked the kernel lacks the feature and
 * the whole fixture SKIPs; once the counter exists every assertion applies.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include <grp.h>
#include <pthread.h>
#include <sys/wait.h>
#include "numa_util.h"

#define KIB		(1UL << 10)
#define NPAGES		16
#define SEED		0x1a2bULL
/*
 * A hang guard, not a speed check: race_munmap's 2000 iterations took
 * about 300 s on the debug kernel (KASAN, kmemleak, lockdep) under TCG
 * on 2026-12-06 and were killed at the old 300 once; a kernel that hangs
 * still fails here, and the hung-task detector names it first.
 */
#define RACE_TIMEOUT	1200

/* At least 90% of n, rounded up. */
#define PCT90(n)	(((long)(n) * 9 + 9) / 10)

FIXTURE(lazy_err) {
	char *buf;
	size_t len;
};

/* buf: NPAGES pages, policy BIND {0}, filled with SEED (all on node 0). */
FIXTURE_SETUP(lazy_err)
{
	unsigned long n0 = NU_MASK(0);

	if (nu_vmstat("numa_lazy_marked") < 0)
		SKIP(return, "kernel lacks MPOL_MF_LAZY");
	self->len = NPAGES * nu_page_size();
	self->buf = nu_alloc(NPAGES);
	ASSERT_NE(NULL, self->buf);
	ASSERT_EQ(0, mbind(self->buf, self->len, MPOL_BIND, &n0, NU_MAXNODE,
			   0))
		TH_LOG("mbind(BIND {0}): %s", strerror(errno));
	nu_fill(self->buf, self->len, SEED);
}

FIXTURE_TEARDOWN(lazy_err)
{
	nu_free(self->buf, NPAGES);	/* unmapped parts are fine */
}

/*
 * After a failed call: the policy at addr is still the setup's BIND {0}.
 * The failing calls ask for MPOL_PREFERRED so that a policy wrongly applied
 * shows here.
 */
static void expect_setup_policy(struct __test_metadata *_metadata,
				char *addr, const char *after)
{
	unsigned long mask = 0;
	int mode = -1;

	ASSERT_EQ(0, get_mempolicy(&mode, &mask, NU_MAXNODE, addr,
				   MPOL_F_ADDR))
		TH_LOG("get_mempolicy(MPOL_F_ADDR): %s", strerror(errno));
	EXPECT_EQ(MPOL_BIND, mode) TH_LOG("policy mode changed by %s", after);
	EXPECT_EQ(NU_MASK(0), mask) TH_LOG("nodemask changed by %s", after);
}

/* mbind() must fail with want_errno; prints what the call was. */
#define EXPECT_MBIND_FAILS(want_errno, what, addr, len, mode, mask, maxnode, \
			   flags) do {					\
	long __r;							\
	int __e;							\
	errno = 0;							\
	__r = mbind(addr, len, mode, mask, maxnode, flags);		\
	__e = errno;							\
	EXPECT_EQ(-1, __r) TH_LOG("%s succeeded", what);		\
	EXPECT_EQ(want_errno, __e)					\
		TH_LOG("%s: errno %d (%s), want %d", what, __e,		\
		       strerror(__e), want_errno);			\
} while (0)

TEST_F(lazy_err, einval_unknown_flag)
{
	static const unsigned int bad[] = {
		1U << 4, 1U << 5, 1U << 7, 1U << 31,
	};
	unsigned long n0 = NU_MASK(0);
	char what[96];
	size_t i;

	NU_RETURN_IF_SKIPPED();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(what, sizeof(what), "PREFERRED, MOVE|LAZY|0x%x",
			 bad[i]);
		EXPECT_MBIND_FAILS(EINVAL, what, self->buf, self->len,
				   MPOL_PREFERRED, &n0, NU_MAXNODE,
				   LAZY_FLAGS | bad[i]);
		snprintf(what, sizeof(what), "NOOP, MOVE|LAZY|0x%x", bad[i]);
		EXPECT_MBIND_FAILS(EINVAL, what, self->buf, self->len,
				   MPOL_NOOP, NULL, 0, LAZY_FLAGS | bad[i]);
	}
	EXPECT_MBIND_FAILS(EINVAL, "PREFERRED, 1<<7 alone", self->buf,
			   self->len, MPOL_PREFERRED, &n0, NU_MAXNODE, 1U << 7);
	expect_setup_policy(_metadata, self->buf, "unknown flags");
	EXPECT_EQ(-1, nu_verify(self->buf, self->len, SEED));
}

TEST_F(lazy_err, einval_lazy_without_move)
{
	unsigned long n0 = NU_MASK(0);

	NU_RETURN_IF_SKIPPED();
	EXPECT_MBIND_FAILS(EINVAL, "PREFERRED, LAZY", self->buf, self->len,
			   MPOL_PREFERRED, &n0, NU_MAXNODE, MPOL_MF_LAZY);
	EXPECT_MBIND_FAILS(EINVAL, "PREFERRED, STRICT|LAZY", self->buf,
			   self->len, MPOL_PREFERRED, &n0, NU_MAXNODE,
			   MPOL_MF_STRICT | MPOL_MF_LAZY);
	EXPECT_MBIND_FAILS(EINVAL, "NOOP, LAZY", self->buf, self->len,
			   MPOL_NOOP, NULL, 0, MPOL_MF_LAZY);
	expect_setup_policy(_metadata, self->buf, "LAZY without MOVE");
	EXPECT_EQ(-1, nu_verify(self->buf, self->len, SEED));
}

TEST_F(lazy_err, einval_noop_with_nodes)
{
	unsigned long n0 = NU_MASK(0);

	NU_RETURN_IF_SKIPPED();
	EXPECT_MBIND_FAILS(EINVAL, "NOOP {0}, MOVE|LAZY", self->buf,
			   self->len, MPOL_NOOP, &n0, NU_MAXNODE, LAZY_FLAGS);
	expect_setup_policy(_metadata, self->buf, "NOOP with nodes");
	EXPECT_EQ(-1, nu_verify(self->buf, self->len, SEED));
}

TEST_F(lazy_err, einval_noop_without_lazy)
{
	NU_RETURN_IF_SKIPPED();
	EXPECT_MBIND_FAILS(EINVAL, "NOOP, flags 0", self->buf, self->len,
			   MPOL_NOOP, NULL, 0, 0);
	EXPECT_MBIND_FAILS(EINVAL, "NOOP, MOVE", self->buf, self->len,
			   MPOL_NOOP, NULL, 0, MPOL_MF_MOVE);
	expect_setup_policy(_metadata, self->buf, "NOOP without LAZY");
	EXPECT_EQ(-1, nu_verify(self->buf, self->len, SEED));
}

TEST_F(lazy_err, einval_set_mempolicy_noop)
{
	unsigned long before_mask = 0, after_mask = 0;
	int before = -1, after = -1;
	long r;

	NU_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, get_mempolicy(&before, &before_mask, NU_MAXNODE, NULL, 0));
	errno = 0;
	r = set_mempolicy(MPOL_NOOP, NULL, 0);
	EXPECT_EQ(-1, r) TH_LOG("set_mempolicy(MPOL_NOOP) succeeded");
	EXPECT_EQ(EINVAL, errno)
		TH_LOG("set_mempolicy(MPOL_NOOP): errno %d (%s)", errno,
		       strerror(errno));
	/* The task policy is untouched. */
	ASSERT_EQ(0, get_mempolicy(&after, &after_mask, NU_MAXNODE, NULL, 0));
	EXPECT_EQ(before, after);
	EXPECT_EQ(before_mask, after_mask);
}

TEST_F(lazy_err, einval_unaligned)
{
	size_t ps = nu_page_size();
	unsigned long n0 = NU_MASK(0);

	NU_RETURN_IF_SKIPPED();
	EXPECT_MBIND_FAILS(EINVAL, "PREFERRED, MOVE|LAZY at buf + 1",
			   self->buf + 1, ps, MPOL_PREFERRED, &n0, NU_MAXNODE,
			   LAZY_FLAGS);
	EXPECT_MBIND_FAILS(EINVAL, "NOOP, MOVE|LAZY at buf + ps/2",
			   self->buf + ps / 2, ps, MPOL_NOOP, NULL, 0,
			   LAZY_FLAGS);
	expect_setup_policy(_metadata, self->buf, "unaligned start");
	EXPECT_EQ(-1, nu_verify(self->buf, self->len, SEED));
}

TEST_F(lazy_err, efault_hole)
{
	size_t ps = nu_page_size(), hole = NPAGES / 2;
	unsigned long n0 = NU_MASK(0);

	NU_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, munmap(self->buf + hole * ps, ps));
	EXPECT_MBIND_FAILS(EFAULT, "PREFERRED, MOVE|LAZY over a hole",
			   self->buf, self->len, MPOL_PREFERRED, &n0,
			   NU_MAXNODE, LAZY_FLAGS);
	expect_setup_policy(_metadata, self->buf, "EFAULT (before the hole)");
	expect_setup_policy(_metadata, self->buf + (hole + 1) * ps,
			    "EFAULT (after the hole)");
	EXPECT_EQ(0, mbind(self->buf, self->len, MPOL_NOOP, NULL, 0,
			   LAZY_FLAGS))
		TH_LOG("NOOP, MOVE|LAZY over a hole: %s", strerror(errno));
	expect_setup_policy(_metadata, self->buf, "NOOP (before the hole)");
	expect_setup_policy(_metadata, self->buf + (hole + 1) * ps,
			    "NOOP (after the hole)");
	EXPECT_EQ(-1, nu_verify_range(self->buf, 0, hole * ps, SEED));
	EXPECT_EQ(-1, nu_verify_range(self->buf, (hole + 1) * ps,
				   self->len - (hole + 1) * ps, SEED));
}

/* Child exit codes for the unprivileged part. */
enum {
	UNPRIV_OK = 0,
	UNPRIV_DROP = 10,	/* could not drop privileges */
	UNPRIV_STILL_ROOT,
	UNPRIV_MOVE_ALL_OK,	/* MOVE_ALL|LAZY succeeded */
	UNPRIV_MOVE_ALL_ERRNO,	/* ... failed, but not with EPERM */
	UNPRIV_MOVE_LAZY,	/* MOVE|LAZY (no privilege needed) failed */
	UNPRIV_DATA,
};

static int unpriv_child(char *buf, size_t len)
{
	unsigned long n0 = NU_MASK(0);

	if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
		return UNPRIV_DROP;
	if (geteuid() != 65534 || getegid() != 65534)
		return UNPRIV_STILL_ROOT;
	errno = 0;
	if (mbind(buf, len, MPOL_BIND, &n0, NU_MAXNODE,
		  MPOL_MF_MOVE_ALL | MPOL_MF_LAZY) == 0)
		return UNPRIV_MOVE_ALL_OK;
	if (errno != EPERM)
		return UNPRIV_MOVE_ALL_ERRNO;
	if (mbind(buf, len, MPOL_BIND, &n0, NU_MAXNODE, LAZY_FLAGS))
		return UNPRIV_MOVE_LAZY;
	if (nu_verify(buf, len, SEED) != -1)
		return UNPRIV_DATA;
	return UNPRIV_OK;
}

TEST_F(lazy_err, eperm_move_all_lazy_unprivileged)
{
	unsigned long to;
	int wstatus, node;
	pid_t pid;
	long off;

	NU_RETURN_IF_SKIPPED();
	if (geteuid() != 0)
		SKIP(return, "needs root to drop to uid 65534");
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(unpriv_child(self->buf, self->len));
	ASSERT_EQ(pid, waitpid(pid, &wstatus, 0));
	ASSERT_TRUE(WIFEXITED(wstatus)) TH_LOG("child wait status 0x%x", wstatus);
	ASSERT_EQ(UNPRIV_OK, WEXITSTATUS(wstatus))
		TH_LOG("unprivileged child: 10 drop, 11 still root, 12 MOVE_ALL|LAZY succeeded, 13 MOVE_ALL|LAZY errno not EPERM, 14 MOVE|LAZY failed, 15 contents");

	/* As root (CAP_SYS_NICE) MOVE_ALL|LAZY works. */
	node = nu_have_two_nodes() ? 1 : 0;
	to = NU_MASK(node);
	ASSERT_EQ(0, mbind(self->buf, self->len, MPOL_BIND, &to, NU_MAXNODE,
			   MPOL_MF_MOVE_ALL | MPOL_MF_LAZY))
		TH_LOG("root: mbind(BIND {%d}, MOVE_ALL|LAZY): %s", node,
		       strerror(errno));
	off = nu_verify(self->buf, self->len, SEED);	/* touches all */
	ASSERT_EQ(-1, off) TH_LOG("contents corrupted at offset %ld", off);
	/*
	 * Placement is mpol_lazy.c's business; 16 pages are too few for a
	 * threshold (a page still in a per-CPU LRU batch cannot migrate).
	 */
	TH_LOG("after touching: %ld of %d pages on node %d",
	       nu_count_on_node(self->buf, NPAGES, node), NPAGES, node);
}

/* ---------------------------------------------------------------------- */

/* SN_RACE_ITERS (snrace= on the guest's command line) overrides it */
#define RM_ITERS_DEFAULT	2000
#define RM_MAP_LEN	(8 * MIB)	/* the bigger mapping */
#define RM_R_OFF	(2 * MIB)	/* range thread A marks */
#define RM_R_LEN	(4 * MIB)
#define RM_P_OFF	(3 * MIB + 512 * KIB)	/* piece thread B remaps */
#define RM_P_LEN	(1 * MIB)
#define RM_S_LEN	(1 * MIB)	/* region nobody unmaps */
#define RM_S_WINDOW	32		/* pages of S touched per iteration */

struct rm_shared {
	pthread_barrier_t start;
	int iters;
	char *map, *s;
	uint64_t seed_map, seed_s;
	/* thread A */
	int a_rc, a_err;	/* 0; 1 bad mbind(R) errno; 2 mbind(S) failed */
	long n_ok, n_efault, n_enomem;
	/* thread B */
	int b_rc, b_err;	/* 0; 1 munmap; 2 mmap; 3 contents */
	int b_iter;
	uint64_t b_last_seed;
};

/* No ASSERT_*() in threads: the harness longjmp()s. */
static void *rm_marker(void *arg)
{
	struct rm_shared *sh = arg;
	size_t ps = nu_page_size(), spages = RM_S_LEN / ps;
	int i;

	pthread_barrier_wait(&sh->start);
	for (i = 0; i < sh->iters; i++) {
		unsigned long mask = NU_MASK(i & 1);
		size_t first = ((size_t)i * RM_S_WINDOW) % spages, k;

		errno = 0;
		if (mbind(sh->map + RM_R_OFF, RM_R_LEN, MPOL_BIND, &mask,
			  NU_MAXNODE, LAZY_FLAGS) == 0) {
			sh->n_ok++;
		} else if (errno == EFAULT) {
			sh->n_efault++;
		} else if (errno == ENOMEM) {
			sh->n_enomem++;
		} else {
			sh->a_rc = 1;
			sh->a_err = errno;
			break;
		}
		if (mbind(sh->s, RM_S_LEN, MPOL_BIND, &mask, NU_MAXNODE,
			  LAZY_FLAGS)) {
			sh->a_rc = 2;
			sh->a_err = errno;
			break;
		}
		/* Read and write back one word in a window of S's pages. */
		for (k = 0; k < RM_S_WINDOW; k++) {
			volatile uint64_t *w = (volatile uint64_t *)
				(sh->s + ((first + k) % spages) * ps);
			*w = *w;
		}
	}
	return NULL;
}

static void *rm_unmapper(void *arg)
{
	struct rm_shared *sh = arg;
	char *p = sh->map + RM_P_OFF;
	int j;

	pthread_barrier_wait(&sh->start);
	for (j = 0; j < sh->iters; j++) {
		uint64_t seed = 0x5000 + j;
		void *q;

		sh->b_iter = j;
		if (munmap(p, RM_P_LEN)) {
			sh->b_rc = 1;
			sh->b_err = errno;
			break;
		}
		q = mmap(p, RM_P_LEN, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (q != p) {
			sh->b_rc = 2;
			sh->b_err = q == MAP_FAILED ? errno : 0;
			break;
		}
		madvise(p, RM_P_LEN, MADV_NOHUGEPAGE);	/* best effort */
		nu_fill(p, RM_P_LEN, seed);
		sh->b_last_seed = seed;
		/* Thread A may have marked it meanwhile: reading migrates. */
		if (nu_verify(p, RM_P_LEN, seed) != -1) {
			sh->b_rc = 3;
			break;
		}
	}
	return NULL;
}

TEST_F_TIMEOUT(lazy_err, race_munmap, RACE_TIMEOUT)
{
	struct rm_shared sh = {
		.seed_map = 0x6a6aULL, .seed_s = 0x7b7bULL,
		.a_rc = -1, .b_rc = -1,
	};
	pthread_t a, b;
	long off;

	const char *env = getenv("SN_RACE_ITERS");

	NU_RETURN_IF_SKIPPED();
	if (!nu_have_two_nodes())
		SKIP(return, "needs NUMA nodes 0 and 1");
	sh.iters = env && atoi(env) > 0 ? atoi(env) : RM_ITERS_DEFAULT;
	sh.map = nu_alloc(RM_MAP_LEN / nu_page_size());
	ASSERT_NE(NULL, sh.map);
	sh.s = nu_alloc(RM_S_LEN / nu_page_size());
	ASSERT_NE(NULL, sh.s);
	nu_fill(sh.map, RM_MAP_LEN, sh.seed_map);
	nu_fill(sh.s, RM_S_LEN, sh.seed_s);
	sh.a_rc = 0;
	sh.b_rc = 0;

	ASSERT_EQ(0, pthread_barrier_init(&sh.start, NULL, 2));
	ASSERT_EQ(0, pthread_create(&a, NULL, rm_marker, &sh));
	ASSERT_EQ(0, pthread_create(&b, NULL, rm_unmapper, &sh));
	ASSERT_EQ(0, pthread_join(a, NULL));
	ASSERT_EQ(0, pthread_join(b, NULL));
	pthread_barrier_destroy(&sh.start);

	TH_LOG("mbind over the remapped range, %d iterations: %ld ok, %ld EFAULT, %ld ENOMEM",
	       sh.iters, sh.n_ok, sh.n_efault, sh.n_enomem);
	ASSERT_EQ(0, sh.a_rc)
		TH_LOG("marker: %s failed with errno %d (%s)",
		       sh.a_rc == 1 ? "mbind(R) (only 0, EFAULT, ENOMEM allowed)"
				    : "mbind(S)",
		       sh.a_err, strerror(sh.a_err));
	EXPECT_EQ(sh.iters, sh.n_ok + sh.n_efault + sh.n_enomem);
	ASSERT_EQ(0, sh.b_rc)
		TH_LOG("unmapper iteration %d: %s, errno %d (%s)", sh.b_iter,
		       sh.b_rc == 1 ? "munmap failed" :
		       sh.b_rc == 2 ? "mmap(MAP_FIXED) failed" :
				      "refilled piece corrupted",
		       sh.b_err, strerror(sh.b_err));

	/* Contents: S, the mapping around the piece, the piece. */
	off = nu_verify(sh.s, RM_S_LEN, sh.seed_s);
	ASSERT_EQ(-1, off) TH_LOG("region S corrupted at offset %ld", off);
	off = nu_verify_range(sh.map, 0, RM_P_OFF, sh.seed_map);
	ASSERT_EQ(-1, off) TH_LOG("mapping corrupted at offset %ld", off);
	off = nu_verify_range(sh.map, RM_P_OFF + RM_P_LEN,
			   RM_MAP_LEN - RM_P_OFF - RM_P_LEN, sh.seed_map);
	ASSERT_EQ(-1, off) TH_LOG("mapping corrupted at offset %ld", off);
	off = nu_verify(sh.map + RM_P_OFF, RM_P_LEN, sh.b_last_seed);
	ASSERT_EQ(-1, off) TH_LOG("remapped piece corrupted at offset %ld", off);

	nu_free(sh.s, RM_S_LEN / nu_page_size());
	nu_free(sh.map, RM_MAP_LEN / nu_page_size());
}

/* ---------------------------------------------------------------------- */

#define RE_ROUNDS	50
#define RE_LEN		(8 * MIB)
#define RE_THREADS	4
#define RE_MAX_MBINDS	64	/* mbind()s per round while threads exit */

struct re_thread {
	char *slice;
	size_t len;
	int *alive;
};

static void *re_toucher(void *arg)
{
	struct re_thread *t = arg;
	size_t ps = nu_page_size(), o;

	/* Read and write back one word per page of the slice, then exit. */
	for (o = 0; o < t->len; o += ps) {
		volatile uint64_t *w = (volatile uint64_t *)(t->slice + o);
		*w = *w;
	}
	__atomic_sub_fetch(t->alive, 1, __ATOMIC_SEQ_CST);
	pthread_exit(NULL);
}

/* Child exit codes (0 = all good). */
enum {
	RE_OK = 0,
	RE_ALLOC = 20,
	RE_PLACE,	/* mbind(BIND {0}) for placement failed */
	RE_THREAD,	/* pthread_create failed */
	RE_MBIND,	/* mbind(LAZY) failed */
	RE_JOIN,
	RE_DATA,	/* contents corrupted */
	RE_NODE,	/* < 90% on node 1 after touching everything */
};

static int re_child(uint64_t seed)
{
	struct re_thread t[RE_THREADS];
	pthread_t tid[RE_THREADS];
	unsigned long n0 = NU_MASK(0), n1 = NU_MASK(1);
	size_t np = RE_LEN / nu_page_size();
	int alive = RE_THREADS, i, n = 0, rc = RE_OK;
	long on1;
	char *buf;

	buf = nu_alloc(np);
	if (!buf)
		return RE_ALLOC;
	if (mbind(buf, RE_LEN, MPOL_BIND, &n0, NU_MAXNODE, 0))
		return RE_PLACE;
	nu_fill(buf, RE_LEN, seed);

	for (i = 0; i < RE_THREADS; i++) {
		t[i].slice = buf + i * (RE_LEN / RE_THREADS);
		t[i].len = RE_LEN / RE_THREADS;
		t[i].alive = &alive;
		if (pthread_create(&tid[i], NULL, re_toucher, &t[i]))
			return RE_THREAD;
	}
	/* Mark while the threads touch and exit (bounded, not timed). */
	do {
		if (mbind(buf, RE_LEN, MPOL_BIND, &n1, NU_MAXNODE, LAZY_FLAGS)) {
			rc = RE_MBIND;
			break;
		}
	} while (__atomic_load_n(&alive, __ATOMIC_SEQ_CST) > 0 &&
		 ++n < RE_MAX_MBINDS);
	for (i = 0; i < RE_THREADS; i++)
		if (pthread_join(tid[i], NULL) && rc == RE_OK)
			rc = RE_JOIN;
	if (rc != RE_OK)
		return rc;
	if (nu_verify(buf, RE_LEN, seed) != -1)	/* touches every page */
		return RE_DATA;
	on1 = nu_count_on_node(buf, np, 1);
	if (on1 < PCT90(np))
		return RE_NODE;
	return RE_OK;
}

TEST_F_TIMEOUT(lazy_err, race_exit, RACE_TIMEOUT)
{
	int round, wstatus;
	pid_t pid;

	NU_RETURN_IF_SKIPPED();
	if (!nu_have_two_nodes())
		SKIP(return, "needs NUMA nodes 0 and 1");
	for (round = 0; round < RE_ROUNDS; round++) {
		fflush(stdout);
		fflush(stderr);
		pid = fork();
		ASSERT_LE(0, pid) TH_LOG("fork: %s", strerror(errno));
		if (pid == 0)
			_exit(re_child(0x8000 + round));
		ASSERT_EQ(pid, waitpid(pid, &wstatus, 0));
		ASSERT_TRUE(WIFEXITED(wstatus))
			TH_LOG("round %d: child wait status 0x%x", round,
			       wstatus);
		ASSERT_EQ(RE_OK, WEXITSTATUS(wstatus))
			TH_LOG("round %d: child exit %d (20 alloc, 21 place, 22 thread, 23 mbind, 24 join, 25 contents, 26 < 90%% on node 1)",
			       round, WEXITSTATUS(wstatus));
	}
}

TEST_HARNESS_MAIN
