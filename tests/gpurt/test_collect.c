/* SPDX-License-Identifier: GPL-2.0-only */
/* The gpurt collector end to end in one process: real BPF, real uprobes on
 * the fake runtime libraries, real workload processes with a known pattern
 * (see workload.c). Modes:
 *   main     two workloads at once: exact totals, failures, launches per
 *            demangled name, per-pid split; a third started after attach is
 *            picked up; one that exits is removed
 *   tree     process-tree scope: only the followed workloads are counted,
 *            including one a followed shell starts after attach
 *   nvtx     two workloads' NVTX v2 ranges: when one exits its ranges are
 *            gone, the other's go on with their counts
 *   nonroot  (run without privileges) init fails and says how to fix it
 * Exits 77 with the reason where BPF is not permitted. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "bus.h"
#include "options.h"
#include "ring.h"
#include "sink.h"
#include "stream.h"

extern const struct collector gpurt_collector;
extern size_t gpurt_attached(void *state);

static int failures;
static char tmpdir[] = "/tmp/gpurt-test.XXXXXX";
static const char *workload, *libdir;

#define CHECK(c, ...)                                                                              \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                       \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

struct wl {
	pid_t pid;
	int k;
	char ready[300], go[300], done[300], end[300];
};

static void touch(const char *f)
{
	FILE *fp = fopen(f, "w");
	if (fp)
		fclose(fp);
}

static int wait_file(const char *f, double timeout_s)
{
	for (int i = 0; i < timeout_s * 200; i++) {
		if (!access(f, F_OK))
			return 0;
		usleep(5000);
	}
	return -ETIMEDOUT;
}

/* nvtx: the workload makes its NVTX v2 ranges instead of its kernels */
static void wl_spawn(struct wl *w, int k, const char *env, bool nvtx)
{
	w->k = k;
	snprintf(w->ready, sizeof(w->ready), "%s/ready.%d", tmpdir, k);
	snprintf(w->go, sizeof(w->go), "%s/go.%d", tmpdir, k);
	snprintf(w->done, sizeof(w->done), "%s/done.%d", tmpdir, k);
	snprintf(w->end, sizeof(w->end), "%s/end.%d", tmpdir, k);
	char ks[16];
	snprintf(ks, sizeof(ks), "%d", k);
	w->pid = fork();
	if (w->pid == 0) {
		if (env)
			putenv((char *)env);
		/* ready: the libraries are mapped; go: start the pattern */
		execl(workload, workload, "--lib-dir", libdir, nvtx ? "--nvtx" : "--scale",
		      nvtx ? "1" : ks, "--go-file", w->go, "--done-file", w->done, "--end-file",
		      w->end, "--ready-file", w->ready, (char *)NULL);
		_exit(127);
	}
	if (w->pid < 0 || wait_file(w->ready, 20)) {
		fprintf(stderr, "FAIL: workload %d did not start\n", k);
		exit(1);
	}
}

static void wl_start_env(struct wl *w, int k, const char *env)
{
	wl_spawn(w, k, env, false);
}

static void wl_start(struct wl *w, int k)
{
	wl_start_env(w, k, NULL);
}

static void wl_end(struct wl *w)
{
	int st;
	touch(w->end);
	waitpid(w->pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "workload %d exited with %d", w->k, st);
}

struct rig {
	struct asys_options o;
	struct stream_table *t;
	struct ring *ring;
	struct emitter em;
	void *st;
	struct sink sink;
	int s_mem, s_kern, s_copy;
	uint64_t vnow;
};

static void rig_sample(struct rig *g, bool rescan)
{
	g->vnow += rescan ? 3000000000ull : 1000000ull;
	gpurt_collector.sample(g->st, &g->em, g->vnow);
	sink_drain(&g->sink, g->ring);
}

static int rig_init(struct rig *g)
{
	g->t = stream_table_new();
	g->ring = ring_new(1 << 22);
	g->em.ring = g->ring;
	struct coll_ctx ctx = {.opts = &g->o, .streams = g->t};
	int r = gpurt_collector.init(&ctx, &g->st);
	if (r) {
		const char *why = gpurt_collector.last_error(g->st);
		printf("gpurt init: %s\n", why ? why : strerror(-r));
		return r;
	}
	g->s_mem = stream_table_find(g->t, "gpurt.mem");
	g->s_kern = stream_table_find(g->t, "gpurt.kernels");
	g->s_copy = stream_table_find(g->t, "gpurt.copy");
	g->vnow = asys_now_ns();
	return 0;
}

static void rig_fini(struct rig *g)
{
	gpurt_collector.fini(g->st);
	ring_free(g->ring);
	stream_table_free(g->t);
	sink_free(&g->sink);
}

static const struct {
	const char *name;
	double per_k;
} kernels[] = {
    {"mykern::saxpy(float, float*, float*, int)", 100},
    {"void reduce<float>(float*, int)", 50},
    {"vecadd(int const*, int const*, int*, int)", 25},
    {"handle_kernel(float*)", 7},
    {"lib_kernel_b", 3},
};

/* gpurt.copy per unit of scale, in field order (workload_copy.c): calls and
 * bytes for htod, dtoh, dtod, htoh, unknown, set, pinned, pageable */
static const double copies[16] = {9, 19216, 6, 7084, 7, 41056, 1, 100,
				  1, 70,    4, 2216, 8, 17836, 7, 8464};

static void verify_copies(struct rig *g, const struct wl *w)
{
	struct sink_ent *c = sink_get(&g->sink, (uint32_t)g->s_copy, (uint64_t)w->pid);
	CHECK(c && c->nv == 16, "no gpurt.copy sample for pid %d", w->pid);
	for (uint32_t i = 0; c && c->nv == 16 && i < 16; i++)
		CHECK(c->v[i] == copies[i] * w->k, "pid %d gpurt.copy field %u: %.0f, want %.0f",
		      w->pid, i, c->v[i], copies[i] * w->k);
}

static void verify(struct rig *g, const struct wl *w, uint64_t t_go, uint64_t t_done)
{
	double k = w->k;
	struct sink_ent *m = sink_get(&g->sink, (uint32_t)g->s_mem, (uint64_t)w->pid);
	CHECK(m && m->nv == 7, "no gpurt.mem sample for pid %d", w->pid);
	if (m && m->nv == 7) {
		CHECK(m->v[0] == k * 7340032, "pid %d device_bytes %.0f, want %.0f", w->pid,
		      m->v[0], k * 7340032);
		CHECK(m->v[1] == k * 1277952, "pid %d pinned_bytes %.0f, want %.0f", w->pid,
		      m->v[1], k * 1277952);
		CHECK(m->v[2] == 21 * k, "pid %d allocs %.0f, want %.0f", w->pid, m->v[2], 21 * k);
		CHECK(m->v[3] == 8 * k, "pid %d frees %.0f, want %.0f", w->pid, m->v[3], 8 * k);
		CHECK(m->v[4] == 3, "pid %d fails %.0f, want 3", w->pid, m->v[4]);
		CHECK(m->v[5] == (double)(5ull << 40) + k, "pid %d last_fail_size %.0f", w->pid,
		      m->v[5]);
		CHECK(m->v[6] >= t_go && m->v[6] <= t_done,
		      "pid %d last_fail_ns %.0f not in [%llu,%llu]", w->pid, m->v[6],
		      (unsigned long long)t_go, (unsigned long long)t_done);
	}
	for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++) {
		char label[300];
		snprintf(label, sizeof(label), "%d\t%s", w->pid, kernels[i].name);
		struct sink_ent *e = sink_by_label(&g->sink, (uint32_t)g->s_kern, label);
		CHECK(e && e->nv == 2, "no kernel '%s' for pid %d", kernels[i].name, w->pid);
		if (e && e->nv == 2) {
			CHECK(e->v[0] == kernels[i].per_k * k,
			      "pid %d %s: %.0f launches, want %.0f", w->pid, kernels[i].name,
			      e->v[0], kernels[i].per_k * k);
			CHECK(e->v[1] == w->pid, "kernel pid field %.0f", e->v[1]);
		}
	}
	verify_copies(g, w);
	CHECK(sink_count_pid(&g->sink, (uint32_t)g->s_kern, (unsigned)w->pid) == 5,
	      "pid %d has %zu kernels, want 5", w->pid,
	      sink_count_pid(&g->sink, (uint32_t)g->s_kern, (unsigned)w->pid));
}

/* Every kernel of pid (label "PID\tname") is gone, or none is. */
static void kernels_gone(struct rig *g, pid_t pid, bool gone)
{
	char pre[32];

	snprintf(pre, sizeof(pre), "%d\t", pid);
	for (size_t i = 0; i < g->sink.n; i++) {
		struct sink_ent *e = &g->sink.e[i];

		if (e->stream == (uint32_t)g->s_kern && !strncmp(e->label, pre, strlen(pre)))
			CHECK(e->gone == gone, "kernel '%s' of %s pid %s gone", e->label,
			      gone ? "an exited" : "a running", gone ? "is not" : "is");
	}
}

static void run_work(struct rig *g, struct wl *const *ws, int n, uint64_t *t_go, uint64_t *t_done)
{
	*t_go = asys_now_ns();
	for (int i = 0; i < n; i++)
		touch(ws[i]->go);
	for (int i = 0; i < n; i++)
		if (wait_file(ws[i]->done, 30))
			CHECK(0, "workload %d did not finish", ws[i]->k);
	*t_done = asys_now_ns();
	rig_sample(g, false);
}

static void wait_attached(struct rig *g)
{
	size_t last = 0;
	int same = 0;

	for (int i = 0; i < 3000 && same < 30; i++) {
		size_t n = gpurt_attached(g->st);

		same = n && n == last ? same + 1 : 0;
		last = n;
		usleep(10000);
	}
	CHECK(last > 0, "no probe attached within 30 s");
}

static int mode_main(void)
{
	struct rig g = {0};
	options_defaults(&g.o);
	g.o.scope = SCOPE_SYSTEM_WIDE;
	int r = rig_init(&g);
	if (r)
		return r == -EPERM || r == -EACCES ? 77 : 1;
	rig_sample(&g, true); /* nothing of ours mapped yet */

	struct wl a, b, c;
	wl_start(&a, 1);
	wl_start(&b, 2);
	rig_sample(&g, true);
	/* the discovery thread attaches on the loader hook's report, on its
	 * own time (a sanitizer build on a loaded machine takes a while):
	 * the workloads' calls must not start before the count settles */
	wait_attached(&g);
	struct sink_ent *st = sink_get(&g.sink, (uint32_t)g.s_mem, STATUS_STREAM);
	CHECK(st && st->has_status && !st->status[0], "stream status not cleared: '%s'",
	      st ? st->status : "(none)");
	uint64_t t_go, t_done;
	struct wl *ab[] = {&a, &b};
	run_work(&g, ab, 2, &t_go, &t_done);
	verify(&g, &a, t_go, t_done);
	verify(&g, &b, t_go, t_done);

	/* a workload started after the collector attached, whose runtime
	 * launches go on to the driver's cuLaunchKernel, and cudaMemcpy to
	 * cuMemcpy: still counted once */
	wl_start_env(&c, 3, "FAKE_CUDART_NESTED=1");
	rig_sample(&g, true);
	struct wl *cc[] = {&c};
	run_work(&g, cc, 1, &t_go, &t_done);
	verify(&g, &c, t_go, t_done);

	/* a workload that exits is removed; the others stay */
	wl_end(&a);
	rig_sample(&g, false);
	struct sink_ent *m = sink_get(&g.sink, (uint32_t)g.s_mem, (uint64_t)a.pid);
	CHECK(m && m->gone, "pid %d exited but is not gone", a.pid);
	kernels_gone(&g, a.pid, true);
	m = sink_get(&g.sink, (uint32_t)g.s_mem, (uint64_t)b.pid);
	CHECK(m && !m->gone, "pid %d is still running but gone", b.pid);
	/* the exited pid's sweep leaves the others' kernels in the table */
	kernels_gone(&g, b.pid, false);
	uint64_t before = m ? m->samples : 0;
	rig_sample(&g, false);
	m = sink_get(&g.sink, (uint32_t)g.s_mem, (uint64_t)a.pid);
	CHECK(m && m->gone, "an exited pid came back");
	m = sink_get(&g.sink, (uint32_t)g.s_mem, (uint64_t)b.pid);
	CHECK(m && m->samples == before + 1, "pid %d not sampled on", b.pid);
	wl_end(&b);
	wl_end(&c);
	rig_fini(&g);
	return failures ? 1 : 0;
}

/* A followed shell that starts a workload (k = 3) only once told to, that
 * is after the collector attached: the fork tracepoint must follow it. */
static pid_t launcher_start(struct wl *c)
{
	char cmd[3000];
	c->k = 3;
	snprintf(c->ready, sizeof(c->ready), "%s/ready.3", tmpdir);
	snprintf(c->go, sizeof(c->go), "%s/go.3", tmpdir);
	snprintf(c->done, sizeof(c->done), "%s/done.3", tmpdir);
	snprintf(c->end, sizeof(c->end), "%s/end.3", tmpdir);
	snprintf(cmd, sizeof(cmd),
		 "while [ ! -e %s/launch ]; do sleep 0.01; done; "
		 "'%s' --lib-dir '%s' --scale 3 --ready-file %s --go-file %s --done-file %s "
		 "--end-file %s & echo $! > %s/pid.3; wait",
		 tmpdir, workload, libdir, c->ready, c->go, c->done, c->end, tmpdir);
	pid_t pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int mode_tree(void)
{
	struct rig g = {0};
	struct wl a, b, c;
	wl_start(&a, 1);
	wl_start(&b, 2);
	pid_t launcher = launcher_start(&c);
	options_defaults(&g.o);
	g.o.scope = SCOPE_PROCESS_TREE;
	g.o.pids[0] = a.pid;
	g.o.pids[1] = launcher;
	g.o.npids = 2;
	int r = rig_init(&g);
	if (r) {
		touch(a.end);
		touch(b.end);
		kill(launcher, SIGTERM);
		return r == -EPERM || r == -EACCES ? 77 : 1;
	}
	rig_sample(&g, true);
	uint64_t t_go, t_done;
	struct wl *ab[] = {&a, &b};
	run_work(&g, ab, 2, &t_go, &t_done);
	verify(&g, &a, t_go, t_done);

	/* the child the followed shell starts now is followed too */
	char pidfile[300], launch[300];
	snprintf(pidfile, sizeof(pidfile), "%s/pid.3", tmpdir);
	snprintf(launch, sizeof(launch), "%s/launch", tmpdir);
	touch(launch);
	if (wait_file(c.ready, 20) || wait_file(pidfile, 5)) {
		CHECK(0, "the launcher did not start its workload");
	} else {
		FILE *f = fopen(pidfile, "r");
		int pid = 0;
		if (!f || fscanf(f, "%d", &pid) != 1)
			pid = 0;
		if (f)
			fclose(f);
		c.pid = pid;
		rig_sample(&g, true);
		struct wl *cc[] = {&c};
		run_work(&g, cc, 1, &t_go, &t_done);
		verify(&g, &c, t_go, t_done);
	}
	touch(c.end);
	int st;
	waitpid(launcher, &st, 0);
	CHECK(!sink_get(&g.sink, (uint32_t)g.s_mem, (uint64_t)b.pid),
	      "pid %d is outside the followed tree but was counted", b.pid);
	CHECK(sink_count_pid(&g.sink, (uint32_t)g.s_kern, (unsigned)b.pid) == 0,
	      "kernels of pid %d outside the tree were counted", b.pid);
	wl_end(&a);
	wl_end(&b);
	rig_fini(&g);
	return failures ? 1 : 0;
}

/* The entity of pid's NVTX range "outer" (default domain), or NULL. */
static struct sink_ent *range_outer(struct rig *g, int s_ranges, pid_t pid)
{
	for (size_t i = 0; s_ranges >= 0 && i < g->sink.n; i++) {
		struct sink_ent *e = &g->sink.e[i];

		if (e->stream == (uint32_t)s_ranges && e->nv >= 4 && e->v[0] == pid &&
		    !strcmp(e->label, "\x1fouter"))
			return e;
	}
	return NULL;
}

/* Two processes' NVTX ranges from the probes: when one ends, its ranges
 * are gone and the other's go on, with their counts. */
static int mode_nvtx(void)
{
	struct rig g = {0};
	struct wl a, b;
	options_defaults(&g.o);
	g.o.scope = SCOPE_SYSTEM_WIDE;
	int r = rig_init(&g);
	if (r)
		return r == -EPERM || r == -EACCES ? 77 : 1;
	wl_spawn(&a, 1, NULL, true);
	wl_spawn(&b, 2, NULL, true);
	rig_sample(&g, true);
	wait_attached(&g);
	uint64_t t_go, t_done;
	struct wl *ab[] = {&a, &b};
	run_work(&g, ab, 2, &t_go, &t_done);
	int s_ranges = stream_table_find(g.t, "hgtx.ranges");
	CHECK(s_ranges >= 0, "no hgtx.ranges stream after the ranges ended");
	struct sink_ent *ea = range_outer(&g, s_ranges, a.pid),
			*eb = range_outer(&g, s_ranges, b.pid);
	CHECK(ea && ea->v[3] == 20, "pid %d: outer count %.0f, want 20", a.pid,
	      ea ? ea->v[3] : NAN);
	CHECK(eb && eb->v[3] == 20, "pid %d: outer count %.0f, want 20", b.pid,
	      eb ? eb->v[3] : NAN);

	wl_end(&a);
	rig_sample(&g, false);
	size_t gone_a = 0;
	for (size_t i = 0; s_ranges >= 0 && i < g.sink.n; i++) {
		struct sink_ent *e = &g.sink.e[i];

		if (e->stream != (uint32_t)s_ranges || e->entity == STATUS_STREAM)
			continue;
		if (e->v[0] == a.pid) {
			CHECK(e->gone, "range '%s' of the exited pid %d is not gone", e->label + 1,
			      a.pid);
			gone_a++;
		} else {
			CHECK(!e->gone, "range '%s' of the running pid %d is gone", e->label + 1,
			      (int)e->v[0]);
		}
	}
	CHECK(gone_a == 7, "%zu ranges of the exited pid gone, want its 7", gone_a);
	eb = range_outer(&g, s_ranges, b.pid);
	uint64_t before = eb ? eb->samples : 0;
	rig_sample(&g, false);
	eb = range_outer(&g, s_ranges, b.pid);
	CHECK(eb && !eb->gone && eb->samples == before + 1 && eb->v[3] == 20,
	      "pid %d's outer not sampled on with its count after pid %d ended", b.pid, a.pid);
	wl_end(&b);
	rig_fini(&g);
	return failures ? 1 : 0;
}

static int mode_nonroot(void)
{
	struct rig g = {0};
	options_defaults(&g.o);
	int r = rig_init(&g);
	const char *why = gpurt_collector.last_error(g.st);
	CHECK(r == -EPERM, "init as uid %d returned %d, want -EPERM", (int)geteuid(), r);
	CHECK(why && strstr(why, "CAP_BPF") && strstr(why, "CAP_PERFMON") && strstr(why, "sudo") &&
		  strstr(why, "setcap cap_bpf,cap_perfmon+ep"),
	      "message does not say how to fix it: %s", why ? why : "(none)");
	rig_fini(&g);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "main";
	if (!strcmp(mode, "nonroot"))
		return mode_nonroot();
	workload = getenv("GPURT_WORKLOAD");
	libdir = getenv("FAKE_CUDA_DIR");
	if (!workload || !libdir) {
		fprintf(stderr, "set GPURT_WORKLOAD and FAKE_CUDA_DIR\n");
		return 2;
	}
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	int r = !strcmp(mode, "tree")	? mode_tree()
		: !strcmp(mode, "nvtx") ? mode_nvtx()
					: mode_main();
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd)) {
	}
	if (r == 0)
		printf("%s: ok\n", mode);
	return r;
}
