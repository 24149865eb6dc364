/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "serve_conn.h"
#include "util.h"

#define SERVE_CONN_NS 1000000000ull

struct serve_conn {
	int fd;		   /* -1: a free slot */
	uint64_t since_ns; /* opened, or its last answer sent */
	bool busy;	   /* its request arrived whole: being answered */
	bool cut;
};

struct serve_conns {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t reaper;
	bool stopping;
	size_t live; /* open and not cut */
	unsigned long cuts;
	struct serve_conn slot[SERVE_CONN_MAX];
};

/* Under the lock. */
static void serve_conn_cut(struct serve_conns *c, struct serve_conn *k)
{
	shutdown(k->fd, SHUT_RDWR);
	k->cut = true;
	c->live--;
	c->cuts++;
}

/* Waiting for its request, and not cut. */
static bool serve_conn_waiting(const struct serve_conn *k)
{
	return k->fd >= 0 && !k->busy && !k->cut;
}

/* Cuts the oldest waiting ones while more than SERVE_CONN_KEEP are kept,
 * never new, the one just opened: when all others are being answered it
 * goes beyond, up to the library's limit. Under the lock. */
static void serve_conns_keep(struct serve_conns *c, const struct serve_conn *new)
{
	while (c->live > SERVE_CONN_KEEP) {
		struct serve_conn *old = NULL;

		for (size_t i = 0; i < SERVE_CONN_MAX; i++) {
			struct serve_conn *k = &c->slot[i];

			if (k != new &&serve_conn_waiting(k) &&
			    (!old || k->since_ns < old->since_ns))
				old = k;
		}
		if (!old)
			return;
		serve_conn_cut(c, old);
	}
}

/* Cuts the late ones; the next time one is due. Under the lock. */
static uint64_t serve_conns_sweep(struct serve_conns *c, uint64_t now)
{
	uint64_t next = now + SERVE_CONN_NS;

	for (size_t i = 0; i < SERVE_CONN_MAX; i++) {
		struct serve_conn *k = &c->slot[i];
		uint64_t due = k->since_ns + SERVE_CONN_REQUEST_S * SERVE_CONN_NS;

		if (!serve_conn_waiting(k))
			continue;
		if (due <= now)
			serve_conn_cut(c, k);
		else if (due < next)
			next = due;
	}
	return next;
}

static void *serve_conns_reaper(void *arg)
{
	struct serve_conns *c = arg;

	pthread_mutex_lock(&c->lock);
	while (!c->stopping) {
		uint64_t next = serve_conns_sweep(c, util_now_ns(CLOCK_MONOTONIC));
		struct timespec ts = {(time_t)(next / SERVE_CONN_NS), (long)(next % SERVE_CONN_NS)};

		pthread_cond_timedwait(&c->wake, &c->lock, &ts);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

struct serve_conns *serve_conns_new(void)
{
	struct serve_conns *c = calloc(1, sizeof(*c));
	pthread_condattr_t ca;
	sigset_t all, old;
	int rc;

	if (!c)
		return NULL;
	for (size_t i = 0; i < SERVE_CONN_MAX; i++)
		c->slot[i].fd = -1;
	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->wake, &ca);
	pthread_condattr_destroy(&ca);
	/* a stop signal is for the thread that waits for it */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&c->reaper, NULL, serve_conns_reaper, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		pthread_cond_destroy(&c->wake);
		pthread_mutex_destroy(&c->lock);
		free(c);
		return NULL;
	}
	return c;
}

void serve_conns_free(struct serve_conns *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->stopping = true;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->reaper, NULL);
	pthread_cond_destroy(&c->wake);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

struct serve_conn *serve_conns_open(struct serve_conns *c, int fd)
{
	uint64_t now = util_now_ns(CLOCK_MONOTONIC);
	struct serve_conn *k = NULL;

	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < SERVE_CONN_MAX && !k; i++)
		if (c->slot[i].fd < 0)
			k = &c->slot[i];
	if (k) {
		*k = (struct serve_conn){.fd = fd, .since_ns = now};
		c->live++;
		serve_conns_keep(c, k);
		/* its deadline may be the next one */
		pthread_cond_signal(&c->wake);
	} else {
		shutdown(fd, SHUT_RDWR);
		c->cuts++;
	}
	pthread_mutex_unlock(&c->lock);
	return k;
}

void serve_conns_close(struct serve_conns *c, struct serve_conn *k)
{
	if (!k)
		return;
	pthread_mutex_lock(&c->lock);
	if (!k->cut)
		c->live--;
	k->fd = -1;
	pthread_mutex_unlock(&c->lock);
}

void serve_conns_request(struct serve_conns *c, struct serve_conn *k)
{
	if (!k)
		return;
	pthread_mutex_lock(&c->lock);
	k->busy = true;
	pthread_mutex_unlock(&c->lock);
}

void serve_conns_answered(struct serve_conns *c, struct serve_conn *k)
{
	if (!k)
		return;
	pthread_mutex_lock(&c->lock);
	k->busy = false;
	k->since_ns = util_now_ns(CLOCK_MONOTONIC);
	pthread_mutex_unlock(&c->lock);
}

unsigned long serve_conns_cuts(struct serve_conns *c)
{
	unsigned long n;

	pthread_mutex_lock(&c->lock);
	n = c->cuts;
	pthread_mutex_unlock(&c->lock);
	return n;
}
