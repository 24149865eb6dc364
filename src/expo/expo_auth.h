/* Basic authentication against the bcrypt hashes of basic_auth_users,
 * with libxcrypt's crypt_rn. A bcrypt check costs tens of milliseconds by
 * design (cost 10: about 50 ms here), and a scraper sends its password
 * with every scrape: so a successful (user, password) is remembered for
 * EXPO_AUTH_CACHE_S seconds, as a salted SHA-256-crypt digest of the
 * password (1000 rounds, a salt drawn at start: the password itself is
 * never kept), and a scrape within that time costs that digest (about
 * 0.3 ms) instead of a bcrypt. Failures are never remembered: each costs a
 * bcrypt, also for an unknown user (against a hash of the same cost), so
 * that the time says nothing of which users exist. */
#ifndef ASYS_EXPO_AUTH_H
#define ASYS_EXPO_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "expo_webcfg.h"

#define EXPO_AUTH_CACHE 32   /* (user, password) pairs remembered */
#define EXPO_AUTH_CACHE_S 60 /* for this long after their bcrypt check */

struct expo_auth;

/* Copies the users (n >= 1). NULL with why in err when libxcrypt cannot
 * be loaded, or memory or the random salt fails. */
struct expo_auth *expo_auth_new(const struct expo_web_user *users, size_t n, char *err,
				size_t errn);
void expo_auth_free(struct expo_auth *a); /* NULL is fine */
/* user and password match a user's hash. Thread-safe. */
bool expo_auth_check(struct expo_auth *a, const char *user, const char *password);
/* bcrypt checks done so far (the cache's misses), for the tests */
unsigned long expo_auth_bcrypts(const struct expo_auth *a);

#endif
