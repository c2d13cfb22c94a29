// SPDX-License-Identifier: GPL-2.0
/*
 * mbindbench: what one mbind(2) call of the series' kinds costs, in the
 * guest (make bench; also runnable alone: sntests=mbindbench).  Figures,
 * not a test: it prints one line per case and "ok 1 mbindbench" at the end.
 *
 *   lazy      mbind(MPOL_BIND, MPOL_MF_MOVE | MPOL_MF_LAZY) of 4 MiB of
 *             populated anonymous memory, alternating nodes 0 and 1: the
 *             marking pass, and before the series' fix an lru_cache_disable()
 *             (a drain on every CPU and an expedited RCU grace period) for
 *             nothing, since lazy marking isolates no page.
 *   move      the same with MPOL_MF_MOVE alone (migrates 4 MiB every call):
 *             the reference the lazy case is compared with.
 *   noop-shm  mbind(MPOL_NOOP, MPOL_MF_MOVE | MPOL_MF_LAZY) over 64 MiB of
 *             shared memory with four shared-policy ranges: before the fix
 *             the shared policy was looked up page by page (16384 lookups).
 *
 * Each case runs for about a second (at least 5 calls); the mean and the
 * best microseconds per call are printed.  Under TCG only the ratios
 * between kernels built from the same tree in one boot mean anything.
 */
#include "../numa_util.h"

#include <time.h>

#define ANON_PAGES	1024		/* 4 MiB */
#define SHM_PAGES	16384		/* 64 MiB */
#define MIN_CALLS	5
#define CASE_NS		1000000000LL

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

typedef int (*call_fn)(void *arg, int i);

struct range {
	char *buf;
	size_t len;
	unsigned long flags;
};

static int bind_call(void *arg, int i)
{
	struct range *r = arg;
	unsigned long mask = NU_MASK(i & 1);

	return mbind(r->buf, r->len, MPOL_BIND, &mask, NU_MAXNODE, r->flags);
}

static int noop_call(void *arg, int i)
{
	struct range *r = arg;

	(void)i;
	return mbind(r->buf, r->len, MPOL_NOOP, NULL, 0, LAZY_FLAGS);
}

/* Run fn for about CASE_NS; print mean and best us per call. */
static int run_case(const char *name, call_fn fn, void *arg)
{
	long long t0 = now_ns(), best = -1, t, d;
	int n = 0;

	while (n < MIN_CALLS || now_ns() - t0 < CASE_NS) {
		t = now_ns();
		if (fn(arg, n)) {
			printf("# %s: mbind: %s\n", name, strerror(errno));
			return -1;
		}
		d = now_ns() - t;
		if (best < 0 || d < best)
			best = d;
		n++;
	}
	printf("mbindbench case=%s calls=%d mean_us=%lld best_us=%lld\n", name,
	       n, (now_ns() - t0) / n / 1000, best / 1000);
	return 0;
}

int main(void)
{
	size_t ps = nu_page_size();
	struct range anon, shm;
	unsigned long mask;
	int i, fails = 0;

	if (!nu_have_two_nodes()) {
		printf("ok 1 mbindbench # SKIP needs NUMA nodes 0 and 1\n");
		return 0;
	}
	anon.len = ANON_PAGES * ps;
	anon.buf = nu_alloc(ANON_PAGES);
	shm.len = SHM_PAGES * ps;
	shm.buf = mmap(NULL, shm.len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!anon.buf || shm.buf == MAP_FAILED) {
		printf("not ok 1 mbindbench # no memory\n");
		return 1;
	}
	nu_fill(anon.buf, anon.len, 1);
	nu_fill(shm.buf, shm.len, 2);
	/* Four shared-policy ranges, alternating nodes, lazy (MOF) policies */
	for (i = 0; i < 4; i++) {
		mask = NU_MASK(i & 1);
		if (mbind(shm.buf + i * shm.len / 4, shm.len / 4, MPOL_BIND,
			  &mask, NU_MAXNODE, 0))
			fails++;
	}

	anon.flags = LAZY_FLAGS;
	fails += !!run_case("lazy", bind_call, &anon);
	anon.flags = MPOL_MF_MOVE;
	fails += !!run_case("move", bind_call, &anon);
	fails += !!run_case("noop-shm", noop_call, &shm);
	if (nu_verify(anon.buf, anon.len, 1) != -1 ||
	    nu_verify(shm.buf, shm.len, 2) != -1) {
		printf("# data check failed\n");
		fails++;
	}
	printf("%sok 1 mbindbench\n", fails ? "not " : "");
	return fails ? 1 : 0;
}
