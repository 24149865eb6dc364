/* SPDX-License-Identifier: GPL-2.0-only */
/* Basic authentication against the bcrypt hashes of basic_auth_users,
 * with libxcrypt's crypt_rn. A bcrypt check costs tens of milliseconds by
 * design (cost 10: about 50 ms here), and a scraper sends its password
 * with every scrape: so a successful (user, password) is remembered for
 * SERVE_AUTH_CACHE_S seconds, as a salted SHA-256-crypt digest of the
 * password (1000 rounds, a salt drawn at start: the password itself is
 * never kept), and a scrape within that time costs that digest (about
 * 0.3 ms) instead of a bcrypt. Failures are never remembered: each costs a
 * bcrypt, also for an unknown user (against a hash of the file's highest
 * cost), so that the time says nothing of which users exist.
 *
 * The bcrypts run on SERVE_AUTH_WORKERS threads of their own, so that no
 * more than that many run at once whatever the number of clients, and a
 * check waits for its turn. The workers are detached: serve_auth_stop lets
 * every waiting check go at once (refused) without waiting for a bcrypt in
 * progress, which finishes on its worker and is thrown away. */
#ifndef ASYS_SERVE_AUTH_H
#define ASYS_SERVE_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "serve_webcfg.h"

#define SERVE_AUTH_CACHE 32   /* (user, password) pairs remembered */
#define SERVE_AUTH_CACHE_S 60 /* for this long after their bcrypt check */
#define SERVE_AUTH_WORKERS 2  /* bcrypts at once */
/* checks waiting for a worker; one more is refused at once (busy), so that
 * a flood of wrong passwords holds no more connections than this */
#define SERVE_AUTH_QUEUE 16
/* a password longer than this is refused unread (bcrypt reads 72 bytes) */
#define SERVE_AUTH_PASSWORD_MAX 1024

struct serve_auth;

/* Copies the users (n >= 1) and starts the workers. NULL with why in err
 * when libxcrypt cannot be loaded, or memory, a thread or the random salt
 * fails. */
struct serve_auth *serve_auth_new(const struct serve_web_user *users, size_t n, char *err,
				  size_t errn);
/* Refuses every check from now on, those waiting included, at once. */
void serve_auth_stop(struct serve_auth *a);
/* Stops, then frees; a worker still in a bcrypt frees its share when it
 * ends. NULL is fine. No check may be running or start. */
void serve_auth_free(struct serve_auth *a);
/* 1: user and password match a user's hash; 0: they do not (or the
 * checks stopped); -EBUSY: SERVE_AUTH_QUEUE checks wait already, this one
 * was not made. Thread-safe. */
int serve_auth_verify(struct serve_auth *a, const char *user, const char *password);
/* serve_auth_verify's 1. */
bool serve_auth_check(struct serve_auth *a, const char *user, const char *password);
/* bcrypt checks done so far (the cache's misses), for the tests */
unsigned long serve_auth_bcrypts(const struct serve_auth *a);

/* The user and password of an Authorization header's value, "Basic "
 * then base64 of "user:password" (RFC 7617): 0, or -EINVAL when it is not
 * that, when either holds a NUL byte (which a C string would cut short,
 * taking "pw\0junk" for "pw"), or when it does not fit (user: un bytes with
 * its NUL, password: SERVE_AUTH_PASSWORD_MAX). pass is the caller's to
 * explicit_bzero and free; NULL on failure. */
int serve_auth_basic(const char *header, char *user, size_t un, char **pass);

#endif
