// SPDX-License-Identifier: GPL-2.0
/*
 * numad, the sched/numa process balancer (RFC 14-16 and 25 of the 2012
 * sched/numa RFC forward-ported to 6.1), its sysctl, its scheduler features
 * and its CPU hotplug hooks.
 *
 * Interface under test:
 *   kernel.sched_numa = 1 (needs kernel.numa_balancing = 0): processes forked
 *   then get a home node, the least loaded node they may run on
 *   ("home_node ... : N" in /proc/PID/sched, -1 = none); threads share the
 *   process's; tasks with a memory policy of their own get none.
 *   numad/N: one kernel thread per node with CPUs, from boot.  While
 *   sched_numa = 1 it wakes every kernel.sched_numa_interval_ms (100..60000,
 *   EINVAL otherwise) and pulls whole processes to its node from the node
 *   with the largest remote load, when that node has 2 or more runnable
 *   home tasks more than its own.  Moving a process changes the home node of
 *   its threads (not of threads with their own policy) and lazily migrates
 *   its private anonymous memory: pages off the new node are marked
 *   (numa_lazy_marked in /proc/vmstat) and move on their next touch, read or
 *   write; untouched pages stay.  Only processes with >= 1 s of CPU time are
 *   moved, never one pinned away from the destination node.
 *   /sys/kernel/debug/sched/features: NUMA_HOT NUMA_BIAS NUMA_PULL
 *   NUMA_PULL_BIAS NUMA_BALANCE NUMA_SELECT NUMA_BALANCE_FILTER NUMA_SLOW
 *   NUMA_SPLIT;
 *   NUMA_BALANCE off: numad moves nothing.
 *   CPU hotplug: when node 1 loses its last CPU, numad/1 stops and every
 *   process whose home is node 1 gets a node with CPUs (node 0 on two
 *   nodes); when a CPU of node 1 comes back, numad/1 starts again.
 *   A home is always a node with memory and online CPUs.
 *
 * Tests (fixture numad; setup saves kernel.sched_numa, kernel.numa_balancing,
 * kernel.sched_numa_interval_ms and the features file, sets
 * numa_balancing = 0, sched_numa = 0 then 1 (no task keeps an old home node,
 * this one included), the interval to 200 ms, and switches on every NUMA_*
 * feature the tests rely on (all but NUMA_BALANCE_FILTER and NUMA_SLOW,
 * left as found); teardown kills every child, brings back online the CPUs a
 * test took offline, and restores the features and the sysctls):
 *   features_toggle      all nine NUMA_* features are listed; each one,
 *                        written NO_<NAME> then <NAME>, reads back off then
 *                        on, and the other eight do not change meanwhile.
 *   interval_sysctl      0, 99, 60001 and -1 give EINVAL and leave the value
 *                        alone; 100 and 60000 read back; 200 again at the end.
 *   numad_threads        exactly one task called numad/0 and one numad/1,
 *                        both kernel threads (PF_KTHREAD); the same two are
 *                        still there with sched_numa = 0 and after 1 again.
 *   numad_moves_process  6 "victims" forked while this task is pinned to
 *                        node 0 (home 0), each with 8 MiB filled on node 0
 *                        and a second, sleeping thread, then unpinned and
 *                        spinning: node 0 is overloaded, the others empty.
 *                        numad moves one of them: its home becomes another
 *                        node N with CPUs and memory (1 on two nodes), its
 *                        thread's too, numa_lazy_marked grows by at least
 *                        90% of its buffer; once it stops spinning and reads
 *                        the first half of its buffer, >= 90% of that half is
 *                        on node N and >= 90% of the untouched second half is
 *                        still on node 0; reading the second half moves it
 *                        too; every victim's contents are intact, every
 *                        victim's home is a node with CPUs and memory and
 *                        its thread has its process's home node.
 *   policy_and_pinned_left_alone
 *                        the same overload plus a child forked with
 *                        MPOL_BIND {0} (home -1) and one pinned to node 0
 *                        (home 0), both spinning and both >= 1 s of CPU time:
 *                        up to and after the first move of a victim, they
 *                        and their threads keep -1 and 0.
 *   no_move_without_balance
 *                        NUMA_BALANCE off, the same overload: no victim's
 *                        home changes until every victim has 3 s of CPU time
 *                        (eligible for more than 10 numad intervals), and
 *                        numa_lazy_marked does not grow; then, NUMA_BALANCE
 *                        back on, numad moves a victim (control: the setup
 *                        was one where numad moves).
 *   transient_imbalance  6 victims with >= 2 s of CPU time each, stopped;
 *                        interval 3000 ms; they spin for 4 s (node 0
 *                        overloaded for less than two intervals), stop,
 *                        and two more intervals pass: no victim's home
 *                        changes and numa_lazy_marked does not grow (numad
 *                        acts on an imbalance seen at 3 consecutive
 *                        intervals); then they spin for good and numad
 *                        moves one, its contents intact (control).
 *   burst_returns_home   NUMA_BALANCE off (numad does not re-home anything):
 *                        a spinning task T with home 0, unpinned, runs on
 *                        node 0; 6 spinners pinned to node 0 push it to
 *                        another node (SKIP if the load balancer never
 *                        picks it);
 *                        once they are killed T comes back to a CPU of
 *                        node 0.  T's home is 0 throughout.
 *   hotplug_node         4 victims forked pinned to node 1 (home 1), 3 of
 *                        them spinning, 1 sleeping (never runnable, so numad
 *                        leaves it alone: it has home 1 when the CPUs go);
 *                        node 1's CPUs go offline: numad/1 disappears, every
 *                        victim and its thread get a home with memory and
 *                        online CPUs other than node 1 (node 0 on two
 *                        nodes), all answer a ping from an online CPU (not
 *                        node 1's), their contents are intact;
 *                        numad/0 is still there; the CPUs come back: numad/1
 *                        exists again.  SKIPs without an online file for each
 *                        CPU of node 1.
 *
 * Children are driven over pipes (one command, one reply) and never use the
 * harness's ASSERTs.  A spinning child spins in slices of a few ms and
 * polls its command pipe (poll(), zero timeout) between them, so it stays
 * runnable and still answers.  It writes sched_getcpu() to shared memory.
 *
 * Nothing here measures speed: the test polls /proc every 100 ms for a
 * condition, and each wait has a generous deadline (a hang guard: 180 s for
 * numad's first move, 120 s for CPU time and the load balancer, 60 s for
 * things the kernel does at once, such as kthread exit after hotplug) that
 * only turns a kernel that never does the thing into a failure rather than
 * a harness timeout.  The guards of a test add up to less than its harness
 * timeout, so teardown always runs (a harness timeout kills without it, and
 * would leave CPUs offline).
 *
 * The whole fixture SKIPs without /proc/sys/kernel/sched_numa_interval_ms
 * (kernel without numad), when not root, unless nodes 0 and 1 both exist
 * and have CPUs, without /proc/self/sched (CONFIG_SCHED_DEBUG=n) or without
 * a writable features file (debugfs not mounted).
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "numa_util.h"

#define SCHED_NUMA	NU_SCHED_NUMA
#define BALANCING	NU_BALANCING
#define INTERVAL	"/proc/sys/kernel/sched_numa_interval_ms"
#define FEATURES	NU_SCHED_FEATURES
#define TEST_INTERVAL	"200"

#define BUF_LEN		(8 * MIB)
#define NR_VICTIMS	6
#define NR_BURST	6
#define NR_HP_SPIN	3	/* spinning victims of hotplug_node */
#define MAX_KIDS	16
#define MAX_BURST	16
#define SEED		0x5eed00

#define SLICE_NS	2000000LL	/* spin slice between command polls */
#define POLL_US		100000		/* the test looks at /proc this often */
#define ELIGIBLE_MS	1000		/* RFC 25: CPU time before numad moves */
#define NOBAL_CPU_MS	3000		/* no_move_without_balance */
#define TRANSIENT_INTERVAL "3000"	/* transient_imbalance: numad's interval */
#define TRANSIENT_MS	4000		/* ... and the burst, < 2 intervals */

/* Harness timeouts (seconds; the guest runs under TCG). */
#define SHORT_TIMEOUT	60
#define LONG_TIMEOUT	400
/* Hang guards (seconds), not speed requirements; see the header. */
#define MOVE_GUARD	180
#define MARK_GUARD	60
#define SETTLE_GUARD	30
#define CPU_GUARD	120
#define PUSH_GUARD	120
#define RETURN_GUARD	120
#define HOTPLUG_GUARD	60
#define HOME_GUARD	60

#ifndef PF_KTHREAD
#define PF_KTHREAD	0x00200000
#endif

/* At least 90% of n, rounded up. */
#define PCT90(n)	(((long)(n) * 9 + 9) / 10)

static const char *const numa_feats[] = {
	"NUMA_HOT", "NUMA_BIAS", "NUMA_PULL", "NUMA_PULL_BIAS",
	"NUMA_BALANCE", "NUMA_SELECT", "NUMA_BALANCE_FILTER", "NUMA_SLOW",
	"NUMA_SPLIT",
};
#define NR_FEATS	(sizeof(numa_feats) / sizeof(numa_feats[0]))

/* The features the tests' expectations rest on: on during every test. */
static const char *const needed_feats[] = {
	"NUMA_HOT", "NUMA_BIAS", "NUMA_PULL", "NUMA_PULL_BIAS",
	"NUMA_BALANCE", "NUMA_SELECT",
};
#define NR_NEEDED	(sizeof(needed_feats) / sizeof(needed_feats[0]))

/* ------------------------------------------------------------------ */
/* Child protocol: the test sends a struct cmd, the child replies. */

enum op {
	OP_READY = 1,	/* unsolicited, once the child is set up */
	OP_PING,	/* home node, CPU */
	OP_STOP,	/* stop spinning: sleep in poll() between commands */
	OP_SPIN,	/* spin again */
	OP_TOUCH_FIRST,	/* read and verify the first half only, then count */
	OP_VERIFY,	/* read and verify the whole buffer, then count */
	OP_COUNT,	/* count pages per half and node, touching nothing */
};

static const char *op_name(int op)
{
	static const char *const names[] = {
		[OP_READY] = "READY", [OP_PING] = "PING", [OP_STOP] = "STOP",
		[OP_SPIN] = "SPIN", [OP_TOUCH_FIRST] = "TOUCH_FIRST",
		[OP_VERIFY] = "VERIFY", [OP_COUNT] = "COUNT",
	};

	if (op > 0 && op <= OP_COUNT)
		return names[op];
	return "?";
}

struct cmd {
	int op;
	int arg;
};

struct reply {
	int op;
	int err;		/* 0, or the errno of what failed */
	char what[64];		/* what failed */
	int pid;
	int tid;		/* the second thread, 0 if none */
	int home;		/* own home node when the command was read */
	int home_after;		/* and once its work was done */
	int thread_home;	/* the second thread's, INT_MIN if none */
	int cpu;		/* sched_getcpu() when replying */
	long npages;		/* pages per half of the buffer */
	long on[2][NU_MAXNODE];	/* [half][node]: pages on each node */
	long bad_off;		/* first corrupted byte offset, -1 if intact */
};

/* What a child does besides serving commands. */
struct kid_cfg {
	const char *name;
	int alloc;	/* map BUF_LEN, fill it (this places it) and count */
	int thread;	/* a second thread, asleep for good */
	int unpin;	/* widen the affinity to all CPUs once filled */
	int spin;	/* spin between commands (else sleep in poll()) */
};

static const struct kid_cfg victim_cfg = {
	.name = "victim", .alloc = 1, .thread = 1, .unpin = 1, .spin = 1,
};
static const struct kid_cfg sleeper_cfg = {
	.name = "sleeper", .alloc = 1, .thread = 1, .unpin = 1, .spin = 0,
};
static const struct kid_cfg pinned_cfg = {
	.name = "pinned", .alloc = 1, .thread = 1, .unpin = 0, .spin = 1,
};
static const struct kid_cfg policy_cfg = {
	.name = "policy", .alloc = 1, .thread = 1, .unpin = 1, .spin = 1,
};
static const struct kid_cfg lone_cfg = {
	.name = "T", .alloc = 0, .thread = 0, .unpin = 1, .spin = 1,
};

/* One per child, in shared memory. */
struct slot {
	volatile int cpu;	/* latest sched_getcpu() of a spinning child */
};

static int cpu_in(const cpu_set_t *set, int cpu)
{
	return cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, set);
}

/* ------------------------------------------------------------------ */
/* Child side (a forked child: no harness ASSERTs here). */

static cpu_set_t kid_wide;	/* the test's CPUs, set before any fork */

static struct {
	const struct kid_cfg *cfg;
	char *buf;
	uint64_t seed;
	struct slot *slot;
	int tid;
	int spinning;
} ks;

static void fail(struct reply *r, const char *what, int err)
{
	if (r->err)
		return;
	r->err = err ? err : EIO;
	snprintf(r->what, sizeof(r->what), "%s", what);
}

static void init_reply(struct reply *r, int op)
{
	memset(r, 0, sizeof(*r));
	r->op = op;
	r->home = r->home_after = r->thread_home = INT_MIN;
	r->cpu = -1;
	r->bad_off = -1;
}

static void describe_self(struct reply *r)
{
	r->pid = getpid();
	r->tid = ks.tid;
	r->cpu = sched_getcpu();
	if (ks.tid)
		r->thread_home = nu_home_node(0, ks.tid);
}

/* Pages of each half of the buffer per node, via move_pages() status. */
static void count_halves(struct reply *r)
{
	size_t np = BUF_LEN / nu_page_size(), i;
	int *st;

	memset(r->on, 0, sizeof(r->on));
	r->npages = (long)(np / 2);
	st = calloc(np, sizeof(*st));
	if (!st) {
		fail(r, "calloc", ENOMEM);
		return;
	}
	if (nu_page_nodes(0, ks.buf, np, st)) {
		fail(r, "move_pages(nodes = NULL)", errno);
		free(st);
		return;
	}
	for (i = 0; i < np; i++)
		if (st[i] >= 0 && st[i] < (int)NU_MAXNODE)
			r->on[i >= np / 2][st[i]]++;
	free(st);
}

static void *kid_thread_fn(void *arg)
{
	int fd = (int)(intptr_t)arg;
	pid_t tid = nu_gettid();

	nu_write_full(fd, &tid, sizeof(tid));
	for (;;)
		pause();
	return NULL;
}

static void kid_setup(struct reply *r)
{
	const struct kid_cfg *cfg = ks.cfg;

	ks.slot->cpu = sched_getcpu();
	if (cfg->alloc) {
		ks.buf = nu_alloc(BUF_LEN / nu_page_size());  /* NOHUGEPAGE */
		if (!ks.buf) {
			fail(r, "mmap", errno);
			return;
		}
		/* Placed now, on the home node (or the policy's node). */
		nu_fill(ks.buf, BUF_LEN, ks.seed);
		count_halves(r);
	}
	/*
	 * The home it was forked with, before the unpin: once unpinned, a
	 * victim may be moved by numad at once (the victims started before
	 * it spin on its node), and on a slow (debug) kernel it has its
	 * second of CPU time by then.  home_after is the home once set up.
	 */
	r->home = nu_home_node(0, 0);
	/* Before the thread exists: it inherits the wide mask. */
	if (cfg->unpin &&
	    sched_setaffinity(0, sizeof(kid_wide), &kid_wide)) {
		fail(r, "sched_setaffinity(all CPUs)", errno);
		return;
	}
	if (cfg->thread) {
		pthread_t t;
		int fds[2], err;

		if (pipe2(fds, O_CLOEXEC)) {
			fail(r, "pipe2", errno);
			return;
		}
		err = pthread_create(&t, NULL, kid_thread_fn,
				     (void *)(intptr_t)fds[1]);
		if (err) {
			fail(r, "pthread_create", err);
			return;
		}
		if (nu_read_full(fds[0], &ks.tid, sizeof(ks.tid)) !=
		    sizeof(ks.tid)) {
			fail(r, "no tid from the thread", EIO);
			return;
		}
		close(fds[0]);
		close(fds[1]);
	}
	r->home_after = nu_home_node(0, 0);
	describe_self(r);
}

/* Busy for SLICE_NS, reporting the CPU it runs on as it goes. */
static void spin_slice(void)
{
	struct timespec t0, t;
	long long ns;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (i = 0; i < 1000; i++)
			__asm__ __volatile__("" ::: "memory");
		ks.slot->cpu = sched_getcpu();
		clock_gettime(CLOCK_MONOTONIC, &t);
		ns = (t.tv_sec - t0.tv_sec) * 1000000000LL +
		     (t.tv_nsec - t0.tv_nsec);
	} while (ns >= 0 && ns < SLICE_NS);
}

static void kid_cmd(const struct cmd *c, struct reply *r)
{
	r->home = nu_home_node(0, 0);
	switch (c->op) {
	case OP_PING:
		break;
	case OP_STOP:
		ks.spinning = 0;
		break;
	case OP_SPIN:
		ks.spinning = 1;
		break;
	case OP_TOUCH_FIRST:
	case OP_VERIFY:
	case OP_COUNT:
		if (!ks.buf) {
			fail(r, "no buffer", EINVAL);
			break;
		}
		if (c->op == OP_TOUCH_FIRST)
			r->bad_off = nu_verify_range(ks.buf, 0, BUF_LEN / 2,
						  ks.seed);
		else if (c->op == OP_VERIFY)
			r->bad_off = nu_verify_range(ks.buf, 0, BUF_LEN, ks.seed);
		count_halves(r);
		break;
	default:
		fail(r, "unknown command", EINVAL);
	}
	r->home_after = nu_home_node(0, 0);
	describe_self(r);
}

static void __attribute__((noreturn)) kid_main(int in, int out)
{
	struct reply r;
	struct cmd c;

	init_reply(&r, OP_READY);
	kid_setup(&r);
	if (nu_write_full(out, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	ks.spinning = ks.cfg->spin;
	for (;;) {
		struct pollfd pfd = { .fd = in, .events = POLLIN };
		int n = poll(&pfd, 1, ks.spinning ? 0 : -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			_exit(2);
		if (n == 0) {
			spin_slice();
			continue;
		}
		if (nu_read_full(in, &c, sizeof(c)) != sizeof(c))
			_exit(0);	/* the test closed the pipe */
		init_reply(&r, c.op);
		kid_cmd(&c, &r);
		if (nu_write_full(out, &r, sizeof(r)) != sizeof(r))
			_exit(1);
	}
}

/* ------------------------------------------------------------------ */
/* Test side. */

struct kid {
	pid_t pid;
	int to;			/* commands */
	int from;		/* replies */
	int tid;		/* its second thread, 0 if none */
	int idx;		/* its slot */
	const struct kid_cfg *cfg;
	struct reply ready;	/* what it reported once set up */
};

FIXTURE(numad) {
	int restore;		/* sysctls changed: restore them */
	int feats_saved;	/* old_feats holds the features file */
	struct nu_numa_sysctls sysctls;
	char old_interval[16];
	char old_feats[NU_FEAT_BUF];
	cpu_set_t all_cpus;	/* this task's affinity at setup */
	cpu_set_t node_cpus[NU_MAXNODE];	/* each node's CPUs at setup */
	int node_mem[NU_MAXNODE];	/* each node has memory (has_memory) */
	cpu_set_t offlined;	/* CPUs this test took offline */
	struct slot *slots;	/* MAX_KIDS, shared with the children */
	struct kid kid[MAX_KIDS];
	int nkids;
	pid_t burst[MAX_BURST];
	int nburst;
};

/*
 * In a new child: die with the test process, and drop the pipe ends of the
 * other children so that their EOFs still work.
 */
static void child_prepare(FIXTURE_DATA(numad) *self, pid_t parent)
{
	int i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	for (i = 0; i < self->nkids; i++) {
		if (self->kid[i].pid <= 0)	/* stopped: fds closed */
			continue;
		close(self->kid[i].to);
		close(self->kid[i].from);
	}
}

static const char *home_note(int h)
{
	switch (h) {
	case -1:
		return " (none)";
	case NU_HOME_NOLINE:
		return " (no home_node line in /proc/PID/sched)";
	case NU_HOME_NOFILE:
		return " (cannot read /proc/PID/sched)";
	case INT_MIN:
		return " (not reported)";
	default:
		return "";
	}
}

/*
 * Fork a child running cfg.  pin_node >= 0: fork it while this task is
 * pinned to that node's CPUs (so that its home node is that node, and it
 * starts pinned there); bind_node >= 0: fork it while this task has
 * MPOL_BIND {bind_node} (so that it has a policy of its own at fork, hence
 * no home node).  This task gets its own affinity and policy back right
 * after fork().  Returns once the child reported it is set up.
 */
static struct kid *kid_start(struct __test_metadata *_metadata,
			     FIXTURE_DATA(numad) *self,
			     const struct kid_cfg *cfg, int pin_node,
			     int bind_node)
{
	pid_t parent = getpid(), pid;
	int p2c[2], c2p[2], ret, err;
	struct kid *k;
	ssize_t n;

	ASSERT_LT(self->nkids, MAX_KIDS);
	k = &self->kid[self->nkids];
	memset(k, 0, sizeof(*k));
	k->idx = self->nkids;
	k->cfg = cfg;
	ASSERT_EQ(0, pipe2(p2c, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(c2p, O_CLOEXEC));
	self->slots[k->idx].cpu = -1;
	ks.cfg = cfg;
	ks.seed = SEED + (uint64_t)k->idx;
	ks.slot = &self->slots[k->idx];
	if (pin_node >= 0) {
		ret = nu_pin_to_node(pin_node);
		ASSERT_EQ(0, ret) TH_LOG("pin this task to node %d: %s",
					 pin_node, strerror(-ret));
	}
	if (bind_node >= 0) {
		unsigned long mask = NU_MASK(bind_node);

		ASSERT_EQ(0, set_mempolicy(MPOL_BIND, &mask, NU_MAXNODE))
			TH_LOG("set_mempolicy(MPOL_BIND {%d}): %s", bind_node,
			       strerror(errno));
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		close(p2c[1]);
		close(c2p[0]);
		child_prepare(self, parent);
		kid_main(p2c[0], c2p[1]);
	}
	err = errno;
	if (bind_node >= 0)
		set_mempolicy(MPOL_DEFAULT, NULL, 0);
	if (pin_node >= 0)
		sched_setaffinity(0, sizeof(self->all_cpus), &self->all_cpus);
	close(p2c[0]);
	close(c2p[1]);
	ASSERT_LE(0, pid) TH_LOG("fork: %s", strerror(err));
	k->pid = pid;
	k->to = p2c[1];
	k->from = c2p[0];
	self->nkids++;
	n = nu_read_full(k->from, &k->ready, sizeof(k->ready));
	ASSERT_EQ((ssize_t)sizeof(k->ready), n)
		TH_LOG("%s %d died while setting up", cfg->name, pid);
	ASSERT_EQ(OP_READY, k->ready.op);
	ASSERT_EQ(0, k->ready.err)
		TH_LOG("%s %d: %s: %s", cfg->name, pid, k->ready.what,
		       strerror(k->ready.err));
	k->tid = k->ready.tid;
	return k;
}

static void kid_stop(struct kid *k)
{
	int status;

	if (k->pid <= 0)
		return;
	kill(k->pid, SIGKILL);
	waitpid(k->pid, &status, 0);
	close(k->to);
	close(k->from);
	k->pid = 0;
}

/* Run one command in the child; the reply must say it worked. */
static void kid_do(struct __test_metadata *_metadata, struct kid *k, int op,
		   struct reply *r)
{
	struct cmd c = { .op = op };
	ssize_t n;

	ASSERT_LT(0, k->pid);
	ASSERT_EQ((ssize_t)sizeof(c), nu_write_full(k->to, &c, sizeof(c)))
		TH_LOG("%s %d: cannot send %s", k->cfg->name, k->pid,
		       op_name(op));
	n = nu_read_full(k->from, r, sizeof(*r));
	ASSERT_EQ((ssize_t)sizeof(*r), n)
		TH_LOG("%s %d: no reply to %s, died?", k->cfg->name, k->pid,
		       op_name(op));
	ASSERT_EQ(op, r->op);
	ASSERT_EQ(0, r->err)
		TH_LOG("%s %d, %s: %s: %s", k->cfg->name, k->pid, op_name(op),
		       r->what, strerror(r->err));
}

/* Process and thread home nodes from outside. */
static int kid_home(const struct kid *k)
{
	return nu_home_node(k->pid, 0);
}

static int kid_thread_home(const struct kid *k)
{
	return k->tid ? nu_home_node(k->pid, k->tid) : INT_MIN;
}

static void log_kids(struct __test_metadata *_metadata,
		     FIXTURE_DATA(numad) *self, const char *when)
{
	int i;

	TH_LOG("children %s:", when);
	for (i = 0; i < self->nkids; i++) {
		const struct kid *k = &self->kid[i];
		int h, th;

		if (k->pid <= 0)
			continue;
		h = kid_home(k);
		th = kid_thread_home(k);
		TH_LOG("  %s %d: home %d%s, thread %d home %d%s, CPU %d, %lld ms of CPU time",
		       k->cfg->name, k->pid, h, home_note(h), k->tid, th,
		       home_note(th), self->slots[k->idx].cpu,
		       nu_cputime_ms(k->pid));
	}
}

/*
 * NR_VICTIMS victims forked pinned to node (home node), filled there, then
 * unpinned and spinning.  Returns the index of the first one.
 */
static int start_victims(struct __test_metadata *_metadata,
			 FIXTURE_DATA(numad) *self, const struct kid_cfg *cfg,
			 int n, int node)
{
	int first = self->nkids, i;

	for (i = 0; i < n; i++) {
		struct kid *k = kid_start(_metadata, self, cfg, node, -1);
		const struct reply *r = &k->ready;
		long on = r->on[0][node] + r->on[1][node];

		ASSERT_EQ(node, r->home)
			TH_LOG("%s %d forked pinned to node %d: home_node %d%s",
			       cfg->name, k->pid, node, r->home,
			       home_note(r->home));
		/* Its process's home, wherever numad has taken it since */
		ASSERT_EQ(r->home_after, r->thread_home)
			TH_LOG("thread of %s %d: home_node %d%s, want %d",
			       cfg->name, k->pid, r->thread_home,
			       home_note(r->thread_home), r->home_after);
		ASSERT_GE(on, PCT90(2 * r->npages))
			TH_LOG("%s %d: %ld of %ld pages filled on node %d",
			       cfg->name, k->pid, on, 2 * r->npages, node);
	}
	return first;
}

/* Deadline of a hang guard. */
struct guard {
	struct timespec end;
};

static void guard_start(struct guard *g, int secs)
{
	clock_gettime(CLOCK_MONOTONIC, &g->end);
	g->end.tv_sec += secs;
}

static int guard_expired(const struct guard *g)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > g->end.tv_sec ||
	       (now.tv_sec == g->end.tv_sec && now.tv_nsec >= g->end.tv_nsec);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void poll_pause(void)
{
	usleep(POLL_US);
}

/*
 * May node be a home now, other than node @not (-1: any)?  A node with
 * memory and a CPU that this test has not taken offline (the kernel's
 * node_can_be_home(): not a CPU-less node, nor a memoryless one).  On 2n
 * that is node 0 or 1, and node 0 alone once node 1's CPUs are offline.
 */
static int can_be_home(FIXTURE_DATA(numad) *self, int node, int not)
{
	int cpu;

	if (node < 0 || node >= (int)NU_MAXNODE || node == not ||
	    self->node_mem[node] != 1)
		return 0;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &self->node_cpus[node]) &&
		    !CPU_ISSET(cpu, &self->offlined))
			return 1;
	return 0;
}

/*
 * Index of the first of kids [first, first + n) moved off node @from (a
 * home node, not none: -1 or an error is not a move), or -1; its home in
 * *to if to is not NULL.  On two nodes: the first with home node 1.
 */
static int kid_moved(FIXTURE_DATA(numad) *self, int first, int n, int from,
		     int *to)
{
	int i, h;

	for (i = first; i < first + n; i++) {
		h = kid_home(&self->kid[i]);
		if (h >= 0 && h != from) {
			if (to)
				*to = h;
			return i;
		}
	}
	return -1;
}

/*
 * Poll until one of the victims [first, first + n), all forked at home on
 * node 0, has another home node (node 1 on two nodes; the nearest node with
 * room on more, but which numad pulls first is not what is tested here),
 * which must be one that can be a home; in *to.
 */
static int wait_moved(struct __test_metadata *_metadata,
		      FIXTURE_DATA(numad) *self, int first, int n,
		      const char *when, int *to)
{
	struct guard g;
	int i, h = -1;

	guard_start(&g, MOVE_GUARD);
	for (;;) {
		i = kid_moved(self, first, n, 0, &h);
		if (i >= 0) {
			EXPECT_TRUE(can_be_home(self, h, 0))
				TH_LOG("numad moved %d to node %d, which cannot be a home (no CPUs or no memory)",
				       self->kid[i].pid, h);
			if (to)
				*to = h;
			return i;
		}
		if (guard_expired(&g))
			break;
		poll_pause();
	}
	log_kids(_metadata, self, "when numad gave up");
	EXPECT_LE(0, i)
		TH_LOG("numad never moved a process%s (hang guard %d s)", when,
		       MOVE_GUARD);
	return -1;
}

/* Pid of numad/node (0 if none); *count: how many, or -errno. */
static int numad_pid(int node, int *count)
{
	char comm[16];
	int pids[4], n;

	snprintf(comm, sizeof(comm), "numad/%d", node);
	n = nu_pids_by_comm(comm, pids, 4);
	*count = n;
	return n > 0 ? pids[0] : 0;
}

static void start_burst(struct __test_metadata *_metadata,
			FIXTURE_DATA(numad) *self, int node, int n)
{
	pid_t parent = getpid(), pid = 0;
	int i, ret, err = 0;

	ASSERT_GE(MAX_BURST - self->nburst, n);
	ret = nu_pin_to_node(node);
	ASSERT_EQ(0, ret) TH_LOG("pin this task to node %d: %s", node,
				 strerror(-ret));
	fflush(stdout);
	fflush(stderr);
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid == 0) {
			child_prepare(self, parent);
			/* Pinned to node (inherited), runnable until killed. */
			for (;;)
				__asm__ __volatile__("" ::: "memory");
		}
		if (pid < 0) {
			err = errno;
			break;
		}
		self->burst[self->nburst++] = pid;
	}
	sched_setaffinity(0, sizeof(self->all_cpus), &self->all_cpus);
	ASSERT_EQ(n, i) TH_LOG("fork: %s", strerror(err));
}

static void stop_burst(FIXTURE_DATA(numad) *self)
{
	int i, status;

	for (i = 0; i < self->nburst; i++)
		kill(self->burst[i], SIGKILL);
	for (i = 0; i < self->nburst; i++)
		waitpid(self->burst[i], &status, 0);
	self->nburst = 0;
}

static void expect_sysctl(struct __test_metadata *_metadata,
			  const char *path, const char *want, const char *when)
{
	char val[16];

	ASSERT_EQ(0, nu_read_file(path, val, sizeof(val)))
		TH_LOG("cannot read %s", path);
	EXPECT_STREQ(want, val) TH_LOG("%s %s", path, when);
}

#define EXPECT_WRITE(want, path, val) do {				\
	int __r = nu_write_file(path, val);				\
	EXPECT_EQ(want, __r)						\
		TH_LOG("write \"%s\" to %s: %d (%s), want %d", val,	\
		       path, __r, __r ? strerror(-__r) : "ok", want);	\
} while (0)

/* Switch a feature and read it back. */
static void set_feat(struct __test_metadata *_metadata, const char *name,
		     int on)
{
	int r = nu_sched_feat_set(name, on);

	ASSERT_EQ(0, r) TH_LOG("write %s%s to " FEATURES ": %s",
			       on ? "" : "NO_", name, strerror(-r));
	r = nu_sched_feat(name);
	ASSERT_EQ(on, r) TH_LOG("%s reads back as %d after writing %s%s",
				name, r, on ? "" : "NO_", name);
}

static char cpu_online_path[64];

static const char *online_path(int cpu)
{
	snprintf(cpu_online_path, sizeof(cpu_online_path),
		 "/sys/devices/system/cpu/cpu%d/online", cpu);
	return cpu_online_path;
}

static void restore_feats(struct __test_metadata *_metadata,
			  FIXTURE_DATA(numad) *self)
{
	const char *p = self->old_feats;

	/* Every feature listed at setup, back to its state then. */
	while (*p) {
		char tok[64];
		size_t n;
		int want, cur, r;

		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n");
		if (!n)
			break;
		if (n >= sizeof(tok)) {
			p += n;
			continue;
		}
		memcpy(tok, p, n);
		tok[n] = '\0';
		p += n;
		want = strncmp(tok, "NO_", 3) != 0;
		cur = nu_sched_feat(want ? tok : tok + 3);
		if (cur < 0 || cur == want)
			continue;
		r = nu_write_file(FEATURES, tok);
		EXPECT_EQ(0, r) TH_LOG("restore %s in " FEATURES ": %s", tok,
				       strerror(-r));
	}
}

static void restore_sysctls(struct __test_metadata *_metadata,
			    FIXTURE_DATA(numad) *self)
{
	NU_EXPECT_SYSCTLS_RESTORED(&self->sysctls);
	EXPECT_WRITE(0, INTERVAL, self->old_interval);
}

FIXTURE_SETUP(numad)
{
	int node, r[2];
	size_t f;

	if (access(INTERVAL, F_OK))
		SKIP(return, "kernel lacks numad (no " INTERVAL ")");
	if (geteuid() != 0)
		SKIP(return, "needs root for the sysctls, debugfs and hotplug");
	if (!nu_have_two_nodes())
		SKIP(return, "needs NUMA nodes 0 and 1");
	for (node = 0; node < 2; node++)
		if (nu_node_cpuset(node, &self->node_cpus[node]) ||
		    CPU_COUNT(&self->node_cpus[node]) == 0)
			SKIP(return, "node %d has no CPUs", node);
	/* Every node, for the checks of where a home may be */
	for (node = 0; node < (int)NU_MAXNODE; node++) {
		CPU_ZERO(&self->node_cpus[node]);
		if (!nu_node_exists(node))
			continue;
		ASSERT_EQ(0, nu_node_cpuset(node, &self->node_cpus[node]))
			TH_LOG("cannot read node %d's cpulist", node);
		self->node_mem[node] = nu_node_has_memory(node);
		ASSERT_LE(0, self->node_mem[node])
			TH_LOG("cannot read " NU_SYSNODE "/has_memory");
	}
	if (access("/proc/self/sched", R_OK))
		SKIP(return, "no /proc/PID/sched (CONFIG_SCHED_DEBUG=n)");
	if (access(FEATURES, R_OK | W_OK))
		SKIP(return, "no writable " FEATURES " (debugfs not mounted?)");
	/* A dead child must fail a write, not kill the test. */
	signal(SIGPIPE, SIG_IGN);

	ASSERT_EQ(0, sched_getaffinity(0, sizeof(self->all_cpus),
				       &self->all_cpus));
	kid_wide = self->all_cpus;
	self->slots = mmap(NULL, MAX_KIDS * sizeof(*self->slots),
			   PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			   -1, 0);
	ASSERT_NE(MAP_FAILED, self->slots) {
		self->slots = NULL;
	}
	ASSERT_EQ(0, nu_numa_sysctls_save(&self->sysctls));
	ASSERT_EQ(0, nu_read_file(INTERVAL, self->old_interval,
				  sizeof(self->old_interval)));
	ASSERT_EQ(0, nu_read_file(FEATURES, self->old_feats,
				  sizeof(self->old_feats)));
	self->feats_saved = 1;

	/*
	 * sched_numa 0 first: it takes every home node away, this task's
	 * too.  Teardown only runs once setup returned, so a half-done switch
	 * is undone here before failing.
	 */
	r[0] = nu_numa_sysctls_set(1);
	r[1] = nu_write_file(INTERVAL, TEST_INTERVAL);
	if (r[0] || r[1])
		restore_sysctls(_metadata, self);
	ASSERT_EQ(0, r[0]) TH_LOG("sched_numa 1, numa_balancing 0: %s",
				  strerror(-r[0]));
	ASSERT_EQ(0, r[1]) TH_LOG("write " TEST_INTERVAL " to " INTERVAL ": %s",
				  strerror(-r[1]));
	self->restore = 1;

	/* Listed ones only: features_toggle fails on a missing one. */
	for (f = 0; f < NR_NEEDED; f++) {
		if (nu_sched_feat_in(self->old_feats, needed_feats[f]) != 0)
			continue;
		EXPECT_EQ(0, nu_sched_feat_set(needed_feats[f], 1))
			TH_LOG("cannot switch %s on", needed_feats[f]);
	}
}

FIXTURE_TEARDOWN(numad)
{
	int cpu, i, r;

	/*
	 * A failed ASSERT longjmp()s here with ->trigger still set, which
	 * would print the log of the next passing EXPECT.
	 */
	_metadata->trigger = 0;
	stop_burst(self);
	for (i = 0; i < self->nkids; i++)
		kid_stop(&self->kid[i]);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &self->offlined))
			continue;
		r = nu_write_file(online_path(cpu), "1");
		EXPECT_EQ(0, r) TH_LOG("cannot bring CPU %d back online: %s",
				       cpu, strerror(-r));
	}
	CPU_ZERO(&self->offlined);
	if (self->feats_saved)
		restore_feats(_metadata, self);
	if (self->restore)
		restore_sysctls(_metadata, self);
	if (self->slots)
		munmap(self->slots, MAX_KIDS * sizeof(*self->slots));
}

/* ------------------------------------------------------------------ */

TEST_F_TIMEOUT(numad, features_toggle, SHORT_TIMEOUT)
{
	char before[NU_FEAT_BUF], list[NU_FEAT_BUF];
	size_t i, j;
	int on, st;

	NU_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, nu_read_file(FEATURES, list, sizeof(list)));
	for (i = 0; i < NR_FEATS; i++) {
		EXPECT_LE(0, nu_sched_feat_in(list, numa_feats[i]))
			TH_LOG("%s is not listed in " FEATURES ": %s",
			       numa_feats[i], list);
	}
	ASSERT_TRUE(_metadata->passed) TH_LOG("features missing");

	for (i = 0; i < NR_FEATS; i++) {
		const char *f = numa_feats[i];

		ASSERT_EQ(0, nu_read_file(FEATURES, before, sizeof(before)));
		for (on = 0; on <= 1; on++) {
			st = nu_sched_feat_set(f, on);
			EXPECT_EQ(0, st)
				TH_LOG("write %s%s: %s", on ? "" : "NO_", f,
				       strerror(-st));
			ASSERT_EQ(0, nu_read_file(FEATURES, list,
						  sizeof(list)));
			EXPECT_EQ(on, nu_sched_feat_in(list, f))
				TH_LOG("%s after writing %s%s: %s", f,
				       on ? "" : "NO_", f, list);
			for (j = 0; j < NR_FEATS; j++) {
				if (j == i)
					continue;
				EXPECT_EQ(nu_sched_feat_in(before,
							   numa_feats[j]),
					  nu_sched_feat_in(list, numa_feats[j]))
					TH_LOG("%s changed when %s was switched %s",
					       numa_feats[j], f,
					       on ? "on" : "off");
			}
		}
	}
}

TEST_F_TIMEOUT(numad, interval_sysctl, SHORT_TIMEOUT)
{
	static const char *const bad[] = { "0", "99", "60001", "-1" };
	size_t i;

	NU_RETURN_IF_SKIPPED();
	expect_sysctl(_metadata, INTERVAL, TEST_INTERVAL, "after setup");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_WRITE(-EINVAL, INTERVAL, bad[i]);
		expect_sysctl(_metadata, INTERVAL, TEST_INTERVAL,
			      "after a refused write");
	}
	EXPECT_WRITE(0, INTERVAL, "100");
	expect_sysctl(_metadata, INTERVAL, "100", "after writing 100");
	EXPECT_WRITE(0, INTERVAL, "60000");
	expect_sysctl(_metadata, INTERVAL, "60000", "after writing 60000");
	EXPECT_WRITE(-EINVAL, INTERVAL, "99");
	expect_sysctl(_metadata, INTERVAL, "60000", "after writing 99");
	EXPECT_WRITE(0, INTERVAL, TEST_INTERVAL);
	expect_sysctl(_metadata, INTERVAL, TEST_INTERVAL, "restored");
}

TEST_F_TIMEOUT(numad, numad_threads, SHORT_TIMEOUT)
{
	unsigned long long flags = 0;
	int pid[2] = { 0, 0 }, node, n, r, pass;

	NU_RETURN_IF_SKIPPED();
	for (pass = 0; pass < 3; pass++) {
		const char *when = pass == 0 ? "with sched_numa = 1" :
				   pass == 1 ? "with sched_numa = 0" :
					       "with sched_numa = 1 again";

		if (pass == 1)
			ASSERT_EQ(0, nu_write_file(SCHED_NUMA, "0"));
		if (pass == 2)
			ASSERT_EQ(0, nu_write_file(SCHED_NUMA, "1"));
		for (node = 0; node < 2; node++) {
			int p = numad_pid(node, &n);

			ASSERT_LE(0, n) TH_LOG("cannot scan /proc: %s",
					       strerror(-n));
			EXPECT_EQ(1, n)
				TH_LOG("%d tasks called numad/%d %s, want one",
				       n, node, when);
			if (n < 1)
				continue;
			if (pass == 0) {
				pid[node] = p;
				r = nu_proc_stat_field(p, 9, &flags);
				EXPECT_EQ(0, r)
					TH_LOG("flags of numad/%d (pid %d): %s",
					       node, p, strerror(-r));
				EXPECT_TRUE(!r && (flags & PF_KTHREAD))
					TH_LOG("numad/%d (pid %d) is not a kernel thread (flags 0x%llx)",
					       node, p, flags);
			} else {
				EXPECT_EQ(pid[node], p)
					TH_LOG("numad/%d was pid %d, now %d %s",
					       node, pid[node], p, when);
			}
		}
	}
}

TEST_F_TIMEOUT(numad, numad_moves_process, LONG_TIMEOUT)
{
	long long m0, m1 = -1;
	struct reply r;
	struct guard g;
	struct kid *v;
	int first, i, h, th, to = -1;
	long nh;

	NU_RETURN_IF_SKIPPED();
	m0 = nu_vmstat("numa_lazy_marked");
	ASSERT_LE(0, m0) TH_LOG("no numa_lazy_marked in /proc/vmstat");

	first = start_victims(_metadata, self, &victim_cfg, NR_VICTIMS, 0);
	i = wait_moved(_metadata, self, first, NR_VICTIMS, "", &to);
	ASSERT_LE(0, i);
	v = &self->kid[i];
	nh = v->ready.npages;
	TH_LOG("numad moved victim %d to node %d", v->pid, to);

	/* Its memory is marked (by numad, or by the victim on its way out). */
	guard_start(&g, MARK_GUARD);
	for (;;) {
		m1 = nu_vmstat("numa_lazy_marked");
		if (m1 - m0 >= PCT90(2 * nh) || guard_expired(&g))
			break;
		poll_pause();
	}
	EXPECT_GE(m1 - m0, PCT90(2 * nh))
		TH_LOG("numa_lazy_marked grew by %lld after a move, want >= %ld (90%% of the buffer)",
		       m1 - m0, PCT90(2 * nh));

	/*
	 * Asleep from now on: not runnable, so numad leaves it where it is.
	 * With more than two nodes it may have been pulled on meanwhile (it
	 * spun until its memory was marked): its home now is where its
	 * memory goes, still a node other than 0 that can be a home.
	 */
	kid_do(_metadata, v, OP_STOP, &r);
	ASSERT_TRUE(can_be_home(self, r.home_after, 0))
		TH_LOG("moved victim, own view: home_node %d%s, want a node with CPUs and memory other than 0",
		       r.home_after, home_note(r.home_after));
	if (r.home_after != to)
		TH_LOG("victim %d moved on from node %d to node %d", v->pid,
		       to, r.home_after);
	to = r.home_after;

	/* Its thread follows (every thread of the process). */
	guard_start(&g, SETTLE_GUARD);
	while ((th = kid_thread_home(v)) != to && !guard_expired(&g))
		poll_pause();
	EXPECT_EQ(to, th)
		TH_LOG("thread %d of moved victim %d: home_node %d%s, want %d",
		       v->tid, v->pid, th, home_note(th), to);

	/* Read the first half only: it follows, the second half stays. */
	kid_do(_metadata, v, OP_TOUCH_FIRST, &r);
	ASSERT_EQ(to, r.home) TH_LOG("home_node %d before the touch", r.home);
	ASSERT_EQ(to, r.home_after)
		TH_LOG("home_node %d after the touch", r.home_after);
	EXPECT_EQ(-1, r.bad_off)
		TH_LOG("first half corrupted at offset %ld", r.bad_off);
	EXPECT_GE(r.on[0][to], PCT90(nh))
		TH_LOG("first half, read: %ld of %ld pages on node %d, %ld on node 0",
		       r.on[0][to], nh, to, r.on[0][0]);
	EXPECT_GE(r.on[1][0], PCT90(nh))
		TH_LOG("second half, untouched: %ld of %ld pages still on node 0, %ld on node %d",
		       r.on[1][0], nh, r.on[1][to], to);

	/* Reading the rest moves it too; all of it is intact. */
	kid_do(_metadata, v, OP_VERIFY, &r);
	EXPECT_EQ(-1, r.bad_off)
		TH_LOG("moved victim's buffer corrupted at offset %ld",
		       r.bad_off);
	EXPECT_GE(r.on[1][to], PCT90(nh))
		TH_LOG("second half, read: %ld of %ld pages on node %d, %ld on node 0",
		       r.on[1][to], nh, to, r.on[1][0]);
	EXPECT_GE(r.on[0][to], PCT90(nh))
		TH_LOG("first half at the end: %ld of %ld pages on node %d",
		       r.on[0][to], nh, to);

	/*
	 * Every victim asleep: none is runnable, numad moves no more.  Each
	 * thread has its process's node, each buffer is intact.
	 */
	for (i = first; i < first + NR_VICTIMS; i++)
		if (&self->kid[i] != v)
			kid_do(_metadata, &self->kid[i], OP_STOP, &r);
	guard_start(&g, SETTLE_GUARD);	/* one guard for all of them */
	for (i = first; i < first + NR_VICTIMS; i++) {
		struct kid *k = &self->kid[i];

		for (;;) {
			h = kid_home(k);
			th = kid_thread_home(k);
			if (h == th || guard_expired(&g))
				break;
			poll_pause();
		}
		EXPECT_EQ(h, th)
			TH_LOG("victim %d: home_node %d, its thread %d: %d",
			       k->pid, h, k->tid, th);
		/* On two nodes: 0 or 1 */
		EXPECT_TRUE(can_be_home(self, h, -1))
			TH_LOG("victim %d: home_node %d%s, not a node with CPUs and memory",
			       k->pid, h, home_note(h));
		kid_do(_metadata, k, OP_VERIFY, &r);
		EXPECT_EQ(-1, r.bad_off)
			TH_LOG("victim %d (home %d): buffer corrupted at offset %ld",
			       k->pid, h, r.bad_off);
	}
}

TEST_F_TIMEOUT(numad, policy_and_pinned_left_alone, LONG_TIMEOUT)
{
	struct kid *p, *q;
	struct guard g;
	int first, moved, done, to = -1;

	NU_RETURN_IF_SKIPPED();
	/* First, so that they are eligible (1 s of CPU) before the victims. */
	p = kid_start(_metadata, self, &pinned_cfg, 0, -1);
	ASSERT_EQ(0, p->ready.home)
		TH_LOG("child pinned to node 0: home_node %d%s",
		       p->ready.home, home_note(p->ready.home));
	q = kid_start(_metadata, self, &policy_cfg, -1, 0);
	ASSERT_EQ(-1, q->ready.home)
		TH_LOG("child forked with MPOL_BIND {0}: home_node %d%s",
		       q->ready.home, home_note(q->ready.home));
	first = start_victims(_metadata, self, &victim_cfg, NR_VICTIMS, 0);

	guard_start(&g, MOVE_GUARD);
	for (;;) {
		int ph = kid_home(p), pth = kid_thread_home(p);
		int qh = kid_home(q), qth = kid_thread_home(q);

		ASSERT_EQ(0, ph) TH_LOG("pinned child %d: home_node %d%s",
					p->pid, ph, home_note(ph));
		ASSERT_EQ(0, pth) TH_LOG("thread of the pinned child: home_node %d%s",
					 pth, home_note(pth));
		ASSERT_EQ(-1, qh) TH_LOG("MPOL_BIND child %d: home_node %d%s",
					 q->pid, qh, home_note(qh));
		ASSERT_EQ(-1, qth) TH_LOG("thread of the MPOL_BIND child: home_node %d%s",
					  qth, home_note(qth));
		moved = kid_moved(self, first, NR_VICTIMS, 0, &to);
		done = moved >= 0 && nu_cputime_ms(p->pid) >= ELIGIBLE_MS &&
		       nu_cputime_ms(q->pid) >= ELIGIBLE_MS;
		if (done)
			break;
		if (guard_expired(&g)) {
			log_kids(_metadata, self, "when numad gave up");
			ASSERT_TRUE(done)
				TH_LOG("numad never moved a process, or the two children never got %d ms of CPU (hang guard %d s)",
				       ELIGIBLE_MS, MOVE_GUARD);
		}
		poll_pause();
	}
	TH_LOG("numad moved victim %d to node %d; pinned child %d and MPOL_BIND child %d stayed",
	       self->kid[moved].pid, to, p->pid, q->pid);
	EXPECT_TRUE(can_be_home(self, to, 0))
		TH_LOG("victim %d moved to node %d, which cannot be a home",
		       self->kid[moved].pid, to);
	EXPECT_TRUE(cpu_in(&self->node_cpus[0], self->slots[p->idx].cpu))
		TH_LOG("pinned child runs on CPU %d", self->slots[p->idx].cpu);
}

/*
 * Wait until every victim of [first, first + n) has run at least @ms of CPU
 * time; with @home >= 0, each must keep that home node meanwhile.
 */
static void wait_cputime(struct __test_metadata *_metadata,
			 FIXTURE_DATA(numad) *self, int first, int n,
			 long long ms, int home, const char *why)
{
	struct guard g;
	long long t;
	int i, h, done;

	guard_start(&g, CPU_GUARD);
	for (;;) {
		done = 1;
		for (i = first; i < first + n; i++) {
			struct kid *k = &self->kid[i];

			t = nu_cputime_ms(k->pid);
			ASSERT_LE(0, t) TH_LOG("no CPU time for %d", k->pid);
			h = home >= 0 ? kid_home(k) : home;
			ASSERT_EQ(home, h)
				TH_LOG("victim %d: home_node %d%s %s (%lld ms of CPU)",
				       k->pid, h, home_note(h), why, t);
			if (t < ms)
				done = 0;
		}
		if (done)
			return;
		if (guard_expired(&g)) {
			log_kids(_metadata, self, "at the hang guard");
			ASSERT_TRUE(done)
				TH_LOG("victims never got %lld ms of CPU time each (hang guard %d s)",
				       ms, CPU_GUARD);
		}
		poll_pause();
	}
}

TEST_F_TIMEOUT(numad, no_move_without_balance, LONG_TIMEOUT)
{
	long long m0, m1;
	int first, i;

	NU_RETURN_IF_SKIPPED();
	set_feat(_metadata, "NUMA_BALANCE", 0);
	m0 = nu_vmstat("numa_lazy_marked");
	first = start_victims(_metadata, self, &victim_cfg, NR_VICTIMS, 0);

	/*
	 * Until every victim has run NOBAL_CPU_MS: eligible (ELIGIBLE_MS)
	 * for more than 10 intervals of 200 ms, and overloaded all along.
	 */
	wait_cputime(_metadata, self, first, NR_VICTIMS, NOBAL_CPU_MS, 0,
		     "with NUMA_BALANCE off");
	m1 = nu_vmstat("numa_lazy_marked");
	EXPECT_EQ(m0, m1)
		TH_LOG("numa_lazy_marked grew by %lld with NUMA_BALANCE off",
		       m1 - m0);

	/* Control: the same victims, NUMA_BALANCE back on, are moved. */
	set_feat(_metadata, "NUMA_BALANCE", 1);
	i = wait_moved(_metadata, self, first, NR_VICTIMS,
		       " once NUMA_BALANCE was back on", NULL);
	ASSERT_LE(0, i);
}

TEST_F_TIMEOUT(numad, transient_imbalance, LONG_TIMEOUT)
{
	struct reply r;
	long long m0, m1, t0;
	int first, i, h;

	NU_RETURN_IF_SKIPPED();
	/* Victims eligible to move (ELIGIBLE_MS), made with NUMA_BALANCE off */
	set_feat(_metadata, "NUMA_BALANCE", 0);
	first = start_victims(_metadata, self, &victim_cfg, NR_VICTIMS, 0);
	wait_cputime(_metadata, self, first, NR_VICTIMS, 2 * ELIGIBLE_MS, -1,
		     "");
	for (i = first; i < first + NR_VICTIMS; i++)
		kid_do(_metadata, &self->kid[i], OP_STOP, &r);

	/*
	 * numad samples every TRANSIENT_INTERVAL ms, so a burst shorter than
	 * two intervals is seen by at most two consecutive samples: numad
	 * must move nothing for it (NUMAD_SETTLE is three), however loaded
	 * node 0 looks meanwhile.
	 */
	ASSERT_EQ(0, nu_write_file(INTERVAL, TRANSIENT_INTERVAL));
	set_feat(_metadata, "NUMA_BALANCE", 1);
	m0 = nu_vmstat("numa_lazy_marked");
	t0 = now_ms();
	for (i = first; i < first + NR_VICTIMS; i++)
		kid_do(_metadata, &self->kid[i], OP_SPIN, &r);
	while (now_ms() - t0 < TRANSIENT_MS)
		poll_pause();
	for (i = first; i < first + NR_VICTIMS; i++)
		kid_do(_metadata, &self->kid[i], OP_STOP, &r);
	TH_LOG("burst of %lld ms", now_ms() - t0);
	/* Two more intervals after it: what was seen must not act late */
	t0 = now_ms();
	while (now_ms() - t0 < 2 * atoi(TRANSIENT_INTERVAL))
		poll_pause();
	for (i = first; i < first + NR_VICTIMS; i++) {
		h = kid_home(&self->kid[i]);
		EXPECT_EQ(0, h)
			TH_LOG("victim %d: home_node %d%s after a burst shorter than two numad intervals",
			       self->kid[i].pid, h, home_note(h));
	}
	m1 = nu_vmstat("numa_lazy_marked");
	EXPECT_EQ(m0, m1)
		TH_LOG("numa_lazy_marked grew by %lld for a transient imbalance",
		       m1 - m0);

	/* Control: the same overload, lasting, moves a victim. */
	for (i = first; i < first + NR_VICTIMS; i++)
		kid_do(_metadata, &self->kid[i], OP_SPIN, &r);
	i = wait_moved(_metadata, self, first, NR_VICTIMS,
		       " when the overload lasted", NULL);
	ASSERT_LE(0, i);
	kid_do(_metadata, &self->kid[i], OP_VERIFY, &r);
	EXPECT_EQ(-1, r.bad_off)
		TH_LOG("victim %d: contents corrupted at %ld", self->kid[i].pid,
		       r.bad_off);
}

TEST_F_TIMEOUT(numad, burst_returns_home, LONG_TIMEOUT)
{
	struct guard g;
	struct kid *t;
	int cpu, h;

	NU_RETURN_IF_SKIPPED();
	set_feat(_metadata, "NUMA_BALANCE", 0);
	t = kid_start(_metadata, self, &lone_cfg, 0, -1);
	ASSERT_EQ(0, t->ready.home)
		TH_LOG("T forked pinned to node 0: home_node %d%s",
		       t->ready.home, home_note(t->ready.home));

	/* T is at home. */
	guard_start(&g, HOME_GUARD);
	while (!cpu_in(&self->node_cpus[0], cpu = self->slots[t->idx].cpu)) {
		ASSERT_FALSE(guard_expired(&g))
			TH_LOG("T never ran on node 0 (last on CPU %d)", cpu);
		poll_pause();
	}

	/* The burst overloads node 0: the load balancer pushes T away. */
	start_burst(_metadata, self, 0, NR_BURST);
	guard_start(&g, PUSH_GUARD);
	for (;;) {
		h = kid_home(t);
		ASSERT_EQ(0, h) TH_LOG("T during the burst: home_node %d%s",
				       h, home_note(h));
		cpu = self->slots[t->idx].cpu;
		/* Off node 0: to node 1 on two nodes, any other on more */
		if (cpu >= 0 && cpu < CPU_SETSIZE &&
		    !cpu_in(&self->node_cpus[0], cpu))
			break;
		if (guard_expired(&g)) {
			ASSERT_TRUE(_metadata->passed);
			SKIP(return, "the load balancer never moved T off node 0 in %d s (last on CPU %d)",
			     PUSH_GUARD, cpu);
		}
		poll_pause();
	}
	TH_LOG("T pushed to CPU %d by the burst", cpu);
	stop_burst(self);

	/* Node 0 idle again: T comes home. */
	guard_start(&g, RETURN_GUARD);
	for (;;) {
		h = kid_home(t);
		ASSERT_EQ(0, h) TH_LOG("T after the burst: home_node %d%s", h,
				       home_note(h));
		cpu = self->slots[t->idx].cpu;
		if (cpu_in(&self->node_cpus[0], cpu))
			break;
		ASSERT_FALSE(guard_expired(&g))
			TH_LOG("T never came back to node 0 after the burst (still on CPU %d, hang guard %d s)",
			       cpu, RETURN_GUARD);
		poll_pause();
	}
	h = kid_home(t);
	EXPECT_EQ(0, h) TH_LOG("T at the end: home_node %d%s", h,
			       home_note(h));
}

TEST_F_TIMEOUT(numad, hotplug_node, LONG_TIMEOUT)
{
	cpu_set_t n1 = self->node_cpus[1];
	int first, i, cpu, n, r, h, th, n1_homes;
	struct reply rep;
	struct guard g;
	char val[16];

	NU_RETURN_IF_SKIPPED();
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &n1))
			continue;
		if (access(online_path(cpu), W_OK))
			SKIP(return, "CPU %d of node 1 cannot go offline (no %s)",
			     cpu, online_path(cpu));
		ASSERT_EQ(0, nu_read_file(online_path(cpu), val, sizeof(val)));
		if (strcmp(val, "1"))
			SKIP(return, "CPU %d of node 1 is offline already",
			     cpu);
	}
	numad_pid(1, &n);
	ASSERT_EQ(1, n) TH_LOG("%d tasks called numad/1 before hotplug", n);

	first = start_victims(_metadata, self, &victim_cfg, NR_HP_SPIN, 1);
	start_victims(_metadata, self, &sleeper_cfg, 1, 1);

	/*
	 * Something to re-home: the sleeper is never runnable, and numad
	 * leaves at least two of the three spinners on node 1 (it moves about
	 * half of a difference of 2 or more).
	 */
	for (n1_homes = 0, i = first; i < self->nkids; i++)
		n1_homes += kid_home(&self->kid[i]) == 1;
	log_kids(_metadata, self, "before node 1's CPUs go offline");
	ASSERT_LT(0, n1_homes) TH_LOG("no child has home node 1 any more");

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &n1))
			continue;
		CPU_SET(cpu, &self->offlined);	/* teardown brings it back */
		r = nu_write_file(online_path(cpu), "0");
		ASSERT_EQ(0, r) TH_LOG("offline CPU %d: %s", cpu,
				       strerror(-r));
	}

	/* numad/1 stops. */
	guard_start(&g, HOTPLUG_GUARD);
	while (numad_pid(1, &n), n > 0) {
		ASSERT_FALSE(guard_expired(&g))
			TH_LOG("numad/1 still there with node 1 CPU-less (hang guard %d s)",
			       HOTPLUG_GUARD);
		poll_pause();
	}
	ASSERT_EQ(0, n) TH_LOG("cannot scan /proc: %s", strerror(-n));
	numad_pid(0, &n);
	EXPECT_EQ(1, n) TH_LOG("%d tasks called numad/0 with node 1 CPU-less",
			       n);

	/*
	 * Every home on node 1 moved to a node that can be one (node 0 on
	 * two nodes; with more, numad may have pulled them on since), the
	 * threads' with their process's.
	 */
	guard_start(&g, HOTPLUG_GUARD);	/* one guard for all of them */
	for (i = first; i < self->nkids; i++) {
		struct kid *k = &self->kid[i];

		for (;;) {
			h = kid_home(k);
			th = kid_thread_home(k);
			if ((can_be_home(self, h, 1) && th == h) ||
			    guard_expired(&g))
				break;
			poll_pause();
		}
		EXPECT_TRUE(can_be_home(self, h, 1))
			TH_LOG("%s %d with node 1 CPU-less: home_node %d%s, want a node with online CPUs and memory but node 1",
			       k->cfg->name, k->pid, h, home_note(h));
		EXPECT_EQ(h, th)
			TH_LOG("thread of %s %d with node 1 CPU-less: home_node %d%s, its process's %d",
			       k->cfg->name, k->pid, th, home_note(th), h);
	}
	/*
	 * All alive, running on a CPU that is online (not node 1's: node 0's
	 * on two nodes), contents intact.
	 */
	for (i = first; i < self->nkids; i++) {
		struct kid *k = &self->kid[i];

		kid_do(_metadata, k, OP_PING, &rep);
		EXPECT_TRUE(cpu_in(&self->all_cpus, rep.cpu) &&
			    !cpu_in(&n1, rep.cpu))
			TH_LOG("%s %d answered from CPU %d (node 1's CPUs are offline)",
			       k->cfg->name, k->pid, rep.cpu);
		EXPECT_TRUE(can_be_home(self, rep.home, 1))
			TH_LOG("%s %d, own view: home_node %d%s", k->cfg->name,
			       k->pid, rep.home, home_note(rep.home));
		kid_do(_metadata, k, OP_VERIFY, &rep);
		EXPECT_EQ(-1, rep.bad_off)
			TH_LOG("%s %d: buffer corrupted at offset %ld",
			       k->cfg->name, k->pid, rep.bad_off);
	}

	/* Node 1's CPUs back: numad/1 starts again. */
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &self->offlined))
			continue;
		r = nu_write_file(online_path(cpu), "1");
		ASSERT_EQ(0, r) TH_LOG("online CPU %d: %s", cpu, strerror(-r));
		CPU_CLR(cpu, &self->offlined);
	}
	guard_start(&g, HOTPLUG_GUARD);
	while (numad_pid(1, &n), n == 0) {
		ASSERT_FALSE(guard_expired(&g))
			TH_LOG("no numad/1 after node 1's CPUs came back (hang guard %d s)",
			       HOTPLUG_GUARD);
		poll_pause();
	}
	EXPECT_EQ(1, n) TH_LOG("%d tasks called numad/1 after hotplug", n);
	numad_pid(0, &n);
	EXPECT_EQ(1, n) TH_LOG("%d tasks called numad/0 after hotplug", n);
	for (i = first; i < self->nkids; i++)
		kid_do(_metadata, &self->kid[i], OP_PING, &rep);
}

/*
 * Sysctl writes against CPU hotplug of node 1's last CPU.  The sysctl
 * handlers flip static keys with sched_numa_mutex held; with JUMP_LABEL a
 * flip takes the CPU hotplug lock for reading, while CPU hotplug's
 * teardown, holding it for writing, waits in kthread_stop() for a numad
 * that waits for the mutex: every one of them hung for good (the
 * hung-task detector reported cpuhp/3, numad/0, numad/1 and the writers).
 * The CPU hotplug lock now comes first.  One CPU of node 1 stays offline
 * so that each cycle of the other stops and starts numad/1; a child
 * writes kernel.numa_balancing=0 (a key flip that changes nothing still
 * takes the lock) and switches sched/numa off and on; four spinners keep
 * the numads busy at a 100 ms interval.  Passes when every write and
 * every hotplug cycle returns, numad/1 is back and sched/numa is on.
 */
#define HP_CYCLES	60

TEST_F_TIMEOUT(numad, hotplug_vs_sysctl, LONG_TIMEOUT)
{
	cpu_set_t n1 = self->node_cpus[1];
	int cpus[2], ncpu = 0, cpu, i, r, n, status, fails = 0;
	pid_t writer;
	char val[16];

	NU_RETURN_IF_SKIPPED();
	for (cpu = 0; cpu < CPU_SETSIZE && ncpu < 2; cpu++) {
		if (!CPU_ISSET(cpu, &n1))
			continue;
		if (access(online_path(cpu), W_OK))
			SKIP(return, "CPU %d of node 1 cannot go offline", cpu);
		ASSERT_EQ(0, nu_read_file(online_path(cpu), val, sizeof(val)));
		if (strcmp(val, "1"))
			SKIP(return, "CPU %d of node 1 is offline already", cpu);
		cpus[ncpu++] = cpu;
	}
	if (ncpu < 2)
		SKIP(return, "node 1 needs two CPUs");
	EXPECT_WRITE(0, INTERVAL, "100");
	start_victims(_metadata, self, &victim_cfg, 4, 0);

	r = nu_write_file(online_path(cpus[0]), "0");
	ASSERT_EQ(0, r) TH_LOG("offline CPU %d: %s", cpus[0], strerror(-r));
	CPU_SET(cpus[0], &self->offlined);	/* teardown brings it back */

	fflush(stdout);
	fflush(stderr);
	writer = fork();
	ASSERT_LE(0, writer);
	if (writer == 0) {
		int bad = 0;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;) {
			bad += !!nu_write_file(NU_BALANCING, "0");
			bad += !!nu_write_file(NU_SCHED_NUMA, "0");
			bad += !!nu_write_file(NU_BALANCING, "0");
			bad += !!nu_write_file(NU_SCHED_NUMA, "1");
			if (bad)
				_exit(1);
		}
	}
	for (i = 0; i < HP_CYCLES; i++) {
		r = nu_write_file(online_path(cpus[1]), "0");
		if (r) {
			TH_LOG("cycle %d: offline CPU %d: %s", i, cpus[1],
			       strerror(-r));
			fails++;
			continue;
		}
		r = nu_write_file(online_path(cpus[1]), "1");
		if (r) {
			TH_LOG("cycle %d: online CPU %d: %s", i, cpus[1],
			       strerror(-r));
			fails++;
			break;
		}
	}
	ASSERT_EQ(0, waitpid(writer, &status, WNOHANG))
		TH_LOG("the sysctl writer stopped: status 0x%x", status);
	kill(writer, SIGKILL);
	ASSERT_EQ(writer, waitpid(writer, &status, 0));
	EXPECT_EQ(0, fails);
	/* The writer may have stopped between its two sched_numa writes */
	EXPECT_WRITE(0, NU_SCHED_NUMA, "1");
	expect_sysctl(_metadata, NU_SCHED_NUMA, "1", "after the cycles");
	numad_pid(1, &n);
	EXPECT_EQ(1, n) TH_LOG("%d tasks called numad/1 with CPU %d online",
			       n, cpus[1]);
}

TEST_HARNESS_MAIN
