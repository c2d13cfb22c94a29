// SPDX-License-Identifier: GPL-2.0
/*
 * mbind(2) MPOL_MF_LAZY and MPOL_NOOP, success paths (sched/numa RFC
 * "lazy migrate-on-fault" forward-ported to 6.1).
 *
 * Interface under test:
 *   mbind(..., MPOL_MF_MOVE | MPOL_MF_LAZY) sets the policy and marks the
 *   range's pages that violate it; nothing moves at mbind() time.  The first
 *   touch (read or write) of a marked page migrates it to the node the
 *   policy dictates; untouched pages stay where they are.
 *   mbind(..., MPOL_NOOP, NULL, 0, MPOL_MF_MOVE | MPOL_MF_LAZY) keeps the
 *   range's current policy and marks its misplaced pages the same way.
 *   /proc/vmstat numa_lazy_marked counts the pages marked (base pages).
 *
 * Every case runs twice, with kernel.numa_balancing = 0 and = 1 (fixture
 * variants; setup sets the sysctl, teardown restores the old value), from a
 * task pinned to node 0's CPUs, so that pages reaching node 1 can only be the
 * policy's doing, never "local" placement:
 *   lazy_anon        32 MiB private anon, 4K pages: nothing moves at mbind,
 *                    a READ of the first half moves it, the second half stays
 *                    until it is written; counters; contents.
 *   lazy_thp         the same on a 2 MiB aligned MADV_HUGEPAGE region.
 *   lazy_shared      the same on 8 MiB MAP_SHARED|MAP_ANONYMOUS (shmem policy).
 *   noop             BIND{1} set without moving, then MPOL_NOOP marks: policy
 *                    read back unchanged, pages move on touch.
 *   motivating_case  the RFC's use case: data initialised by one thread on
 *                    node 0, each of two workers pinned to node i LAZY-binds
 *                    its own half to node i and reads it.
 *   untouched_stays  marked pages that nobody touches do not move (checked
 *                    twice, no sleeping, no timing).
 *
 * If /proc/vmstat has no numa_lazy_marked the kernel lacks the feature and
 * the whole fixture SKIPs; once the counter exists every assertion applies.
 * Placement thresholds are >= 90% for pages that must move (a page still in
 * a per-CPU LRU batch cannot be isolated at fault time) and 100% for pages
 * that must stay.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include <pthread.h>
#include "numa_util.h"

#define HPAGE		(2 * MIB)
#define BALANCING	"/proc/sys/kernel/numa_balancing"
#define THP_ENABLED	"/sys/kernel/mm/transparent_hugepage/enabled"
#define LAZY_TIMEOUT	180	/* seconds; the guest runs under TCG */

/* At least 90% of n, rounded up. */
#define PCT90(n)	(((long)(n) * 9 + 9) / 10)

static volatile uint64_t sink;

static size_t npages_of(size_t len)
{
	return len / nu_page_size();
}

/* Per-node page counts of [p, p + npages pages). 0 or -1 (errno set). */
struct dist {
	long n0, n1, other;
};

static int node_dist(const char *p, size_t npages, struct dist *d)
{
	int *st = calloc(npages, sizeof(*st));
	size_t i;

	memset(d, 0, sizeof(*d));
	if (!st)
		return -1;
	if (nu_page_nodes(0, (void *)p, npages, st)) {
		int err = errno;

		free(st);
		errno = err;
		return -1;
	}
	for (i = 0; i < npages; i++) {
		if (st[i] == 0)
			d->n0++;
		else if (st[i] == 1)
			d->n1++;
		else
			d->other++;
	}
	free(st);
	return 0;
}

/* READ one word of every page of [base + off, base + off + len). */
static void touch_read(const char *base, size_t off, size_t len)
{
	size_t ps = nu_page_size(), o;
	uint64_t sum = 0;

	for (o = off; o < off + len; o += ps)
		sum += *(const volatile uint64_t *)(base + o);
	sink += sum;
}

/*
 * WRITE one word of every page: the value nu_fill() put there, so the
 * contents stay verifiable while every page takes a write access.
 */
static void touch_write(char *base, size_t off, size_t len, uint64_t seed)
{
	size_t ps = nu_page_size(), o;

	for (o = off; o < off + len; o += ps)
		*(volatile uint64_t *)(base + o) = nu_pattern(o, seed);
}

struct ctrs {
	long long marked, hint, migrated, success;
};

static void ctrs_read(struct ctrs *c)
{
	c->marked = nu_vmstat("numa_lazy_marked");
	c->hint = nu_vmstat("numa_hint_faults");
	c->migrated = nu_vmstat("numa_pages_migrated");
	c->success = nu_vmstat("pgmigrate_success");
}

FIXTURE(mpol_lazy) {
	char *buf;
	size_t len;
	char old_balancing[16];
	int restore;
};

FIXTURE_VARIANT(mpol_lazy) {
	int balancing;	/* kernel.numa_balancing for the test */
};

FIXTURE_VARIANT_ADD(mpol_lazy, balancing_off) {
	.balancing = 0,
};

FIXTURE_VARIANT_ADD(mpol_lazy, balancing_on) {
	.balancing = 1,
};

FIXTURE_SETUP(mpol_lazy)
{
	char val[16];

	if (nu_vmstat("numa_lazy_marked") < 0)
		SKIP(return, "kernel lacks MPOL_MF_LAZY");
	if (!nu_have_two_nodes())
		SKIP(return, "needs NUMA nodes 0 and 1");
	if (geteuid() != 0)
		SKIP(return, "needs root to set kernel.numa_balancing");
	ASSERT_EQ(0, nu_read_file(BALANCING, self->old_balancing,
				  sizeof(self->old_balancing)))
		TH_LOG("cannot read " BALANCING);
	snprintf(val, sizeof(val), "%d", variant->balancing);
	/* Last step of setup: teardown only runs once setup returned. */
	ASSERT_EQ(0, nu_write_file(BALANCING, val))
		TH_LOG("cannot set kernel.numa_balancing = %s", val);
	self->restore = 1;
}

FIXTURE_TEARDOWN(mpol_lazy)
{
	if (self->buf)
		munmap(self->buf, self->len);
	if (self->restore && nu_write_file(BALANCING, self->old_balancing))
		TH_LOG("could not restore kernel.numa_balancing = %s",
		       self->old_balancing);
}

/*
 * Bind [buf, buf + len) to node 0, fill it with the pattern of seed (this
 * faults it in) and check that every page is on node 0.
 */
static void place_on_node0(struct __test_metadata *_metadata, char *buf,
			   size_t len, uint64_t seed)
{
	unsigned long n0 = NU_MASK(0);
	struct dist d;

	ASSERT_EQ(0, mbind(buf, len, MPOL_BIND, &n0, NU_MAXNODE, 0))
		TH_LOG("mbind(BIND {0}) for placement: %s", strerror(errno));
	nu_fill(buf, len, seed);
	ASSERT_EQ(0, node_dist(buf, npages_of(len), &d))
		TH_LOG("move_pages(nodes=NULL): %s", strerror(errno));
	ASSERT_EQ((long)npages_of(len), d.n0)
		TH_LOG("placement: %ld on node 0, %ld on node 1, %ld other",
		       d.n0, d.n1, d.other);
}

/*
 * From a CPU of node 0: an 8 MiB private buffer in self, placed on node 0
 * (place_on_node0()).  Returns its number of pages.
 */
static size_t private_on_node0(struct __test_metadata *_metadata,
			       FIXTURE_DATA(mpol_lazy) *self, uint64_t seed)
{
	size_t n = npages_of(8 * MIB);

	ASSERT_EQ(0, nu_pin_to_node(0));
	self->len = 8 * MIB;
	self->buf = nu_alloc(n);
	ASSERT_NE(NULL, self->buf);
	place_on_node0(_metadata, self->buf, self->len, seed);
	return n;
}

static void expect_policy(struct __test_metadata *_metadata, char *addr,
			  int want_mode, unsigned long want_mask,
			  const char *when)
{
	unsigned long mask = 0;
	int mode = -1;

	ASSERT_EQ(0, get_mempolicy(&mode, &mask, NU_MAXNODE, addr,
				   MPOL_F_ADDR))
		TH_LOG("get_mempolicy(MPOL_F_ADDR) %s: %s", when,
		       strerror(errno));
	EXPECT_EQ(want_mode, mode)
		TH_LOG("policy mode %s", when);
	EXPECT_EQ(want_mask, mask)
		TH_LOG("policy nodemask %s", when);
}

/*
 * All pages of [buf, buf + len) marked lazily for node 1 are still on
 * node 0; check it with one move_pages() query (which does not touch).
 */
static void expect_all_on_node0(struct __test_metadata *_metadata,
				const char *buf, size_t len, const char *when)
{
	struct dist d;

	ASSERT_EQ(0, node_dist(buf, npages_of(len), &d))
		TH_LOG("move_pages(nodes=NULL): %s", strerror(errno));
	ASSERT_EQ((long)npages_of(len), d.n0)
		TH_LOG("%s: %ld on node 0, %ld moved to node 1, %ld other",
		       when, d.n0, d.n1, d.other);
}

static long expect_mostly_on_node1(struct __test_metadata *_metadata,
				   const char *buf, size_t len,
				   const char *what)
{
	size_t n = npages_of(len);
	struct dist d;

	EXPECT_EQ(0, node_dist(buf, n, &d))
		TH_LOG("move_pages(nodes=NULL): %s", strerror(errno));
	EXPECT_GE(d.n1, PCT90(n))
		TH_LOG("%s: only %ld of %zu pages on node 1 (%ld on node 0, %ld other)",
		       what, d.n1, n, d.n0, d.other);
	return d.n1;
}

/*
 * The scenario shared by lazy_anon, lazy_thp and lazy_shared.  buf is
 * already placed on node 0 and filled with seed; the caller is pinned to
 * node 0.  half is the byte length of each half.
 */
static void lazy_halves(struct __test_metadata *_metadata, char *buf,
			size_t len, uint64_t seed)
{
	size_t half = len / 2, n = npages_of(len), nh = npages_of(half);
	unsigned long n1 = NU_MASK(1);
	struct ctrs c0, c1, c2;
	long moved, off;
	struct dist d;

	ctrs_read(&c0);
	ASSERT_LE(0, c0.hint) TH_LOG("numa_hint_faults missing from /proc/vmstat");
	ASSERT_LE(0, c0.migrated) TH_LOG("numa_pages_migrated missing");
	ASSERT_LE(0, c0.success) TH_LOG("pgmigrate_success missing");

	ASSERT_EQ(0, mbind(buf, len, MPOL_BIND, &n1, NU_MAXNODE, LAZY_FLAGS))
		TH_LOG("mbind(BIND {1}, MOVE|LAZY): %s", strerror(errno));
	ctrs_read(&c1);
	expect_policy(_metadata, buf, MPOL_BIND, n1, "after MOVE|LAZY");

	/* Nothing moves at mbind() time. */
	expect_all_on_node0(_metadata, buf, len, "right after mbind(LAZY)");
	EXPECT_GE(c1.marked - c0.marked, PCT90(n))
		TH_LOG("numa_lazy_marked grew by %lld, want >= %ld of %zu pages",
		       c1.marked - c0.marked, PCT90(n), n);

	/* READ the first half: it follows the policy to node 1. */
	touch_read(buf, 0, half);
	moved = expect_mostly_on_node1(_metadata, buf, half,
				       "first half after read");
	/* The untouched second half stays, all of it. */
	ASSERT_EQ(0, node_dist(buf + half, nh, &d))
		TH_LOG("move_pages(nodes=NULL): %s", strerror(errno));
	ASSERT_EQ((long)nh, d.n0)
		TH_LOG("untouched second half: %ld on node 0, %ld on node 1, %ld other",
		       d.n0, d.n1, d.other);

	/*
	 * Contents of what moved.  Only the first half is read here: reading
	 * the second half would migrate it before the write check below.
	 */
	off = nu_verify_range(buf, 0, half, seed);
	ASSERT_EQ(-1, off) TH_LOG("first half corrupted at offset %ld", off);
	expect_all_on_node0(_metadata, buf + half, half,
			    "second half after verifying the first");

	ctrs_read(&c2);
	EXPECT_GT(c2.hint, c1.hint)
		TH_LOG("numa_hint_faults did not grow (%lld)", c2.hint);
	EXPECT_GE(c2.migrated - c1.migrated, moved)
		TH_LOG("numa_pages_migrated grew by %lld for %ld moved pages",
		       c2.migrated - c1.migrated, moved);
	EXPECT_GE(c2.success - c1.success, moved)
		TH_LOG("pgmigrate_success grew by %lld for %ld moved pages",
		       c2.success - c1.success, moved);

	/* WRITE the second half: it moves too. */
	touch_write(buf, half, half, seed);
	expect_mostly_on_node1(_metadata, buf + half, half,
			       "second half after write");
	expect_mostly_on_node1(_metadata, buf, half,
			       "first half after writing the second");
	off = nu_verify_range(buf, 0, len, seed);
	ASSERT_EQ(-1, off) TH_LOG("buffer corrupted at offset %ld", off);
}

TEST_F_TIMEOUT(mpol_lazy, lazy_anon, LAZY_TIMEOUT)
{
	size_t n = 32 * MIB / nu_page_size();

	NU_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, nu_pin_to_node(0));
	self->len = 32 * MIB;
	self->buf = nu_alloc(n);	/* MADV_NOHUGEPAGE */
	ASSERT_NE(NULL, self->buf);
	place_on_node0(_metadata, self->buf, self->len, 0xa1);
	lazy_halves(_metadata, self->buf, self->len, 0xa1);
}

/* 0 if [never], 1 otherwise, -1 if THP is not configured. */
static int thp_usable(void)
{
	char buf[128];

	if (nu_read_file(THP_ENABLED, buf, sizeof(buf)))
		return -1;
	return strstr(buf, "[never]") ? 0 : 1;
}

/* AnonHugePages (kB) of the VMAs of this process overlapping [p, p+len). */
static long anon_huge_kb(const void *p, size_t len)
{
	unsigned long lo = (unsigned long)p, hi = lo + len, s, e;
	char line[512], perms[8];
	long kb, total = 0;
	int in = 0;
	FILE *f;

	f = fopen("/proc/self/smaps", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s", &s, &e, perms) == 3) {
			in = s < hi && e > lo;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			total += kb;
	}
	fclose(f);
	return total;
}

/* len bytes of private anon memory starting on a 2 MiB boundary. */
static char *alloc_hpage_aligned(size_t len)
{
	size_t map = len + HPAGE;
	char *p, *a;

	p = mmap(NULL, map, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)p + HPAGE - 1) & ~(uintptr_t)(HPAGE - 1));
	if (a > p)
		munmap(p, a - p);
	if (a + len < p + map)
		munmap(a + len, p + map - (a + len));
	return a;
}

TEST_F_TIMEOUT(mpol_lazy, lazy_thp, LAZY_TIMEOUT)
{
	long kb;
	int thp;

	NU_RETURN_IF_SKIPPED();
	thp = thp_usable();
	if (thp < 0)
		SKIP(return, "no " THP_ENABLED " (CONFIG_TRANSPARENT_HUGEPAGE=n)");
	if (thp == 0)
		SKIP(return, "THP disabled ([never])");
	ASSERT_EQ(0, nu_pin_to_node(0));
	self->len = 32 * MIB;		/* halves of 16 MiB: 2 MiB aligned */
	self->buf = alloc_hpage_aligned(self->len);
	ASSERT_NE(NULL, self->buf);
	ASSERT_EQ(0, madvise(self->buf, self->len, MADV_HUGEPAGE))
		TH_LOG("madvise(MADV_HUGEPAGE): %s", strerror(errno));
	place_on_node0(_metadata, self->buf, self->len, 0xb2);

	kb = anon_huge_kb(self->buf, self->len);
	ASSERT_LE(0, kb) TH_LOG("cannot read /proc/self/smaps");
	if (kb == 0)
		SKIP(return, "no THP allocated");
	TH_LOG("AnonHugePages before: %ld kB of %zu kB", kb, self->len >> 10);

	lazy_halves(_metadata, self->buf, self->len, 0xb2);
	TH_LOG("AnonHugePages after: %ld kB",
	       anon_huge_kb(self->buf, self->len));
}

TEST_F_TIMEOUT(mpol_lazy, lazy_shared, LAZY_TIMEOUT)
{
	NU_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, nu_pin_to_node(0));
	self->len = 8 * MIB;
	self->buf = mmap(NULL, self->len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf) {
		self->buf = NULL;
	}
	madvise(self->buf, self->len, MADV_NOHUGEPAGE);	/* best effort */
	/* On shared memory the policy goes to the shmem object. */
	place_on_node0(_metadata, self->buf, self->len, 0xc3);
	lazy_halves(_metadata, self->buf, self->len, 0xc3);
}

TEST_F_TIMEOUT(mpol_lazy, noop, LAZY_TIMEOUT)
{
	unsigned long n1 = NU_MASK(1);
	struct ctrs c0, c1;
	size_t n;
	long off;

	NU_RETURN_IF_SKIPPED();
	n = private_on_node0(_metadata, self, 0xd4);

	/* Policy only (no MOVE): pages stay on node 0. */
	ASSERT_EQ(0, mbind(self->buf, self->len, MPOL_BIND, &n1, NU_MAXNODE, 0))
		TH_LOG("mbind(BIND {1}, 0): %s", strerror(errno));
	expect_all_on_node0(_metadata, self->buf, self->len,
			    "after mbind(BIND {1}) without MOVE");
	expect_policy(_metadata, self->buf, MPOL_BIND, n1, "before NOOP");

	ctrs_read(&c0);
	ASSERT_EQ(0, mbind(self->buf, self->len, MPOL_NOOP, NULL, 0,
			   LAZY_FLAGS))
		TH_LOG("mbind(MPOL_NOOP, NULL, 0, MOVE|LAZY): %s",
		       strerror(errno));
	ctrs_read(&c1);
	expect_policy(_metadata, self->buf, MPOL_BIND, n1, "after NOOP");
	expect_policy(_metadata, self->buf + self->len - nu_page_size(),
		      MPOL_BIND, n1, "after NOOP (last page)");
	expect_all_on_node0(_metadata, self->buf, self->len,
			    "right after mbind(MPOL_NOOP)");
	EXPECT_GE(c1.marked - c0.marked, PCT90(n))
		TH_LOG("numa_lazy_marked grew by %lld, want >= %ld of %zu pages",
		       c1.marked - c0.marked, PCT90(n), n);

	touch_read(self->buf, 0, self->len);
	expect_mostly_on_node1(_metadata, self->buf, self->len,
			       "after touching all");
	off = nu_verify_range(self->buf, 0, self->len, 0xd4);
	ASSERT_EQ(-1, off) TH_LOG("buffer corrupted at offset %ld", off);
	expect_policy(_metadata, self->buf, MPOL_BIND, n1, "at the end");
}

struct worker {
	char *base;
	size_t off, len;
	uint64_t seed;
	int node;
	int rc;		/* 0 ok, 1 pin, 2 mbind, 3 contents */
	int err;
	long bad_off;
};

/* No ASSERT_*() here: the harness longjmp()s, which is per thread. */
static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	unsigned long mask = NU_MASK(w->node);
	int ret;

	ret = nu_pin_to_node(w->node);
	if (ret) {
		w->rc = 1;
		w->err = -ret;
		return NULL;
	}
	if (mbind(w->base + w->off, w->len, MPOL_BIND, &mask, NU_MAXNODE,
		  LAZY_FLAGS)) {
		w->rc = 2;
		w->err = errno;
		return NULL;
	}
	touch_read(w->base, w->off, w->len);
	w->bad_off = nu_verify_range(w->base, w->off, w->len, w->seed);
	w->rc = w->bad_off == -1 ? 0 : 3;
	return NULL;
}

static void check_worker(struct __test_metadata *_metadata,
			 const struct worker *w)
{
	ASSERT_EQ(0, w->rc)
		TH_LOG("worker on node %d: rc %d (1 pin, 2 mbind, 3 contents), %s, bad offset %ld",
		       w->node, w->rc, strerror(w->err), w->bad_off);
}

TEST_F_TIMEOUT(mpol_lazy, motivating_case, LAZY_TIMEOUT)
{
	const uint64_t seed = 0xe5;
	struct worker w[2];
	pthread_t tid[2];
	struct ctrs c0, c1;
	size_t half, nh;
	struct dist d;
	long off;
	int i;

	NU_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, nu_pin_to_node(0));
	self->len = 16 * MIB;
	half = self->len / 2;
	nh = npages_of(half);
	self->buf = nu_alloc(npages_of(self->len));
	ASSERT_NE(NULL, self->buf);

	/* The initialising thread runs on node 0: default policy, local. */
	nu_fill(self->buf, self->len, seed);
	ASSERT_EQ(0, node_dist(self->buf, npages_of(self->len), &d));
	ASSERT_EQ((long)npages_of(self->len), d.n0)
		TH_LOG("initialisation: %ld on node 0, %ld on node 1, %ld other",
		       d.n0, d.n1, d.other);

	ctrs_read(&c0);
	for (i = 0; i < 2; i++) {
		w[i] = (struct worker){
			.base = self->buf, .off = i * half, .len = half,
			.seed = seed, .node = i, .rc = -1, .bad_off = -1,
		};
		ASSERT_EQ(0, pthread_create(&tid[i], NULL, worker_fn, &w[i]));
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_join(tid[i], NULL));
	ctrs_read(&c1);
	check_worker(_metadata, &w[0]);
	check_worker(_metadata, &w[1]);

	/* Half 1 violated BIND {1}: marked, then moved by worker 1's reads. */
	EXPECT_GE(c1.marked - c0.marked, PCT90(nh))
		TH_LOG("numa_lazy_marked grew by %lld, want >= %ld",
		       c1.marked - c0.marked, PCT90(nh));
	ASSERT_EQ(0, node_dist(self->buf, nh, &d));
	EXPECT_GE(d.n0, PCT90(nh))
		TH_LOG("half 0: %ld on node 0, %ld on node 1, %ld other",
		       d.n0, d.n1, d.other);
	ASSERT_EQ(0, node_dist(self->buf + half, nh, &d));
	EXPECT_GE(d.n1, PCT90(nh))
		TH_LOG("half 1: %ld on node 1, %ld on node 0, %ld other",
		       d.n1, d.n0, d.other);

	off = nu_verify_range(self->buf, 0, self->len, seed);
	ASSERT_EQ(-1, off) TH_LOG("buffer corrupted at offset %ld", off);
}

TEST_F_TIMEOUT(mpol_lazy, untouched_stays, LAZY_TIMEOUT)
{
	unsigned long n1 = NU_MASK(1), mask = 0;
	struct ctrs c0, c1;
	int mode = -1;
	size_t n;
	long off;

	NU_RETURN_IF_SKIPPED();
	n = private_on_node0(_metadata, self, 0xf6);

	ctrs_read(&c0);
	ASSERT_EQ(0, mbind(self->buf, self->len, MPOL_BIND, &n1, NU_MAXNODE,
			   LAZY_FLAGS))
		TH_LOG("mbind(BIND {1}, MOVE|LAZY): %s", strerror(errno));
	ctrs_read(&c1);
	EXPECT_GE(c1.marked - c0.marked, PCT90(n))
		TH_LOG("numa_lazy_marked grew by %lld, want >= %ld of %zu pages",
		       c1.marked - c0.marked, PCT90(n), n);

	/* Two queries, with non-touching syscalls between them, no sleep. */
	expect_all_on_node0(_metadata, self->buf, self->len, "first query");
	ASSERT_EQ(0, get_mempolicy(&mode, &mask, NU_MAXNODE, self->buf,
				   MPOL_F_ADDR));
	ctrs_read(&c1);
	sched_yield();
	expect_all_on_node0(_metadata, self->buf, self->len, "second query");

	/* Marked pages still move once touched, intact. */
	touch_read(self->buf, 0, self->len);
	expect_mostly_on_node1(_metadata, self->buf, self->len,
			       "after touching all");
	off = nu_verify_range(self->buf, 0, self->len, 0xf6);
	ASSERT_EQ(-1, off) TH_LOG("buffer corrupted at offset %ld", off);
}

TEST_HARNESS_MAIN
