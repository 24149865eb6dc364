/* SPDX-License-Identifier: GPL-2.0-only */
/* The ground-truth tests' side of the clock and of a process's memory.
 *
 *   truth_helper now           CLOCK_MONOTONIC in ns (the clock of t_ns in an export)
 *   truth_helper stat          "t_ns N" then /proc/stat, read in one go at N
 *   truth_helper pidstat PID   "t_ns N" then /proc/PID/stat, read in one go at N
 *   truth_helper hog DIR A B   hold A MiB of touched anonymous memory, then B
 *   truth_helper pulse B I     forever: busy on the CPU for B ms, asleep for I ms
 *   truth_helper alloc A MS C  touch A MiB, sleep MS ms, exit with status C
 *   truth_helper tick DIR A MS hold A MiB as hog does, then wake every MS ms
 *                              (without touching a page) until killed
 *
 * hog writes DIR/phase1 ("t_ns pid") once the A MiB are resident, waits for
 * SIGUSR1, unmaps down to B MiB, writes DIR/phase2, and exits at the next
 * SIGUSR1: the test reads /proc/PID/status itself in each phase and knows
 * from the t_ns when a sample of asys belongs to one. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024ul * 1024ul)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* /proc/stat fits in 64 KiB up to a few hundred cores; one read() gives one
 * consistent snapshot, stamped with the middle of the read. */
static int print_stat(const char *path)
{
	static char buf[1 << 20];
	int fd = open(path, O_RDONLY);
	uint64_t t0, t1;
	ssize_t n;

	if (fd < 0) {
		perror(path);
		return 1;
	}
	t0 = now_ns();
	n = read(fd, buf, sizeof(buf) - 1);
	t1 = now_ns();
	close(fd);
	if (n <= 0) {
		perror(path);
		return 1;
	}
	printf("t_ns %llu\n", (unsigned long long)(t0 + (t1 - t0) / 2));
	fwrite(buf, 1, (size_t)n, stdout);
	return 0;
}

static int write_phase(const char *dir, const char *name)
{
	char path[4096], tmp[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fprintf(f, "%llu %d\n", (unsigned long long)now_ns(), (int)getpid());
	if (fclose(f) != 0)
		return -errno;
	/* the test sees the whole line or nothing */
	return rename(tmp, path) == 0 ? 0 : -errno;
}

static int wait_usr1(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	return sigwait(&set, &sig);
}

static int hog(const char *dir, unsigned long a, unsigned long b)
{
	sigset_t set;
	char *p;

	if (a == 0 || a > 4096 || b > a) {
		fprintf(stderr, "truth_helper: hog wants 0 < B <= A <= 4096 (MiB)\n");
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	p = mmap(NULL, a * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("truth_helper: mmap");
		return 1;
	}
	/* every page resident and none of it a huge page, so that the kernel's
	 * later housekeeping cannot change what is resident */
	madvise(p, a * MIB, MADV_NOHUGEPAGE);
	memset(p, 0x5a, a * MIB);
	if (write_phase(dir, "phase1") < 0 || wait_usr1() != 0)
		return 1;
	if (munmap(p + b * MIB, (a - b) * MIB) != 0) {
		perror("truth_helper: munmap");
		return 1;
	}
	if (write_phase(dir, "phase2") < 0 || wait_usr1() != 0)
		return 1;
	return 0;
}

/* A load that changes from one refresh to the next, so that a CPU% taken
 * from other samples than the TIME+ beside it shows. */
static int pulse(unsigned long busy_ms, unsigned long idle_ms)
{
	struct timespec idle = {(time_t)(idle_ms / 1000), (long)(idle_ms % 1000) * 1000000L};
	volatile unsigned long spin = 0;

	if (busy_ms == 0 || busy_ms > 60000 || idle_ms > 60000) {
		fprintf(stderr, "truth_helper: pulse wants 0 < B <= 60000, I <= 60000 (ms)\n");
		return 2;
	}
	for (;;) {
		uint64_t end = now_ns() + busy_ms * 1000000ull;

		while (now_ns() < end)
			spin++;
		nanosleep(&idle, NULL);
	}
}

/* A process that top calls idle (0.0 % CPU) but that runs: its CPU times
 * move, its memory and fault counts do not. DIR/phase1 as hog's. */
static int tick(const char *dir, unsigned long a, unsigned long ms)
{
	struct timespec nap = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
	char *p;

	if (a == 0 || a > 4096 || ms == 0 || ms > 60000) {
		fprintf(stderr, "truth_helper: tick wants 0 < A <= 4096 (MiB), 0 < MS <= 60000\n");
		return 2;
	}
	p = mmap(NULL, a * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("truth_helper: mmap");
		return 1;
	}
	madvise(p, a * MIB, MADV_NOHUGEPAGE);
	memset(p, 0x5a, a * MIB);
	if (write_phase(dir, "phase1") < 0)
		return 1;
	for (;;)
		nanosleep(&nap, NULL);
}

/* A job's child with a known peak: A MiB resident, held MS ms (long enough
 * for a refresh to see it), then exit status C. */
static int alloc(unsigned long a, unsigned long ms, int code)
{
	struct timespec hold = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
	char *p;

	if (a == 0 || a > 4096 || ms > 600000) {
		fprintf(stderr, "truth_helper: alloc wants 0 < A <= 4096 (MiB), MS <= 600000\n");
		return 2;
	}
	p = mmap(NULL, a * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("truth_helper: mmap");
		return 1;
	}
	madvise(p, a * MIB, MADV_NOHUGEPAGE);
	memset(p, 0x5a, a * MIB);
	nanosleep(&hold, NULL);
	return code;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "now")) {
		printf("%llu\n", (unsigned long long)now_ns());
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "stat"))
		return print_stat("/proc/stat");
	if (argc == 3 && !strcmp(argv[1], "pidstat")) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/stat", atoi(argv[2]));
		return print_stat(path);
	}
	if (argc == 5 && !strcmp(argv[1], "hog"))
		return hog(argv[2], strtoul(argv[3], NULL, 10), strtoul(argv[4], NULL, 10));
	if (argc == 5 && !strcmp(argv[1], "tick"))
		return tick(argv[2], strtoul(argv[3], NULL, 10), strtoul(argv[4], NULL, 10));
	if (argc == 5 && !strcmp(argv[1], "alloc"))
		return alloc(strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10), atoi(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "pulse"))
		return pulse(strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10));
	fprintf(stderr, "usage: truth_helper now | stat | pidstat PID | hog DIR A_MIB B_MIB | "
			"pulse BUSY_MS IDLE_MS | alloc MIB MS CODE | tick DIR MIB MS\n");
	return 2;
}
