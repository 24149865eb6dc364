/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* asys's side of the region against the workload it is shared with: the
 * region's size cannot be changed by any process (itself, a file opened
 * again by path, a child running as nobody), a header rewritten by the job
 * does not move the sections asys maps, and hgtx_region_serves believes
 * only pids of the job (this program plays asys: its children are the
 * job), never the pid of a process outside it that the job wrote. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "asys_inject.h"
#include "hgtx.h"
#include "inject_host.h"
#include "inject_ktime.h"
#include "inject_hgtx.h"

static int fails;
static struct job_env job; /* what a workload would be handed */
#define CHECK(c, ...)                                                                              \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fails++;                                                                   \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);                                \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		}                                                                                  \
	} while (0)

static void no_resize(int fd, const char *who)
{
	off_t sizes[] = {0, 4096, 64 << 20};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		errno = 0;
		CHECK(ftruncate(fd, sizes[i]) < 0 && errno == EPERM,
		      "%s: ftruncate to %lld was not refused (%s)", who, (long long)sizes[i],
		      strerror(errno));
	}
	CHECK(fallocate(fd, 0, 0, 256 << 20) < 0, "%s: fallocate grew the region", who);
	CHECK(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE) < 0, "%s: could add a seal", who);
}

/* Reads every byte of a mapping: a fault kills the test. */
static unsigned sum(const void *p, size_t n)
{
	const volatile unsigned char *b = p;
	unsigned s = 0;

	for (size_t i = 0; i < n; i += 512)
		s += b[i];
	return s;
}

static void seal_test(int fd)
{
	char path[64];
	size_t size = 0;
	const void *base = inject_host_map(&size);
	pid_t c;
	int st = 0, rfd;

	no_resize(fd, "the job");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rfd = open(path, O_RDWR);
	if (rfd >= 0) {
		no_resize(rfd, "reopened by path");
		close(rfd);
	}
	c = fork();
	if (c == 0) {
		if (geteuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
			_exit(3);
		_exit(ftruncate(fd, 0) < 0 && errno == EPERM ? 0 : 1);
	}
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "a child (as nobody when root) could truncate the region: status %d", st);
	CHECK(base && size, "no region mapped");
	sum(base, size);
	CHECK(fcntl(fd, F_GET_SEALS) & F_SEAL_SHRINK, "no seal on the region");
}

/* The job rewrites the directory: a section far beyond the end. asys maps
 * its sections where it put them. */
static void header_test(int fd)
{
	struct asys_inject_head *h;
	size_t size = 0, len = 0;
	void *rw;

	inject_host_map(&size);
	h = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(h != MAP_FAILED, "cannot map the header");
	if (h == MAP_FAILED)
		return;
	for (uint32_t i = 0; i < ASYS_INJECT_SECTIONS_MAX; i++) {
		h->sec[i].off = size - 4096;
		h->sec[i].size = 64u << 20;
	}
	rw = inject_host_section_rw(ASYS_INJECT_SEC_KTIME, &len);
	CHECK(rw && len < size, "the KTIME section: %p, %zu bytes of a %zu-byte region", rw, len,
	      size);
	if (rw && len < size)
		sum(rw, len);
	CHECK(inject_host_section(ASYS_INJECT_SEC_HGTX, &len) &&
		  len == sizeof(struct inj_hgtx_section),
	      "the HGTX section moved: %zu bytes", len);
	munmap(h, 4096);
}

/* A process of the job (a child, a grandchild) is believed; this program's
 * parent, init and asys itself are not, though the job lists them. */
static void serves_test(void)
{
	struct inj_hgtx_section *sec = inject_host_section_rw(ASYS_INJECT_SEC_HGTX, NULL);
	int pfd[2];
	pid_t child, grand = 0;

	if (!sec || pipe(pfd) < 0) {
		CHECK(0, "no section");
		return;
	}
	child = fork();
	if (child == 0) {
		pid_t g = fork();

		if (g == 0) {
			pause();
			_exit(0);
		}
		if (write(pfd[1], &g, sizeof(g)) != sizeof(g))
			_exit(1);
		pause();
		_exit(0);
	}
	if (read(pfd[0], &grand, sizeof(grand)) != sizeof(grand))
		CHECK(0, "no grandchild");
	sec->procs[0].pid = (uint32_t)child;
	sec->procs[1].pid = (uint32_t)grand;
	sec->procs[2].pid = (uint32_t)getppid();
	sec->procs[3].pid = 1;
	sec->procs[4].pid = (uint32_t)getpid();
	CHECK(hgtx_region_serves((uint32_t)child), "the job's process %d not believed", child);
	CHECK(hgtx_region_serves((uint32_t)grand), "the job's grandchild %d not believed", grand);
	CHECK(!hgtx_region_serves((uint32_t)getppid()),
	      "pid %d, outside the job, believed because the job listed it", getppid());
	CHECK(!hgtx_region_serves(1), "init believed because the job listed it");
	CHECK(!hgtx_region_serves((uint32_t)getpid()), "asys itself believed");
	CHECK(!hgtx_region_serves(12345678), "a pid nobody has believed");
	if (grand > 0)
		kill(grand, SIGKILL);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	CHECK(!hgtx_region_serves((uint32_t)child), "an ended process believed");
}

int main(void)
{
	const char *v;

	setvbuf(stdout, NULL, _IOLBF, 0); /* what was said before a fault */
	if (inject_host_create() < 0) {
		printf("SKIP: no sealed memfd\n");
		return 77;
	}
	/* the descriptor, as a workload gets it */
	job_env_init(&job);
	inject_host_prepare(&job);
	job_env_apply(&job);
	v = getenv(ASYS_INJECT_FD_ENV);
	if (!v) {
		printf("FAIL: no %s\n", ASYS_INJECT_FD_ENV);
		return 1;
	}
	seal_test(atoi(v));
	header_test(atoi(v));
	serves_test();
	printf("%s\n", fails ? "FAIL" : "PASS");
	return fails ? 1 : 0;
}
