// SPDX-License-Identifier: GPL-2.0
/*
 * costbench: what the series costs on the paths every workload runs, in
 * the guest (make bench-cost; also runnable alone: sntests=costbench).
 * Figures, not a test: one line per case, mode and round, and
 * "ok 1 costbench" at the end.
 *
 * Cases (each in a child forked after the mode is set, so that it starts
 * as a new process of that mode would; the value is nanoseconds per
 * operation, lower is better):
 *
 *   fault-4k-1t    first touch of 32 MiB of anonymous memory, 4 KiB pages
 *                  (MADV_NOHUGEPAGE): per fault.  RSS counters, the
 *                  allocation's get_task_policy().
 *   fault-4k-4t    the same, four threads with 8 MiB each: per fault.
 *   fault-thp-1t   first touch of 128 MiB, MADV_HUGEPAGE: per 2 MiB fault.
 *   fault-thp-4t   the same, four threads.
 *   fork-exit      fork() of a process with 8 MiB touched, _exit(), wait:
 *                  per child.  sched_fork and the mm copy and teardown.
 *   fork-exec      fork(), execve() of this (static) program, wait.
 *   pipe-node      1-byte ping-pong over two pipes between two tasks on
 *                  CPUs of one node: per round trip (two wake-ups).
 *   pipe-cross     the same on CPUs of different nodes.
 *   yield          two tasks on one CPU calling sched_yield(): per call.
 *   runnable       16 unpinned processes, each with a fixed amount of
 *                  computation, on the 4 CPUs: the time until the last
 *                  ends (pick, wake-up and load balancing, newidle too).
 *   munmap         munmap() of 64 MiB of populated 4 KiB pages: per call.
 *   mbind-lazy     mbind(MPOL_BIND, MPOL_MF_MOVE | MPOL_MF_LAZY) of 64 MiB
 *                  populated, alternating nodes: per call.  Not in 6.1.
 *   mbind-noop     mbind(MPOL_NOOP, MPOL_MF_MOVE | MPOL_MF_LAZY) of the
 *                  same 64 MiB: per call.  Not in 6.1.
 *   tbind          numa_tbind(0, MS_ID_NEW): a group made, the previous
 *                  one freed: per call.  sched/numa on only.
 *   numa-mbind     numa_mbind() of 4 MiB populated to the thread's group
 *                  and mbind(MPOL_DEFAULT) of it: per pair.  sched/numa on.
 *
 * Modes: off (kernel.numa_balancing=0, kernel.sched_numa=0), autonuma
 * (numa_balancing=1) and sched-numa (sched_numa=1); those the kernel has.
 * Every round runs every mode of its phase (in an order rotated per
 * round) and every case in it, so that a change of the host's load
 * spreads over all modes instead of landing on one; the host side takes
 * the median per case and mode and the spread over rounds
 * (scripts/bench-cost.sh).
 *
 * Two phases, because switching sched/numa on for the first time has an
 * effect that lasts: it starts the per-node resident counts (NumaRss),
 * kept until reboot.  Phase 1 runs off and autonuma, sched/numa never on
 * in the boot; phase 2, if the kernel has sched/numa, runs sched-numa and
 * off-after-on (off, with the counts started by the sched-numa rounds).
 *
 * Each phase begins with a warm-up round (round=0, which the report
 * skips) of every mode and case: the first touch of most of the guest's
 * memory, the page cache of the exec'd binary and the slab caches then
 * cost nothing later.
 *
 * Usage: costbench [-r ROUNDS] [-c case,case,...]
 */
#include "../numa_util.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/sched_numa.h>	/* MS_ID_NEW, MS_ID_GET */

#define THP_SIZE	(2UL << 20)

static const char *self_path = "/proc/self/exe";

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *what)
{
	printf("# costbench: %s: %s\n", what, strerror(errno));
	fflush(stdout);
	_exit(2);
}

static void touch(char *p, size_t len, size_t step)
{
	for (size_t off = 0; off < len; off += step)
		p[off] = 1;
}

static char *map(size_t len, int advice)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	if (advice >= 0 && madvise(p, len, advice))
		die("madvise");
	return p;
}

/* len of anonymous memory in 4 KiB pages, every page touched. */
static char *populated(size_t len)
{
	char *p = map(len, MADV_NOHUGEPAGE);

	touch(p, len, nu_page_size());
	return p;
}

/* A THP-aligned mapping of len (a multiple of 2 MiB). */
static char *map_thp(size_t len)
{
	char *raw = map(len + THP_SIZE, -1);
	char *p = (char *)(((unsigned long)raw + THP_SIZE - 1) & ~(THP_SIZE - 1));

	if (p > raw)
		munmap(raw, p - raw);
	munmap(p + len, raw + THP_SIZE - p);
	if (madvise(p, len, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE)");
	return p;
}

/* ------------------------------------------------------------------ */
/* Page faults */

struct fault_arg {
	char *p;
	size_t len, step;
	pthread_barrier_t *go;
};

static void *fault_thread(void *v)
{
	struct fault_arg *a = v;

	pthread_barrier_wait(a->go);
	touch(a->p, a->len, a->step);
	return NULL;
}

static double faults(int nthreads, int thp)
{
	size_t total = thp ? 128 * MIB : 32 * MIB;
	size_t each = total / nthreads, step = thp ? THP_SIZE : nu_page_size();
	char *p = thp ? map_thp(total) : map(total, MADV_NOHUGEPAGE);
	struct fault_arg a[4];
	pthread_t t[4];
	pthread_barrier_t go;
	long long t0;

	pthread_barrier_init(&go, NULL, nthreads + 1);
	for (int i = 0; i < nthreads; i++) {
		a[i] = (struct fault_arg){ p + i * each, each, step, &go };
		if (pthread_create(&t[i], NULL, fault_thread, &a[i]))
			die("pthread_create");
	}
	pthread_barrier_wait(&go);
	t0 = now_ns();
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	t0 = now_ns() - t0;
	munmap(p, total);
	return (double)t0 / (total / step);
}

static double fault_4k_1t(void) { return faults(1, 0); }
static double fault_4k_4t(void) { return faults(4, 0); }
static double fault_thp_1t(void) { return faults(1, 1); }
static double fault_thp_4t(void) { return faults(4, 1); }

/* ------------------------------------------------------------------ */
/* fork */

static double forks(int exec)
{
	const int n = exec ? 60 : 150;
	size_t len = 8 * MIB;
	char *p = populated(len);
	long long t0 = now_ns();

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		int st;

		if (pid < 0)
			die("fork");
		if (!pid) {
			if (exec)
				execl(self_path, "costbench", "--exit", NULL);
			_exit(0);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			die("child");
	}
	t0 = now_ns() - t0;
	munmap(p, len);
	return (double)t0 / n;
}

static double fork_exit(void) { return forks(0); }
static double fork_exec(void) { return forks(1); }

/* ------------------------------------------------------------------ */
/* Wake-ups and the pick path */

static void pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

/* The first CPU of node n, and the one after it on the same node. */
static int node_cpu(int node, int nth)
{
	cpu_set_t set;
	int seen = 0;

	if (nu_node_cpuset(node, &set))
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set) && seen++ == nth)
			return c;
	return -1;
}

static double pingpong(int cpu_a, int cpu_b)
{
	const int n = 4000;
	int ab[2], ba[2], st;
	char c = 0;
	long long t0;
	pid_t pid;

	if (cpu_a < 0 || cpu_b < 0)
		return -1;
	if (pipe(ab) || pipe(ba))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		pin_cpu(cpu_b);
		for (int i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	pin_cpu(cpu_a);
	/* one warm-up trip, so both sides are in their loops */
	if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
		die("pipe");
	t0 = now_ns();
	for (int i = 1; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			die("pipe");
	t0 = now_ns() - t0;
	waitpid(pid, &st, 0);
	close(ab[0]); close(ab[1]); close(ba[0]); close(ba[1]);
	return (double)t0 / (n - 1);
}

static double pipe_node(void) { return pingpong(node_cpu(0, 0), node_cpu(0, 1)); }
static double pipe_cross(void) { return pingpong(node_cpu(0, 0), node_cpu(1, 0)); }

static double yield(void)
{
	const int n = 20000;
	long long t0;
	pid_t pid;
	int st;

	pin_cpu(node_cpu(0, 0));
	t0 = now_ns();
	pid = fork();
	if (pid < 0)
		die("fork");
	for (int i = 0; i < n; i++)
		sched_yield();
	if (!pid)
		_exit(0);
	waitpid(pid, &st, 0);
	t0 = now_ns() - t0;
	return (double)t0 / (2 * n);
}

static double runnable(void)
{
	const int nproc = 16;
	pid_t pids[16];
	long long t0 = now_ns();
	int st;

	for (int i = 0; i < nproc; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (!pids[i]) {
			volatile unsigned long x = 0;

			for (unsigned long j = 0; j < 20000000UL; j++)
				x += j;
			_exit(0);
		}
	}
	for (int i = 0; i < nproc; i++)
		waitpid(pids[i], &st, 0);
	return (double)(now_ns() - t0);
}

/* ------------------------------------------------------------------ */
/* munmap and the series' calls */

static double unmap(void)
{
	const int n = 4;
	size_t len = 64 * MIB;
	long long sum = 0;

	for (int i = 0; i < n; i++) {
		char *p = populated(len);
		long long t0 = now_ns();

		munmap(p, len);
		sum += now_ns() - t0;
	}
	return (double)sum / n;
}

static double mbind_case(int noop)
{
	const int n = 8;
	size_t len = 64 * MIB;
	char *p = populated(len);
	long long t0 = now_ns();

	for (int i = 0; i < n; i++) {
		unsigned long mask = NU_MASK(i & 1);
		int r = noop ? mbind(p, len, MPOL_NOOP, NULL, 0, LAZY_FLAGS)
			     : mbind(p, len, MPOL_BIND, &mask, NU_MAXNODE,
				     LAZY_FLAGS);

		if (r) {
			munmap(p, len);
			return -1;	/* not in this kernel */
		}
	}
	t0 = now_ns() - t0;
	munmap(p, len);
	return (double)t0 / n;
}

static double mbind_lazy(void) { return mbind_case(0); }
static double mbind_noop(void) { return mbind_case(1); }

static long tbind_call(int tid, int id)
{
	return syscall(__NR_numa_tbind, (long)tid, (long)id, 0UL);
}

static double tbind(void)
{
	const int n = 2000;
	long long t0;

	if (tbind_call(0, MS_ID_NEW) < 0)
		return -1;	/* no sched/numa, or off */
	t0 = now_ns();
	for (int i = 0; i < n; i++)
		if (tbind_call(0, MS_ID_NEW) < 0)
			die("numa_tbind");
	return (double)(now_ns() - t0) / n;
}

static double numa_mbind_case(void)
{
	const int n = 50;
	size_t len = 4 * MIB;
	long id = tbind_call(0, MS_ID_NEW);
	long long t0;
	char *p;

	if (id < 0)
		return -1;
	p = populated(len);
	t0 = now_ns();
	for (int i = 0; i < n; i++) {
		if (syscall(__NR_numa_mbind, p, len, id, 0UL))
			die("numa_mbind");
		if (mbind(p, len, MPOL_DEFAULT, NULL, 0, 0))
			die("mbind(MPOL_DEFAULT)");
	}
	t0 = now_ns() - t0;
	munmap(p, len);
	return (double)t0 / n;
}

/* ------------------------------------------------------------------ */

struct bench {
	const char *name;
	double (*fn)(void);
};

static const struct bench benches[] = {
	{ "fault-4k-1t", fault_4k_1t },
	{ "fault-4k-4t", fault_4k_4t },
	{ "fault-thp-1t", fault_thp_1t },
	{ "fault-thp-4t", fault_thp_4t },
	{ "fork-exit", fork_exit },
	{ "fork-exec", fork_exec },
	{ "pipe-node", pipe_node },
	{ "pipe-cross", pipe_cross },
	{ "yield", yield },
	{ "runnable", runnable },
	{ "munmap", unmap },
	{ "mbind-lazy", mbind_lazy },
	{ "mbind-noop", mbind_noop },
	{ "tbind", tbind },
	{ "numa-mbind", numa_mbind_case },
};

#define NR_BENCHES	(sizeof(benches) / sizeof(benches[0]))

/* Run one case in a new child; its value, or < 0 if it does not apply. */
static double run_child(const struct bench *b)
{
	double *res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	double v = -1;
	pid_t pid;
	int st;

	if (res == MAP_FAILED)
		die("mmap");
	*res = -1;
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		*res = b->fn();
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st))
		v = *res;
	else
		printf("# costbench: %s: child failed (status %#x)\n", b->name, st);
	munmap(res, sizeof(*res));
	return v;
}

struct mode {
	const char *name;
	const char *balancing, *sched_numa;
};

static const struct mode modes[] = {
	{ "off", "0", "0" },
	{ "autonuma", "1", "0" },
	{ "sched-numa", "0", "1" },
	{ "off-after-on", "0", "0" },
};

static int set_mode(const struct mode *m)
{
	int have_sn = access(NU_SCHED_NUMA, W_OK) == 0;

	if (have_sn && nu_write_file(NU_SCHED_NUMA, "0"))
		return -1;
	if (nu_write_file(NU_BALANCING, m->balancing))
		return -1;
	if (strcmp(m->sched_numa, "0")) {
		if (!have_sn)
			return -1;
		return nu_write_file(NU_SCHED_NUMA, m->sched_numa);
	}
	return 0;
}

static int selected(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *s = list; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
		if (!strncmp(s, name, n) && (s[n] == ',' || !s[n]))
			return 1;
	return !list;
}

/* Rounds 0 (warm-up) to @rounds of the @nmodes modes of @phase */
static void run_phase(const struct mode **phase, int nmodes, int rounds,
		      const char *only)
{
	for (int r = 0; r <= rounds; r++) {
		for (int k = 0; k < nmodes; k++) {
			const struct mode *m = phase[(r + k) % nmodes];

			if (set_mode(m))
				die("setting the mode");
			for (unsigned int i = 0; i < NR_BENCHES; i++) {
				double v;

				if (!selected(only, benches[i].name))
					continue;
				v = run_child(&benches[i]);
				if (v >= 0)
					printf("costbench case=%s mode=%s round=%d ns=%.0f\n",
					       benches[i].name, m->name, r, v);
			}
		}
	}
}

int main(int argc, char **argv)
{
	const char *only = NULL;
	int rounds = 7, opt, n1 = 0, n2 = 0;
	const struct mode *phase1[2], *phase2[2];

	if (argc == 2 && !strcmp(argv[1], "--exit"))
		return 0;	/* the fork-exec case's child */
	while ((opt = getopt(argc, argv, "r:c:")) != -1) {
		if (opt == 'r')
			rounds = atoi(optarg);
		else if (opt == 'c')
			only = optarg;
		else {
			fprintf(stderr, "usage: costbench [-r rounds] [-c case,...]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Not by setting sched-numa: that would start the counts */
	phase1[n1++] = &modes[0];
	if (!set_mode(&modes[1]))
		phase1[n1++] = &modes[1];
	if (set_mode(&modes[0]))
		die("setting the mode");
	if (access(NU_SCHED_NUMA, W_OK) == 0) {
		phase2[n2++] = &modes[2];
		phase2[n2++] = &modes[3];
	}
	printf("# costbench: %s, %d rounds, modes:", nu_have_two_nodes() ?
	       "two nodes" : "one node", rounds);
	for (int i = 0; i < n1; i++)
		printf(" %s", phase1[i]->name);
	if (n2)
		printf(", then");
	for (int i = 0; i < n2; i++)
		printf(" %s", phase2[i]->name);
	printf("\n");

	run_phase(phase1, n1, rounds, only);
	if (n2)
		run_phase(phase2, n2, rounds, only);
	set_mode(&modes[0]);
	printf("ok 1 costbench\n");
	return 0;
}
