// SPDX-License-Identifier: GPL-2.0
/*
 * Static keys flipped while their sites run: with CONFIG_JUMP_LABEL, as
 * distributions build, each flip rewrites the kernel's text
 * (text_poke_bp(): an int3 on the site, IPIs to every CPU, the new
 * instruction, the int3 taken away), and a CPU running the site at that
 * moment goes through the int3 handler.
 *
 *   flip_under_load  four processes map, touch, check and unmap memory,
 *                    fork and exit, and yield (the sites of the series'
 *                    hooks: faults, zap_pte_range(), fork, the fair
 *                    class), while this one switches kernel.numa_balancing
 *                    (6.1's key sched_numa_balancing) and, on a kernel
 *                    with the series, kernel.sched_numa (sched_numa_enabled)
 *                    on and off, SK_FLIPS times each.  Every write must
 *                    succeed and read back, so every flip happened (a
 *                    no-op write would prove nothing); the loaders must
 *                    live on with their data intact.
 *
 * QEMU before 8.1 fails this under multi-threaded TCG: a vCPU may run a
 * translated block made while the int3 was in place after the int3 is
 * gone, and the guest dies of "int3: 0000 [#1]" at the site (QEMU commit
 * deba78709ae8; README, "The int3 crash").  SK_FLIPS in the environment
 * sets the count (make int3-experiment); the kernel command line's
 * snflips= sets it through the guest's init.
 */
#define _GNU_SOURCE
#include "numa_util.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#define NLOADERS	4
#define LOAD_PAGES	64
#define SEED		0x736bULL

/* The harness's functions and the signal handler have parameters they
 * do not use */
#pragma GCC diagnostic ignored "-Wunused-parameter"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	stop = 1;
}

static int loader(int i)
{
	size_t len = LOAD_PAGES * nu_page_size();
	long bad = 0, n;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGTERM, on_term);
	for (n = 0; !stop; n++) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 2;
		nu_fill(p, len, SEED + i + n);
		if (nu_verify(p, len, SEED + i + n) != -1)
			bad++;
		munmap(p, len);
		if (n % 16 == 0) {
			pid_t c = fork();

			if (c == 0)
				_exit(0);
			if (c > 0)
				waitpid(c, NULL, 0);
		}
		sched_yield();
	}
	return bad ? 1 : 0;
}

/* Write @val to @path and read it back: 0, or -errno / -EIO */
static int set_and_check(const char *path, const char *val)
{
	char buf[16];
	int r = nu_write_file(path, val);

	if (r)
		return r;
	r = nu_read_file(path, buf, sizeof(buf));
	if (r)
		return r;
	return strcmp(buf, val) ? -EIO : 0;
}

FIXTURE(sk) {
};

FIXTURE_SETUP(sk)
{
}

FIXTURE_TEARDOWN(sk)
{
}

/* Minutes on the debug kernel (KASAN, lockdep) under TCG */
TEST_F_TIMEOUT(sk, flip_under_load, 900)
{
	int have_sn = !access(NU_SCHED_NUMA, F_OK);
	struct nu_numa_sysctls saved;
	const char *env = getenv("SK_FLIPS");
	int flips = env ? atoi(env) : 300;
	int i, r, status, done = 0, bad = 0;
	pid_t pid[NLOADERS];

	if (geteuid() != 0)
		SKIP(return, "needs root for the sysctls");
	if (access(NU_BALANCING, W_OK))
		SKIP(return, "no " NU_BALANCING " (CONFIG_NUMA_BALANCING=n)");
	if (have_sn) {
		ASSERT_EQ(0, nu_numa_sysctls_save(&saved));
	} else {
		ASSERT_EQ(0, nu_read_file(NU_BALANCING, saved.balancing,
					  sizeof(saved.balancing)));
	}
	if (have_sn)
		ASSERT_EQ(0, nu_numa_sysctls_set(0));

	for (i = 0; i < NLOADERS; i++) {
		fflush(stdout);
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (pid[i] == 0)
			_exit(loader(i));
	}
	for (i = 0; i < flips; i++) {
		r = set_and_check(NU_BALANCING, "1");
		r = r ?: set_and_check(NU_BALANCING, "0");
		if (have_sn) {
			r = r ?: set_and_check(NU_SCHED_NUMA, "1");
			r = r ?: set_and_check(NU_SCHED_NUMA, "0");
		}
		if (r) {
			TH_LOG("flip %d: %s", i, strerror(-r));
			break;
		}
		done++;
	}
	for (i = 0; i < NLOADERS; i++) {
		EXPECT_EQ(0, waitpid(pid[i], &status, WNOHANG))
			TH_LOG("loader %d stopped during the flips", i);
		kill(pid[i], SIGTERM);
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	TH_LOG("%d rounds of %d key flips under load", done, have_sn ? 4 : 2);
	EXPECT_EQ(flips, done);
	EXPECT_EQ(0, bad) TH_LOG("%d loaders failed or saw their data change",
				 bad);
	if (have_sn) {
		EXPECT_EQ(0, nu_numa_sysctls_restore(&saved));
	} else {
		EXPECT_EQ(0, nu_write_file(NU_BALANCING, saved.balancing));
	}
}

TEST_HARNESS_MAIN
