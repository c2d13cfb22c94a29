/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small shared helpers for the NUMA memory-policy selftests.
 *
 * All NUMA syscalls go through the thin wrappers in <numaif.h> (libnuma-dev,
 * link with -lnuma).  Node masks are single unsigned longs: the kernel
 * decrements maxnode before use (get_nodes() in mm/mempolicy.c), so passing
 * NU_MAXNODE makes bits 0..62 usable.
 */
#ifndef NUMA_UTIL_H
#define NUMA_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <numa.h>
#include <numaif.h>

/*
 * Static-link note: in libnuma.a the <numaif.h> syscall wrappers live in
 * syscall.o, whose only libnuma dependency is numa_bitmask_nbytes() (for the
 * numa_sched_*affinity wrappers).  Resolving that from libnuma.o would drag
 * in libnuma.o + affinity.o and glibc's "getaddrinfo in statically linked
 * applications" link warning.  This weak copy (same body as libnuma's) keeps
 * the link to syscall.o only; a strong libnuma.o definition still wins if a
 * test ever calls numa_*() functions.
 */
__attribute__((weak)) unsigned int numa_bitmask_nbytes(struct bitmask *bmp)
{
	unsigned long bpl = 8 * sizeof(unsigned long);

	return ((bmp->size + bpl - 1) / bpl) * sizeof(unsigned long);
}

#define NU_MAXNODE	(8 * sizeof(unsigned long))
#define NU_MASK(n)	(1UL << (n))
#define MIB		(1UL << 20)

/* The series' mbind() additions (RFC 03/04); absent from numaif.h. */
#ifndef MPOL_MF_LAZY
#define MPOL_MF_LAZY	(1 << 3)
#endif
#ifndef MPOL_NOOP
#define MPOL_NOOP	6	/* appended after MPOL_PREFERRED_MANY */
#endif
#define LAZY_FLAGS	(MPOL_MF_MOVE | MPOL_MF_LAZY)

#ifndef NU_SYSNODE	/* overridable to point at a fake tree for dry runs */
#define NU_SYSNODE	"/sys/devices/system/node"
#endif

static inline size_t nu_page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* Read a small file into buf, strip trailing whitespace. 0 or -errno. */
static inline int nu_read_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' ||
			 buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	return 0;
}

static inline int nu_node_exists(int node)
{
	char path[64];

	snprintf(path, sizeof(path), NU_SYSNODE "/node%d", node);
	return access(path, F_OK) == 0;
}

/* Both node0 and node1 are present (the guest layout these tests target). */
static inline int nu_have_two_nodes(void)
{
	return nu_node_exists(0) && nu_node_exists(1);
}

/*
 * Anonymous private mapping of npages, THP disabled so that every page is a
 * separate 4K folio and per-page node checks are exact.
 */
static inline char *nu_alloc(size_t npages)
{
	size_t len = npages * nu_page_size();
	void *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, len, MADV_NOHUGEPAGE);	/* best effort */
	return p;
}

static inline void nu_free(void *p, size_t npages)
{
	if (p)
		munmap(p, npages * nu_page_size());
}

/*
 * Per-page node query via move_pages(pid, nodes = NULL). status[i] gets the
 * node id, or -ENOENT (not faulted in) / -EFAULT (not mapped).
 * Returns the syscall result (0 on success, -1 with errno set).
 */
static inline long nu_page_nodes(int pid, void *buf, size_t npages,
				 int *status)
{
	size_t ps = nu_page_size(), i;
	void **pages;
	long ret;

	pages = calloc(npages, sizeof(*pages));
	if (!pages) {
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < npages; i++)
		pages[i] = (char *)buf + i * ps;
	for (i = 0; i < npages; i++)
		status[i] = INT_MIN;
	ret = move_pages(pid, npages, pages, NULL, status, 0);
	free(pages);
	return ret;
}

/* Number of pages of buf (in process pid, 0 = self) on node; -1 on error. */
static inline long nu_count_on_node_pid(int pid, void *buf, size_t npages,
					int node)
{
	long count = 0;
	size_t i;
	int *status;

	status = calloc(npages, sizeof(*status));
	if (!status)
		return -1;
	if (nu_page_nodes(pid, buf, npages, status)) {
		free(status);
		return -1;
	}
	for (i = 0; i < npages; i++)
		if (status[i] == node)
			count++;
	free(status);
	return count;
}

static inline long nu_count_on_node(void *buf, size_t npages, int node)
{
	return nu_count_on_node_pid(0, buf, npages, node);
}

/* Pattern word for byte offset off: unique per offset and per seed. */
static inline uint64_t nu_pattern(size_t off, uint64_t seed)
{
	uint64_t x = ((uint64_t)off + 1) * 0x9E3779B97F4A7C15ULL;

	return x ^ (seed * 0xD6E8FEB86659FD93ULL) ^ (x >> 29);
}

/* Write the pattern into every 8-byte word (this also faults pages in). */
static inline void nu_fill(void *buf, size_t len, uint64_t seed)
{
	volatile uint64_t *w = buf;
	size_t i;

	for (i = 0; i < len / sizeof(uint64_t); i++)
		w[i] = nu_pattern(i * sizeof(uint64_t), seed);
}

/*
 * Check the pattern. Returns -1 if intact, else the byte offset of the
 * first mismatching word.
 */
static inline long nu_verify(const void *buf, size_t len, uint64_t seed)
{
	const volatile uint64_t *w = buf;
	size_t i;

	for (i = 0; i < len / sizeof(uint64_t); i++)
		if (w[i] != nu_pattern(i * sizeof(uint64_t), seed))
			return (long)(i * sizeof(uint64_t));
	return -1;
}

/* Value of a /proc/vmstat counter, or -1 if absent/unreadable. */
static inline long long nu_vmstat(const char *name)
{
	char key[128];
	long long val, ret = -1;
	FILE *f;

	f = fopen("/proc/vmstat", "re");
	if (!f)
		return -1;
	while (fscanf(f, "%127s %lld", key, &val) == 2) {
		if (!strcmp(key, name)) {
			ret = val;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* Parse a cpulist such as "0-1,4,6-7" into set. 0 or -EINVAL. */
static inline int nu_parse_cpulist(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	while (*s) {
		char *end;
		long a, b;

		a = strtol(s, &end, 10);
		if (end == s || a < 0)
			return -EINVAL;
		b = a;
		s = end;
		if (*s == '-') {
			s++;
			b = strtol(s, &end, 10);
			if (end == s || b < a)
				return -EINVAL;
			s = end;
		}
		for (; a <= b; a++)
			if (a < CPU_SETSIZE)
				CPU_SET(a, set);
		if (*s == ',')
			s++;
		else if (*s)
			return -EINVAL;
	}
	return 0;
}

/* Restrict the calling thread to the CPUs of node. 0 or -errno. */
static inline int nu_pin_to_node(int node)
{
	char path[80], list[256];
	cpu_set_t set;
	int ret;

	snprintf(path, sizeof(path), NU_SYSNODE "/node%d/cpulist", node);
	ret = nu_read_file(path, list, sizeof(list));
	if (ret)
		return ret;
	ret = nu_parse_cpulist(list, &set);
	if (ret)
		return ret;
	if (CPU_COUNT(&set) == 0)
		return -ENOENT;
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	return 0;
}

/*
 * The 6.1 kselftest_harness.h still runs a TEST_F() body after its
 * FIXTURE_SETUP() called SKIP() (SKIP sets ->passed = 1 and the wrapper only
 * bails out when !passed), so fixture test bodies start with this.
 */
#define NU_RETURN_IF_SKIPPED() do {		\
	if (_metadata->skip)			\
		return;				\
} while (0)

/* A pid that cannot exist: pids are allocated below kernel.pid_max. */
static inline int nu_unused_pid(void)
{
	char buf[32];
	long v;

	if (nu_read_file("/proc/sys/kernel/pid_max", buf, sizeof(buf)))
		return 4194304;	/* PID_MAX_LIMIT on 64-bit */
	v = strtol(buf, NULL, 10);
	if (v <= 0 || v > INT_MAX)
		return 4194304;
	return (int)v;
}


/*
 * Write val to a sysctl or sysfs file (one write(), no newline needed).
 * 0, or -errno of the open/write/close that failed (-EIO on a short write).
 */
static inline int nu_write_file(const char *path, const char *val)
{
	ssize_t n, len = (ssize_t)strlen(val);
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n != len) {
		int err = n < 0 ? -errno : -EIO;

		close(fd);
		return err;
	}
	return close(fd) ? -errno : 0;
}

/* The CPUs of node (its sysfs cpulist) in set. 0 or -errno. */
static inline int nu_node_cpuset(int node, cpu_set_t *set)
{
	char path[80], list[256];
	int ret;

	snprintf(path, sizeof(path), NU_SYSNODE "/node%d/cpulist", node);
	ret = nu_read_file(path, list, sizeof(list));
	if (ret)
		return ret;
	return nu_parse_cpulist(list, set);
}

/* How many CPUs node has (its sysfs cpulist; 0 for a CPU-less one), -errno. */
static inline int nu_node_nr_cpus(int node)
{
	cpu_set_t set;
	int ret = nu_node_cpuset(node, &set);

	return ret ? ret : CPU_COUNT(&set);
}

/*
 * 1 if node has memory (it is in the sysfs has_memory node list, the
 * kernel's N_MEMORY), 0 if not, -errno if the list cannot be read.
 */
static inline int nu_node_has_memory(int node)
{
	char list[256];
	cpu_set_t nodes;	/* a node list parses as a CPU list */
	int ret;

	ret = nu_read_file(NU_SYSNODE "/has_memory", list, sizeof(list));
	if (!ret)
		ret = nu_parse_cpulist(list, &nodes);
	if (ret)
		return ret;
	return node >= 0 && node < CPU_SETSIZE && CPU_ISSET(node, &nodes);
}

/*
 * The lowest node id >= from without memory (not in has_memory: absent,
 * CPU-only, or offline), for calls that must refuse a node; -1 if none
 * below NU_MAXNODE or the list cannot be read.  On a machine of fewer than
 * 6 nodes with memory, nu_node_without_memory(5) is 5.
 */
static inline int nu_node_without_memory(int from)
{
	int node;

	for (node = from < 0 ? 0 : from; node < (int)NU_MAXNODE; node++) {
		int m = nu_node_has_memory(node);

		if (m < 0)
			return -1;
		if (!m)
			return node;
	}
	return -1;
}

/*
 * sched/numa home node of a task: the "home_node" line of /proc/PID/sched,
 * or of /proc/PID/task/TID/sched if tid > 0 (pid 0 means "self").
 * Returns the node, -1 for none, NU_HOME_NOLINE if the file has no such
 * line (a kernel without sched/numa), NU_HOME_NOFILE if the file cannot be
 * read (no CONFIG_SCHED_DEBUG, or the task is gone).
 * Only open/read/close and a stack buffer: usable in a vfork() child.
 */
/*
 * Why a test that needs nodes 0 and 1, each with CPUs, cannot run here;
 * NULL if it can.
 */
static inline const char *nu_no_two_cpu_nodes(void)
{
	cpu_set_t set;
	int node;

	if (!nu_have_two_nodes())
		return "needs NUMA nodes 0 and 1";
	for (node = 0; node < 2; node++) {
		if (nu_node_cpuset(node, &set) || CPU_COUNT(&set) == 0)
			return node ? "node 1 has no CPUs" : "node 0 has no CPUs";
	}
	return NULL;
}

#define NU_HOME_NOLINE	(-2)
#define NU_HOME_NOFILE	(-3)

static inline int nu_home_node(int pid, int tid)
{
	static const char key[] = "home_node";
	char path[64], buf[4096];
	size_t have = 0, klen = sizeof(key) - 1;
	int fd, ret = NU_HOME_NOLINE;

	if (tid > 0 && pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/sched", pid,
			 tid);
	else if (tid > 0)
		snprintf(path, sizeof(path), "/proc/self/task/%d/sched", tid);
	else if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/sched", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/sched");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NU_HOME_NOFILE;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *line = buf, *nl;

		if (n < 0) {
			ret = NU_HOME_NOFILE;
			break;
		}
		have += (size_t)n;
		buf[have] = '\0';
		/* Whole lines; at EOF the last one may lack its newline. */
		while ((nl = strchr(line, '\n')) || (n == 0 && *line)) {
			if (nl)
				*nl = '\0';
			/*
			 * "home_node   :   N", not the header line, which is
			 * "COMM (PID, #threads: N)" and starts with the key
			 * when the program is called home_node.
			 */
			size_t sp = strspn(line + klen, " ");

			if (!strncmp(line, key, klen) &&
			    line[klen + sp] == ':') {
				char *c = line + klen + sp, *end;
				long v;
				v = strtol(c + 1, &end, 10);
				if (end != c + 1 && v >= -1 && v < INT_MAX)
					ret = (int)v;
				goto out;
			}
			line = nl ? nl + 1 : line + strlen(line);
		}
		if (n == 0)
			break;
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)	/* absurdly long line */
			have = 0;
	}
out:
	close(fd);
	return ret;
}

/*
 * The NumaRss: line of /proc/PID/status ("N0=<kB> kB N1=<kB> kB ..."):
 * the process's resident pages per node, from the kernel's counters, into
 * pages[NU_MAXNODE].  Unlike move_pages(2) it takes no page reference,
 * so polling it does not fail the migrations it watches.  0 or -errno.
 */
static inline int nu_numa_rss(int pid, long *pages)
{
	long kb_per_page = (long)nu_page_size() / 1024;
	char path[64], buf[8192], *p;
	int r;

	memset(pages, 0, NU_MAXNODE * sizeof(*pages));
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	r = nu_read_file(path, buf, sizeof(buf));
	if (r)
		return r;
	p = strstr(buf, "\nNumaRss:\t");
	if (!p)
		return -ENOENT;
	p += strlen("\nNumaRss:\t");
	while (*p && *p != '\n') {
		int node, used = 0;
		long kb;

		if (sscanf(p, "N%d=%ld kB%n", &node, &kb, &used) != 2 ||
		    !used || node < 0 || node >= (int)NU_MAXNODE)
			return -EINVAL;
		pages[node] = kb / kb_per_page;
		p += used;
		while (*p == ' ')
			p++;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* /proc task lookups and scheduler features (sched/numa tests). */

#include <dirent.h>

/*
 * Pids of the tasks (thread-group leaders, kernel threads included) whose
 * /proc/PID/comm is comm.  Stores up to max of them in pids and returns how
 * many there are in all (may exceed max), or -errno if /proc cannot be read.
 * Tasks that vanish during the scan are skipped.
 */
static inline int nu_pids_by_comm(const char *comm, int *pids, int max)
{
	struct dirent *d;
	int n = 0;
	DIR *dir;

	dir = opendir("/proc");
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		char path[64], name[64], *end;
		long pid = strtol(d->d_name, &end, 10);

		if (end == d->d_name || *end || pid <= 0 || pid > INT_MAX)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		if (nu_read_file(path, name, sizeof(name)))
			continue;
		if (strcmp(name, comm))
			continue;
		if (n < max)
			pids[n] = (int)pid;
		n++;
	}
	closedir(dir);
	return n;
}

/*
 * Numeric field number field (1-based, as in proc(5): 9 flags, 14 utime,
 * 15 stime, 39 processor) of /proc/PID/stat.  Fields 1-3 (pid, comm, state)
 * are not numbers after the comm and give -EINVAL.  0 or -errno (-EIO if the
 * line is malformed).
 */
static inline int nu_proc_stat_field(int pid, int field,
				     unsigned long long *val)
{
	char path[64], buf[1024], *p, *end;
	int i, ret;

	if (field < 4)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	ret = nu_read_file(path, buf, sizeof(buf));
	if (ret)
		return ret;
	p = strrchr(buf, ')');		/* comm may hold spaces and ')' */
	if (!p)
		return -EIO;
	p++;
	for (i = 3; i < field; i++) {	/* skip fields 3 .. field - 1 */
		p += strspn(p, " ");
		if (!*p)
			return -EIO;
		p += strcspn(p, " ");
	}
	p += strspn(p, " ");
	*val = strtoull(p, &end, 10);
	return end == p ? -EIO : 0;
}

/*
 * CPU time (user + system) of the whole process pid, all its threads, in
 * milliseconds; -1 if /proc/PID/stat cannot be read.
 */
static inline long long nu_cputime_ms(int pid)
{
	unsigned long long ut, st;
	long hz = sysconf(_SC_CLK_TCK);

	if (hz <= 0 || nu_proc_stat_field(pid, 14, &ut) ||
	    nu_proc_stat_field(pid, 15, &st))
		return -1;
	return (long long)((ut + st) * 1000ULL / (unsigned long long)hz);
}

/*
 * Scheduler features (CONFIG_SCHED_DEBUG, debugfs).  Reading the file gives
 * every feature on one line, a disabled one as NO_<NAME>; writing "<NAME>"
 * enables it, "NO_<NAME>" disables it.
 */
#ifndef NU_SCHED_FEATURES
#define NU_SCHED_FEATURES	"/sys/kernel/debug/sched/features"
#endif
#define NU_FEAT_BUF		4096

/* In a features list: 1 if name is on, 0 if off, -ENOENT if not listed. */
static inline int nu_sched_feat_in(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p = list;

	while (*p) {
		size_t n;

		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n");
		if (n == len && !strncmp(p, name, len))
			return 1;
		if (n == len + 3 && !strncmp(p, "NO_", 3) &&
		    !strncmp(p + 3, name, len))
			return 0;
		p += n;
	}
	return -ENOENT;
}

/* 1 if the feature is on, 0 if off, -ENOENT if not listed, -errno. */
static inline int nu_sched_feat(const char *name)
{
	char list[NU_FEAT_BUF];
	int ret;

	ret = nu_read_file(NU_SCHED_FEATURES, list, sizeof(list));
	if (ret)
		return ret;
	return nu_sched_feat_in(list, name);
}

/* Switch a feature on or off. 0 or -errno (-EINVAL: no such feature). */
static inline int nu_sched_feat_set(const char *name, int on)
{
	char val[64];

	snprintf(val, sizeof(val), "%s%s", on ? "" : "NO_", name);
	return nu_write_file(NU_SCHED_FEATURES, val);
}

/*
 * The pattern of [off, off + len) of a buffer filled by nu_fill(base, ...);
 * reads every word, so it touches every page.  -1 if intact, else the
 * offset of the first bad word.
 */
static inline long nu_verify_range(const char *base, size_t off, size_t len,
				   uint64_t seed)
{
	const volatile uint64_t *w = (const volatile uint64_t *)(base + off);
	size_t i;

	for (i = 0; i < len / sizeof(uint64_t); i++)
		if (w[i] != nu_pattern(off + i * sizeof(uint64_t), seed))
			return (long)(off + i * sizeof(uint64_t));
	return -1;
}

/* read()/write() all of len bytes, retrying on EINTR; -1 on error. */
static inline ssize_t nu_read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static inline ssize_t nu_write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static inline pid_t nu_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* ------------------------------------------------------------------ */
/* debugfs (scheduler features, sched/numa group listings). */

#include <sys/mount.h>
#include <sys/vfs.h>

#ifndef NU_DEBUGFS
#define NU_DEBUGFS		"/sys/kernel/debug"
#endif
#define NU_DEBUGFS_MAGIC	0x64626720	/* DEBUGFS_MAGIC, linux/magic.h */

/*
 * Make sure debugfs is mounted at NU_DEBUGFS (the guest's init mounts it, a
 * plain root shell may not have).  0 if it is mounted, already or now;
 * -errno of statfs() or mount() otherwise.
 */
static inline int nu_debugfs_mount(void)
{
	struct statfs sfs;

	if (statfs(NU_DEBUGFS, &sfs))
		return -errno;
	if ((unsigned long)sfs.f_type == NU_DEBUGFS_MAGIC)
		return 0;
	if (mount("debugfs", NU_DEBUGFS, "debugfs", 0, NULL))
		return -errno;
	return 0;
}

/* ------------------------------------------------------------------ */
/* kernel.sched_numa and kernel.numa_balancing, which exclude each other. */

#define NU_SCHED_NUMA		"/proc/sys/kernel/sched_numa"
#define NU_BALANCING		"/proc/sys/kernel/numa_balancing"

/* The two sysctls as a test found them. */
struct nu_numa_sysctls {
	char sched_numa[16];
	char balancing[16];
};

/* Save both.  0 or -errno. */
static inline int nu_numa_sysctls_save(struct nu_numa_sysctls *s)
{
	int r = nu_read_file(NU_SCHED_NUMA, s->sched_numa,
			     sizeof(s->sched_numa));

	return r ? r : nu_read_file(NU_BALANCING, s->balancing,
				    sizeof(s->balancing));
}

/*
 * Automatic NUMA balancing off and sched/numa @sched_numa (0 or 1).
 * sched_numa goes to 0 first, which takes every home node away, this
 * task's too; that also keeps any write from being refused with EBUSY.
 * 0 or the first -errno (the caller restores).
 */
static inline int nu_numa_sysctls_set(int sched_numa)
{
	int r = nu_write_file(NU_SCHED_NUMA, "0");

	if (!r)
		r = nu_write_file(NU_BALANCING, "0");
	if (!r && sched_numa)
		r = nu_write_file(NU_SCHED_NUMA, "1");
	return r;
}

/* Put both back as saved, switching both off first.  0 or first -errno. */
static inline int nu_numa_sysctls_restore(const struct nu_numa_sysctls *s)
{
	int r = nu_numa_sysctls_set(0);

	if (!r)
		r = nu_write_file(NU_BALANCING, s->balancing);
	if (!r)
		r = nu_write_file(NU_SCHED_NUMA, s->sched_numa);
	return r;
}

/* In a kselftest harness teardown: restore them, a failure fails the test */
#define NU_EXPECT_SYSCTLS_RESTORED(s) do {				\
	int __r = nu_numa_sysctls_restore(s);				\
	EXPECT_EQ(0, __r) TH_LOG("restoring " NU_SCHED_NUMA " and "	\
				 NU_BALANCING ": %s", strerror(-__r));	\
} while (0)

/*
 * Save both, then nu_numa_sysctls_set(@sched_numa); if that fails, put
 * back what was changed (a fixture's teardown does not run when its setup
 * fails).  0 or -errno.
 */
static inline int nu_numa_sysctls_enter(struct nu_numa_sysctls *s,
					int sched_numa)
{
	int r = nu_numa_sysctls_save(s);

	if (r)
		return r;
	r = nu_numa_sysctls_set(sched_numa);
	if (r)
		nu_numa_sysctls_restore(s);
	return r;
}

#endif /* NUMA_UTIL_H */
