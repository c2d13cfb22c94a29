// SPDX-License-Identifier: GPL-2.0
/*
 * migrate_pages(2): move another process' pages and our own between nodes.
 *
 * linux-6.1 kernel_migrate_pages() (mm/mempolicy.c):
 *   - returns the number of pages that could not be moved (>= 0);
 *   - no task with that pid                       -> ESRCH;
 *   - !ptrace_may_access(PTRACE_MODE_READ_REALCREDS) -> EPERM (checked
 *     before the node masks are compared with the target's cpuset).
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include <grp.h>
#include "numa_util.h"

#define NPAGES	1024	/* 4 MiB with 4K pages */
#define SEED	0xc0ffeeULL

FIXTURE(migrate) {
	char *buf;
	size_t len;
};

FIXTURE_SETUP(migrate)
{
	if (!nu_have_two_nodes())
		SKIP(return, "needs NUMA nodes 0 and 1");
	self->len = NPAGES * nu_page_size();
}

FIXTURE_TEARDOWN(migrate)
{
	nu_free(self->buf, NPAGES);
}

/* Child exit codes (0 = all good). */
enum {
	CHILD_OK = 0,
	CHILD_PIN = 10,
	CHILD_ALLOC,
	CHILD_NOT_ON_0,
	CHILD_PIPE,
	CHILD_NOT_ON_1,
	CHILD_DATA,
};

static int child_body(int ready_fd, int go_fd, size_t len)
{
	char *buf;
	char go;

	if (nu_pin_to_node(0))
		return CHILD_PIN;
	buf = nu_alloc(NPAGES);
	if (!buf)
		return CHILD_ALLOC;
	nu_fill(buf, len, SEED);
	if (nu_count_on_node(buf, NPAGES, 0) != NPAGES)
		return CHILD_NOT_ON_0;
	if (write(ready_fd, &buf, sizeof(buf)) != sizeof(buf))
		return CHILD_PIPE;
	/* Parent migrates us, then writes one byte (EOF = parent died). */
	if (read(go_fd, &go, 1) != 1)
		return CHILD_PIPE;
	if (nu_count_on_node(buf, NPAGES, 1) != NPAGES)
		return CHILD_NOT_ON_1;
	if (nu_verify(buf, len, SEED) != -1)
		return CHILD_DATA;
	return CHILD_OK;
}

TEST_F(migrate, child_node0_to_node1)
{
	unsigned long from = NU_MASK(0), to = NU_MASK(1);
	int ready[2], go[2], wstatus;
	char *child_buf = NULL;
	pid_t pid;
	long ret;

	NU_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		_exit(child_body(ready[1], go[0], self->len));
	}
	close(ready[1]);
	close(go[0]);

	/* Child is ready: its 4 MiB are faulted in on node 0. */
	if (read(ready[0], &child_buf, sizeof(child_buf)) !=
	    (ssize_t)sizeof(child_buf)) {
		waitpid(pid, &wstatus, 0);
		/* 10 pin, 11 alloc, 12 not on node 0, 13 pipe */
		ASSERT_TRUE(0) TH_LOG("child setup failed, wait status 0x%x",
				      wstatus);
	}
	ASSERT_EQ(NPAGES, nu_count_on_node_pid(pid, child_buf, NPAGES, 0));

	ret = migrate_pages(pid, NU_MAXNODE, &from, &to);
	TH_LOG("migrate_pages(child, {0}, {1}) = %ld", ret);
	ASSERT_GE(ret, 0);
	/* Seen from the parent: all of the child's buffer is now on node 1. */
	EXPECT_EQ(NPAGES, nu_count_on_node_pid(pid, child_buf, NPAGES, 1));

	/* Let the child check placement and contents itself. */
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &wstatus, 0));
	ASSERT_TRUE(WIFEXITED(wstatus));
	ASSERT_EQ(CHILD_OK, WEXITSTATUS(wstatus));
	close(ready[0]);
	close(go[1]);
}

TEST_F(migrate, self_node0_to_node1_and_back)
{
	unsigned long n0 = NU_MASK(0), n1 = NU_MASK(1);
	long ret;

	NU_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, nu_pin_to_node(0));
	self->buf = nu_alloc(NPAGES);
	ASSERT_NE(NULL, self->buf);
	nu_fill(self->buf, self->len, SEED + 1);
	ASSERT_EQ(NPAGES, nu_count_on_node(self->buf, NPAGES, 0));

	ret = migrate_pages(0, NU_MAXNODE, &n0, &n1);	/* pid 0 = self */
	TH_LOG("migrate_pages(0, {0}, {1}) = %ld", ret);
	ASSERT_GE(ret, 0);
	ASSERT_EQ(NPAGES, nu_count_on_node(self->buf, NPAGES, 1));
	ASSERT_EQ(-1, nu_verify(self->buf, self->len, SEED + 1));

	ret = migrate_pages(getpid(), NU_MAXNODE, &n1, &n0);
	TH_LOG("migrate_pages(getpid(), {1}, {0}) = %ld", ret);
	ASSERT_GE(ret, 0);
	ASSERT_EQ(NPAGES, nu_count_on_node(self->buf, NPAGES, 0));
	ASSERT_EQ(-1, nu_verify(self->buf, self->len, SEED + 1));
}

/* Error paths: need only node 0, so they also run on 1-node hosts. */
FIXTURE(migrate_err) {
	unsigned long n0;
};

FIXTURE_SETUP(migrate_err)
{
	self->n0 = NU_MASK(0);
}

FIXTURE_TEARDOWN(migrate_err)
{
}

TEST_F(migrate_err, esrch_no_such_pid)
{
	errno = 0;
	EXPECT_EQ(-1, migrate_pages(nu_unused_pid(), NU_MAXNODE, &self->n0,
				    &self->n0));
	EXPECT_EQ(ESRCH, errno);
}

TEST_F(migrate_err, eperm_unprivileged_vs_init)
{
	int wstatus;
	pid_t pid;

	if (geteuid() != 0)
		SKIP(return, "needs root to drop to uid 65534");
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		long ret;

		/* Drop all privileges: groups, gid, then uid (clears caps). */
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(10);
		if (geteuid() != 65534)
			_exit(11);
		errno = 0;
		ret = migrate_pages(1, NU_MAXNODE, &self->n0, &self->n0);
		if (ret != -1)
			_exit(12);
		_exit(errno == EPERM ? 0 : 13);
	}
	ASSERT_EQ(pid, waitpid(pid, &wstatus, 0));
	ASSERT_TRUE(WIFEXITED(wstatus));
	/* 10/11: could not drop privileges, 12: call succeeded, 13: errno */
	ASSERT_EQ(0, WEXITSTATUS(wstatus));
}

TEST_HARNESS_MAIN
