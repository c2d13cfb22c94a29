// SPDX-License-Identifier: GPL-2.0
/*
 * The CI locality check: the disturbance scenario of the locality benchmark
 * (tests/bench/numabench.c, "disturb": 2 x CPUs streaming processes, two CPU
 * hogs pinned to one node and hopping to the other every 3 s) run in each
 * NUMA mode in this one boot, and compared with the "off" mode's run.
 *
 *   disturb.off_baseline    off (numa_balancing=0, sched_numa=0), REPS
 *                           runs; their figures are kept in /tmp for the
 *                           next two tests
 *   disturb.autonuma_above_off
 *                           automatic NUMA balancing still works in the
 *                           patched kernel: it migrated at least MIN_MIGRATED
 *                           pages, and its second-half locality is not below
 *                           off's median by more than AUTONUMA_SLACK
 *   disturb.sched_numa_above_off
 *                           sched/numa (kernel.sched_numa=1) keeps tasks
 *                           with their memory: the median second-half
 *                           locality of REPS runs is at least MARGIN above
 *                           off's median; SKIP when the kernel has no
 *                           sched/numa (numabench: absent=1)
 *
 * Every run must also report data=ok (every buffer verified at the end).
 * The figures (mean, second half, pages migrated) are printed with
 * TH_LOG and the benchmark's own ##BENCH/##SERIES lines go to the console,
 * so the ratios are in the test output whether it passes or fails.
 *
 * Locality is placement, not speed: the share of a task's resident pages on
 * the node of the CPU it runs on, sampled every 0.5 s.  All runs of a
 * comparison happen in the same boot, on the same loaded host, so the
 * comparison does not depend on how fast the machine is.  The margins come
 * from measured spread (20 s runs, second half, this series at commit
 * a121d0a, 7 boots or repetitions in one boot): off 0.49-0.75, autonuma
 * 0.77-0.88 with 40000-67000 pages migrated, sched-numa 0.73-0.89; the
 * paired difference sched-numa - off was 0.09-0.39 (median 0.21), and
 * autonuma - off 0.12-0.36, once -0.03.  Off itself varies that much
 * because where the load balancer happens to move the streams when the
 * hogs hop decides how much memory ends up remote.  One run of each was
 * not enough: a CI run of the series with 0028 had off at 0.811 (the
 * balancer happened to move the same streams back and forth) against
 * sched-numa's 0.850, a difference of 0.039.  So each of off and
 * sched-numa runs REPS times and their medians are compared: one lucky
 * off run or one unlucky sched-numa run no longer decides.  sched/numa's
 * median must be 0.05 above off's, and automatic NUMA balancing must
 * migrate pages (a broken one migrates none) and stay within 0.10 of
 * off's median.
 */
#define _GNU_SOURCE
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SECS		"20"	/* per run; the second half is the last 10 s */
#define MARGIN		0.05	/* sched-numa: second-half locality above off's */
#define AUTONUMA_SLACK	0.10	/* autonuma: not below off's by more */
#define MIN_MIGRATED	1000	/* autonuma: pgmigrate_success delta, pages */
#define REPS		3	/* runs of off and of sched-numa; medians */
#define OFF_FILE	"/tmp/locality-off"
#define RUN_TIMEOUT	900	/* seconds; REPS runs with setup under TCG */

FIXTURE(disturb) {};
FIXTURE_SETUP(disturb) {}
FIXTURE_TEARDOWN(disturb) {}

struct bench {
	int absent;
	int data_ok;
	double mean, half;
	long migrated;
};

/*
 * Run numabench (next to this program in /tests, or on PATH) for the
 * disturbance scenario in @mode, echoing its output, and parse its ##BENCH
 * line.  Returns 0 when a ##BENCH line was found and the program exited 0.
 */
static int run_bench(const char *mode, struct bench *b)
{
	char cmd[128], line[512];
	int found = 0, st;
	FILE *f;

	memset(b, 0, sizeof(*b));
	snprintf(cmd, sizeof(cmd), "numabench -s disturb -m %s -d " SECS, mode);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p;

		fputs(line, stdout);
		if (strncmp(line, "##BENCH ", 8))
			continue;
		found = 1;
		b->absent = strstr(line, " absent=1") != NULL;
		b->data_ok = strstr(line, " data=ok") != NULL;
		p = strstr(line, " mean=");
		if (p)
			b->mean = strtod(p + 6, NULL);
		p = strstr(line, " second_half=");
		if (p)
			b->half = strtod(p + 13, NULL);
		p = strstr(line, " migrated=");
		if (p)
			b->migrated = strtol(p + 10, NULL, 10);
	}
	fflush(stdout);
	st = pclose(f);
	return found && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of REPS values (REPS is odd). */
static double median(double *v)
{
	qsort(v, REPS, sizeof(*v), cmp_double);
	return v[REPS / 2];
}

/* Median mean and second half of @r[REPS] into @b; migrated: the largest. */
static void bench_median(const struct bench *r, struct bench *b)
{
	double mean[REPS], half[REPS];
	int i;

	memset(b, 0, sizeof(*b));
	b->data_ok = 1;
	for (i = 0; i < REPS; i++) {
		mean[i] = r[i].mean;
		half[i] = r[i].half;
		if (r[i].migrated > b->migrated)
			b->migrated = r[i].migrated;
		b->data_ok &= r[i].data_ok;
	}
	b->mean = median(mean);
	b->half = median(half);
}

/* off_baseline's REPS runs, one line each, as their median. */
static int load_off(struct bench *b)
{
	struct bench r[REPS];
	FILE *f = fopen(OFF_FILE, "r");
	int i, n = 0;

	if (!f)
		return -1;
	memset(r, 0, sizeof(r));
	for (i = 0; i < REPS; i++) {
		if (fscanf(f, "%lf %lf %ld", &r[i].mean, &r[i].half,
			   &r[i].migrated) != 3)
			break;
		r[i].data_ok = 1;
		n++;
	}
	fclose(f);
	if (n != REPS)
		return -1;
	bench_median(r, b);
	return 0;
}

/*
 * Run @mode @reps times (1 or REPS) into @b (the median when REPS), after
 * loading off_baseline's median into @off.  Every run must verify its data.
 */
static void run_mode(struct __test_metadata *_metadata, const char *mode,
		     int reps, struct bench *off, struct bench *b)
{
	struct bench r[REPS];
	int i;

	ASSERT_EQ(0, load_off(off))
		TH_LOG("no off_baseline result in " OFF_FILE);
	for (i = 0; i < reps; i++) {
		ASSERT_EQ(0, run_bench(mode, &r[i]))
			TH_LOG("numabench -m %s failed", mode);
		if (r[i].absent) {
			*b = r[i];
			return;
		}
		EXPECT_TRUE(r[i].data_ok)
			TH_LOG("%s: a buffer was corrupted", mode);
		TH_LOG("disturb, %s run %d: mean %.3f, second half %.3f, pages migrated %ld",
		       mode, i + 1, r[i].mean, r[i].half, r[i].migrated);
	}
	if (reps == REPS)
		bench_median(r, b);
	else
		*b = r[0];
	TH_LOG("disturb second-half locality: %s %.3f, off %.3f%s; mean %.3f vs %.3f; pages migrated %ld vs %ld",
	       mode, b->half, off->half, reps == REPS ? " (medians)" : "",
	       b->mean, off->mean, b->migrated, off->migrated);
}

TEST_F_TIMEOUT(disturb, off_baseline, RUN_TIMEOUT)
{
	struct bench r[REPS], b;
	FILE *f;
	int i;

	for (i = 0; i < REPS; i++) {
		ASSERT_EQ(0, run_bench("off", &r[i]))
			TH_LOG("numabench -m off failed");
		ASSERT_FALSE(r[i].absent)
			TH_LOG("kernel.numa_balancing is missing");
		ASSERT_TRUE(r[i].data_ok)
			TH_LOG("off: a buffer was corrupted");
		TH_LOG("disturb, off run %d: mean %.3f, second half %.3f, pages migrated %ld",
		       i + 1, r[i].mean, r[i].half, r[i].migrated);
	}
	bench_median(r, &b);
	TH_LOG("disturb, off medians: mean %.3f, second half %.3f",
	       b.mean, b.half);
	/* Sanity: disturbed, unmanaged placement must leave room above it. */
	EXPECT_LE(b.half, 0.9)
		TH_LOG("off is already local: the scenario no longer disturbs");
	f = fopen(OFF_FILE, "w");
	ASSERT_NE(NULL, f);
	for (i = 0; i < REPS; i++)
		fprintf(f, "%f %f %ld\n", r[i].mean, r[i].half, r[i].migrated);
	ASSERT_EQ(0, fclose(f));
}

TEST_F_TIMEOUT(disturb, autonuma_above_off, RUN_TIMEOUT)
{
	struct bench off, b;

	run_mode(_metadata, "autonuma", 1, &off, &b);
	ASSERT_FALSE(b.absent) TH_LOG("kernel.numa_balancing is missing");
	EXPECT_GE(b.migrated, MIN_MIGRATED)
		TH_LOG("automatic NUMA balancing migrated only %ld pages",
		       b.migrated);
	EXPECT_GE(b.half, off.half - AUTONUMA_SLACK)
		TH_LOG("autonuma is worse than off");
}

TEST_F_TIMEOUT(disturb, sched_numa_above_off, RUN_TIMEOUT)
{
	struct bench off, b;

	run_mode(_metadata, "sched-numa", REPS, &off, &b);
	if (b.absent)
		SKIP(return, "the kernel has no sched-numa mode");
	EXPECT_GE(b.half, off.half + MARGIN)
		TH_LOG("sched-numa is not clearly above off (margin %.2f)",
		       MARGIN);
}

TEST_HARNESS_MAIN
