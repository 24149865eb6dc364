/* SPDX-License-Identifier: GPL-2.0-only */
/* bench/gpurt: what the runtime probes cost.
 *  1. ns per cudaLaunchKernel as the workload sees it, without and then with
 *     the gpurt collector attached, in the same run (fake runtime library,
 *     launches back to back);
 *  2. the collector's own CPU (its sample() calls, one per refresh) and the
 *     workload's CPU while it launches at 10k, 100k and 1M per second (the
 *     uprobe itself runs in the workload's context, so it shows there).
 * Needs root (BPF); prints the reason and exits 77 otherwise.
 * Usage: bench_gpurt [SECONDS_PER_RATE] (default 4); env GPURT_WORKLOAD,
 * FAKE_CUDA_DIR as for the tests. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bus.h"
#include "collector.h"
#include "options.h"
#include "ring.h"
#include "sink.h"
#include "stream.h"

extern const struct collector gpurt_collector;

static const char *workload, *libdir;
static char dir[] = "/tmp/gpurt-bench.XXXXXX";

struct run {
	pid_t pid;
	char go[300], ready[300], out[300];
};

static void start(struct run *r, double rate, double seconds, int n)
{
	char rs[32], ss[32];
	snprintf(rs, sizeof(rs), "%.0f", rate);
	snprintf(ss, sizeof(ss), "%.1f", seconds);
	snprintf(r->go, sizeof(r->go), "%s/go%d", dir, n);
	snprintf(r->ready, sizeof(r->ready), "%s/ready%d", dir, n);
	snprintf(r->out, sizeof(r->out), "%s/out%d", dir, n);
	r->pid = fork();
	if (r->pid == 0) {
		int fd = open(r->out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(126);
		execl(workload, workload, "--lib-dir", libdir, "--rate", rs, "--seconds", ss,
		      "--ready-file", r->ready, "--go-file", r->go, (char *)NULL);
		_exit(127);
	}
	while (access(r->ready, F_OK))
		usleep(2000);
}

/* Waits for the workload; its ns per launch, rate and CPU seconds. */
static int finish(struct run *r, double *ns, double *rate, double *cpu_s)
{
	int st;
	struct rusage ru;
	if (wait4(r->pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	*cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
		 ru.ru_stime.tv_usec / 1e6;
	FILE *f = fopen(r->out, "r");
	unsigned long n;
	int ok = f && fscanf(f, "launches %lu ns_per_launch %lf rate %lf", &n, ns, rate) == 3;
	if (f)
		fclose(f);
	return ok ? 0 : -1;
}

static double thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 4;
	workload = getenv("GPURT_WORKLOAD");
	libdir = getenv("FAKE_CUDA_DIR");
	if (!workload || !libdir || secs <= 0) {
		fprintf(stderr,
			"usage: GPURT_WORKLOAD=... FAKE_CUDA_DIR=... bench_gpurt [SECONDS]\n");
		return 2;
	}
	if (!mkdtemp(dir))
		return 1;
	struct asys_options o;
	options_defaults(&o);
	o.scope = SCOPE_SYSTEM_WIDE;
	struct stream_table *t = stream_table_new();
	struct ring *ring = ring_new(1 << 22);
	struct emitter em = {.ring = ring};
	struct sink sink = {0};
	void *st = NULL;
	double ns0, ns1, rate, cpu;
	int nrun = 0;

	/* 1a. unprobed: the library is not attached yet */
	struct run r;
	start(&r, 1e9, 2, nrun++);
	fclose(fopen(r.go, "w"));
	if (finish(&r, &ns0, &rate, &cpu))
		return 1;

	struct coll_ctx ctx = {.opts = &o, .streams = t};
	int e = gpurt_collector.init(&ctx, &st);
	if (e) {
		printf("SKIP: %s\n", gpurt_collector.last_error(st));
		gpurt_collector.fini(st);
		return 77;
	}
	/* 1b. the same, probed */
	uint64_t now = asys_now_ns();
	start(&r, 1e9, 2, nrun++);
	gpurt_collector.sample(st, &em, now); /* attaches */
	fclose(fopen(r.go, "w"));
	if (finish(&r, &ns1, &rate, &cpu))
		return 1;
	printf("cudaLaunchKernel: %.0f ns unprobed, %.0f ns probed (+%.0f ns per call)\n", ns0, ns1,
	       ns1 - ns0);

	/* 2. collector CPU per refresh (1 s) and workload CPU at fixed rates */
	static const double rates[] = {1e4, 1e5, 1e6};
	printf("%10s %12s %14s %16s %14s\n", "target/s", "achieved/s", "collector CPU",
	       "per refresh", "workload CPU");
	for (size_t i = 0; i < sizeof(rates) / sizeof(*rates); i++) {
		start(&r, rates[i], secs, nrun++);
		now += 3000000000ull;
		gpurt_collector.sample(st, &em, now);
		double c0 = thread_cpu(), w0 = asys_now_ns() / 1e9;
		unsigned ticks = 0;
		fclose(fopen(r.go, "w"));
		for (int k = 0; k < (int)secs; k++) {
			usleep(1000000);
			gpurt_collector.sample(st, &em, now + 1000000ull * ++ticks);
			sink_drain(&sink, ring);
		}
		double c1 = thread_cpu(), w1 = asys_now_ns() / 1e9;
		if (finish(&r, &ns1, &rate, &cpu))
			return 1;
		printf("%10.0f %12.0f %13.3f%% %13.1f us %13.1f%%\n", rates[i], rate,
		       100 * (c1 - c0) / (w1 - w0), 1e6 * (c1 - c0) / ticks, 100 * cpu / secs);
	}
	gpurt_collector.fini(st);
	ring_free(ring);
	stream_table_free(t);
	sink_free(&sink);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? 0 : 0;
}
