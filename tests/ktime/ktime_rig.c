/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel-time path end to end without a driver: this program makes the
 * shared region as asys does (a memfd, the head, a KTIME section), starts a
 * child that does what the driver does with CUDA_INJECTION64_PATH (dlopen
 * it, call InitializeInjection) with ASYS_INJECT_FD set, and runs the
 * ktime collector over the region. The profiling library is the test
 * stand-in (ASYS_KACT_LIBS, FAKE_CUPTI_SCRIPT: tests/fakes/libcupti.c).
 *   ktime_rig print [NKERNELS]   after the child ended: each kernel and copy
 *                               entity's last values, and the status
 *   ktime_rig live               samples while the child runs: the counts
 *                               arrive through the periodic flush
 *   ktime_rig record FILE [NKERNELS]  a recording of the collector's output
 *                               after each round the stand-in hands over
 *                               (else each second) while the child runs
 *                               (for KTIME_RIG_STAY_MS, default 1500), then
 *                               its flush; for `asys export` and replay
 *   ktime_rig exec CMD [ARG...]  the region for CMD, run with it (the real
 *                               driver loads CUDA_INJECTION64_PATH), then
 *                               what the collector read after it ended:
 *                               for tests/device/ktime-check.sh
 *   ktime_rig driver [STAY_MS]   only the driver's part, in this process,
 *                               with the ASYS_INJECT_FD it was given: the
 *                               workload of `asys record -- ktime_rig driver`
 * KTIME_RIG_FORK=1: the driver's part forks a child that exits at once.
 * KTIME_RIG_PROCS: the section's process slots (16); KTIME_RIG_CHILDREN: the
 * children print starts, one after the other (1).
 * The injection host's functions are this program's own, over its region,
 * which it makes with its head written, as asys has before its command
 * runs. */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "asys_inject.h"
#include "bus.h"
#include "collector.h"
#include "inject_host.h"
#include "inject_ktime.h"
#include "rec_writer.h"
#include "record.h"
#include "ring.h"
#include "sink.h"
#include "stream.h"

extern const struct collector ktime_collector;

static void *region;
static size_t region_len;

/* The injection host's part, over this program's region. */
const void *inject_host_map(size_t *size)
{
	*size = region_len;
	return region;
}

void *inject_host_section_rw(uint32_t id, size_t *len)
{
	return asys_inject_section(region, region_len, id, len);
}

const char *inject_host_note(uint32_t sec)
{
	(void)sec;
	return "";
}

int inject_host_prepare(struct job_env *env)
{
	(void)env;
	return 0;
}

int inject_host_env(struct job_env *env, uint32_t sec, const char *name, const char *value)
{
	(void)env;
	(void)sec;
	return setenv(name, value, 0) ? -ENOSPC : 1;
}

const char *inject_host_lib(uint32_t sec)
{
	(void)sec;
	return getenv("CUDA_INJECTION64_PATH");
}

static int make_region(uint32_t nkernels)
{
	const char *e = getenv("KTIME_RIG_PROCS");
	uint32_t np = e ? (uint32_t)atoi(e) : KTIME_PROCS_DEFAULT;
	size_t ksize = ktime_section_size(np, nkernels);
	size_t off = (sizeof(struct asys_inject_head) + 63) & ~(size_t)63;
	struct asys_inject_head *h;
	int fd = memfd_create("asys-inject", 0);

	region_len = off + ksize;
	if (fd < 0 || ftruncate(fd, (off_t)region_len))
		return -1;
	region = mmap(NULL, region_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (region == MAP_FAILED)
		return -1;
	h = region;
	h->magic = ASYS_INJECT_MAGIC;
	h->version = ASYS_INJECT_VERSION;
	h->head_size = sizeof(*h);
	h->size = region_len;
	h->asys_pid = (uint32_t)getpid();
	h->nsec = 1;
	h->sec[0] =
	    (struct asys_inject_section){.id = ASYS_INJECT_SEC_KTIME, .off = off, .size = ksize};
	if (ktime_section_init((char *)region + off, ksize, np, nkernels))
		return -1;
	return fd;
}

/* The driver's part: load the tool named by the variable and start it. */
__attribute__((noreturn)) static void be_driver(unsigned stay_ms)
{
	const char *lib = getenv("CUDA_INJECTION64_PATH");
	void *h = lib ? dlopen(lib, RTLD_NOW) : NULL;
	int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;

	if (!init) {
		const char *why = dlerror();

		fprintf(stderr, "ktime_rig: cannot load %s: %s\n", lib ? lib : "(unset)",
			why ? why : "no InitializeInjection");
		_exit(3);
	}
	printf("init %d\n", init());
	fflush(stdout);
	/* KTIME_RIG_FORK: a child forked after the start that exits at once, as
	 * a data loader's worker might; it must add nothing nor hang */
	if (getenv("KTIME_RIG_FORK")) {
		pid_t w = fork();

		if (w == 0)
			exit(0);
		if (w > 0)
			waitpid(w, NULL, 0);
	}
	if (stay_ms) {
		struct timespec ts = {stay_ms / 1000, (long)(stay_ms % 1000) * 1000000};
		nanosleep(&ts, NULL);
	}
	exit(0); /* atexit: the tool's last flush */
}

/* argv NULL: the driver's part; else exec argv, for a real driver. */
static pid_t start_child(int fd, unsigned stay_ms, char **argv)
{
	pid_t pid = fork();
	char num[16];

	if (pid)
		return pid;
	snprintf(num, sizeof(num), "%d", fd);
	setenv(ASYS_INJECT_FD_ENV, num, 1);
	if (argv) {
		execvp(argv[0], argv);
		fprintf(stderr, "ktime_rig: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	be_driver(stay_ms);
	return 0;
}

struct rig {
	struct stream_table *t;
	struct ring *ring;
	struct emitter em;
	void *st;
	struct sink sink;
	struct rec_writer *w;
};

static void drain(struct rig *g)
{
	const void *p;
	size_t len;

	if (!g->w) {
		sink_drain(&g->sink, g->ring);
		return;
	}
	while ((p = ring_peek(g->ring, &len))) {
		rec_writer_consumer_ops.consume(g->w, p);
		ring_pop(g->ring, len);
	}
	rec_writer_consumer_ops.end(g->w);
}

static void print_sink(struct rig *g)
{
	int sk = stream_table_find(g->t, "gpurt.ktime"),
	    sc = stream_table_find(g->t, "gpurt.kcopy");

	for (size_t i = 0; i < g->sink.n; i++) {
		struct sink_ent *e = &g->sink.e[i];
		char *tab = strchr(e->label, '\t');

		if (tab)
			*tab = ' ';
		if ((int)e->stream == sk && e->entity == STATUS_STREAM)
			printf("status %s\n", e->status);
		else if ((int)e->stream == sk)
			printf("kernel %s dev=%g count=%.0f total=%.0f min=%.0f max=%.0f\n",
			       e->label, e->v[1], e->v[2], e->v[3], e->v[4], e->v[5]);
		else if ((int)e->stream == sc)
			printf("copy %s count=%.0f bytes=%.0f total=%.0f\n", e->label, e->v[1],
			       e->v[2], e->v[3]);
	}
}

static int rig_init(struct rig *g, const char *path)
{
	struct asys_options o = {.delay_s = 1};
	struct coll_ctx ctx;
	struct rec_writer_opts wo = {.force = true, .command = "ktime_rig", .path = path};
	char msg[256];
	int err = 0;

	g->t = stream_table_new();
	g->ring = ring_new(1 << 22);
	g->em.ring = g->ring;
	ctx = (struct coll_ctx){.opts = &o, .streams = g->t};
	if (ktime_collector.init(&ctx, &g->st))
		return -1;
	for (uint32_t i = 0; i < stream_table_count(g->t); i++)
		stream_table_set_rate(g->t, i, 5.0);
	if (path) {
		g->w = rec_writer_new(g->t, &wo, &err, msg, sizeof(msg));
		if (!g->w) {
			fprintf(stderr, "ktime_rig: %s\n", msg);
			return -1;
		}
	}
	return 0;
}

static int child_wait(pid_t pid)
{
	int st = 0;

	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* The mode's children: the last one's pid. */
static pid_t start_children(int fd, const char *mode, int argc, char **argv)
{
	const char *stay = getenv("KTIME_RIG_STAY_MS"), *more = getenv("KTIME_RIG_CHILDREN");
	bool rec = !strcmp(mode, "record"), run = !strcmp(mode, "exec") && argc > 2;

	if (!strcmp(mode, "live"))
		return start_child(fd, 3000, NULL);
	/* KTIME_RIG_CHILDREN: that many before this one, one after the other */
	for (int i = 1; !rec && more && i < atoi(more) && i < 64; i++)
		child_wait(start_child(fd, 0, NULL));
	return start_child(fd, rec ? (stay ? (unsigned)atoi(stay) : 1500) : 0,
			   run ? argv + 2 : NULL);
}

/* The stand-in tells a pipe of each round it has handed over whole
 * (FAKE_CUPTI_ROUND_FD): a recording sampled after each holds whole rounds
 * in every interval, whatever the load on the machine. The read end, the
 * write end (for the children) in *w; -1 without a pipe. */
static int round_pipe(int *w)
{
	int p[2];
	char num[16];

	if (pipe(p))
		return -1;
	*w = p[1];
	snprintf(num, sizeof(num), "%d", p[1]);
	setenv("FAKE_CUPTI_ROUND_FD", num, 1);
	return p[0];
}

/* Until the next round is handed over, or a second (past the last round,
 * or a script without rounds); the pipe, or -1 once its writer is gone. */
static int wait_round(int rfd)
{
	struct pollfd pf = {.fd = rfd, .events = POLLIN};
	char buf[64];

	if (rfd < 0) {
		struct timespec ts = {0, 200000000};

		nanosleep(&ts, NULL);
		return -1;
	}
	if (poll(&pf, 1, 1000) > 0 && read(rfd, buf, sizeof(buf)) <= 0) {
		close(rfd);
		return -1;
	}
	return rfd;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	bool rec = !strcmp(mode, "record");
	int nk = argc > (rec ? 3 : 2) && strcmp(mode, "exec") ? atoi(argv[rec ? 3 : 2])
							      : KTIME_KERNELS_DEFAULT;
	struct rig g = {0};
	int fd, rc = 0, round_fd = -1, round_w = -1;
	pid_t pid;

	if (!strcmp(mode, "driver"))
		be_driver(argc > 2 ? (unsigned)atoi(argv[2]) : 0);
	fd = make_region((uint32_t)nk);
	if (fd < 0 || (rec && argc < 3) ||
	    (strcmp(mode, "live") && strcmp(mode, "print") && !rec &&
	     (strcmp(mode, "exec") || argc < 3))) {
		fprintf(stderr,
			"usage: ktime_rig print|live|record FILE [NKERNELS] | exec CMD...\n");
		return 2;
	}
	fflush(stdout);
	if (rec)
		round_fd = round_pipe(&round_w);
	/* the children first: the writer's thread would leave a fork a
	 * sanitizer's allocator locked by a thread that is not there */
	pid = start_children(fd, mode, argc, argv);
	if (round_fd >= 0)
		close(round_w);
	if (rig_init(&g, rec ? argv[2] : NULL))
		return 2;
	if (!strcmp(mode, "live")) {
		sleep(1); /* a few periodic flushes, the child still running */
		ktime_collector.sample(g.st, &g.em, asys_now_ns());
		drain(&g);
		printf("live %s\n", kill(pid, 0) ? "ended" : "running");
		print_sink(&g);
		rc = child_wait(pid);
	} else {
		while (rec && waitpid(pid, NULL, WNOHANG) == 0) {
			round_fd = wait_round(round_fd);
			ktime_collector.sample(g.st, &g.em, asys_now_ns());
			drain(&g);
		}
		rc = rec ? 0 : child_wait(pid);
		ktime_collector.flush(g.st, &g.em);
		drain(&g);
		print_sink(&g);
	}
	if (g.w) {
		rc = rec_writer_close(g.w) ? 1 : rc;
		rec_writer_free(g.w);
	}
	ktime_collector.fini(g.st);
	sink_free(&g.sink);
	ring_free(g.ring);
	stream_table_free(g.t);
	return rc;
}
