/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <crypt.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "dl_load.h"
#include "serve_auth.h"
#include "util.h"

#define SERVE_AUTH_DIGEST_MAX 128

struct serve_auth_hit {
	size_t user; /* index + 1; 0: a free slot */
	char digest[SERVE_AUTH_DIGEST_MAX];
	uint64_t until_ns;
};

/* One bcrypt asked of the workers. Its owners are the check that waits
 * for it and the queue, then the worker that took it from the queue: the
 * last one to let go frees it. Under the pool's lock. */
struct serve_auth_job {
	char *password;
	char hash[SERVE_WEB_HASH_LEN + 1];
	bool done, ok;
	int refs;
	struct serve_auth_job *next;
};

/* The workers' side: it outlives serve_auth_free while a worker finishes a
 * bcrypt, and the last of the owner and the workers frees it. */
struct serve_auth_pool {
	pthread_mutex_t lock;
	pthread_cond_t work, done;
	struct serve_auth_job *head, *tail;
	unsigned queued; /* jobs in the queue */
	unsigned refs;
	bool stopping;
	unsigned long bcrypts;
};

struct serve_auth {
	pthread_mutex_t lock; /* the cache */
	struct serve_web_user *users;
	size_t nusers;
	char salt[CRYPT_GENSALT_OUTPUT_SIZE]; /* the cache's digests' */
	char dummy[SERVE_WEB_HASH_LEN + 1];   /* what an unknown user is checked against */
	struct serve_auth_hit hits[SERVE_AUTH_CACHE];
	struct serve_auth_pool *pool;
};

/* libxcrypt, loaded with dlopen by the first endpoint with users: linked,
 * it is mapped into every asys top (about 60 KiB resident) that never
 * serves. The prototypes come from its header. */
#define SERVE_CRYPT_SONAME "libcrypt.so.1"

static struct {
	__typeof__(crypt_rn) *rn;
	__typeof__(crypt_gensalt_rn) *gensalt_rn;
	char why[256]; /* empty once both are found */
} xcrypt;
static pthread_once_t xcrypt_once = PTHREAD_ONCE_INIT;

static void serve_crypt_load(void)
{
	static const char *const names[] = {SERVE_CRYPT_SONAME, NULL};
	const struct dl_sym syms[] = {DL_SYM("crypt_rn", &xcrypt.rn),
				      DL_SYM("crypt_gensalt_rn", &xcrypt.gensalt_rn), DL_SYM_END};
	struct dl_why w;

	/* kept open for the life of the process: a server may start again */
	if (dl_load(names, RTLD_NOW | RTLD_LOCAL, syms, &w))
		return;
	if (w.missing)
		w.missing = "crypt_rn or crypt_gensalt_rn";
	dl_why_text(&w, xcrypt.why, sizeof(xcrypt.why),
		    "install libxcrypt (Debian and Ubuntu: libcrypt1)",
		    "install libxcrypt 4 or later");
}

/* Equal strings of n bytes, in a time that depends on n only. */
static bool serve_auth_equal(const char *a, const char *b, size_t n)
{
	volatile unsigned char d = 0;

	for (size_t i = 0; i < n; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

/* The pool's share: the last to let go frees it. Under its lock, which
 * this lets go. */
static void serve_pool_release(struct serve_auth_pool *p)
{
	bool last = --p->refs == 0;

	pthread_mutex_unlock(&p->lock);
	if (!last)
		return;
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	free(p);
}

/* Under the pool's lock. */
static void serve_job_unref(struct serve_auth_job *j)
{
	if (--j->refs)
		return;
	explicit_bzero(j->password, strlen(j->password));
	free(j->password);
	free(j);
}

/* The job's bcrypt, outside the lock: its own scratch, since the workers
 * run side by side. */
static bool serve_job_run(const struct serve_auth_job *j)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *got;
	bool ok;

	if (!cd)
		return false;
	got = xcrypt.rn(j->password, j->hash, cd, sizeof(*cd));
	ok = got && strlen(got) == SERVE_WEB_HASH_LEN &&
	     serve_auth_equal(got, j->hash, SERVE_WEB_HASH_LEN);
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok;
}

static void *serve_auth_worker(void *arg)
{
	struct serve_auth_pool *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct serve_auth_job *j;
		bool ok;

		while (!p->head && !p->stopping)
			pthread_cond_wait(&p->work, &p->lock);
		if (p->stopping)
			break;
		j = p->head;
		p->head = j->next;
		if (!p->head)
			p->tail = NULL;
		p->queued--;
		pthread_mutex_unlock(&p->lock);
		ok = serve_job_run(j);
		pthread_mutex_lock(&p->lock);
		j->ok = ok;
		j->done = true;
		p->bcrypts++;
		pthread_cond_broadcast(&p->done);
		serve_job_unref(j);
	}
	serve_pool_release(p);
	return NULL;
}

/* The pool and its workers, detached, with every signal blocked (a stop
 * signal is for the thread that waits for it). At least one worker. */
static struct serve_auth_pool *serve_pool_new(void)
{
	struct serve_auth_pool *p = calloc(1, sizeof(*p));
	pthread_attr_t attr;
	sigset_t all, old;
	unsigned started = 0;

	if (!p)
		return NULL;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	p->refs = 1;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (unsigned i = 0; i < SERVE_AUTH_WORKERS; i++) {
		pthread_t t;

		pthread_mutex_lock(&p->lock);
		p->refs++;
		pthread_mutex_unlock(&p->lock);
		if (pthread_create(&t, &attr, serve_auth_worker, p) == 0) {
			started++;
			continue;
		}
		pthread_mutex_lock(&p->lock);
		p->refs--;
		pthread_mutex_unlock(&p->lock);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (!started) {
		pthread_mutex_lock(&p->lock);
		serve_pool_release(p);
		return NULL;
	}
	return p;
}

/* A hash of the file's highest cost, with a salt of zeros: a valid hash no
 * password has, that costs an unknown user what the dearest user costs. */
static void serve_auth_dummy(struct serve_auth *a)
{
	const char *dear = a->users[0].hash;

	for (size_t i = 1; i < a->nusers; i++)
		if (memcmp(a->users[i].hash + 4, dear + 4, 2) > 0)
			dear = a->users[i].hash;
	snprintf(a->dummy, sizeof(a->dummy), "$2b$%.2s$%s", dear + 4,
		 "....................................................."); /* 53 */
}

struct serve_auth *serve_auth_new(const struct serve_web_user *users, size_t n, char *err,
				  size_t errn)
{
	struct serve_auth *a = NULL;

	pthread_once(&xcrypt_once, serve_crypt_load);
	if (xcrypt.why[0]) {
		snprintf(err, errn, "%s", xcrypt.why);
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a || !n)
		goto fail;
	a->users = malloc(n * sizeof(*users));
	if (!a->users)
		goto fail;
	memcpy(a->users, users, n * sizeof(*users));
	a->nusers = n;
	/* the library draws the salt's bytes from the system's random source */
	if (!xcrypt.gensalt_rn("$5$", 1000, NULL, 0, a->salt, sizeof(a->salt)) || a->salt[0] != '$')
		goto fail;
	serve_auth_dummy(a);
	if (!(a->pool = serve_pool_new()))
		goto fail;
	pthread_mutex_init(&a->lock, NULL);
	return a;
fail:
	snprintf(err, errn, "out of memory (or no thread, or no random salt)");
	if (a)
		free(a->users);
	free(a);
	return NULL;
}

void serve_auth_stop(struct serve_auth *a)
{
	struct serve_auth_pool *p = a->pool;

	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	/* the queue's share of the jobs no worker took */
	while (p->head) {
		struct serve_auth_job *j = p->head;

		p->head = j->next;
		serve_job_unref(j);
	}
	p->tail = NULL;
	p->queued = 0;
	pthread_cond_broadcast(&p->work);
	pthread_cond_broadcast(&p->done);
	pthread_mutex_unlock(&p->lock);
}

void serve_auth_free(struct serve_auth *a)
{
	if (!a)
		return;
	serve_auth_stop(a);
	pthread_mutex_lock(&a->pool->lock);
	serve_pool_release(a->pool);
	pthread_mutex_destroy(&a->lock);
	explicit_bzero(a->users, a->nusers * sizeof(*a->users));
	free(a->users);
	/* the cache's digests */
	explicit_bzero(a, sizeof(*a));
	free(a);
}

/* The cached digest of a user: index + 1 in user. Under the lock. */
static bool serve_auth_cached(struct serve_auth *a, size_t user, const char *digest, uint64_t now)
{
	size_t len = strlen(digest);

	for (size_t i = 0; i < SERVE_AUTH_CACHE; i++) {
		const struct serve_auth_hit *h = &a->hits[i];

		if (h->user == user && h->until_ns > now && strlen(h->digest) == len &&
		    serve_auth_equal(h->digest, digest, len))
			return true;
	}
	return false;
}

static void serve_auth_remember(struct serve_auth *a, size_t user, const char *digest, uint64_t now)
{
	struct serve_auth_hit *old = &a->hits[0];

	for (size_t i = 0; i < SERVE_AUTH_CACHE; i++)
		if (a->hits[i].until_ns < old->until_ns)
			old = &a->hits[i];
	old->user = user;
	util_strlcpy(old->digest, digest, sizeof(old->digest));
	old->until_ns = now + (uint64_t)SERVE_AUTH_CACHE_S * 1000000000ull;
}

/* A bcrypt of password against hash by a worker, waited for: 1 a match,
 * 0 none (or the pool stopped meanwhile, or memory ran out), -EBUSY when
 * the queue is full. */
static int serve_auth_bcrypt(struct serve_auth_pool *p, const char *password, const char *hash)
{
	struct serve_auth_job *j = calloc(1, sizeof(*j));
	int rc = 0;

	if (!j || !(j->password = strdup(password))) {
		free(j);
		return 0;
	}
	util_strlcpy(j->hash, hash, sizeof(j->hash));
	j->refs = 2;
	pthread_mutex_lock(&p->lock);
	if (p->stopping || p->queued >= SERVE_AUTH_QUEUE) {
		rc = p->stopping ? 0 : -EBUSY;
		j->refs = 1;
	} else {
		if (p->tail)
			p->tail->next = j;
		else
			p->head = j;
		p->tail = j;
		p->queued++;
		pthread_cond_signal(&p->work);
		while (!j->done && !p->stopping)
			pthread_cond_wait(&p->done, &p->lock);
		rc = j->done && j->ok;
	}
	serve_job_unref(j);
	pthread_mutex_unlock(&p->lock);
	return rc;
}

/* The salted digest of password for the cache, or "" */
static void serve_auth_digest(const struct serve_auth *a, const char *password, char *out, size_t n)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *got = cd ? xcrypt.rn(password, a->salt, cd, sizeof(*cd)) : NULL;

	out[0] = '\0';
	if (got && got[0] == '$')
		util_strlcpy(out, got, n);
	if (cd)
		explicit_bzero(cd, sizeof(*cd));
	free(cd);
}

int serve_auth_verify(struct serve_auth *a, const char *user, const char *password)
{
	char digest[SERVE_AUTH_DIGEST_MAX];
	uint64_t now = util_now_ns(CLOCK_MONOTONIC);
	const char *hash = NULL;
	size_t idx = 0;
	int ok;

	if (!user || !password)
		return 0;
	for (size_t i = 0; i < a->nusers && !hash; i++)
		if (!strcmp(a->users[i].name, user)) {
			hash = a->users[i].hash;
			idx = i + 1;
		}
	serve_auth_digest(a, password, digest, sizeof(digest));
	pthread_mutex_lock(&a->lock);
	ok = idx && *digest && serve_auth_cached(a, idx, digest, now);
	pthread_mutex_unlock(&a->lock);
	if (!ok) {
		ok = serve_auth_bcrypt(a->pool, password, hash ? hash : a->dummy);
		ok = ok > 0 ? hash != NULL : ok;
		pthread_mutex_lock(&a->lock);
		if (ok > 0 && *digest)
			serve_auth_remember(a, idx, digest, now);
		pthread_mutex_unlock(&a->lock);
	}
	explicit_bzero(digest, sizeof(digest));
	return ok;
}

bool serve_auth_check(struct serve_auth *a, const char *user, const char *password)
{
	return serve_auth_verify(a, user, password) == 1;
}

unsigned long serve_auth_bcrypts(const struct serve_auth *a)
{
	struct serve_auth_pool *p = a->pool;
	unsigned long n;

	pthread_mutex_lock(&p->lock);
	n = p->bcrypts;
	pthread_mutex_unlock(&p->lock);
	return n;
}

static int serve_b64(unsigned char c)
{
	static const char abc[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = c ? strchr(abc, c) : NULL;

	return p ? (int)(p - abc) : -1;
}

/* Standard base64 with its padding into out (n bytes); its length, or -1. */
static long serve_b64_decode(const char *s, size_t len, unsigned char *out, size_t n)
{
	size_t k = 0;

	if (!len || len % 4)
		return -1;
	for (size_t i = 0; i < len; i += 4) {
		int v[4], pad = 0;

		for (int j = 0; j < 4; j++) {
			v[j] = serve_b64((unsigned char)s[i + j]);
			/* '=' only at the end, one or two, and nothing after */
			if (v[j] < 0 && s[i + j] == '=' && i + 4 == len && j >= 2)
				pad++, v[j] = 0;
			else if (v[j] < 0 || pad)
				return -1;
		}
		if (k + 3 - (size_t)pad > n)
			return -1;
		out[k++] = (unsigned char)(v[0] << 2 | v[1] >> 4);
		if (pad < 2)
			out[k++] = (unsigned char)((v[1] & 15) << 4 | v[2] >> 2);
		if (pad < 1)
			out[k++] = (unsigned char)((v[2] & 3) << 6 | v[3]);
	}
	return (long)k;
}

int serve_auth_basic(const char *header, char *user, size_t un, char **pass)
{
	size_t max = un + SERVE_AUTH_PASSWORD_MAX + 1, len;
	unsigned char *buf;
	const char *colon;
	long k;
	int rc = -EINVAL;

	*pass = NULL;
	if (!header || strncasecmp(header, "Basic ", 6))
		return -EINVAL;
	header += 6 + strspn(header + 6, " ");
	len = strcspn(header, " ");
	if (header[len + strspn(header + len, " ")] || !(buf = malloc(max)))
		return -EINVAL;
	k = serve_b64_decode(header, len, buf, max);
	/* a NUL anywhere: no C string would hold what the client sent */
	if (k < 0 || memchr(buf, '\0', (size_t)k))
		goto out;
	colon = memchr(buf, ':', (size_t)k);
	if (!colon || (size_t)(colon - (char *)buf) >= un ||
	    (size_t)k - (size_t)(colon - (char *)buf) - 1 > SERVE_AUTH_PASSWORD_MAX)
		goto out;
	memcpy(user, buf, (size_t)(colon - (char *)buf));
	user[colon - (char *)buf] = '\0';
	*pass = strndup(colon + 1, (size_t)k - (size_t)(colon - (char *)buf) - 1);
	rc = *pass ? 0 : -ENOMEM;
out:
	explicit_bzero(buf, max);
	free(buf);
	return rc;
}
