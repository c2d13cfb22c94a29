// SPDX-License-Identifier: GPL-2.0
/*
 * numabench - NUMA placement benchmark for comparing kernel NUMA modes.
 *
 * QEMU TCG has no remote-memory penalty, so this measures placement, not
 * speed: a task's *locality* is the share of its resident pages that sit on
 * the node of the CPU it runs on right now.  Each task samples itself every
 * 0.5 s (every 8th page of its buffer, <= 4096 pages, move_pages(2) query +
 * sched_getcpu()); results are averaged over tasks and over time.
 *
 *   numabench -s SCENARIO -m MODE -d SECONDS [-n NPROC] [-M MiB-per-task]
 *
 * MODE  off: numa_balancing=0, sched_numa=0 (if present); autonuma:
 *       sched_numa=0 (if present), numa_balancing=1; sched-numa:
 *       numa_balancing=0, sched_numa=1.  Both go back to 0 at the end.
 * SCENARIO (NPROC default 2 x online CPUs, buffers 32 MiB):
 *   stream     NPROC processes first-touch a private buffer where they start,
 *              then stream over it (read+write every word) until the end.
 *   disturb    stream + 2 CPU hogs pinned to one node, hopping nodes every 3 s.
 *   disturb-3x the same with NPROC 3 x online CPUs (default).
 *   newhogs    stream + a disturbance made of new processes: every 3 s a
 *              fresh pair of CPU hogs is forked, pinned to one node's CPUs,
 *              and lives 3 s; the nodes alternate.
 *   newhogs-3x the same with NPROC 3 x online CPUs (default).
 *   misplaced  first touch under set_mempolicy(MPOL_BIND, node 0), not
 *              pinned, then MPOL_DEFAULT: every buffer on node 0, whatever
 *              node the task then runs on.
 *   wrongnode  first touch bound to node 0 (MPOL_BIND, pinned to node 0), then
 *              unpinned; odd tasks are pinned to node 1.
 *   lazy       first touch as wrongnode, then task i is pinned to node i%2 and
 *              mbind(MPOL_BIND, MPOL_MF_MOVE|MPOL_MF_LAZY)s its buffer there;
 *              at D/2 every task flips to the other node (pin + mbind).
 *   threads    1 process, 4 threads, each on its own 8 MiB (-M) slice of one
 *              mapping.  threads-groups: + numa_tbind(): threads 0,1 form
 *              group A, 2,3 group B; each numa_mbind()s its slice to its
 *              group after first touch.
 * The autonuma-benchmark cases (github pholasek/autonuma-benchmark), scaled
 * to the guest: T = online CPUs, 256 MiB per case (-M: MiB per thread, or
 * per process for a shared buffer):
 *   numa01     2 processes x T/2 threads; each process's threads share one
 *              128 MiB buffer (every thread updates every page: thread i
 *              of n the words w with w % n == i), first touched by the
 *              process's main thread pinned to node 0.
 *   numa01-thread-alloc  the same, each thread its own 64 MiB slice (first
 *              touched on node 0 by the main thread).
 *   numa02     1 process x T threads, each first-touches its own 64 MiB
 *              slice where it runs.
 *   numa02-smt 1 process x T/2 threads, 128 MiB slices.
 *   numa02-2x  1 process x 2T threads, 32 MiB slices.
 *   shared     1 process x T threads sharing one 256 MiB buffer as numa01's
 *              threads do, first touched by the main thread (unpinned).
 *   numa01-thp numa01 on transparent huge pages (MADV_HUGEPAGE; buffers 1
 *              MiB off a 2 MiB boundary, as malloc() gives them).  Where
 *              each process fits a node, what must move is one process's
 *              buffer: "must_move=" in its ##BENCH line, in 4 KiB pages,
 *              to set against "migrated=" (pgmigrate_success: compaction
 *              for huge pages counts there too) and "numa_migrated="
 *              (numa_pages_migrated: the moves on NUMA hinting faults).
 *   shortjobs  short-lived processes: every second NPROC (default 4) new
 *              processes start, each first-touches its own buffer (16
 *              MiB) where it starts and streams over it for 5 s, then
 *              exits; the last start is 5 s before the end.  "life=" in
 *              its ##BENCH line: each process's locality over its own
 *              life, the mean over the processes (what a build or a
 *              test suite gets, which never lives to a second half).
 *   bursty     as numa02, but every thread sweeps for 300 ms and sleeps
 *              for 300 ms, thread i 150 ms after thread i - 1: half of
 *              the threads busy at any time (a node's worth of CPUs on the
 *              2n guest).
 * Memory far away, first touched on a node with memory and no CPUs (a CXL
 * expander; TOPO=cxl), under MPOL_BIND there, then MPOL_DEFAULT; absent
 * without such a node:
 *   farmem     as misplaced.
 *   numa02-farmem  as numa02 (a process wider than a node: split).
 * Every threaded case runs in a process forked after the mode is set, so
 * that under sched-numa it gets a home node as any new process does.
 *
 *   numabench -m MODE -d SECONDS -x NAME -- COMMAND [ARGS...]
 *
 * runs COMMAND in MODE instead of a scenario (make bench: upstream's
 * "perf bench numa mem" convergence tests), echoing its output, and prints
 * "##PERFCONV name=NAME mode=MODE limit=SECONDS latency=S converged=0|1
 * migrated=N hint_faults=N": S is the "secs latency to NUMA-converge"
 * figure perf prints, which is the whole run when the processes never
 * converged; converged=1 when it ended before the limit (-m stops the run
 * at convergence) or perf said "converged".
 * A missing sysctl or syscall (MPOL_MF_LAZY -> EINVAL; numa_tbind ->
 * ENOSYS; EOPNOTSUPP: NUMA groups outside the sched-numa mode) prints
 * "absent=1" and exits 0.  On a
 * one-node machine "node 1" is node 0.  Buffers are MADV_NOHUGEPAGE but in
 * numa01-thp.
 *
 * Data check: first touch writes pattern(task, word); each pass over a 256 KiB
 * chunk adds 1 to every word and counts the pass; at the end every word must
 * equal pattern + passes[chunk].
 *
 * Output: ##BENCH scenario=S mode=M tasks=N duration=D mean=L second_half=L
 *           t90=SECONDS|never distance=D migrated=PAGES hint_faults=F
 *           work_mib=X numad_cpu_ms=Y data=ok|BAD
 *         ##SERIES S M t locality          (one line per 0.5 s bucket)
 * A sample taken at k*0.5 <= t < (k+1)*0.5 s after start goes in bucket k.
 * mean: average over buckets of the per-bucket mean over tasks; second_half:
 * the same for buckets with t >= D/2; t90: first bucket where every task has
 * sampled and the mean of the tasks' latest samples is >= 0.9; distance:
 * as second_half for the mean SLIT distance (/sys/devices/system/node/
 * nodeN/distance) from the sampling CPU's node to each sampled page's, 10
 * when every page is local: on more than two nodes it tells a page one
 * hop away from one across the machine, which locality does not; migrated:
 * pgmigrate_success delta; hint_faults: numa_hint_faults delta (the
 * scanning work of automatic NUMA balancing, and sched/numa's lazy marks
 * taken); numad_cpu_ms: utime+stime delta of kernel threads
 * named numad*.  Exit 1 on data=BAD or an unexpected syscall failure.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <numa.h>
#include <numaif.h>

/* Keep the static link to libnuma's syscall.o (see tests/numa_util.h). */
__attribute__((weak)) unsigned int numa_bitmask_nbytes(struct bitmask *bmp)
{
	unsigned long bpl = 8 * sizeof(unsigned long);

	return ((bmp->size + bpl - 1) / bpl) * sizeof(unsigned long);
}

#include <asm/unistd.h>	/* __NR_numa_mbind, __NR_numa_tbind (the series' uapi) */
#include <linux/sched_numa.h>	/* MS_ID_NEW */
#ifndef MPOL_MF_LAZY
#define MPOL_MF_LAZY	(1 << 3)
#endif
#define MAXNODE		64
#define MAXCPU		1024
#define CHUNK		(256 << 10)	/* streaming unit; passes counted per chunk */
#define MAXADDR		4096
#define PERIOD		0.5
#define JOB_LIFE	5.0	/* shortjobs: seconds each process streams */
#define SYS_BAL		"/proc/sys/kernel/numa_balancing"
#define SYS_SCHED	"/proc/sys/kernel/sched_numa"

enum { SC_STREAM, SC_DISTURB, SC_DISTURB3, SC_NEWHOGS, SC_NEWHOGS3,
	SC_MISPLACED, SC_WRONG, SC_LAZY, SC_THREADS, SC_GROUPS, SC_NUMA01,
	SC_NUMA01TA, SC_NUMA02, SC_NUMA02SMT, SC_NUMA02X2, SC_SHARED,
	SC_NUMA01THP, SC_BURSTY, SC_SHORTJOBS, SC_FARMEM, SC_NUMA02FAR,
	SC_LAST };
static const char *const sc_names[] = { "stream", "disturb", "disturb-3x",
	"newhogs", "newhogs-3x", "misplaced", "wrongnode", "lazy", "threads",
	"threads-groups", "numa01", "numa01-thread-alloc", "numa02",
	"numa02-smt", "numa02-2x", "shared", "numa01-thp", "bursty",
	"shortjobs", "farmem", "numa02-farmem" };

struct result { int data_ok; double work; };	/* in MAP_SHARED memory */

struct task {
	int id, node;
	uint64_t *buf, *passes;
	size_t len, nchunks;
	size_t stride, off;	/* words updated: off, off + stride, ... */
	int nshare;		/* threads sharing buf (interleaved), or 1 */
	struct result *res;
	float *loc;		/* [nslots], -1 = no sample; MAP_SHARED */
	float *dist;		/* [nslots]: mean SLIT distance, the same */
	double end;		/* seconds after t0: when it stops */
	pthread_t thr;
};

static int scenario, nnodes, ntasks, nslots, is_child, groups[2];
static int per_start, nstarts;	/* shortjobs */
static const char *mode;
static double duration;
static struct timespec t0;
static short cpu2node[MAXCPU];
static short slit[MAXNODE][MAXNODE];	/* node%d/distance; 0: unknown */
static int far_node = -1;	/* a node with memory and no CPUs */
static cpu_set_t nodecpus[MAXNODE], allcpus;
static pthread_barrier_t barrier;
static __thread void *addrs[MAXADDR];	/* move_pages() query buffers */
static __thread int status[MAXADDR];

static void restore_sysctls(void);

static void die(const char *what)
{
	fprintf(stderr, "numabench: %s: %s\n", what, strerror(errno));
	if (is_child)
		_exit(2);
	restore_sysctls();
	exit(1);
}

static double elapsed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec - t0.tv_sec) + (ts.tv_nsec - t0.tv_nsec) * 1e-9;
}

static void *map(size_t len, int shared)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_ANONYMOUS |
		       (shared ? MAP_SHARED : MAP_PRIVATE), -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

static int write_sysctl(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = write(fd, val, strlen(val)) < 0 ? -1 : 0;
	close(fd);
	return ret;
}

static void restore_sysctls(void)
{
	write_sysctl(SYS_SCHED, "0");	/* fails harmlessly if absent */
	write_sysctl(SYS_BAL, "0");
}

static void on_signal(int sig)
{
	if (!is_child)
		restore_sysctls();
	_exit(128 + sig);
}

static void absent(void)
{
	printf("##BENCH scenario=%s mode=%s absent=1\n", sc_names[scenario],
	       mode);
	exit(0);
}

static void set_mode(void)
{
	int have_bal = access(SYS_BAL, F_OK) == 0;
	int have_sched = access(SYS_SCHED, F_OK) == 0;
	int sched = !strcmp(mode, "sched-numa"), bad = 0;

	if (sched ? !have_sched : !have_bal)
		absent();
	if (sched) {
		bad |= have_bal && write_sysctl(SYS_BAL, "0");
		bad |= write_sysctl(SYS_SCHED, "1");
	} else {	/* off: balancing first; autonuma: sched_numa first */
		if (!strcmp(mode, "off"))
			bad |= write_sysctl(SYS_BAL, "0");
		bad |= have_sched && write_sysctl(SYS_SCHED, "0");
		if (!strcmp(mode, "autonuma"))
			bad |= write_sysctl(SYS_BAL, "1");
	}
	if (bad)
		die("writing NUMA sysctls");
}

static void read_topology(void)
{
	char path[80], buf[4096];

	for (int n = 0; n < MAXNODE; n++) {
		FILE *f;
		char *s = buf, *e;

		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%d/cpulist", n);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
		nnodes = n + 1;
		while (*s >= '0' && *s <= '9') {	/* e.g. "0-1,4" */
			long a = strtol(s, &e, 10), b = a;

			if (*e == '-')
				b = strtol(e + 1, &e, 10);
			for (long c = a; c <= b && c < MAXCPU; c++) {
				cpu2node[c] = n;
				CPU_SET(c, &nodecpus[n]);
			}
			s = *e == ',' ? e + 1 : e;
		}
		CPU_OR(&allcpus, &allcpus, &nodecpus[n]);
	}
	/*
	 * The SLIT: node N's distance file has one figure per online node,
	 * in node order ("10 20 40"); the nodes present are those with a
	 * cpulist (a CPU-less node has an empty one).  Not libnuma's
	 * numa_distance(): see node_distance() in tests/homes.c.
	 */
	for (int n = 0, on[MAXNODE], non = 0; n < nnodes; n++) {
		FILE *f;
		char *q = buf, *e;

		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%d/distance", n);
		if (!(f = fopen(path, "r")))
			continue;
		if (!non)	/* the first: which nodes are online */
			for (int m = n; m < nnodes; m++) {
				snprintf(path, sizeof(path),
					 "/sys/devices/system/node/node%d", m);
				if (!access(path, F_OK))
					on[non++] = m;
			}
		if (fgets(buf, sizeof(buf), f))
			for (int m = 0; m < non; m++, q = e) {
				long d = strtol(q, &e, 10);

				if (e == q)
					break;
				slit[n][on[m]] = (short)d;
			}
		fclose(f);
	}
	/* The first CPU-less node with memory (nodeN/meminfo MemTotal) */
	for (int n = 0; n < nnodes && far_node < 0; n++) {
		FILE *f;
		long kb = 0;

		if (CPU_COUNT(&nodecpus[n]))
			continue;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%d/meminfo", n);
		if (!(f = fopen(path, "r")))
			continue;
		while (fgets(buf, sizeof(buf), f))
			if (sscanf(buf, "Node %*d MemTotal: %ld kB", &kb) == 1)
				break;
		fclose(f);
		if (kb > 0)
			far_node = n;
	}
	if (!nnodes) {		/* no NUMA sysfs: one node with every CPU */
		nnodes = 1;
		sched_getaffinity(0, sizeof(allcpus), &allcpus);
		nodecpus[0] = allcpus;
	}
}

/* Next node after n that has CPUs (n itself on a one-node machine). */
static int other_node(int n)
{
	for (int k = 1; k < nnodes; k++)
		if (CPU_COUNT(&nodecpus[(n + k) % nnodes]))
			return (n + k) % nnodes;
	return n;
}

static void pin(const cpu_set_t *set)
{
	if (sched_setaffinity(0, sizeof(*set), set))
		die("sched_setaffinity");
}

static long lazy_mbind(void *buf, size_t len, int node)
{
	unsigned long mask = 1UL << node;

	return mbind(buf, len, MPOL_BIND, &mask, MAXNODE,
		     MPOL_MF_MOVE | MPOL_MF_LAZY);
}

static long vmstat(const char *key)
{
	char name[64];
	long val, ret = 0;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return 0;
	while (fscanf(f, "%63s %ld", name, &val) == 2)
		if (!strcmp(name, key))
			ret = val;
	fclose(f);
	return ret;
}

/* utime+stime in ms of kernel threads whose comm starts with "numad". */
static long numad_cpu_ms(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	long hz = sysconf(_SC_CLK_TCK), ms = 0;
	char path[300], buf[1024], *lp, *rp;
	unsigned long flags, ut, st;
	ssize_t n;
	int fd;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		lp = strchr(buf, '(');
		rp = strrchr(buf, ')');
		if (!lp || !rp || strncmp(lp + 1, "numad", 5))
			continue;
		/* after "(comm) ": state ppid pgrp session tty tpgid flags
		 * minflt cminflt majflt cmajflt utime stime */
		if (sscanf(rp + 2, "%*c %*d %*d %*d %*d %*d %lu %*u %*u %*u "
			   "%*u %lu %lu", &flags, &ut, &st) == 3 &&
		    (flags & 0x00200000))		/* PF_KTHREAD */
			ms += (long)((ut + st) * 1000 / hz);
	}
	if (d)
		closedir(d);
	return ms;
}

static inline uint64_t pattern(int id, size_t w)
{
	uint64_t x = (w + 1) * 0x9E3779B97F4A7C15ULL;

	return x ^ ((uint64_t)(id + 1) * 0xD6E8FEB86659FD93ULL) ^ (x >> 29);
}

/* The id of the task that owns word w of t's buffer */
static inline int owner(const struct task *t, size_t w)
{
	return t->nshare > 1 ? t->id - (int)t->off + (int)(w % t->nshare) :
	       t->id;
}

static void touch(struct task *t)
{
	for (size_t w = 0; w < t->len / 8; w++)
		t->buf[w] = pattern(owner(t, w), w);
}

/*
 * Locality of every 8th page (<= MAXADDR pages) w.r.t. the current CPU,
 * and the mean SLIT distance from its node to theirs (10: all local).
 */
static void sample(struct task *t, int slot)
{
	size_t npages = t->len / 4096, stride = 8, n = 0;
	long local = 0, resident = 0, dsum = 0, dn = 0;
	int cpu, node;

	while (npages / stride > MAXADDR)
		stride += 8;
	for (size_t p = 0; p < npages && n < MAXADDR; p += stride)
		addrs[n++] = (char *)t->buf + p * 4096;
	if (move_pages(0, n, addrs, NULL, status, 0))
		die("move_pages");
	cpu = sched_getcpu();
	node = cpu >= 0 && cpu < MAXCPU ? cpu2node[cpu] : -1;
	for (size_t i = 0; i < n; i++) {
		resident += status[i] >= 0;
		local += status[i] == node;
		if (node >= 0 && status[i] >= 0 && status[i] < MAXNODE &&
		    slit[node][status[i]])
			dsum += slit[node][status[i]], dn++;
	}
	if (resident && slot < nslots)
		t->loc[slot] = (float)local / resident;
	if (dn && slot < nslots)
		t->dist[slot] = (float)dsum / dn;
}

static void stream(struct task *t)
{
	size_t cw = CHUNK / 8, c = 0;
	int next = 1, flipped = 0;
	double now;

	while ((now = elapsed()) < t->end) {
		uint64_t *p = t->buf + c * cw;

		if (scenario == SC_BURSTY &&
		    ((int)((now + t->id * 0.15) / 0.3) & 1)) {
			double ph = now + t->id * 0.15;
			double end = ((int)(ph / 0.3) + 1) * 0.3;

			usleep((useconds_t)((end - ph) * 1e6) + 1);
			continue;
		}

		for (size_t i = t->off; i < cw; i += t->stride)
			p[i] += 1;
		t->passes[c]++;
		t->res->work += CHUNK / t->stride;
		c = (c + 1) % t->nchunks;
		if (now >= next * PERIOD) {
			next = (int)(now / PERIOD);
			sample(t, next++);
		}
		if (scenario == SC_LAZY && !flipped && now >= duration / 2) {
			flipped = 1;	/* phase change: follow the other node */
			t->node = other_node(t->node);
			pin(&nodecpus[t->node]);
			if (lazy_mbind(t->buf, t->len, t->node))
				die("mbind(MPOL_MF_LAZY) at phase change");
		}
	}
}

static void *task_run(void *arg)
{
	struct task *t = arg;
	unsigned long node0 = 1;
	int g = t->id / 2;

	if (!(t->passes = calloc(t->nchunks, sizeof(*t->passes))))
		die("calloc");
	if (scenario == SC_FARMEM || scenario == SC_NUMA02FAR)
		node0 = 1UL << far_node;	/* probe(): there is one */
	if (scenario == SC_MISPLACED || scenario == SC_FARMEM ||
	    scenario == SC_NUMA02FAR) {
		if (set_mempolicy(MPOL_BIND, &node0, MAXNODE))
			die("set_mempolicy(MPOL_BIND)");
		touch(t);
		if (set_mempolicy(MPOL_DEFAULT, NULL, 0))
			die("set_mempolicy(MPOL_DEFAULT)");
	} else if (scenario == SC_WRONG || scenario == SC_LAZY) {
		pin(&nodecpus[0]);
		if (set_mempolicy(MPOL_BIND, &node0, MAXNODE))
			die("set_mempolicy(MPOL_BIND)");
		touch(t);
		if (set_mempolicy(MPOL_DEFAULT, NULL, 0))
			die("set_mempolicy(MPOL_DEFAULT)");
		pin(&allcpus);
		t->node = t->id & 1 ? other_node(0) : 0;
		if (scenario == SC_WRONG && (t->id & 1))
			pin(&nodecpus[t->node]);
		if (scenario == SC_LAZY) {
			pin(&nodecpus[t->node]);
			if (lazy_mbind(t->buf, t->len, t->node))
				die("mbind(MPOL_MF_LAZY)");
		}
	} else if (scenario < SC_NUMA01 || scenario == SC_NUMA02 ||
		   scenario == SC_NUMA02SMT || scenario == SC_NUMA02X2 ||
		   scenario == SC_BURSTY || scenario == SC_SHORTJOBS) {
		touch(t);
	}	/* else the process's main thread touched it (threads_proc()) */
	if (scenario == SC_GROUPS) {	/* 0 and 2 create, 1 and 3 join */
		if (!(t->id & 1) && (groups[g] = syscall(__NR_numa_tbind,
				gettid(), MS_ID_NEW, 0UL)) < 0)
			die("numa_tbind(MS_ID_NEW)");
		pthread_barrier_wait(&barrier);
		if ((t->id & 1) &&
		    syscall(__NR_numa_tbind, gettid(), groups[g], 0UL) < 0)
			die("numa_tbind(join)");
		if (syscall(__NR_numa_mbind, t->buf, t->len, groups[g], 0UL))
			die("numa_mbind");
	}
	stream(t);
	t->res->data_ok = 1;
	for (size_t w = t->off; w < t->len / 8; w += t->stride)
		if (t->buf[w] != pattern(t->id, w) + t->passes[w / (CHUNK / 8)]) {
			t->res->data_ok = 0;
			fprintf(stderr, "numabench: task %d: bad word at "
				"offset %zu\n", t->id, w * 8);
			break;
		}
	return NULL;
}

/* CPU hog for "disturb": on node 0, then the other node, switching / 3 s. */
static void hog(void)
{
	for (int cur = -1, node; elapsed() < duration; cur = node) {
		node = ((int)(elapsed() / 3.0) & 1) ? other_node(0) : 0;
		if (node != cur)
			pin(&nodecpus[node]);
		for (volatile int i = 0; i < 1000000; i++)
			;
	}
}

/*
 * The disturbance of "newhogs": every 3 s a fresh pair of CPU hogs, pinned
 * to one node (alternating), each living 3 s.  Runs in its own process.
 */
static void newhogs(void)
{
	for (int k = 0; elapsed() < duration; k++) {
		int node = (k & 1) ? other_node(0) : 0;
		double until = 3.0 * (k + 1);

		for (int j = 0; j < 2; j++) {
			pid_t pid = fork();

			if (pid < 0)
				die("fork");
			if (!pid) {
				pin(&nodecpus[node]);
				while (elapsed() < until && elapsed() < duration)
					for (volatile int i = 0; i < 1000000; i++)
						;
				_exit(0);
			}
		}
		while (wait(NULL) > 0)
			;
	}
}

/* fork(): the child's pid in the parent, 0 in the child */
static pid_t fork_child(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid)
		is_child = 1;
	return pid;
}

/*
 * One process of a threaded case: tasks [first, first + n) as its threads,
 * on one mapping of @len bytes per thread (@shared: one @len buffer for
 * all, interleaved).  Forked after set_mode(), so that it is a new process.
 */
static void threads_proc(struct task *tasks, int first, int n, size_t len,
			 int shared)
{
	size_t total = shared ? len : n * len;
	int thp = scenario == SC_NUMA01THP;
	int touch0 = scenario == SC_NUMA01 || scenario == SC_NUMA01TA || thp;
	uint64_t *buf;

	if (thp) {	/* as malloc() gives it: not 2 MiB aligned */
		char *p = map(total + (3UL << 20), 0);

		buf = (uint64_t *)(((uintptr_t)p + (2UL << 20) - 1) &
				   ~((2UL << 20) - 1)) + (1UL << 20) / 8;
		madvise(buf, total, MADV_HUGEPAGE);
	} else {
		buf = map(total, 0);
		madvise(buf, total, MADV_NOHUGEPAGE);
	}
	for (int i = first; i < first + n; i++) {
		struct task *t = &tasks[i];

		t->buf = shared ? buf : buf + (i - first) * (len / 8);
		t->len = len;
		t->nchunks = t->len / CHUNK;
		t->nshare = shared ? n : 1;
		t->stride = shared ? n : 1;
		t->off = shared ? i - first : 0;
	}
	/* The main thread first-touches what the case says it does */
	if (touch0 || scenario == SC_SHARED) {
		if (touch0)
			pin(&nodecpus[0]);
		for (int i = first; i < first + n; i++)
			if (shared ? i == first : 1)
				touch(&tasks[i]);
		pin(&allcpus);
	}
	pthread_barrier_init(&barrier, NULL, n);
	for (int i = first; i < first + n; i++) {
		errno = pthread_create(&tasks[i].thr, NULL, task_run,
				       &tasks[i]);
		if (errno)
			die("pthread_create");
	}
	for (int i = first; i < first + n; i++)
		pthread_join(tasks[i].thr, NULL);
}

/* Does the kernel have the scenario's syscall?  If not: absent. */
static void probe(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	int st;

	if ((scenario == SC_FARMEM || scenario == SC_NUMA02FAR) &&
	    far_node < 0)
		absent();	/* no CPU-less memory node (TOPO=cxl has one) */
	if (scenario == SC_LAZY) {
		char *p = map(ps, 0);

		p[0] = 1;
		if (lazy_mbind(p, ps, 0)) {
			if (errno == EINVAL)
				absent();
			die("mbind(MPOL_MF_LAZY) probe");
		}
		munmap(p, ps);
	} else if (scenario == SC_GROUPS) {	/* in a child: no stray group */
		pid_t pid = fork();

		if (pid == 0)
			_exit(syscall(__NR_numa_tbind, gettid(), MS_ID_NEW,
				      0UL) < 0 ? errno & 0xff : 0);
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
			die("numa_tbind probe child");
		errno = WEXITSTATUS(st);
		/* EOPNOTSUPP: groups are sched/numa's, absent in other modes */
		if (errno == ENOSYS || errno == EFAULT || errno == EOPNOTSUPP)
			absent();
		if (errno)
			die("numa_tbind probe");
	}
}

/*
 * -x: COMMAND in the mode, its output echoed, its convergence latency
 * (perf bench numa mem -m) and the pages migrated meanwhile reported.
 */
static int run_command(const char *name, char **argv)
{
	long mig0 = vmstat("pgmigrate_success");
	long hint0 = vmstat("numa_hint_faults");
	double latency = -1;
	int fds[2], st, converged = 0;
	char line[512];
	pid_t pid;
	FILE *f;

	if (pipe(fds))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		is_child = 1;
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f)
		die("fdopen");
	while (fgets(line, sizeof(line), f)) {
		fputs(line, stdout);
		if (strstr(line, "s converged)"))
			converged = 1;
		if (strstr(line, "secs latency to NUMA-converge"))
			latency = atof(line);
	}
	fclose(f);
	if (waitpid(pid, &st, 0) < 0)
		die("waitpid");
	/* -m stops the run once converged; quiet (-q), perf says no more */
	if (latency >= 0 && latency < duration - 0.5)
		converged = 1;
	printf("##PERFCONV name=%s mode=%s limit=%g latency=%.3f converged=%d migrated=%ld hint_faults=%ld rc=%d\n",
	       name, mode, duration, latency, converged,
	       vmstat("pgmigrate_success") - mig0,
	       vmstat("numa_hint_faults") - hint0,
	       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	restore_sysctls();
	return !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void usage(void)
{
	fprintf(stderr, "usage: numabench -s stream|disturb|disturb-3x|"
		"newhogs|newhogs-3x|misplaced|wrongnode|lazy|threads|"
		"threads-groups|numa01|numa01-thread-alloc|numa02|numa02-smt|"
		"numa02-2x|shared|numa01-thp|bursty|shortjobs -m off|autonuma|sched-numa "
		"-d SECONDS [-n NPROC] [-M MiB]\n"
		"       numabench -m MODE -d SECONDS -x NAME -- COMMAND...\n");
	exit(1);
}

int main(int argc, char **argv)
{
	int opt, failed = 0, data_ok = 1, t90 = -1, n_all = 0, n_2nd = 0;
	int nd_2nd = 0;
	int nprocs = 0, ncpu;
	long mib = 0, mig0, nmig0, hint0, numad0, defmib;
	double work = 0, sum_all = 0, sum_2nd = 0, dist_2nd = 0;
	struct result *res;
	struct task *tasks;
	float *loc, *dist;
	size_t len;
	char t90s[16];

	const char *xname = NULL;

	scenario = -1;
	while ((opt = getopt(argc, argv, "s:m:d:n:M:x:")) != -1) {
		switch (opt) {
		case 's':
			for (int i = 0; i < SC_LAST; i++)
				if (!strcmp(optarg, sc_names[i]))
					scenario = i;
			break;
		case 'm': mode = optarg; break;
		case 'd': duration = atof(optarg); break;
		case 'n': ntasks = atoi(optarg); break;
		case 'M': mib = atol(optarg); break;
		case 'x': xname = optarg; break;
		default: usage();
		}
	}
	if (xname) {
		if (!mode || optind >= argc || (strcmp(mode, "off") &&
		    strcmp(mode, "autonuma") && strcmp(mode, "sched-numa")))
			usage();
		setvbuf(stdout, NULL, _IOLBF, 0);
		scenario = 0;	/* absent() names one */
		set_mode();
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		return run_command(xname, argv + optind);
	}
	if (scenario < 0 || !mode || duration <= 0 || ntasks < 0 || mib < 0 ||
	    (strcmp(mode, "off") && strcmp(mode, "autonuma") &&
	     strcmp(mode, "sched-numa")))
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	read_topology();
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	switch (scenario) {
	case SC_THREADS: case SC_GROUPS:
		ntasks = 4, nprocs = 1, defmib = 8;
		break;
	case SC_NUMA01: case SC_NUMA01TA: case SC_NUMA01THP:
		ntasks = 2 * (ncpu / 2 > 0 ? ncpu / 2 : 1), nprocs = 2;
		defmib = scenario == SC_NUMA01TA ? 256 / ntasks : 128;
		break;
	case SC_NUMA02: case SC_NUMA02FAR: case SC_BURSTY:
		ntasks = ncpu, nprocs = 1, defmib = 256 / ntasks;
		break;
	case SC_NUMA02SMT:
		ntasks = ncpu / 2 > 0 ? ncpu / 2 : 1, nprocs = 1;
		defmib = 256 / ntasks;
		break;
	case SC_NUMA02X2:
		ntasks = 2 * ncpu, nprocs = 1, defmib = 256 / ntasks;
		break;
	case SC_SHARED:
		ntasks = ncpu, nprocs = 1, defmib = 256;
		break;
	case SC_SHORTJOBS:	/* NPROC a second, for the starts that fit */
		per_start = ntasks ? ntasks : 4;
		nstarts = duration > JOB_LIFE ? (int)(duration - JOB_LIFE) + 1 : 1;
		ntasks = per_start * nstarts, nprocs = 0, defmib = 16;
		break;
	default:
		nprocs = 0, defmib = 32;
		if (!ntasks)
			ntasks = (scenario == SC_DISTURB3 ||
				  scenario == SC_NEWHOGS3 ? 3 : 2) * ncpu;
	}
	if (defmib < 1)
		defmib = 1;
	len = (size_t)(mib ? mib : defmib) << 20;
	nslots = (int)(duration / PERIOD) + 2;

	set_mode();	/* first: the groups probe needs sched/numa's mode */
	probe();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	res = map(ntasks * sizeof(*res), 1);
	loc = map(ntasks * nslots * sizeof(*loc), 1);
	dist = map(ntasks * nslots * sizeof(*dist), 1);
	for (int i = 0; i < ntasks * nslots; i++)
		loc[i] = dist[i] = -1;
	if (!(tasks = calloc(ntasks, sizeof(*tasks))))
		die("calloc");
	for (int i = 0; i < ntasks; i++)
		tasks[i] = (struct task){ .id = i, .len = len, .res = &res[i],
			.nchunks = len / CHUNK, .loc = &loc[i * nslots],
			.dist = &dist[i * nslots], .end = duration };
	if (scenario == SC_SHORTJOBS)
		for (int i = 0; i < ntasks; i++)
			tasks[i].end = i / per_start + JOB_LIFE;
	mig0 = vmstat("pgmigrate_success");
	nmig0 = vmstat("numa_pages_migrated");
	hint0 = vmstat("numa_hint_faults");
	numad0 = numad_cpu_ms();
	clock_gettime(CLOCK_MONOTONIC, &t0);

	for (int i = 0; i < ntasks; i++)
		tasks[i].stride = tasks[i].nshare = 1;
	if (nprocs) {	/* threaded: nprocs processes of ntasks / nprocs */
		int per = ntasks / nprocs;

		for (int p = 0; p < nprocs; p++) {
			if (fork_child())
				continue;
			threads_proc(tasks, p * per, per, len,
				     scenario == SC_NUMA01 ||
				     scenario == SC_NUMA01THP ||
				     scenario == SC_SHARED);
			_exit(0);
		}
		for (int st; wait(&st) > 0;)
			failed |= !WIFEXITED(st) || WEXITSTATUS(st);
	} else {
		int nhogs = scenario == SC_DISTURB || scenario == SC_DISTURB3 ?
			    2 : scenario == SC_NEWHOGS ||
			    scenario == SC_NEWHOGS3 ? 1 : 0;

		for (int i = 0; i < ntasks + nhogs; i++) {
			/* shortjobs: start i / per_start seconds after t0 */
			while (scenario == SC_SHORTJOBS &&
			       elapsed() < i / per_start) {
				int st;

				while (waitpid(-1, &st, WNOHANG) > 0)
					failed |= !WIFEXITED(st) ||
						  WEXITSTATUS(st);
				usleep(10000);
			}
			if (fork_child())
				continue;
			if (i >= ntasks) {
				if (nhogs == 1)
					newhogs();
				else
					hog();
				_exit(0);
			}
			tasks[i].buf = map(len, 0);
			madvise(tasks[i].buf, len, MADV_NOHUGEPAGE);
			task_run(&tasks[i]);
			_exit(0);
		}
		for (int st; wait(&st) > 0;)
			failed |= !WIFEXITED(st) || WEXITSTATUS(st);
	}

	/* Bucket b (t = b * 0.5 s): mean over the tasks with a sample there. */
	double bavg[nslots], latest[ntasks], life = 0;
	int nlife = 0;

	for (int i = 0; i < ntasks; i++) {
		latest[i] = -1;
		work += res[i].work;
		data_ok &= res[i].data_ok;
	}
	for (int b = 0; b < nslots; b++) {
		double sum = 0, lsum = 0, dsum = 0;
		int cnt = 0, have = 0, dcnt = 0;

		for (int i = 0; i < ntasks; i++) {
			float v = loc[i * nslots + b], d = dist[i * nslots + b];

			if (v >= 0) {
				sum += v, cnt++;
				latest[i] = v;
			}
			if (d >= 0)
				dsum += d, dcnt++;
			if (latest[i] >= 0)
				lsum += latest[i], have++;
		}
		/* shortjobs: the jobs alive then (the others have come and gone) */
		if (t90 < 0 && scenario == SC_SHORTJOBS && cnt &&
		    sum / cnt >= 0.9)
			t90 = b;
		if (t90 < 0 && have == ntasks && lsum / have >= 0.9)
			t90 = b;
		bavg[b] = cnt ? sum / cnt : -1;
		if (cnt)
			sum_all += bavg[b], n_all++;
		if (cnt && b * PERIOD >= duration / 2)
			sum_2nd += bavg[b], n_2nd++;
		if (dcnt && b * PERIOD >= duration / 2)
			dist_2nd += dsum / dcnt, nd_2nd++;
	}
	for (int i = 0; i < ntasks; i++) {	/* each task's own life */
		double ts = 0;
		int tn = 0;

		for (int b = 0; b < nslots; b++)
			if (loc[i * nslots + b] >= 0)
				ts += loc[i * nslots + b], tn++;
		if (tn)
			life += ts / tn, nlife++;
	}
	snprintf(t90s, sizeof(t90s), "%.1f", t90 * PERIOD);
	printf("##BENCH scenario=%s mode=%s tasks=%d duration=%g mean=%.3f "
	       "second_half=%.3f t90=%s", sc_names[scenario], mode, ntasks,
	       duration, n_all ? sum_all / n_all : 0,
	       n_2nd ? sum_2nd / n_2nd : 0, t90 < 0 ? "never" : t90s);
	printf(" distance=%.2f", nd_2nd ? dist_2nd / nd_2nd : 0);
	if (scenario == SC_SHORTJOBS)
		printf(" life=%.3f", nlife ? life / nlife : 0);
	if (scenario == SC_NUMA01THP)	/* one process's buffer */
		printf(" must_move=%zu numa_migrated=%ld", len / 4096,
		       vmstat("numa_pages_migrated") - nmig0);
	printf(" migrated=%ld hint_faults=%ld work_mib=%.0f numad_cpu_ms=%ld "
	       "data=%s\n", vmstat("pgmigrate_success") - mig0,
	       vmstat("numa_hint_faults") - hint0, work / (1 << 20),
	       numad_cpu_ms() - numad0, data_ok ? "ok" : "BAD");
	for (int b = 0; b < nslots; b++)
		if (bavg[b] >= 0)
			printf("##SERIES %s %s %.1f %.3f\n", sc_names[scenario],
			       mode, b * PERIOD, bavg[b]);
	restore_sysctls();
	if (failed)
		fprintf(stderr, "numabench: a task failed (see above)\n");
	return failed || !data_ok;
}
