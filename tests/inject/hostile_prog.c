/* SPDX-License-Identifier: GPL-2.0-only */
/* A hostile workload for asys's side of the shared region: it writes the
 * region through the descriptor asys hands it (ASYS_INJECT_FD), as any
 * process of a job may, without libasys-inject.so.
 *
 * Usage:
 *   hostile_prog truncate SECS  shrink and grow the region, from itself and
 *                               from a child that drops to nobody (when
 *                               root), print "TRUNC who=... rc=... errno=...",
 *                               then stay SECS seconds while asys reads it
 *   hostile_prog flood SECS     keep the HGTX section valid but rename
 *                               every name of all 64 process slots at each
 *                               read of asys's, for SECS seconds
 *   hostile_prog procs P K      P short-lived processes, K at a time, each
 *                               with INJ_HGTX_NAMES - 1 names of its own,
 *                               each leaving once asys has read it; then a
 *                               last one with the range "last" that stays
 *                               until asys has read it twice
 *   hostile_prog live N SECS    one process with N names, for SECS seconds
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "asys_inject.h"
#include "inject_hgtx.h"

static int region_fd(void)
{
	const char *v = getenv(ASYS_INJECT_FD_ENV);

	if (!v) {
		fprintf(stderr, "hostile_prog: no %s\n", ASYS_INJECT_FD_ENV);
		exit(2);
	}
	return atoi(v);
}

static void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts))
		;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void try_truncate(int fd, const char *who)
{
	off_t sizes[] = {1 << 30, 4096, 0}; /* left shrunk: a read past the end faults */

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int rc = ftruncate(fd, sizes[i]);

		printf("TRUNC who=%s size=%lld rc=%d errno=%d\n", who, (long long)sizes[i], rc,
		       rc ? errno : 0);
	}
	fflush(stdout);
}

static int mode_truncate(double secs)
{
	int fd = region_fd();
	char path[64];
	pid_t c;
	int rfd;

	try_truncate(fd, "job");
	/* the same file opened again by path, as another process could */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rfd = open(path, O_RDWR);
	if (rfd >= 0) {
		try_truncate(rfd, "reopened");
		close(rfd);
	}
	c = fork();
	if (c == 0) {
		if (geteuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
			_exit(3);
		try_truncate(fd, geteuid() == 65534 ? "nobody" : "child");
		_exit(0);
	}
	waitpid(c, NULL, 0);
	nap_ms((long)(secs * 1000));
	printf("DONE\n");
	return 0;
}

static struct inj_hgtx_section *section(void)
{
	int fd = region_fd();
	struct stat sb;
	void *base;
	size_t len = 0;
	struct inj_hgtx_section *sec;

	if (fstat(fd, &sb) < 0)
		return NULL;
	base = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return NULL;
	sec = asys_inject_section(base, (size_t)sb.st_size, ASYS_INJECT_SEC_HGTX, &len);
	if (!sec || len < sizeof(*sec)) {
		fprintf(stderr, "hostile_prog: no NVTX section\n");
		exit(2);
	}
	return sec;
}

static uint32_t epoch(const struct inj_hgtx_section *sec)
{
	return __atomic_load_n(&sec->epoch, __ATOMIC_ACQUIRE);
}

/* Slot `slot` as process pid with names 1..n (text prefix_i), each ended
 * once in shard `slot`. */
static void fill_slot(struct inj_hgtx_section *sec, int slot, uint32_t pid, int n,
		      const char *prefix)
{
	struct inj_hgtx_proc *p = &sec->procs[slot];
	struct inj_hgtx_shard *sh = &sec->shards[slot];

	__atomic_store_n(&p->pid, pid, __ATOMIC_RELEASE);
	__atomic_store_n(&p->state, INJ_HGTX_READY, __ATOMIC_RELEASE);
	for (int i = 1; i < INJ_HGTX_NAMES; i++) {
		struct inj_hgtx_name *nm = &p->names[i];
		struct inj_hgtx_row *r = &sh->rows[i];

		if (i > n) {
			__atomic_store_n(&nm->state, INJ_HGTX_FREE, __ATOMIC_RELEASE);
			continue;
		}
		nm->domain = 0;
		nm->color = 0;
		snprintf(nm->text, sizeof(nm->text), "%s_%d", prefix, i);
		__atomic_store_n(&nm->state, INJ_HGTX_READY, __ATOMIC_RELEASE);
		r->seq = 0;
		r->depth = 0;
		r->count = 1;
		r->total_ns = r->self_ns = 1000;
	}
	sh->proc = (uint32_t)slot + 1;
	sh->state = INJ_HGTX_READY;
}

static int wait_reads(const struct inj_hgtx_section *sec, uint32_t reads, double limit)
{
	uint32_t e0 = epoch(sec);
	double t0 = now_s();

	while (epoch(sec) - e0 < reads)
		if (now_s() - t0 > limit)
			return -1;
		else
			nap_ms(2);
	return 0;
}

static int mode_flood(double secs)
{
	struct inj_hgtx_section *sec = section();
	double t0 = now_s();
	uint32_t round = 0;
	char prefix[32];

	while (now_s() - t0 < secs) {
		uint32_t e = epoch(sec);

		snprintf(prefix, sizeof(prefix), "flood%u", round++);
		for (int s = 0; s < INJ_HGTX_PROCS; s++)
			fill_slot(sec, s, (uint32_t)getpid(), INJ_HGTX_NAMES - 1, prefix);
		/* new names for each of asys's reads, no faster */
		while (epoch(sec) == e && now_s() - t0 < secs)
			nap_ms(5);
	}
	printf("FLOOD rounds=%u\n", round);
	return 0;
}

static int mode_procs(int total, int at_once)
{
	struct inj_hgtx_section *sec = section();
	int started = 0, running = 0;
	char prefix[32];
	pid_t c;

	if (at_once < 1 || at_once > INJ_HGTX_PROCS)
		return 2;
	while (started < total || running) {
		if (started < total && running < at_once) {
			int slot = started % at_once, k = started++;

			c = fork();
			if (c == 0) {
				snprintf(prefix, sizeof(prefix), "p%d", k);
				fill_slot(sec, slot, (uint32_t)getpid(), INJ_HGTX_NAMES - 1,
					  prefix);
				_exit(wait_reads(sec, 2, 30) ? 1 : 0);
			}
			running++;
			continue;
		}
		if (wait(NULL) > 0)
			running--;
	}
	c = fork();
	if (c == 0) {
		fill_slot(sec, 0, (uint32_t)getpid(), 1, "last");
		printf("LAST pid=%d\n", (int)getpid());
		fflush(stdout);
		_exit(wait_reads(sec, 3, 30) ? 1 : 0);
	}
	waitpid(c, NULL, 0);
	printf("PROCS %d\n", total);
	return 0;
}

static int mode_live(int n, double secs)
{
	struct inj_hgtx_section *sec = section();

	if (n < 1 || n >= INJ_HGTX_NAMES)
		return 2;
	fill_slot(sec, 0, (uint32_t)getpid(), n, "live");
	nap_ms((long)(secs * 1000));
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "truncate"))
		return mode_truncate(atof(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "flood"))
		return mode_flood(atof(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "procs"))
		return mode_procs(atoi(argv[2]), atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "live"))
		return mode_live(atoi(argv[2]), atof(argv[3]));
	fprintf(stderr,
		"usage: hostile_prog truncate SECS | flood SECS | procs P K | live N SECS\n");
	return 2;
}
