#include "config.h"

#include <crypt.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "expo_auth.h"
#include "util.h"

#define EXPO_AUTH_DIGEST_MAX 128

struct expo_auth_hit {
	size_t user; /* index + 1; 0: a free slot */
	char digest[EXPO_AUTH_DIGEST_MAX];
	uint64_t until_ns;
};

struct expo_auth {
	pthread_mutex_t lock; /* all below: crypt_data is one call's scratch */
	struct expo_web_user *users;
	size_t nusers;
	char salt[CRYPT_GENSALT_OUTPUT_SIZE]; /* the cache's digests' */
	char dummy[EXPO_WEB_HASH_LEN + 1];    /* what an unknown user is checked against */
	struct expo_auth_hit hits[EXPO_AUTH_CACHE];
	unsigned long bcrypts;
	struct crypt_data cd;
};

/* libxcrypt, loaded with dlopen by the first endpoint with users: linked,
 * it is mapped into every asys top (about 60 KiB resident) that never
 * serves. The prototypes come from its header. */
#define EXPO_CRYPT_SONAME "libcrypt.so.1"

static struct {
	__typeof__(crypt_rn) *rn;
	__typeof__(crypt_gensalt_rn) *gensalt_rn;
	char why[256]; /* empty once both are found */
} xcrypt;
static pthread_once_t xcrypt_once = PTHREAD_ONCE_INIT;

static void expo_crypt_load(void)
{
	/* kept open for the life of the process: a server may start again */
	void *h = dlopen(EXPO_CRYPT_SONAME, RTLD_NOW | RTLD_LOCAL);
	const char *e;

	if (!h) {
		e = dlerror();
		snprintf(xcrypt.why, sizeof(xcrypt.why),
			 "cannot load %s (%s): install libxcrypt (Debian and Ubuntu: libcrypt1)",
			 EXPO_CRYPT_SONAME, e ? e : "not found");
		return;
	}
	xcrypt.rn = (__typeof__(xcrypt.rn))dlsym(h, "crypt_rn");
	xcrypt.gensalt_rn = (__typeof__(xcrypt.gensalt_rn))dlsym(h, "crypt_gensalt_rn");
	if (!xcrypt.rn || !xcrypt.gensalt_rn)
		snprintf(xcrypt.why, sizeof(xcrypt.why),
			 "%s lacks crypt_rn or crypt_gensalt_rn: install libxcrypt 4 or later",
			 EXPO_CRYPT_SONAME);
}

/* Equal strings of n bytes, in a time that depends on n only. */
static bool expo_auth_equal(const char *a, const char *b, size_t n)
{
	volatile unsigned char d = 0;

	for (size_t i = 0; i < n; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

struct expo_auth *expo_auth_new(const struct expo_web_user *users, size_t n, char *err, size_t errn)
{
	struct expo_auth *a = NULL;

	pthread_once(&xcrypt_once, expo_crypt_load);
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
	/* the first user's cost, a salt of zeros: a valid hash no password has */
	snprintf(a->dummy, sizeof(a->dummy), "$2b$%.2s$%s", users[0].hash + 4,
		 "....................................................."); /* 53 */
	pthread_mutex_init(&a->lock, NULL);
	return a;
fail:
	snprintf(err, errn, "out of memory (or no random salt)");
	if (a)
		free(a->users);
	free(a);
	return NULL;
}

void expo_auth_free(struct expo_auth *a)
{
	if (!a)
		return;
	pthread_mutex_destroy(&a->lock);
	explicit_bzero(a->users, a->nusers * sizeof(*a->users));
	free(a->users);
	/* the cache's digests and the last call's scratch */
	explicit_bzero(a, sizeof(*a));
	free(a);
}

/* The cached digest of a user: index + 1 in user. Under the lock. */
static bool expo_auth_cached(struct expo_auth *a, size_t user, const char *digest, uint64_t now)
{
	size_t len = strlen(digest);

	for (size_t i = 0; i < EXPO_AUTH_CACHE; i++) {
		const struct expo_auth_hit *h = &a->hits[i];

		if (h->user == user && h->until_ns > now && strlen(h->digest) == len &&
		    expo_auth_equal(h->digest, digest, len))
			return true;
	}
	return false;
}

static void expo_auth_remember(struct expo_auth *a, size_t user, const char *digest, uint64_t now)
{
	struct expo_auth_hit *old = &a->hits[0];

	for (size_t i = 0; i < EXPO_AUTH_CACHE; i++)
		if (a->hits[i].until_ns < old->until_ns)
			old = &a->hits[i];
	old->user = user;
	util_strlcpy(old->digest, digest, sizeof(old->digest));
	old->until_ns = now + (uint64_t)EXPO_AUTH_CACHE_S * 1000000000ull;
}

bool expo_auth_check(struct expo_auth *a, const char *user, const char *password)
{
	char digest[EXPO_AUTH_DIGEST_MAX] = "";
	uint64_t now = util_now_ns(CLOCK_MONOTONIC);
	const char *hash = NULL, *got;
	size_t idx = 0;
	bool ok = false;

	if (!user || !password)
		return false;
	pthread_mutex_lock(&a->lock);
	for (size_t i = 0; i < a->nusers && !hash; i++)
		if (!strcmp(a->users[i].name, user)) {
			hash = a->users[i].hash;
			idx = i + 1;
		}
	got = xcrypt.rn(password, a->salt, &a->cd, sizeof(a->cd));
	if (got && got[0] == '$')
		util_strlcpy(digest, got, sizeof(digest));
	if (idx && *digest && expo_auth_cached(a, idx, digest, now)) {
		ok = true;
		goto out;
	}
	a->bcrypts++;
	got = xcrypt.rn(password, hash ? hash : a->dummy, &a->cd, sizeof(a->cd));
	ok = hash && got && strlen(got) == EXPO_WEB_HASH_LEN &&
	     expo_auth_equal(got, hash, EXPO_WEB_HASH_LEN);
	if (ok && *digest)
		expo_auth_remember(a, idx, digest, now);
out:
	explicit_bzero(&a->cd, sizeof(a->cd));
	explicit_bzero(digest, sizeof(digest));
	pthread_mutex_unlock(&a->lock);
	return ok;
}

unsigned long expo_auth_bcrypts(const struct expo_auth *a)
{
	unsigned long n;

	pthread_mutex_lock(&((struct expo_auth *)a)->lock);
	n = a->bcrypts;
	pthread_mutex_unlock(&((struct expo_auth *)a)->lock);
	return n;
}
