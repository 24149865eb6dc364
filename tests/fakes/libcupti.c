/* SPDX-License-Identifier: GPL-2.0-only */
/* A test stand-in for CUPTI's Activity API: the calls inject_ktime.c makes,
 * with the real header's record layouts, delivering records of known
 * durations from a thread of its own, as CUPTI does.
 *
 * FAKE_CUPTI_SCRIPT holds the records, ';'-separated:
 *   k NAME DEVICE NS COUNT    COUNT kernel records of NS each
 *   m DIR BYTES NS COUNT      COUNT copies, DIR a CUPTI memcpy kind (1 HtoD,
 *                             2 DtoH, 8 DtoD, 9 HtoH, 10 PtoP)
 *   i NAME DEVICE COUNT       COUNT kernel records still running (end 0)
 *   d N                       N records dropped (GetNumDroppedRecords)
 * They are made when both kinds are enabled and handed over in buffers as
 * they fill, and the rest at each cuptiActivityFlushAll. FAKE_CUPTI_REPEAT=N
 * makes them N times, one round every FAKE_CUPTI_PERIOD_MS (default 100),
 * for a workload whose kernels run over a while. FAKE_CUPTI_ROUND_FD=N
 * writes a byte to fd N once a round is all handed over, so that a test can
 * sample between rounds, never inside one. FAKE_CUPTI_FAIL=enable makes
 * cuptiActivityEnable fail, as on a machine without a driver. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_include) && __has_include(<cupti_activity.h>)
#include <cupti_activity.h>
#include <cupti_result.h>
typedef CUpti_ActivityKernel10 fake_kernel;
typedef CUpti_ActivityMemcpy6 fake_memcpy;
typedef CUpti_Activity fake_activity;
typedef CUptiResult fake_result;
typedef CUpti_BuffersCallbackRequestFunc fake_req_fn;
typedef CUpti_BuffersCallbackCompleteFunc fake_done_fn;
#define FAKE_SUCCESS CUPTI_SUCCESS
#define FAKE_LIMIT CUPTI_ERROR_MAX_LIMIT_REACHED
#define FAKE_INVALID CUPTI_ERROR_INVALID_PARAMETER
#define FAKE_NOT_READY CUPTI_ERROR_NOT_INITIALIZED
#define FAKE_KIND_KERNEL CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
#define FAKE_KIND_MEMCPY CUPTI_ACTIVITY_KIND_MEMCPY
#define FAKE_CTX CUcontext
#else
#error "the CUPTI headers are needed to build the CUPTI stand-in"
#endif

#define FAKE_BUF_RECORDS 64 /* records per buffer, so a script spans several */

struct fake_rec {
	int is_kernel, running;
	const char *name;
	uint32_t device;
	uint8_t dir;
	uint64_t bytes, ns;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake, done;
	fake_req_fn req;
	fake_done_fn complete;
	int enabled_kernel, enabled_memcpy, started;
	struct fake_rec *script, *recs;
	size_t nscript, nrecs, next;
	unsigned long rounds, period_ms;
	int round_fd; /* told of each round handed over, or -1 */
	uint64_t flush_asked, flush_done;
	size_t dropped;
	uint64_t clock_ns;
} fake = {.lock = PTHREAD_MUTEX_INITIALIZER,
	  .wake = PTHREAD_COND_INITIALIZER,
	  .done = PTHREAD_COND_INITIALIZER,
	  .clock_ns = 1000000000ull};

static void fake_add(const struct fake_rec *r, unsigned long count)
{
	struct fake_rec *v = realloc(fake.script, (fake.nscript + count) * sizeof(*v));

	if (!v)
		abort();
	fake.script = v;
	for (unsigned long i = 0; i < count; i++)
		fake.script[fake.nscript++] = *r;
}

/* One more round of the script into the queue. */
static void fake_round(void)
{
	struct fake_rec *v = realloc(fake.recs, (fake.nrecs + fake.nscript + 1) * sizeof(*v));

	if (!v)
		abort();
	fake.recs = v;
	memcpy(fake.recs + fake.nrecs, fake.script, fake.nscript * sizeof(*v));
	fake.nrecs += fake.nscript;
	fake.rounds--;
}

static void fake_parse(void)
{
	const char *s = getenv("FAKE_CUPTI_SCRIPT"), *rep = getenv("FAKE_CUPTI_REPEAT"),
		   *per = getenv("FAKE_CUPTI_PERIOD_MS"), *rfd = getenv("FAKE_CUPTI_ROUND_FD");
	char *copy = strdup(s ? s : ""), *save = NULL;

	for (char *t = strtok_r(copy, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
		char name[512];
		unsigned long a, b, c, d;
		struct fake_rec r = {0};

		if (sscanf(t, " k %511s %lu %lu %lu", name, &a, &b, &c) == 4) {
			r.is_kernel = 1;
			r.name = strdup(name); /* CUPTI's names live as long as the module */
			r.device = (uint32_t)a;
			r.ns = b;
			fake_add(&r, c);
		} else if (sscanf(t, " m %lu %lu %lu %lu", &a, &b, &c, &d) == 4) {
			r.dir = (uint8_t)a;
			r.bytes = b;
			r.ns = c;
			fake_add(&r, d);
		} else if (sscanf(t, " i %511s %lu %lu", name, &a, &b) == 3) {
			r.is_kernel = 1;
			r.running = 1;
			r.name = strdup(name);
			r.device = (uint32_t)a;
			fake_add(&r, b);
		} else if (sscanf(t, " d %lu", &a) == 1) {
			fake.dropped += a;
		}
	}
	free(copy);
	fake.rounds = rep ? strtoul(rep, NULL, 10) : 1;
	fake.period_ms = per ? strtoul(per, NULL, 10) : 100;
	fake.round_fd = rfd ? atoi(rfd) : -1;
}

static size_t fake_fill(uint8_t *buf, size_t size)
{
	size_t used = 0, n = 0;

	while (fake.next < fake.nrecs && n < FAKE_BUF_RECORDS) {
		const struct fake_rec *r = &fake.recs[fake.next];
		size_t need = r->is_kernel ? sizeof(fake_kernel) : sizeof(fake_memcpy);

		if (used + need > size)
			break;
		if (r->is_kernel) {
			fake_kernel *k = (fake_kernel *)(buf + used);

			memset(k, 0, sizeof(*k));
			k->kind = FAKE_KIND_KERNEL;
			k->start = fake.clock_ns;
			k->end = r->running ? 0 : fake.clock_ns + r->ns;
			k->deviceId = r->device;
			k->name = r->name;
		} else {
			fake_memcpy *m = (fake_memcpy *)(buf + used);

			memset(m, 0, sizeof(*m));
			m->kind = FAKE_KIND_MEMCPY;
			m->copyKind = r->dir;
			m->bytes = r->bytes;
			m->start = fake.clock_ns;
			m->end = fake.clock_ns + r->ns;
		}
		fake.clock_ns += r->ns + 1000;
		used += need;
		fake.next++;
		n++;
	}
	return used;
}

/* Hands the pending records over, buffer by buffer, unlocked while the
 * tool's callbacks run. */
static void fake_deliver(void)
{
	while (fake.next < fake.nrecs) {
		uint8_t *buf = NULL;
		size_t size = 0, maxn = 0, used;

		pthread_mutex_unlock(&fake.lock);
		fake.req(&buf, &size, &maxn);
		pthread_mutex_lock(&fake.lock);
		if (!buf)
			return;
		used = fake_fill(buf, size);
		pthread_mutex_unlock(&fake.lock);
		fake.complete(NULL, 0, buf, size, used);
		pthread_mutex_lock(&fake.lock);
	}
}

static void *fake_thread(void *arg)
{
	struct timespec until;

	(void)arg;
	clock_gettime(CLOCK_REALTIME, &until);
	pthread_mutex_lock(&fake.lock);
	for (;;) {
		struct timespec now;
		int made;

		/* a round on its period, not at every flush */
		clock_gettime(CLOCK_REALTIME, &now);
		made = fake.rounds && (now.tv_sec > until.tv_sec || (now.tv_sec == until.tv_sec &&
								     now.tv_nsec >= until.tv_nsec));
		if (made) {
			fake_round();
			until.tv_sec += (time_t)(fake.period_ms / 1000);
			until.tv_nsec += (long)(fake.period_ms % 1000) * 1000000;
			if (until.tv_nsec >= 1000000000)
				until.tv_sec++, until.tv_nsec -= 1000000000;
		}
		fake_deliver();
		if (made && fake.round_fd >= 0 && write(fake.round_fd, "r", 1) != 1)
			fake.round_fd = -1; /* the test stopped listening */
		fake.flush_done = fake.flush_asked;
		pthread_cond_broadcast(&fake.done);
		if (fake.rounds)
			pthread_cond_timedwait(&fake.wake, &fake.lock, &until);
		else
			while (fake.flush_asked == fake.flush_done)
				pthread_cond_wait(&fake.wake, &fake.lock);
	}
	return NULL;
}

static void fake_maybe_start(void)
{
	pthread_t th;

	if (fake.started || !fake.enabled_kernel || !fake.enabled_memcpy || !fake.complete)
		return;
	fake.started = 1;
	fake_parse();
	if (pthread_create(&th, NULL, fake_thread, NULL) == 0)
		pthread_detach(th);
}

fake_result cuptiActivityEnable(CUpti_ActivityKind kind)
{
	const char *f = getenv("FAKE_CUPTI_FAIL");

	if (f && !strcmp(f, "enable"))
		return FAKE_NOT_READY;
	pthread_mutex_lock(&fake.lock);
	if (kind == FAKE_KIND_KERNEL)
		fake.enabled_kernel = 1;
	else if (kind == FAKE_KIND_MEMCPY)
		fake.enabled_memcpy = 1;
	fake_maybe_start();
	pthread_mutex_unlock(&fake.lock);
	return FAKE_SUCCESS;
}

fake_result cuptiActivityDisable(CUpti_ActivityKind kind)
{
	(void)kind;
	return FAKE_SUCCESS;
}

fake_result cuptiActivityRegisterCallbacks(fake_req_fn req, fake_done_fn done)
{
	if (!req || !done)
		return FAKE_INVALID;
	pthread_mutex_lock(&fake.lock);
	fake.req = req;
	fake.complete = done;
	fake_maybe_start();
	pthread_mutex_unlock(&fake.lock);
	return FAKE_SUCCESS;
}

/* Returns once the thread has handed over everything made so far. */
fake_result cuptiActivityFlushAll(uint32_t flag)
{
	uint64_t want;

	(void)flag;
	pthread_mutex_lock(&fake.lock);
	if (fake.started) {
		want = ++fake.flush_asked;
		pthread_cond_signal(&fake.wake);
		while (fake.flush_done < want)
			pthread_cond_wait(&fake.done, &fake.lock);
	}
	pthread_mutex_unlock(&fake.lock);
	return FAKE_SUCCESS;
}

fake_result cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, fake_activity **record)
{
	size_t off, step;

	if (!buffer || !record)
		return FAKE_INVALID;
	if (!*record) {
		off = 0;
	} else {
		off = (size_t)((uint8_t *)*record - buffer);
		step =
		    (*record)->kind == FAKE_KIND_KERNEL ? sizeof(fake_kernel) : sizeof(fake_memcpy);
		off += step;
	}
	if (off >= valid)
		return FAKE_LIMIT;
	*record = (fake_activity *)(buffer + off);
	return FAKE_SUCCESS;
}

fake_result cuptiActivityGetNumDroppedRecords(FAKE_CTX ctx, uint32_t stream, size_t *n)
{
	(void)ctx;
	(void)stream;
	pthread_mutex_lock(&fake.lock);
	*n = fake.dropped;
	fake.dropped = 0;
	pthread_mutex_unlock(&fake.lock);
	return FAKE_SUCCESS;
}

fake_result cuptiGetResultString(fake_result r, const char **s)
{
	*s = r == FAKE_NOT_READY ? "CUPTI_ERROR_NOT_INITIALIZED (test stand-in)"
				 : "CUPTI error (test stand-in)";
	return FAKE_SUCCESS;
}
