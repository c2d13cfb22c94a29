// SPDX-License-Identifier: GPL-2.0
/*
 * Random concurrent operations against the whole series, for a bounded
 * time: STRESS_SECS in the environment (the guest's init sets it from
 * snstress= on the kernel command line), 60 s by default.  make check runs
 * the default; make stress runs it alone for longer (default 10 minutes),
 * on either kernel (DEBUG=1: lockdep, KASAN, kmemleak).
 *
 * Workers, each a process of its own, until the time is up:
 *   mbind      mbind(2) with every mode (MPOL_NOOP and a bad one included)
 *              and flag (MOVE, MOVE|LAZY, MOVE_ALL|LAZY, STRICT, a bad
 *              one), random node masks, random sub-ranges (some unaligned)
 *              of a private and of a shared buffer
 *   migrate    move_pages(2) of random pages to random nodes, and
 *              migrate_pages(2) of the whole process between the nodes
 *   groups     three threads: numa_tbind() MS_ID_NEW, MS_ID_GET, recent
 *              and bad ids, by tid on short-lived threads that are
 *              exiting; numa_mbind() of random sub-ranges to them
 *   churn      fork children that map, touch, mbind(LAZY), mremap(),
 *              mprotect(), MADV_DONTNEED, munmap() and exit or execve()
 *   sysctl     kernel.sched_numa and kernel.numa_balancing flips (EBUSY
 *              when the other is on), kernel.sched_numa_interval_ms
 *   hotplug    CPUs of node 1 offline and back online
 *   unpriv     uid 65534: numa_tbind() of other processes' threads,
 *              numa_tbind()/numa_mbind() to ids of other users' groups,
 *              move_pages()/migrate_pages() of root's processes
 *   readers    /sys/kernel/debug/sched/numa_groups and /proc/PID/{sched,
 *              numa_maps,status} of random processes
 *
 * Every buffer holds a known pattern, checked after each operation that may
 * move, bind or unmap its pages.  The test fails on a corruption, on an
 * errno outside the documented set of a call, on a call of the
 * unprivileged worker that succeeds where it must not, or when a worker
 * dies; the console check of the harness fails it on any kernel report
 * (lockdep, KASAN, kmemleak, hung task, RCU stall, soft lockup).
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include <dirent.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <asm/unistd.h>		/* __NR_numa_mbind, __NR_numa_tbind */
#include <linux/sched_numa.h>	/* MS_ID_GET, MS_ID_NEW */
#include "numa_util.h"

#define DEF_SECS	60
#define NOBODY		65534
#define BUF_PAGES	64
#define NR_IDS		32
#define INTERVAL_SYSCTL	"/proc/sys/kernel/sched_numa_interval_ms"

enum { W_MBIND, W_MIGRATE, W_GROUPS, W_CHURN, W_SYSCTL, W_HOTPLUG,
       W_UNPRIV, W_READERS, NR_WORKERS };

static const char *const wname[NR_WORKERS] = {
	"mbind", "migrate", "groups", "churn", "sysctl", "hotplug", "unpriv",
	"readers",
};

struct wstat {
	unsigned long ops, fails;	/* calls made, calls that failed as allowed */
	unsigned long bad_errno, corrupt, perm;
	char last[160];			/* the last thing that went wrong */
};

struct shared {
	volatile int stop;
	struct wstat w[NR_WORKERS];
	pthread_mutex_t lock;		/* process shared, for w[].last */
};

static struct shared *sh;
static __thread int me;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static unsigned int rnd(unsigned int n)
{
	static __thread unsigned int seed;

	if (!seed)
		seed = (unsigned int)(now_ms() ^ (nu_gettid() << 16));
	return n ? (unsigned int)rand_r(&seed) % n : 0;
}

static void note(unsigned long *counter, const char *fmt, ...)
{
	va_list ap;

	__atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&sh->lock);
	va_start(ap, fmt);
	vsnprintf(sh->w[me].last, sizeof(sh->w[me].last), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&sh->lock);
}

/* ret/errno of a call against its allowed errno values (0-terminated) */
static void check(const char *what, long ret, int err, const int *allowed)
{
	__atomic_add_fetch(&sh->w[me].ops, 1, __ATOMIC_RELAXED);
	if (ret >= 0)
		return;
	for (; *allowed; allowed++) {
		if (*allowed == err) {
			__atomic_add_fetch(&sh->w[me].fails, 1,
					   __ATOMIC_RELAXED);
			return;
		}
	}
	note(&sh->w[me].bad_errno, "%s: %s", what, strerror(err));
}

static void verify(const char *what, const char *buf, size_t len,
		   uint64_t seed)
{
	long bad = nu_verify(buf, len, seed);

	if (bad != -1)
		note(&sh->w[me].corrupt, "%s: data differs at byte %ld", what,
		     bad);
}

static long tbind(int tid, int id)
{
	return syscall(__NR_numa_tbind, (long)tid, (long)id, 0UL);
}

static long nmbind(void *addr, unsigned long len, int id)
{
	return syscall(__NR_numa_mbind, addr, len, (long)id, 0UL);
}

static const int e_mbind[] = { EINVAL, EFAULT, EIO, ENOMEM, EPERM, 0 };
static const int e_move[] = { E2BIG, EACCES, EFAULT, EINVAL, ENODEV, ENOENT,
			      EPERM, ESRCH, ENOMEM, 0 };
static const int e_migrate[] = { EFAULT, EINVAL, ENOMEM, EPERM, ESRCH, 0 };
static const int e_tbind[] = { EINVAL, ESRCH, EPERM, EOPNOTSUPP, ENOSPC,
			       ENOMEM, 0 };
static const int e_nmbind[] = { EINVAL, ENOMEM, EPERM, EOPNOTSUPP, 0 };

/* A random page-aligned sub-range of npages pages */
static void subrange(size_t npages, size_t *off, size_t *len)
{
	size_t ps = nu_page_size(), a = rnd(npages), b = rnd(npages);

	if (a > b) {
		size_t t = a;

		a = b;
		b = t;
	}
	*off = a * ps;
	*len = (b - a + 1) * ps;
}

static unsigned long rnd_mask(void)
{
	static const unsigned long masks[] = { 0, 1, 2, 3, 1UL << 5 };

	return masks[rnd(5)];
}

static void w_mbind(void)
{
	static const int modes[] = { MPOL_DEFAULT, MPOL_BIND, MPOL_PREFERRED,
				     MPOL_INTERLEAVE, MPOL_LOCAL,
				     MPOL_PREFERRED_MANY, MPOL_NOOP, 77 };
	static const unsigned long flags[] = {
		0, MPOL_MF_MOVE, LAZY_FLAGS, MPOL_MF_MOVE_ALL | MPOL_MF_LAZY,
		MPOL_MF_STRICT | MPOL_MF_MOVE, 0x100,
	};
	size_t ps = nu_page_size(), len = BUF_PAGES * ps, off, l;
	char *priv = nu_alloc(BUF_PAGES), *shm;

	shm = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!priv || shm == MAP_FAILED) {
		note(&sh->w[me].corrupt, "no memory");
		return;
	}
	nu_fill(priv, len, 1);
	nu_fill(shm, len, 2);
	while (!sh->stop) {
		int on_shm = rnd(3) == 0, mode = modes[rnd(8)];
		unsigned long mask = rnd_mask();
		char *buf = on_shm ? shm : priv;
		long r;

		subrange(BUF_PAGES, &off, &l);
		if (!rnd(16))
			off += 1;	/* unaligned: EINVAL */
		errno = 0;
		r = mbind(buf + off, l, mode, mode == MPOL_NOOP ||
			  mode == MPOL_DEFAULT || mode == MPOL_LOCAL ?
			  NULL : &mask, NU_MAXNODE, flags[rnd(6)]);
		check("mbind", r, errno, e_mbind);
		verify(on_shm ? "mbind shared" : "mbind private", buf, len,
		       on_shm ? 2 : 1);
	}
}

static void w_migrate(void)
{
	size_t ps = nu_page_size(), len = BUF_PAGES * ps;
	char *buf = nu_alloc(BUF_PAGES);
	void *pages[BUF_PAGES];
	int nodes[BUF_PAGES], status[BUF_PAGES];

	if (!buf) {
		note(&sh->w[me].corrupt, "no memory");
		return;
	}
	nu_fill(buf, len, 3);
	while (!sh->stop) {
		int i, n = 1 + rnd(BUF_PAGES);
		unsigned long from = 1UL << rnd(2), to = 1UL << rnd(2);
		long r;

		for (i = 0; i < n; i++) {
			pages[i] = buf + rnd(BUF_PAGES) * ps;
			nodes[i] = rnd(8) ? (int)rnd(2) : 5;	/* 5: ENODEV */
		}
		errno = 0;
		r = move_pages(0, n, pages, nodes, status, MPOL_MF_MOVE);
		check("move_pages", r, errno, e_move);
		verify("move_pages", buf, len, 3);
		errno = 0;
		r = migrate_pages(0, NU_MAXNODE, &from, &to);
		check("migrate_pages", r, errno, e_migrate);
		verify("migrate_pages", buf, len, 3);
	}
}

/* The groups worker: ids recently seen, shared by its threads */
static int ids[NR_IDS];

/* A short-lived thread: tells its tid, exits */
static void *short_fn(void *arg)
{
	__atomic_store_n((pid_t *)arg, nu_gettid(), __ATOMIC_RELEASE);
	return NULL;
}

static void *groups_fn(void *arg)
{
	size_t ps = nu_page_size(), len = BUF_PAGES * ps, off, l;
	char *buf = nu_alloc(BUF_PAGES);
	uint64_t seed = 10 + (uintptr_t)arg;

	me = W_GROUPS;
	if (!buf) {
		note(&sh->w[me].corrupt, "no memory");
		return NULL;
	}
	nu_fill(buf, len, seed);
	while (!sh->stop) {
		int id = ids[rnd(NR_IDS)];
		pthread_t t;
		long r;

		switch (rnd(6)) {
		case 0:
			errno = 0;
			r = tbind(0, MS_ID_NEW);
			check("numa_tbind(NEW)", r, errno, e_tbind);
			if (r > 0)
				ids[rnd(NR_IDS)] = (int)r;
			break;
		case 1:
			errno = 0;
			r = tbind(0, rnd(4) ? id : (int)rnd(100000) - 3);
			check("numa_tbind(id)", r, errno, e_tbind);
			break;
		case 2:
			errno = 0;
			r = tbind(0, MS_ID_GET);
			check("numa_tbind(GET)", r, errno, e_tbind);
			break;
		case 3: {
			/* A new thread of ours, bound while it exits */
			pid_t tid = 0;

			if (pthread_create(&t, NULL, short_fn, &tid))
				break;
			while (!__atomic_load_n(&tid, __ATOMIC_ACQUIRE))
				;
			errno = 0;
			r = tbind(tid, rnd(2) ? MS_ID_NEW : id);
			check("numa_tbind(exiting thread)", r, errno, e_tbind);
			pthread_join(t, NULL);
			break;
		}
		default:
			subrange(BUF_PAGES, &off, &l);
			errno = 0;
			r = nmbind(buf + off, l, rnd(4) ? id : -7);
			check("numa_mbind", r, errno, e_nmbind);
			verify("numa_mbind", buf, len, seed);
			break;
		}
	}
	return NULL;
}

/* Bind threads by tid as they exit, without waiting for them to start */
static void *exiting_fn(void *arg)
{
	me = W_GROUPS;
	while (!sh->stop) {
		pid_t tid = 0;
		pthread_t t;
		long r;

		if (pthread_create(&t, NULL, short_fn, &tid))
			continue;
		/* Its tid as soon as it has one, while it runs and exits */
		while (!__atomic_load_n(&tid, __ATOMIC_ACQUIRE))
			sched_yield();
		errno = 0;
		r = tbind(tid, ids[rnd(NR_IDS)] ?: MS_ID_NEW);
		check("numa_tbind(exiting thread)", r, errno, e_tbind);
		pthread_join(t, NULL);
	}
	return arg;
}

static void w_groups(void)
{
	pthread_t t[4];
	int i;

	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, groups_fn, (void *)(uintptr_t)i);
	pthread_create(&t[3], NULL, exiting_fn, NULL);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
}

static void churn_child(void)
{
	size_t ps = nu_page_size(), len = 32 * ps;
	unsigned long mask = 1UL << rnd(2);
	char *p = nu_alloc(32), *q;

	if (!p)
		_exit(2);
	nu_fill(p, len, 5);
	if (rnd(2))
		mbind(p, len, MPOL_BIND, &mask, NU_MAXNODE, LAZY_FLAGS);
	if (nu_verify(p, len, 5) != -1)
		_exit(3);
	q = mremap(p, len, 2 * len, MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		_exit(2);
	if (nu_verify(q, len, 5) != -1)
		_exit(3);
	mprotect(q, ps, PROT_READ);
	madvise(q + len - 4 * ps, 4 * ps, MADV_DONTNEED);
	if (q[len - ps] != 0)
		_exit(3);
	if (nu_verify(q + ps, len - 5 * ps, 5) != -1 &&
	    nu_verify_range(q, ps, len - 5 * ps, 5) != -1)
		_exit(3);
	munmap(q, 2 * len);
	if (!rnd(8))
		execl("/bin/true", "true", (char *)NULL);
	_exit(0);
}

static void w_churn(void)
{
	while (!sh->stop) {
		int status;
		pid_t pid = fork();

		if (pid == 0)
			churn_child();
		if (pid < 0) {
			usleep(1000);
			continue;
		}
		__atomic_add_fetch(&sh->w[me].ops, 1, __ATOMIC_RELAXED);
		if (waitpid(pid, &status, 0) == pid &&
		    !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			note(&sh->w[me].corrupt, "churn child: status 0x%x",
			     status);
	}
}

static int write_val(const char *path, long v)
{
	char s[32];

	snprintf(s, sizeof(s), "%ld", v);
	return nu_write_file(path, s);
}

static void w_sysctl(void)
{
	while (!sh->stop) {
		int r;

		switch (rnd(3)) {
		case 0:
			r = write_val(NU_SCHED_NUMA, rnd(2));
			if (r && r != -EBUSY)
				note(&sh->w[me].bad_errno, "sched_numa: %s",
				     strerror(-r));
			break;
		case 1:
			r = write_val(NU_BALANCING, rnd(2));
			if (r && r != -EBUSY)
				note(&sh->w[me].bad_errno,
				     "numa_balancing: %s", strerror(-r));
			break;
		default:
			r = write_val(INTERVAL_SYSCTL, 100 + rnd(2900));
			if (r)
				note(&sh->w[me].bad_errno, "interval: %s",
				     strerror(-r));
		}
		__atomic_add_fetch(&sh->w[me].ops, 1, __ATOMIC_RELAXED);
		usleep(20000 + rnd(200000));
	}
}

static int node1_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int c, n = 0;

	if (nu_node_cpuset(1, &set))
		return 0;
	for (c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set) && c != 0)
			cpus[n++] = c;
	return n;
}

static int cpu_online(int cpu, int on)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	return write_val(path, on);
}

static void w_hotplug(void)
{
	int cpus[8], n = node1_cpus(cpus, 8), i;

	while (!sh->stop && n) {
		int r;

		for (i = 0; i < n; i++) {
			r = cpu_online(cpus[i], 0);
			if (r && r != -EBUSY && r != -EAGAIN)
				note(&sh->w[me].bad_errno, "offline cpu%d: %s",
				     cpus[i], strerror(-r));
			usleep(rnd(300000));
		}
		__atomic_add_fetch(&sh->w[me].ops, 1, __ATOMIC_RELAXED);
		usleep(200000 + rnd(1000000));
		for (i = 0; i < n; i++) {
			r = cpu_online(cpus[i], 1);
			if (r && r != -EBUSY && r != -EAGAIN)
				note(&sh->w[me].bad_errno, "online cpu%d: %s",
				     cpus[i], strerror(-r));
		}
		usleep(500000 + rnd(2000000));
	}
	for (i = 0; i < n; i++)
		cpu_online(cpus[i], 1);
}

static int random_pid(void)
{
	int pids[512], n = 0;
	struct dirent *d;
	DIR *dir = opendir("/proc");

	if (!dir)
		return 1;
	while ((d = readdir(dir)) && n < 512)
		if (d->d_name[0] >= '1' && d->d_name[0] <= '9')
			pids[n++] = atoi(d->d_name);
	closedir(dir);
	return n ? pids[rnd(n)] : 1;
}

/*
 * Ids of every group the unprivileged worker made: numa_tbind() and
 * numa_mbind() to any other id must fail.  An id of its own that was
 * freed and reused by root's worker counts as its own: a weaker check,
 * never a false alarm.
 */
#define OWN_MAX		(1 << 16)
static unsigned long own_ids[OWN_MAX / (8 * sizeof(long))];

static void own_set(long id)
{
	if (id > 0 && id < OWN_MAX)
		own_ids[id / (8 * sizeof(long))] |= 1UL << (id % (8 * sizeof(long)));
}

static int own_has(long id)
{
	return id <= 0 || id >= OWN_MAX ||
	       (own_ids[id / (8 * sizeof(long))] >> (id % (8 * sizeof(long)))) & 1;
}

static void w_unpriv(void)
{
	char *buf;

	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY) ||
	    prctl(PR_SET_DUMPABLE, 1)) {
		note(&sh->w[me].corrupt, "could not become uid %d", NOBODY);
		return;
	}
	buf = nu_alloc(4);
	if (!buf)
		return;
	while (!sh->stop) {
		int pid = random_pid(), id = 1 + rnd(64), node = 0;
		unsigned long from = 3, to = 1;
		void *page = buf;
		long r;

		switch (rnd(5)) {
		case 0:
			own_set(tbind(0, MS_ID_NEW));
			break;
		case 1:
			/* Another process's thread: never ours to bind */
			if (pid == getpid())
				break;
			errno = 0;
			r = tbind(pid, rnd(2) ? MS_ID_NEW : MS_ID_GET);
			check("numa_tbind(other pid)", r, errno, e_tbind);
			if (r >= 0)
				note(&sh->w[me].perm, "numa_tbind(%d): %ld",
				     pid, r);
			break;
		case 2:
			errno = 0;
			r = rnd(2) ? tbind(0, id) : nmbind(buf, 4096, id);
			check("group of another user", r, errno, e_tbind);
			if (r >= 0 && !own_has(id))
				note(&sh->w[me].perm,
				     "bound to group %d, not its own", id);
			break;
		case 3:
			if (pid == getpid())
				break;
			errno = 0;
			r = move_pages(pid, 1, &page, &node, &node, 0);
			check("move_pages(other)", r, errno, e_move);
			errno = 0;
			r = migrate_pages(pid, NU_MAXNODE, &from, &to);
			check("migrate_pages(other)", r, errno, e_migrate);
			break;
		default:
			buf[0]++;
		}
	}
}

static void read_all(const char *path)
{
	char b[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	while (read(fd, b, sizeof(b)) > 0)
		;
	close(fd);
}

static void w_readers(void)
{
	static const char *const files[] = { "sched", "numa_maps", "status" };
	char path[64];

	while (!sh->stop) {
		snprintf(path, sizeof(path), "/proc/%d/%s", random_pid(),
			 files[rnd(3)]);
		read_all(path);
		read_all(NU_DEBUGFS "/sched/numa_groups");
		__atomic_add_fetch(&sh->w[me].ops, 1, __ATOMIC_RELAXED);
	}
}

static void (*const wfn[NR_WORKERS])(void) = {
	w_mbind, w_migrate, w_groups, w_churn, w_sysctl, w_hotplug, w_unpriv,
	w_readers,
};

FIXTURE(stress) {
	struct nu_numa_sysctls sysctls;
	char interval[32];
	int restore;
};

FIXTURE_SETUP(stress)
{
	if (access(NU_SCHED_NUMA, F_OK))
		SKIP(return, "kernel lacks sched/numa");
	if (geteuid() != 0)
		SKIP(return, "needs root");
	if (!nu_have_two_nodes())
		SKIP(return, "needs NUMA nodes 0 and 1");
	ASSERT_EQ(0, nu_numa_sysctls_save(&self->sysctls));
	ASSERT_EQ(0, nu_read_file(INTERVAL_SYSCTL, self->interval,
				  sizeof(self->interval)));
	nu_debugfs_mount();
	self->restore = 1;
}

FIXTURE_TEARDOWN(stress)
{
	if (!self->restore)
		return;
	nu_write_file(INTERVAL_SYSCTL, self->interval);
	nu_numa_sysctls_restore(&self->sysctls);
}

static int stress_secs(void)
{
	const char *s = getenv("STRESS_SECS");

	return s && atoi(s) > 0 ? atoi(s) : DEF_SECS;
}

/* The harness's timeout is fixed at compile time: 2 h covers make stress */
TEST_F_TIMEOUT(stress, random_ops, 7200)
{
	int secs = stress_secs(), i, status, dead = 0;
	pid_t pid[NR_WORKERS];
	pthread_mutexattr_t ma;
	long long t0;

	NU_RETURN_IF_SKIPPED();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	memset(sh, 0, sizeof(*sh));
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&sh->lock, &ma);
	signal(SIGPIPE, SIG_IGN);
	TH_LOG("%d workers for %d s", NR_WORKERS, secs);

	for (i = 0; i < NR_WORKERS; i++) {
		fflush(NULL);
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (pid[i] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			me = i;
			wfn[i]();
			_exit(0);
		}
	}
	t0 = now_ms();
	while (now_ms() - t0 < secs * 1000LL) {
		sleep(1);
		for (i = 0; i < NR_WORKERS; i++) {
			if (pid[i] > 0 && waitpid(pid[i], &status, WNOHANG) ==
			    pid[i]) {
				TH_LOG("worker %s died early: status 0x%x",
				       wname[i], status);
				pid[i] = 0;
				dead++;
			}
		}
	}
	sh->stop = 1;
	for (i = 0; i < NR_WORKERS; i++) {
		if (pid[i] <= 0)
			continue;
		waitpid(pid[i], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			TH_LOG("worker %s: status 0x%x", wname[i], status);
			dead++;
		}
	}

	for (i = 0; i < NR_WORKERS; i++) {
		struct wstat *w = &sh->w[i];

		TH_LOG("%-8s %lu calls, %lu failed as allowed, %lu bad errno, %lu corrupted, %lu permission%s%s",
		       wname[i], w->ops, w->fails, w->bad_errno, w->corrupt,
		       w->perm, w->last[0] ? "; last: " : "", w->last);
		EXPECT_EQ(0UL, w->bad_errno) TH_LOG("%s: unexpected errno",
						  wname[i]);
		EXPECT_EQ(0UL, w->corrupt) TH_LOG("%s: corruption", wname[i]);
		EXPECT_EQ(0UL, w->perm) TH_LOG("%s: permission success",
					     wname[i]);
		if (i != W_HOTPLUG || node1_cpus((int[8]){ 0 }, 8))
			EXPECT_LT(0UL, w->ops) TH_LOG("%s did nothing", wname[i]);
	}
	EXPECT_EQ(0, dead);
}

TEST_HARNESS_MAIN
