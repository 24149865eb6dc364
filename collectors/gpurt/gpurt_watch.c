/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#ifndef HAVE_BPF
#error "gpurt_watch.c needs libbpf"
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "collector.h"
#include "env.h"
#include "gpurt.h"
#include "gpurt_watch.h"
#include "util.h"

/* A burst of dlopen calls (a framework loading its modules) reads each
 * process's maps once per window, not at every call; the last call of a
 * burst is still read within a window. */
#define WATCH_BATCH_NS 2000000ull
#define WATCH_PENDING_MAX 256

struct gpurt_watch {
	struct gpurt_scan *sc;
	struct ring_buffer *rb;
	pthread_t thread;
	pthread_mutex_t lock; /* sc, against gpurt_watch_counts and _path */
	atomic_int stop;
	int stop_fd; /* an eventfd: the thread sleeps until work is due, not in short naps */
	uint32_t pending[WATCH_PENDING_MAX]; /* processes to read, once each */
	size_t npending;
	uint64_t due_ns; /* when they are read */
	/* for ASYS_GPURT_STATS: ring records by kind (GPURT_LOADED_), maps
	 * files read for them */
	uint64_t nevents[3], nevent_reads;
};

static int on_loaded(void *ctx, void *data, size_t len)
{
	struct gpurt_watch *w = ctx;
	struct gpurt_loaded ev;

	if (len < sizeof(ev))
		return 0;
	memcpy(&ev, data, sizeof(ev));
	w->nevents[ev.kind < ARRAY_SIZE(w->nevents) ? ev.kind : 0]++;
	for (size_t i = 0; i < w->npending; i++)
		if (w->pending[i] == ev.pid)
			return 0;
	if (!w->npending)
		w->due_ns = asys_now_ns() + WATCH_BATCH_NS;
	/* past the bound, the next scan reads every process: 256 processes
	 * loading the runtime within one window is far past any real
	 * start-up */
	if (w->npending < WATCH_PENDING_MAX) {
		w->pending[w->npending++] = ev.pid;
	} else {
		pthread_mutex_lock(&w->lock);
		w->sc->missed = true;
		pthread_mutex_unlock(&w->lock);
	}
	return 0;
}

static void read_pending(struct gpurt_watch *w)
{
	pthread_mutex_lock(&w->lock);
	uint64_t before = w->sc->nreads;
	for (size_t i = 0; i < w->npending; i++)
		gpurt_scan_pid(w->sc, w->pending[i], true);
	w->nevent_reads += w->sc->nreads - before;
	pthread_mutex_unlock(&w->lock);
	w->npending = 0;
}

/* Milliseconds until t, rounded up, for poll. */
static int watch_ms_until(uint64_t t, uint64_t now)
{
	uint64_t ms = t > now ? (t - now + 999999) / 1000000 : 0;

	return ms > 60000 ? 60000 : (int)ms;
}

/* Sleeps until the ring has events, a stop, or the timeout; then takes
 * what the ring holds. -1 when the ring cannot be read any more. */
static int watch_wait(struct gpurt_watch *w, int wait_ms)
{
	struct pollfd pfd[2] = {
	    {.fd = w->stop_fd, .events = POLLIN},
	    {.fd = w->rb ? ring_buffer__epoll_fd(w->rb) : -1, .events = POLLIN}};

	if (poll(pfd, w->rb ? 2 : 1, wait_ms) < 0 && errno != EINTR)
		return -1;
	if (w->rb && (pfd[1].revents & POLLIN) && ring_buffer__consume(w->rb) < 0 && errno != EINTR)
		return -1;
	return 0;
}

static void *watch_thread(void *arg)
{
	struct gpurt_watch *w = arg;
	uint64_t next = 0;

	util_block_signals();
	pthread_setname_np(pthread_self(), "asys-gpurt");
	while (!atomic_load(&w->stop)) {
		uint64_t now = asys_now_ns();
		int wait_ms;

		if (now >= next) {
			pthread_mutex_lock(&w->lock);
			gpurt_scan_libraries(w->sc, now);
			pthread_mutex_unlock(&w->lock);
			next = now + (w->sc->tree ? GPURT_RESCAN_NS
				      : w->sc->rescan_ns < GPURT_RESCAN_WIDE_NS
					  ? w->sc->rescan_ns
					  : GPURT_RESCAN_WIDE_NS);
		}
		if (w->npending && now >= w->due_ns)
			read_pending(w);
		wait_ms = watch_ms_until(w->npending && w->due_ns < next ? w->due_ns : next, now);
		if (watch_wait(w, wait_ms) < 0)
			break;
	}
	return NULL;
}

int gpurt_watch_start(struct gpurt_watch **out, struct gpurt_scan *sc, int fd_loader)
{
	struct gpurt_watch *w = calloc(1, sizeof(*w));
	int r;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->sc = sc;
	pthread_mutex_init(&w->lock, NULL);
	w->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->stop_fd < 0) {
		r = -errno;
		pthread_mutex_destroy(&w->lock);
		free(w);
		return r;
	}
	if (fd_loader >= 0) {
		w->rb = ring_buffer__new(fd_loader, on_loaded, w, NULL);
		if (!w->rb) {
			r = -errno;
			goto fail;
		}
	}
	r = -pthread_create(&w->thread, NULL, watch_thread, w);
	if (r)
		goto fail;
	*out = w;
	return 0;
fail:
	ring_buffer__free(w->rb);
	close(w->stop_fd);
	pthread_mutex_destroy(&w->lock);
	free(w);
	return r;
}

/* What the discovery did, for tests and benches: written to the file
 * ASYS_GPURT_STATS names, which must be a regular file that exists (it is
 * truncated, never created or followed through a link). */
static void watch_stats_write(const struct gpurt_watch *w)
{
	const char *path = env_path("ASYS_GPURT_STATS");
	const struct gpurt_scan *sc = w->sc;

	if (!path)
		return;
	/* O_NONBLOCK: a FIFO there is refused, not waited on */
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return;
	FILE *fp = NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || ftruncate(fd, 0) || !(fp = fdopen(fd, "w"))) {
		close(fd);
		return;
	}
	fprintf(fp,
		"scans %" PRIu64 "\nmaps_reads %" PRIu64 "\nmaps_reads_first_scan %" PRIu64
		"\nmaps_reads_again %" PRIu64 "\nmaps_reads_events %" PRIu64
		"\nevents_loader %" PRIu64 "\nevents_exec %" PRIu64 "\nevents_lost %" PRIu64
		"\nloaders %zu\nlibraries %zu\nprobes %zu\nlinks %zu\nuprobe_multi %d\n",
		sc->npasses, sc->nreads, sc->nreads_first, sc->nreads_again, w->nevent_reads,
		w->nevents[GPURT_LOADED_OBJECTS], w->nevents[GPURT_LOADED_EXEC],
		sc->loader_lost ? (uint64_t)*sc->loader_lost : 0, sc->nloaders, sc->nlibs,
		sc->nattached, sc->nlinks + sc->nmlinks, sc->multi);
	fclose(fp);
}

void gpurt_watch_stop(struct gpurt_watch *w)
{
	if (!w)
		return;
	atomic_store(&w->stop, 1);
	if (eventfd_write(w->stop_fd, 1) < 0) {
		/* the thread then sees the stop at its next wake, 10 s at most */
	}
	pthread_join(w->thread, NULL);
	watch_stats_write(w);
	ring_buffer__free(w->rb);
	close(w->stop_fd);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

int gpurt_watch_path(struct gpurt_watch *w, uint64_t dev, uint64_t ino, char *buf, size_t n)
{
	pthread_mutex_lock(&w->lock);
	int r = gpurt_scan_path(w->sc, dev, ino, buf, n);
	pthread_mutex_unlock(&w->lock);
	return r;
}

void gpurt_watch_counts(struct gpurt_watch *w, size_t *nlibs, size_t *nattached)
{
	pthread_mutex_lock(&w->lock);
	*nlibs = w->sc->nlibs;
	*nattached = w->sc->nattached;
	pthread_mutex_unlock(&w->lock);
}
