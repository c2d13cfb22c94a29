// SPDX-License-Identifier: GPL-2.0
/*
 * scalebench: numad and the scheduler hooks with many entities (make bench;
 * sntests=scalebench alone).  Figures, not a test: it prints result lines
 * and "ok 1 scalebench" at the end.
 *
 * Set-up: PROCS small processes, each waking every 100 ms for a little
 * work (so that numad sees runnable tasks of many entities), and GROUPS
 * NUMA groups, each kept alive by one bound page of one process.
 * Then, for SECS seconds each, with kernel.sched_numa 1 and then 0 in the
 * same boot:
 *   - numad's time per pass, from /sys/kernel/debug/sched/numad (passes
 *     and nanoseconds per node, read before and after);
 *   - the wake-up latency of a probe thread: it sleeps to an absolute
 *     deadline every millisecond and records how late it woke (median,
 *     99th percentile and max, microseconds) and how many periods it
 *     missed, starting again from now after a miss, as cyclictest does.
 *
 * Under TCG the absolute latencies mean little; the comparison of the two
 * modes in one boot, and numad's time per pass, do.
 *
 * Then, how numad's cost grows with the number of entities: for each N of
 * SIZES (-s, default 300,1000,3000), N small processes as above, each in
 * a NUMA group of its own (2 x N entities: N processes, N groups), and
 * for SIZE_SECS each with kernel.sched_numa 1 and then 0: numad's CPU
 * time (utime + stime of the numad/N threads) and its passes' time
 * (debugfs), and the busy time of all CPUs, each per 10 s.  sched/numa
 * off is the baseline: numad sleeps, the busy time is the processes'
 * own.  The forks stop after FORK_SECS: "procs=" says how many there were.
 * 10,000 such processes (100,000 wake-ups a second) are more than a TCG
 * guest of 4 vCPUs runs well: with 3,000 (before FORK_SECS) the guest
 * printed nothing more for five minutes.
 *
 * Before that, alone: HOT_THREADS spinning threads in one NUMA group, so
 * that all have the group's node as home, twice as many as that node has
 * CPUs: the idle share of the other node's CPUs over HOT_SECS, which the
 * load balancer must bring to about 0 even though every pull takes a task
 * away from home ("never at the cost of an idle CPU"; NUMA_HOT), with
 * numad's balancing (NUMA_BALANCE) off meanwhile, so that it does not
 * move the group.
 */
#include "../numa_util.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <sys/wait.h>
#include <asm/unistd.h>		/* __NR_numa_mbind, __NR_numa_tbind */
#include <linux/sched_numa.h>	/* MS_ID_NEW */

#define PROCS		2000
#define GROUPS		2000
#define SECS		20
#define NUMAD_STATS	"/sys/kernel/debug/sched/numad"
#define MAX_SAMPLES	(SECS * 1000 + 1000)
#define HOT_THREADS	4
#define HOT_SECS	10
#define SIZE_SECS	10
#define FORK_SECS	60
#define SIZE_PROCS_MAX	20000

static volatile int hot_stop;

static void *spin_fn(void *arg)
{
	volatile unsigned long x = 0;
	long g = (long)arg;

	syscall(__NR_numa_tbind, 0L, g, 0UL);
	while (!hot_stop)
		x++;
	return NULL;
}

/* Idle and total jiffies of the CPUs of @node, from /proc/stat */
static void node_idle(int node, long long *idle, long long *total)
{
	char line[512], path[80], list[256];
	cpu_set_t set;
	FILE *f;

	*idle = *total = 0;
	snprintf(path, sizeof(path), NU_SYSNODE "/node%d/cpulist", node);
	if (nu_read_file(path, list, sizeof(list)) || nu_parse_cpulist(list, &set))
		return;
	f = fopen("/proc/stat", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		long long v[8] = { 0 };
		int cpu, i;

		if (sscanf(line, "cpu%d %lld %lld %lld %lld %lld %lld %lld %lld",
			   &cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			   &v[6], &v[7]) < 5 || !CPU_ISSET(cpu, &set))
			continue;
		for (i = 0; i < 8; i++)
			*total += v[i];
		*idle += v[3] + v[4];
	}
	fclose(f);
}

static void hot_idle(void)
{
	pthread_t t[HOT_THREADS];
	long long i0, t0, i1, t1;
	int i, other, bal;
	long g, home;

	g = syscall(__NR_numa_tbind, 0L, (long)MS_ID_NEW, 0UL);
	if (g < 1)
		return;
	/* numad would move the whole group to the idle node: not this */
	bal = nu_sched_feat("NUMA_BALANCE");
	nu_sched_feat_set("NUMA_BALANCE", 0);
	home = nu_home_node(getpid(), nu_gettid());
	other = home == 0 ? 1 : 0;
	hot_stop = 0;
	for (i = 0; i < HOT_THREADS; i++)
		pthread_create(&t[i], NULL, spin_fn, (void *)g);
	sleep(2);
	node_idle(other, &i0, &t0);
	sleep(HOT_SECS);
	node_idle(other, &i1, &t1);
	hot_stop = 1;
	for (i = 0; i < HOT_THREADS; i++)
		pthread_join(t[i], NULL);
	if (bal > 0)
		nu_sched_feat_set("NUMA_BALANCE", 1);
	printf("scalebench hot_threads=%d home=%ld other_node_idle_pct=%lld\n",
	       HOT_THREADS, home, t1 > t0 ? 100 * (i1 - i0) / (t1 - t0) : -1);
	/* Leave the group: it goes with its last thread */
	syscall(__NR_numa_tbind, 0L, (long)MS_ID_NEW, 0UL);
	fflush(stdout);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Sum of passes and ns over the nodes: "node passes total_ns max_ns" lines */
static int numad_stats(long long *passes, long long *ns, long long *max)
{
	char line[256];
	FILE *f = fopen(NUMAD_STATS, "re");

	*passes = *ns = *max = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		long long p, t, m;
		int node;

		if (sscanf(line, "%d %lld %lld %lld", &node, &p, &t, &m) != 4)
			continue;
		*passes += p;
		*ns += t;
		if (m > *max)
			*max = m;
	}
	fclose(f);
	return 0;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Wake-up lateness of a 1 ms periodic sleeper for secs, in ns samples.
 * A sleeper that woke more than a period late starts again from now, as
 * cyclictest does, and counts the periods it missed in *missed: without
 * that, one stall (or a loop slower than the period, which TCG with 2,000
 * processes gives) would make every later sample late by the backlog, and
 * the percentiles would measure the backlog, not wake-ups.
 */
static int probe(long long *lat, int max, int secs, long long *missed)
{
	struct timespec next;
	long long end = now_ns() + secs * 1000000000LL, d, t;
	int n = 0;

	*missed = 0;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (n < max && now_ns() < end) {
		next.tv_nsec += 1000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		t = now_ns();
		d = next.tv_sec * 1000000000LL + next.tv_nsec;
		lat[n++] = t - d;
		if (t - d > 1000000) {
			*missed += (t - d) / 1000000;
			next.tv_sec = t / 1000000000LL;
			next.tv_nsec = t % 1000000000LL;
		}
	}
	return n;
}

static void run_mode(const char *mode, long long *lat)
{
	long long p0, t0, m0, p1, t1, m1, missed;
	int n, have = !numad_stats(&p0, &t0, &m0);

	n = probe(lat, MAX_SAMPLES, SECS, &missed);
	if (have)
		numad_stats(&p1, &t1, &m1);
	qsort(lat, n, sizeof(*lat), cmp_ll);
	printf("scalebench mode=%s procs=%d groups=%d samples=%d missed=%lld wake_p50_us=%lld wake_p99_us=%lld wake_max_us=%lld",
	       mode, PROCS, GROUPS, n, missed, n ? lat[n / 2] / 1000 : -1,
	       n ? lat[n * 99 / 100] / 1000 : -1, n ? lat[n - 1] / 1000 : -1);
	if (have && p1 > p0)
		printf(" numad_passes=%lld numad_us_per_pass=%lld numad_max_us=%lld\n",
		       p1 - p0, (t1 - t0) / (p1 - p0) / 1000, m1 / 1000);
	else
		printf(" numad_passes=%lld\n", have ? p1 - p0 : -1);
	fflush(stdout);
}

/*
 * Runnable now and then, mostly asleep: 2,000 of them must leave a TCG
 * guest's 4 vCPUs room to run the probe and numad.
 */
static void small_proc(void)
{
	struct timespec ts = { 0, 100000000 };
	volatile unsigned long x = 0;
	int i;

	for (;;) {
		nanosleep(&ts, NULL);
		for (i = 0; i < 1000; i++)
			x += i;
	}
}

static void kill_all(const pid_t *kids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	for (i = 0; i < n; i++)
		waitpid(kids[i], NULL, 0);
}

/* CPU time of every numad/N thread, ms */
static long long numad_cpu(void)
{
	long long ms = 0, t;
	char comm[32];
	int node, pid = 0;

	for (node = 0; node < 1024; node++) {
		snprintf(comm, sizeof(comm), "numad/%d", node);
		if (nu_pids_by_comm(comm, &pid, 1) == 1 &&
		    (t = nu_cputime_ms(pid)) > 0)
			ms += t;
	}
	return ms;
}

/* Busy time of all CPUs (everything but idle and iowait), ms */
static long long cpus_busy(void)
{
	long long v[8] = { 0 }, busy = 0;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "re");
	int i;

	if (!f)
		return -1;
	if (fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
		v[3] = -1;
	fclose(f);
	for (i = 0; i < 8; i++)
		busy += (i == 3 || i == 4) ? 0 : v[i];
	return hz > 0 ? busy * 1000 / hz : -1;
}

/* A small process in a NUMA group of its own */
static void entity_proc(void)
{
	syscall(__NR_numa_tbind, 0L, (long)MS_ID_NEW, 0UL);
	small_proc();
}

static void size_run(int n)
{
	static pid_t kids[SIZE_PROCS_MAX];
	int i, nkids = 0, m;

	long long start = now_ns();

	nu_write_file(NU_SCHED_NUMA, "1");	/* numa_tbind() needs it */
	printf("# forking %d processes\n", n);
	fflush(stdout);
	/* At most FORK_SECS: the size reached is in the result line */
	for (i = 0; i < n && i < SIZE_PROCS_MAX &&
	     now_ns() - start < FORK_SECS * 1000000000LL; i++) {
		pid_t pid = fork();

		if (pid == 0)
			entity_proc();
		if (pid < 0)
			break;
		kids[nkids++] = pid;
	}
	sleep(2);
	for (m = 0; m < 2; m++) {
		long long c0, c1, b0, b1, p0, t0, x0, p1, t1, x1, w0, w;
		int have;

		nu_write_file(NU_SCHED_NUMA, m ? "0" : "1");
		sleep(1);
		have = !numad_stats(&p0, &t0, &x0);
		c0 = numad_cpu();
		b0 = cpus_busy();
		w0 = now_ns();
		sleep(SIZE_SECS);
		c1 = numad_cpu();
		b1 = cpus_busy();
		/*
		 * Per 10 s of what really passed: with thousands of runnable
		 * processes this one wakes from its sleep() late
		 */
		w = (now_ns() - w0) / 1000000;
		if (w < 1)
			w = 1;
		if (have)
			numad_stats(&p1, &t1, &x1);
		printf("scalebench entities=%d procs=%d mode=%s secs=%.1f per_10s: numad_cpu_ms=%lld numad_pass_ms=%lld cpus_busy_ms=%lld\n",
		       2 * nkids, nkids, m ? "off" : "sched-numa", w / 1000.0,
		       (c1 - c0) * 10000 / w,
		       have ? (t1 - t0) / 100 / w : -1,
		       (b1 - b0) * 10000 / w);
		fflush(stdout);
	}
	kill_all(kids, nkids);
}

int main(int argc, char **argv)
{
	const char *sizes = "300,1000,3000";
	size_t ps = nu_page_size();
	static pid_t kids[PROCS];
	long long *lat = calloc(MAX_SAMPLES, sizeof(*lat));
	int i, nkids = 0, ngroups = 0;
	char *pages, *sz, *tok, *save;
	int opt;

	while ((opt = getopt(argc, argv, "s:")) != -1) {
		if (opt != 's') {
			fprintf(stderr, "usage: scalebench [-s N,N,...]\n");
			return 1;
		}
		sizes = optarg;
	}
	if (!lat || nu_write_file(NU_BALANCING, "0") ||
	    nu_write_file(NU_SCHED_NUMA, "1")) {
		printf("ok 1 scalebench # SKIP no sched/numa\n");
		return 0;
	}
	nu_debugfs_mount();
	hot_idle();
	for (i = 0; i < PROCS; i++) {
		pid_t pid = fork();

		if (pid == 0)
			small_proc();
		if (pid < 0)
			break;
		kids[nkids++] = pid;
	}
	pages = mmap(NULL, GROUPS * ps, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (i = 0; pages != MAP_FAILED && i < GROUPS; i++) {
		long g = syscall(__NR_numa_tbind, 0L, (long)MS_ID_NEW, 0UL);

		if (g < 1 || syscall(__NR_numa_mbind, pages + i * ps, ps, g,
				     0UL))
			break;
		pages[i * ps] = 1;
		ngroups++;
	}
	printf("# %d processes, %d groups\n", nkids, ngroups);
	sleep(2);

	run_mode("sched-numa", lat);
	nu_write_file(NU_SCHED_NUMA, "0");
	run_mode("off", lat);

	kill_all(kids, nkids);
	if (pages != MAP_FAILED)
		munmap(pages, GROUPS * ps);	/* its groups go with them */

	sz = strdup(sizes);
	for (tok = strtok_r(sz, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (atoi(tok) > 0)
			size_run(atoi(tok));
	free(sz);
	nu_write_file(NU_SCHED_NUMA, "0");
	printf("ok 1 scalebench\n");
	return 0;
}
