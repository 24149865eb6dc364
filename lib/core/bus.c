/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "bus.h"
#include "collector.h"
#include "khash.h"
#include "util.h"

/* Records taken from one ring per pump: bounded so that one busy producer
 * cannot starve the others; a ring past half full asks for the next pump
 * at once anyway. */
#define BUS_PUMP_MAX 65536
/* The period of a bus nobody has given one (tests): short, so that a test
 * never waits on it. A session sets a quarter refresh. */
#define BUS_PERIOD_UNSET_NS 5000000

/* See bus_wait_ns. */
#define BUS_HELPED_PERIODS 8
#define BUS_HELPED_ALL_NS 30000000000ull

#define BUS_MAX_RINGS 64
#define BUS_MAX_CONSUMERS 8

struct bus_consumer {
	const struct bus_consumer_ops *ops;
	void *ctx;
	int live;
	uint64_t latency_ns; /* 0: the bus's period is soon enough */
};

/* The latest label or status of each (stream, entity), so that a consumer
 * attached later (a recording started with R) can still name everything.
 * Kept in arrival order for that replay, and hashed by (stream, entity) so
 * a flood of labels or GONE records costs O(1) each. At most
 * BUS_STICKY_MAX are kept: past that a new entity's label is only passed
 * on, not remembered for later consumers. Those of rings a workload feeds
 * (bus_add_ring_fed) count against a bound of their own, so a job that
 * names thousands of ranges cannot take the room of the host's labels. */
#define BUS_STICKY_MAX 16384
#define BUS_STICKY_FED_MAX 4096
#define BUS_STICKY_BUCKETS 4096

struct sticky {
	struct rec *r; /* owned copy */
	struct sticky *hnext;
	size_t idx; /* in the arrival-order array */
	bool fed;   /* from a ring the workload feeds */
};
struct bus {
	struct ring *rings[BUS_MAX_RINGS];
	bool fed[BUS_MAX_RINGS]; /* bus_add_ring_fed */
	int nrings;
	struct bus_consumer cons[BUS_MAX_CONSUMERS];
	pthread_mutex_t lock; /* consumers, stickies, and one pump at a time */
	pthread_t thread;
	int running;
	atomic_int stop;
	uint64_t period_ns;
	/* the period now: period_ns, or less while a consumer needs it */
	_Atomic uint64_t cur_period_ns;
	int wake_fd;	       /* eventfd: a ring past half full, a consumer's new
				* latency, or bus_stop */
	atomic_int helped;     /* a sampling thread pumps each period (bus_pump_due) */
	atomic_int helped_all; /* ... and every producer writes on that thread */
	_Atomic uint64_t last_pump_ns;
	/* bus_notify_after: the fd to write after the first pump that begins
	 * at or after notify_at (0: none asked for) */
	atomic_int notify_fd;
	_Atomic uint64_t notify_at;
	struct sticky **sticky; /* arrival order */
	size_t nsticky, capsticky;
	size_t nfed; /* of them, from rings the workload feeds */
	struct sticky *shash[BUS_STICKY_BUCKETS];
};

struct bus *bus_new(void)
{
	struct bus *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (b->wake_fd < 0) {
		free(b);
		return NULL;
	}
	pthread_mutex_init(&b->lock, NULL);
	return b;
}

void bus_free(struct bus *b)
{
	if (!b)
		return;
	bus_stop(b);
	for (size_t i = 0; i < b->nsticky; i++) {
		free(b->sticky[i]->r);
		free(b->sticky[i]);
	}
	free(b->sticky);
	pthread_mutex_destroy(&b->lock);
	close(b->wake_fd);
	free(b);
}

int bus_add_ring(struct bus *b, struct ring *r)
{
	if (b->nrings >= BUS_MAX_RINGS)
		return -ENOSPC;
	b->fed[b->nrings] = false;
	b->rings[b->nrings++] = r;
	r->wake_fd = b->wake_fd;
	return 0;
}

int bus_add_ring_fed(struct bus *b, struct ring *r)
{
	int rc = bus_add_ring(b, r);

	if (rc == 0)
		b->fed[b->nrings - 1] = true;
	return rc;
}

static void consumer_deliver(struct bus_consumer *c, const struct rec *r)
{
	if (c->ops->begin)
		c->ops->begin(c->ctx);
	c->ops->consume(c->ctx, r);
	if (c->ops->end)
		c->ops->end(c->ctx);
}

/* Under the lock: the period is the longest that every live consumer
 * accepts. A wake of an idle bus costs 20-70 us on a VM, so at a 1 s refresh
 * with no recording the bus wakes 4 times a second, not 20. */
static void bus_period_update(struct bus *b)
{
	uint64_t p = b->period_ns ? b->period_ns : BUS_PERIOD_UNSET_NS;
	uint64_t one = 1;

	for (int i = 0; i < BUS_MAX_CONSUMERS; i++)
		if (b->cons[i].live && b->cons[i].latency_ns && b->cons[i].latency_ns < p)
			p = b->cons[i].latency_ns;
	if (atomic_exchange(&b->cur_period_ns, p) > p && write(b->wake_fd, &one, sizeof(one)) < 0) {
		/* the thread sees the shorter period after its current wait */
	}
}

int bus_attach_within(struct bus *b, const struct bus_consumer_ops *ops, void *ctx,
		      uint64_t latency_ns)
{
	int h = -ENOSPC;

	pthread_mutex_lock(&b->lock);
	for (int i = 0; i < BUS_MAX_CONSUMERS; i++) {
		if (b->cons[i].live)
			continue;
		b->cons[i] = (struct bus_consumer){ops, ctx, 1, latency_ns};
		for (size_t k = 0; k < b->nsticky; k++)
			consumer_deliver(&b->cons[i], b->sticky[k]->r);
		h = i;
		break;
	}
	if (h >= 0)
		bus_period_update(b);
	pthread_mutex_unlock(&b->lock);
	return h;
}

int bus_attach(struct bus *b, const struct bus_consumer_ops *ops, void *ctx)
{
	return bus_attach_within(b, ops, ctx, 0);
}

void bus_detach(struct bus *b, int handle)
{
	if (handle < 0 || handle >= BUS_MAX_CONSUMERS)
		return;
	pthread_mutex_lock(&b->lock);
	b->cons[handle].live = 0;
	bus_period_update(b);
	pthread_mutex_unlock(&b->lock);
}

static size_t sticky_bucket(uint32_t stream, uint64_t entity)
{
	return (size_t)khash_pair(stream, entity) & (BUS_STICKY_BUCKETS - 1);
}

static void sticky_drop(struct bus *b, struct sticky **pp)
{
	struct sticky *s = *pp, *last = b->sticky[--b->nsticky];

	*pp = s->hnext;
	b->sticky[s->idx] = last;
	last->idx = s->idx;
	b->nfed -= s->fed;
	free(s->r);
	free(s);
}

static struct sticky *sticky_add(struct bus *b, size_t k, bool fed)
{
	struct sticky *s;

	if (fed ? b->nfed >= BUS_STICKY_FED_MAX : b->nsticky - b->nfed >= BUS_STICKY_MAX)
		return NULL;
	if (b->nsticky == b->capsticky) {
		size_t cap = b->capsticky ? b->capsticky * 2 : 64;
		struct sticky **ns = realloc(b->sticky, cap * sizeof(*ns));

		if (!ns)
			return NULL;
		b->sticky = ns;
		b->capsticky = cap;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->idx = b->nsticky;
	s->fed = fed;
	b->nfed += fed;
	s->hnext = b->shash[k];
	b->shash[k] = s;
	b->sticky[b->nsticky++] = s;
	return s;
}

static void sticky_update(struct bus *b, const struct rec *r, bool fed)
{
	size_t k = sticky_bucket(r->stream, r->entity);
	struct sticky **pp = &b->shash[k], *s;
	struct rec *c;

	while ((s = *pp)) {
		if (s->r->stream == r->stream && s->r->entity == r->entity) {
			/* GONE drops every sticky of the entity (label and status) */
			if (r->kind == REC_GONE) {
				sticky_drop(b, pp);
				continue;
			}
			if (s->r->kind == r->kind)
				break;
		}
		pp = &s->hnext;
	}
	if (r->kind == REC_GONE)
		return;
	c = malloc(r->len);
	if (!c)
		return;
	memcpy(c, r, r->len);
	if (!s && !(s = sticky_add(b, k, fed))) {
		free(c);
		return;
	}
	free(s->r);
	s->r = c;
}

/* The rings' records to every live consumer; under the lock, between the
 * consumers' begin and end. */
static uint64_t bus_drain(struct bus *b)
{
	uint64_t n = 0;

	for (int i = 0; i < b->nrings; i++) {
		const struct rec *r;
		size_t len;

		ring_drained(b->rings[i]);
		for (int k = 0; k < BUS_PUMP_MAX && (r = ring_peek(b->rings[i], &len)); k++) {
			if (r->kind != REC_SAMPLE)
				sticky_update(b, r, b->fed[i]);
			for (int c = 0; c < BUS_MAX_CONSUMERS; c++)
				if (b->cons[c].live)
					b->cons[c].ops->consume(b->cons[c].ctx, r);
			ring_pop(b->rings[i], len);
			n++;
		}
	}
	return n;
}

/* The consumers' end after a drain, or after the first upto ones began. */
static void bus_end(struct bus *b, int upto, bool only_begun)
{
	for (int c = 0; c < upto; c++)
		if (b->cons[c].live && b->cons[c].ops->end &&
		    (!only_begun || b->cons[c].ops->begin))
			b->cons[c].ops->end(b->cons[c].ctx);
}

/* After a pump that began at start: the wake a screen asked for, once. */
static void bus_notify(struct bus *b, uint64_t start)
{
	uint64_t at = atomic_load(&b->notify_at);
	uint64_t one = 1;

	if (!at || start < at || !atomic_compare_exchange_strong(&b->notify_at, &at, 0))
		return;
	if (write(atomic_load(&b->notify_fd), &one, sizeof(one)) < 0) {
		/* EAGAIN: the last wake is still unread, which wakes it as well */
	}
}

uint64_t bus_pump(struct bus *b)
{
	uint64_t start = asys_now_ns();
	uint64_t n;

	pthread_mutex_lock(&b->lock);
	for (int c = 0; c < BUS_MAX_CONSUMERS; c++)
		if (b->cons[c].live && b->cons[c].ops->begin)
			b->cons[c].ops->begin(b->cons[c].ctx);
	n = bus_drain(b);
	bus_end(b, BUS_MAX_CONSUMERS, false);
	atomic_store_explicit(&b->last_pump_ns, asys_now_ns(), memory_order_relaxed);
	pthread_mutex_unlock(&b->lock);
	bus_notify(b, start);
	return n;
}

/* A sampling thread's pump, which never waits: not for another pump, not
 * for a consumer that is busy (the store while a scrape or a frame copies
 * out of it). Then the bus thread is woken to pump in its place, so the
 * records are as fresh and only that thread waits. */
static bool bus_try_pump(struct bus *b)
{
	uint64_t start = asys_now_ns();
	uint64_t one = 1;
	int c;

	if (!pthread_mutex_trylock(&b->lock)) {
		for (c = 0; c < BUS_MAX_CONSUMERS; c++) {
			const struct bus_consumer_ops *ops = b->cons[c].ops;

			if (!b->cons[c].live || !ops->begin)
				continue;
			if (!ops->try_begin)
				ops->begin(b->cons[c].ctx);
			else if (!ops->try_begin(b->cons[c].ctx))
				break;
		}
		if (c == BUS_MAX_CONSUMERS) {
			bus_drain(b);
			bus_end(b, BUS_MAX_CONSUMERS, false);
			atomic_store_explicit(&b->last_pump_ns, asys_now_ns(),
					      memory_order_relaxed);
			pthread_mutex_unlock(&b->lock);
			bus_notify(b, start);
			return true;
		}
		bus_end(b, c, true);
		pthread_mutex_unlock(&b->lock);
	}
	if (write(b->wake_fd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the thread is woken already */
	}
	return false;
}

void bus_set_helped(struct bus *b, bool on, bool all)
{
	uint64_t one = 1;

	atomic_store(&b->helped_all, on && all);
	if (atomic_exchange(&b->helped, on) && !on && write(b->wake_fd, &one, sizeof(one)) < 0) {
		/* the thread takes its own period again after its current wait */
	}
}

uint64_t bus_period_ns(const struct bus *b)
{
	return b->running ? b->period_ns : 0;
}

bool bus_pump_due(struct bus *b, uint64_t now_ns)
{
	uint64_t last = atomic_load_explicit(&b->last_pump_ns, memory_order_relaxed);
	uint64_t at = atomic_load_explicit(&b->notify_at, memory_order_relaxed);

	if (now_ns - last < atomic_load_explicit(&b->cur_period_ns, memory_order_relaxed) &&
	    !(at && now_ns >= at))
		return false;
	return bus_try_pump(b);
}

void bus_notify_after(struct bus *b, int fd, uint64_t at_ns)
{
	atomic_store(&b->notify_at, 0);
	atomic_store(&b->notify_fd, fd);
	atomic_store(&b->notify_at, at_ns);
}

/* How long the thread waits: the period, or while a sampling thread pumps
 * every period (and no consumer asks for less), BUS_HELPED_PERIODS of them,
 * so it wakes only for what that thread cannot see: a ring past half full,
 * or a producer of another thread when that thread has stopped. When every
 * producer is on the pumping thread, a consumer's shorter latency is that
 * thread's to keep too: it pumps right after the ticks that wrote the
 * records, so none waits for this thread (a recorder's 50 ms would
 * otherwise wake it 20 times a second for nothing), and what is left for
 * this thread comes through its eventfd (a ring half full, a pump handed
 * over by bus_try_pump): its timed wake is then only a safety net, and a
 * rare one, as each wake of an idle thread costs 20-70 us on a VM. */
static uint64_t bus_wait_ns(struct bus *b)
{
	uint64_t p = atomic_load(&b->cur_period_ns);

	if (atomic_load(&b->helped_all))
		return BUS_HELPED_ALL_NS;
	if (atomic_load(&b->helped) && p >= b->period_ns)
		p *= BUS_HELPED_PERIODS;
	return p;
}

static void *bus_thread(void *arg)
{
	struct bus *b = arg;
	struct pollfd p = {b->wake_fd, POLLIN, 0};

	pthread_setname_np(pthread_self(), "asys-bus");
	util_block_signals();
	/* One pump a period, in big batches, not back to back while records
	 * trickle in (at 10 kHz that kept this thread awake); a ring that
	 * passes half full wakes it early, so a fast producer does not drop. */
	while (!b->stop) {
		struct timespec ts;
		uint64_t v;

		bus_pump(b);
		ts = util_timespec(bus_wait_ns(b));
		if (ppoll(&p, 1, &ts, NULL) > 0 && read(b->wake_fd, &v, sizeof(v)) < 0) {
			/* EAGAIN: another wake took it */
		}
	}
	while (bus_pump(b))
		;
	return NULL;
}

int bus_start(struct bus *b, uint64_t period_ns)
{
	int rc;

	if (b->running)
		return -EALREADY;
	b->period_ns = period_ns ? period_ns : 5000000;
	pthread_mutex_lock(&b->lock);
	bus_period_update(b);
	pthread_mutex_unlock(&b->lock);
	b->stop = 0;
	rc = pthread_create(&b->thread, NULL, bus_thread, b);
	if (rc)
		return -rc;
	b->running = 1;
	return 0;
}

void bus_stop(struct bus *b)
{
	uint64_t one = 1;

	if (!b || !b->running)
		return;
	b->stop = 1;
	if (write(b->wake_fd, &one, sizeof(one)) < 0) {
		/* the thread still sees stop within a period */
	}
	pthread_join(b->thread, NULL);
	b->running = 0;
}

uint64_t bus_dropped(struct bus *b)
{
	uint64_t d = 0;

	for (int i = 0; i < b->nrings; i++)
		d += ring_dropped(b->rings[i]);
	return d;
}
