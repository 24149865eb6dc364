#include "config.h"

#ifndef HAVE_BPF
#error "gpurt_watch.c needs libbpf"
#endif

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "collector.h"
#include "gpurt.h"
#include "gpurt_watch.h"
#include "util.h"

struct gpurt_watch {
	struct gpurt_scan *sc;
	struct ring_buffer *rb;
	pthread_t thread;
	pthread_mutex_t lock; /* sc, against gpurt_watch_counts */
	atomic_int stop;
};

static int on_mapped(void *ctx, void *data, size_t len)
{
	struct gpurt_watch *w = ctx;
	struct gpurt_mapped m;
	char name[GPURT_FILE_NAME_MAX + 1];

	if (len < sizeof(m))
		return 0;
	memcpy(&m, data, sizeof(m));
	memcpy(name, m.name, sizeof(m.name));
	name[sizeof(m.name)] = '\0';
	/* a name as long as the record's room may be cut: read the maps anyway */
	if (strlen(name) < sizeof(m.name) - 1 && !gpurt_probes_lib_wanted(&w->sc->probes, name))
		return 0;
	pthread_mutex_lock(&w->lock);
	gpurt_scan_pid(w->sc, m.pid, true);
	pthread_mutex_unlock(&w->lock);
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

		if (now >= next) {
			pthread_mutex_lock(&w->lock);
			gpurt_scan_libraries(w->sc, now);
			pthread_mutex_unlock(&w->lock);
			next = now + GPURT_RESCAN_NS;
		}
		if (w->rb) {
			if (ring_buffer__poll(w->rb, GPURT_WATCH_POLL_MS) < 0 && errno != EINTR)
				break;
		} else {
			struct timespec ts = {0, GPURT_WATCH_POLL_MS * 1000000L};

			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

int gpurt_watch_start(struct gpurt_watch **out, struct gpurt_scan *sc, int fd_mapped)
{
	struct gpurt_watch *w = calloc(1, sizeof(*w));
	int r;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->sc = sc;
	pthread_mutex_init(&w->lock, NULL);
	if (fd_mapped >= 0) {
		w->rb = ring_buffer__new(fd_mapped, on_mapped, w, NULL);
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
	pthread_mutex_destroy(&w->lock);
	free(w);
	return r;
}

void gpurt_watch_stop(struct gpurt_watch *w)
{
	if (!w)
		return;
	atomic_store(&w->stop, 1);
	pthread_join(w->thread, NULL);
	ring_buffer__free(w->rb);
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
