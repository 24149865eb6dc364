/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* The web config's reader: exporter-toolkit's files are taken (quoted and
 * plain values, comments, a document marker, relative paths from the
 * file's folder), everything else is refused with its line, costs above
 * the maximum too, and no line of a file that is no web config is quoted;
 * bcrypt checks with libxcrypt, a successful check cached (no second
 * bcrypt), an unknown user checked at the highest cost, and the
 * Authorization header decoded with a NUL refused. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "serve_webcfg.h"
#include "util.h"
#ifdef HAVE_SERVE
#include <crypt.h>

#include "serve_auth.h"
#endif
#include "../check_run.h"

/* bcrypt of "secret" at cost 4 (fast enough for a test) */
#define HASH "$2b$04$ZQkJnbVcLz4R8Bk2tW3QCeIeD4M2oFQwZ3eC8n7s0m6x6q2E8o4uW"

static char err[512];

static int parse(const char *text, struct serve_webcfg *c)
{
	err[0] = '\0';
	return serve_webcfg_parse("w.yml", "/etc/asys", text, strlen(text), c, err, sizeof(err));
}

/* text is refused, and the message starts with want */
static void refused(const char *text, const char *want)
{
	struct serve_webcfg c;

	ck_assert_msg(parse(text, &c) < 0, "taken: %s", text);
	ck_assert_msg(!strncmp(err, want, strlen(want)), "for %s: '%s', want '%s...'", text, err,
		      want);
	ck_assert_ptr_null(c.users);
}

START_TEST(webcfg_takes_the_format)
{
	struct serve_webcfg c;
	char buf[512], prio[128];

	snprintf(buf, sizeof(buf),
		 "---\n# a comment\ntls_server_config:\n  cert_file: tls/server.crt  # mine\n"
		 "  key_file: '/abs/server.key'\n  min_version: TLS13\n"
		 "  client_auth_type: NoClientCert\n\nbasic_auth_users:\n"
		 "  alice: %s\n  \"bob smith\": '%s'\r\n",
		 HASH, HASH);
	ck_assert_msg(parse(buf, &c) == 0, "%s", err);
	ck_assert(c.tls);
	ck_assert_str_eq(c.cert_file, "/etc/asys/tls/server.crt");
	ck_assert_str_eq(c.key_file, "/abs/server.key");
	ck_assert_int_eq(c.min_version, SERVE_TLS13);
	ck_assert_uint_eq(c.nusers, 2);
	ck_assert_str_eq(c.users[0].name, "alice");
	ck_assert_str_eq(c.users[0].hash, HASH);
	ck_assert_str_eq(c.users[1].name, "bob smith");
	serve_webcfg_priorities(&c, prio, sizeof(prio));
	ck_assert_str_eq(prio, "NORMAL:-VERS-ALL:+VERS-TLS1.3");
	serve_webcfg_free(&c);

	/* no TLS; the default versions are TLS 1.2 and 1.3 */
	ck_assert_msg(parse("basic_auth_users:\n    a: " HASH "\n", &c) == 0, "%s", err);
	ck_assert(!c.tls);
	serve_webcfg_priorities(&c, prio, sizeof(prio));
	ck_assert_str_eq(prio, "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2");
	serve_webcfg_free(&c);
	ck_assert_msg(parse("tls_server_config: {}\nbasic_auth_users:\n", &c) == 0, "%s", err);
	ck_assert(!c.tls);
	ck_assert_uint_eq(c.nusers, 0);
	ck_assert_msg(parse("", &c) == 0, "%s", err);
	ck_assert_msg(parse("tls_server_config:\n  cert_file: a\n  key_file: b\n"
			    "  client_auth_type: RequireAndVerifyClientCert\n"
			    "  client_ca_file: ca/clients.pem\n",
			    &c) == 0,
		      "%s", err);
	ck_assert_int_eq(c.client_auth, SERVE_CLIENT_VERIFY);
	ck_assert_str_eq(c.client_ca_file, "/etc/asys/ca/clients.pem");
	serve_webcfg_free(&c);
}
END_TEST

START_TEST(webcfg_refuses_the_rest)
{
	refused("foo: 1\n", "w.yml:1: unknown key 'foo'");
	refused("http_server_config:\n  http2: false\n", "w.yml:1: http_server_config is not");
	refused("tls_server_config:\n  cert_file: a\n  cipher_suites:\n    - X\n",
		"w.yml:3: tls_server_config: 'cipher_suites' is not supported");
	/* the key first: a value in syntax the reader lacks does not hide it */
	refused("tls_server_config:\n  curve_preferences: [X25519]\n",
		"w.yml:2: tls_server_config: 'curve_preferences' is not supported");
	refused("http_server_config: {a: b}\n", "w.yml:1: http_server_config is not");
	refused("tls_server_config:\n  cert_fil: a\n", "w.yml:2: tls_server_config: unknown key");
	refused("tls_server_config:\n  cert_file: a\n  cert_file: b\n",
		"w.yml:3: tls_server_config: "
		"'cert_file' given twice");
	refused("tls_server_config:\n  cert_file: a\n", "w.yml:0: tls_server_config needs both");
	refused("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS14\n",
		"w.yml:4: min_version: 'TLS14' is none of");
	refused("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n"
		"  max_version: TLS12\n",
		"w.yml:0: tls_server_config: min_version is above");
#define TLS_AB "tls_server_config:\n  cert_file: a\n  key_file: b\n"
	refused(TLS_AB "  client_auth_type: RequireAndVerifyClientCert\n",
		"w.yml:0: tls_server_config: client_auth_type needs client_ca_file");
	refused(TLS_AB "  client_ca_file: ca.pem\n",
		"w.yml:0: tls_server_config: client_ca_file checks nothing");
	refused("tls_server_config:\n  client_auth_type: VerifyClientCertIfGiven\n"
		"  client_ca_file: ca.pem\n",
		"w.yml:0: tls_server_config: versions or client_ca_file without");
	refused(
	    TLS_AB "  client_auth_type: RequireAnyClientCert\n",
	    "w.yml:4: tls_server_config: client_auth_type RequireAnyClientCert is not supported");
	refused(TLS_AB "  client_auth_type: Verify\n",
		"w.yml:4: tls_server_config: client_auth_type 'Verify' is none of");
	refused("basic_auth_users:\n  a: plain\n",
		"w.yml:2: basic_auth_users: the password of 'a'");
	refused("basic_auth_users:\n  a: "
		"$2b$03$ZQkJnbVcLz4R8Bk2tW3QCeIeD4M2oFQwZ3eC8n7s0m6x6q2E8o4uW\n",
		"w.yml:2: basic_auth_users: the password");
	refused("basic_auth_users:\n  a: $1$abc$def\n", "w.yml:2: basic_auth_users: the password");
	refused("basic_auth_users:\n  a: " HASH "\n  a: " HASH "\n", "w.yml:3: basic_auth_users: "
								     "'a' given twice");
	refused("basic_auth_users:\n  'a:b': " HASH "\n", "w.yml:2: basic_auth_users: a user name");
	refused("basic_auth_users:\n  a: " HASH "\n   b: " HASH "\n", "w.yml:3: indented by 3");
	refused("basic_auth_users:\n\ta: " HASH "\n", "w.yml:2: a tab");
	refused("basic_auth_users: &x\n", "w.yml:1: '&' starts YAML syntax");
	refused("basic_auth_users: x\n", "w.yml:1: 'basic_auth_users' must be followed");
	refused("basic_auth_users:\n  - a\n", "w.yml:2: a list item");
	refused("basic_auth_users:\n  a: !!str x\n", "w.yml:2: '!' starts YAML syntax");
	refused("basic_auth_users:\n  a: \"x\\ty\"\n", "w.yml:2: only \\\\ and \\\"");
	refused("basic_auth_users:\n  a: 'x\n", "w.yml:2: a quoted value must end");
	refused("basic_auth_users:\n  a: b: c\n", "w.yml:2: a nested");
	refused("  a: b\n", "w.yml:1: an indented line outside");
	refused("tls_server_config:\ntls_server_config:\n", "w.yml:2: 'tls_server_config' given");
	refused("a\x01: b\n", "w.yml:1: a control byte 0x01");
	refused("---\nbasic_auth_users:\n---\n", "w.yml:3: a second YAML document");
	refused("%YAML 1.2\n", "w.yml:1: YAML directives");
	refused("just words\n", "w.yml:1: expected \"key: value\"");
}
END_TEST

START_TEST(webcfg_bounds)
{
	static char big[2 * SERVE_WEB_LINE_MAX];
	struct serve_webcfg c;
	size_t k;

	memset(big, 'a', sizeof(big) - 1);
	refused(big, "w.yml:1: a line longer than");
	/* one user too many */
	{
		size_t n = (SERVE_WEB_USERS_MAX + 1) * 80 + 32;
		char *t = malloc(n);

		ck_assert_ptr_nonnull(t);
		k = (size_t)snprintf(t, n, "basic_auth_users:\n");
		for (int i = 0; i <= SERVE_WEB_USERS_MAX; i++)
			k += (size_t)snprintf(t + k, n - k, "  u%d: %s\n", i, HASH);
		ck_assert_int_lt(parse(t, &c), 0);
		ck_assert_msg(strstr(err, "more than 256 users"), "%s", err);
		free(t);
	}
	/* a path that does not fit */
	memset(big, 'p', SERVE_WEB_PATH_MAX + 60);
	memcpy(big, "tls_server_config:\n  cert_file: ", 32);
	big[SERVE_WEB_PATH_MAX + 60] = '\0';
	refused(big, "w.yml:2: cert_file: a path too long");
}
END_TEST

#define B53 "ZQkJnbVcLz4R8Bk2tW3QCeIeD4M2oFQwZ3eC8n7s0m6x6q2E8o4uW"

/* A cost above SERVE_WEB_COST_MAX is refused at load: each check would hold
 * a CPU for seconds. A file that is no web config has none of its lines
 * in the message, whatever its first key looks like. */
START_TEST(webcfg_cost_and_foreign_files)
{
	static const char *const foreign[] = {
	    "root:$6$SALTsalt$HASHhashHASHhash:19000:0:99999:7:::\n",
	    "daemon:*:19000:0:99999:7:::\n",
	    "root:x:0:0:root:/root:/bin/bash\n",
	    "SECRET_TOKEN: hunter2\n",
	    "tls_server_config:\n  Secret-Token: hunter2\n",
	};
	struct serve_webcfg c;

	refused("basic_auth_users:\n  a: $2b$15$" B53 "\n",
		"w.yml:2: basic_auth_users: the hash of 'a' has cost 15, above the 14");
	refused("basic_auth_users:\n  a: $2y$31$" B53 "\n",
		"w.yml:2: basic_auth_users: the hash of 'a' has cost 31");
	ck_assert_msg(parse("basic_auth_users:\n  a: $2b$14$" B53 "\n", &c) == 0, "%s", err);
	serve_webcfg_free(&c);
	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
		ck_assert_int_lt(parse(foreign[i], &c), 0);
		ck_assert_msg(!strstr(err, "root") && !strstr(err, "19000") &&
				  !strstr(err, "$6$") && !strstr(err, "SECRET") &&
				  !strstr(err, "Secret") && !strstr(err, "hunter2"),
			      "a line of the file in the message: %s", err);
	}
}
END_TEST

#ifdef HAVE_SERVE
static const char *real_hash_of(const char *password, int cost)
{
	static char h[SERVE_WEB_HASH_LEN + 1];
	char salt[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data cd = {0};
	const char *got;

	ck_assert_ptr_nonnull(
	    crypt_gensalt_rn("$2b$", (unsigned long)cost, NULL, 0, salt, sizeof(salt)));
	got = crypt_rn(password, salt, &cd, sizeof(cd));
	ck_assert_ptr_nonnull(got);
	ck_assert_uint_eq(strlen(got), SERVE_WEB_HASH_LEN);
	memcpy(h, got, sizeof(h));
	return h;
}

static const char *real_hash(void)
{
	return real_hash_of("secret", 4);
}

START_TEST(auth_bcrypt_and_cache)
{
	struct serve_web_user u[2] = {{"alice", ""}, {"bob", ""}};
	struct serve_auth *a;
	char why[256];

	memcpy(u[0].hash, real_hash(), sizeof(u[0].hash));
	memcpy(u[1].hash, HASH, sizeof(u[1].hash)); /* no password has it */
	a = serve_auth_new(u, 2, why, sizeof(why));
	ck_assert_msg(a, "%s", why);
	ck_assert(serve_auth_check(a, "alice", "secret"));
	ck_assert_uint_eq(serve_auth_bcrypts(a), 1);
	/* cached: no second bcrypt */
	ck_assert(serve_auth_check(a, "alice", "secret"));
	ck_assert_uint_eq(serve_auth_bcrypts(a), 1);
	ck_assert(!serve_auth_check(a, "alice", "Secret"));
	ck_assert(!serve_auth_check(a, "alice", "secret2"));
	ck_assert(!serve_auth_check(a, "alice", ""));
	ck_assert(!serve_auth_check(a, "bob", "secret"));
	ck_assert(!serve_auth_check(a, "carol", "secret"));
	ck_assert(!serve_auth_check(a, "alice", NULL));
	/* failures are never cached: each costs a bcrypt, unknown users too */
	ck_assert_uint_eq(serve_auth_bcrypts(a), 6);
	ck_assert(serve_auth_check(a, "alice", "secret"));
	ck_assert_uint_eq(serve_auth_bcrypts(a), 6);
	serve_auth_free(a);
}
END_TEST

static double check_s(struct serve_auth *a, const char *user, const char *pw)
{
	uint64_t t = util_now_ns(CLOCK_MONOTONIC);

	ck_assert(!serve_auth_check(a, user, pw));
	return (double)(util_now_ns(CLOCK_MONOTONIC) - t) / 1e9;
}

/* An unknown user costs what the dearest user costs, whoever is first in
 * the file: users of different costs cannot be told apart by time. */
START_TEST(auth_unknown_user_costs_the_most)
{
	struct serve_web_user u[2] = {{"cheap", ""}, {"dear", ""}};
	double dear = 1e9, unknown = 1e9;
	struct serve_auth *a;
	char why[256];

	memcpy(u[0].hash, real_hash_of("x", 4), sizeof(u[0].hash));
	memcpy(u[1].hash, real_hash_of("x", 10), sizeof(u[1].hash));
	a = serve_auth_new(u, 2, why, sizeof(why));
	ck_assert_msg(a, "%s", why);
	/* the fastest of three of each: the machine's load only slows */
	for (int i = 0; i < 3; i++) {
		double d = check_s(a, "dear", "wrong"), k = check_s(a, "nobody", "wrong");

		dear = d < dear ? d : dear;
		unknown = k < unknown ? k : unknown;
	}
	ck_assert_msg(unknown > dear / 3, "unknown user %.4f s, the cost-10 user %.4f s", unknown,
		      dear);
	serve_auth_free(a);
}
END_TEST

struct verifier {
	struct serve_auth *a;
	pthread_t t;
	int rc;
};

static void *verify_wrong(void *arg)
{
	struct verifier *v = arg;

	__atomic_store_n(&v->rc, serve_auth_verify(v->a, "dear", "wrong"), __ATOMIC_SEQ_CST);
	return NULL;
}

/* At most SERVE_AUTH_QUEUE checks wait for the workers, the rest are refused
 * busy at once; a stop lets every waiting check go without waiting for the
 * bcrypts in progress. */
START_TEST(auth_queue_and_stop)
{
	struct serve_web_user u = {"dear", ""};
	struct verifier v[SERVE_AUTH_QUEUE + SERVE_AUTH_WORKERS + 4];
	size_t n = sizeof(v) / sizeof(v[0]), busy = 0;
	struct serve_auth *a;
	char why[256];
	uint64_t t;

	memcpy(u.hash, real_hash_of("x", 12), sizeof(u.hash));
	a = serve_auth_new(&u, 1, why, sizeof(why));
	ck_assert_msg(a, "%s", why);
	for (size_t i = 0; i < n; i++) {
		v[i] = (struct verifier){.a = a, .rc = 1};
		ck_assert_int_eq(pthread_create(&v[i].t, NULL, verify_wrong, &v[i]), 0);
	}
	/* the ones refused return at once; the others wait for cost-12 bcrypts */
	t = util_now_ns(CLOCK_MONOTONIC);
	while (util_now_ns(CLOCK_MONOTONIC) - t < 2000000000ull) {
		busy = 0;
		for (size_t i = 0; i < n; i++)
			busy += __atomic_load_n(&v[i].rc, __ATOMIC_SEQ_CST) == -EBUSY;
		if (busy >= 4)
			break;
		usleep(10000);
	}
	ck_assert_uint_ge(busy, 4);
	t = util_now_ns(CLOCK_MONOTONIC);
	serve_auth_stop(a);
	for (size_t i = 0; i < n; i++) {
		pthread_join(v[i].t, NULL);
		ck_assert_int_le(v[i].rc, 0);
	}
	ck_assert_msg(util_now_ns(CLOCK_MONOTONIC) - t < 300000000ull,
		      "the checks took %.3f s to let go after the stop",
		      (double)(util_now_ns(CLOCK_MONOTONIC) - t) / 1e9);
	ck_assert_int_eq(serve_auth_verify(a, "dear", "x"), 0);
	serve_auth_free(a);
}
END_TEST

/* The Authorization header is decoded whole: a NUL in the user or the
 * password is refused, not cut at; the password may hold colons. */
START_TEST(auth_basic_header)
{
	char user[SERVE_WEB_USER_MAX], *pass;

	ck_assert_int_eq(serve_auth_basic("Basic YWxpY2U6cHc=", user, sizeof(user), &pass), 0);
	ck_assert_str_eq(user, "alice");
	ck_assert_str_eq(pass, "pw");
	free(pass);
	ck_assert_int_eq(serve_auth_basic("basic   YWxpY2U6YTpi  ", user, sizeof(user), &pass), 0);
	ck_assert_str_eq(pass, "a:b");
	free(pass);
	ck_assert_int_eq(serve_auth_basic("Basic YWxpY2U6", user, sizeof(user), &pass), 0);
	ck_assert_str_eq(pass, "");
	free(pass);
	/* "alice:pw\0junk", "al\0ice:pw" */
	ck_assert_int_lt(serve_auth_basic("Basic YWxpY2U6cHcAanVuaw==", user, sizeof(user), &pass),
			 0);
	ck_assert_ptr_null(pass);
	ck_assert_int_lt(serve_auth_basic("Basic YWwAaWNlOnB3", user, sizeof(user), &pass), 0);
	/* no colon, bad base64, no padding, another scheme, a name too long */
	ck_assert_int_lt(serve_auth_basic("Basic YWxpY2Vwdw==", user, sizeof(user), &pass), 0);
	ck_assert_int_lt(serve_auth_basic("Basic YWxp!2U6cHc=", user, sizeof(user), &pass), 0);
	ck_assert_int_lt(serve_auth_basic("Basic YWxpY2U6cHc", user, sizeof(user), &pass), 0);
	ck_assert_int_lt(serve_auth_basic("Basic YW=pY2U6cHc=", user, sizeof(user), &pass), 0);
	ck_assert_int_lt(serve_auth_basic("Bearer YWxpY2U6cHc=", user, sizeof(user), &pass), 0);
	ck_assert_int_lt(serve_auth_basic("Basic YWxpY2U6cHc= x", user, sizeof(user), &pass), 0);
	ck_assert_int_lt(serve_auth_basic(NULL, user, sizeof(user), &pass), 0);
	/* a user name of 80 bytes */
	ck_assert_int_lt(
	    serve_auth_basic("Basic YWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYW"
			     "FhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWE6cHc=",
			     user, sizeof(user), &pass),
	    0);
}
END_TEST
#endif

static Suite *webcfg_suite(void)
{
	Suite *s = suite_create("webcfg");
	TCase *tc = tcase_create("webcfg");

	tcase_add_test(tc, webcfg_takes_the_format);
	tcase_add_test(tc, webcfg_refuses_the_rest);
	tcase_add_test(tc, webcfg_bounds);
	tcase_add_test(tc, webcfg_cost_and_foreign_files);
#ifdef HAVE_SERVE
	tcase_add_test(tc, auth_bcrypt_and_cache);
	tcase_add_test(tc, auth_unknown_user_costs_the_most);
	tcase_add_test(tc, auth_basic_header);
	tcase_add_test(tc, auth_queue_and_stop);
	tcase_set_timeout(tc, 60);
#endif
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(webcfg_suite(), NULL);
}
