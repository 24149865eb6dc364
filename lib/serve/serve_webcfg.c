/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve_webcfg.h"
#include "strsafe.h"
#include "util.h"

enum webcfg_section { WEBCFG_NONE, WEBCFG_TLS, WEBCFG_USERS };

/* tls_server_config's keys, each allowed once */
enum webcfg_tls_key {
	WEBCFG_CERT = 1u << 0,
	WEBCFG_KEY = 1u << 1,
	WEBCFG_MIN = 1u << 2,
	WEBCFG_MAX = 1u << 3,
	WEBCFG_AUTH = 1u << 4,
	WEBCFG_CA = 1u << 5
};

struct webcfg_parser {
	const char *name, *dir;
	unsigned line;
	enum webcfg_section sec;
	int sec_indent; /* the indent of the section's lines; -1 before the first */
	bool seen_tls, seen_users, content;
	unsigned tls_keys;
	struct serve_webcfg *c;
	size_t users_cap;
	char *err;
	size_t n;
};

/* A scalar as read: its text, and whether there was one at all. */
struct webcfg_val {
	char s[SERVE_WEB_LINE_MAX];
	bool empty;	/* nothing after the colon (or null, ~) */
	bool empty_map; /* {} */
};

__attribute__((format(printf, 2, 3))) static int webcfg_fail(struct webcfg_parser *p,
							     const char *fmt, ...)
{
	va_list ap;
	int k = snprintf(p->err, p->n, "%s:%u: ", p->name, p->line);

	va_start(ap, fmt);
	if (k >= 0 && (size_t)k < p->n)
		vsnprintf(p->err + k, p->n - (size_t)k, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Bytes that begin YAML syntax this reader does not take, where a plain
 * scalar would start. */
static bool webcfg_indicator(char ch)
{
	return ch && strchr("-?:,[]{}#&*!|>%@`", ch);
}

/* A quoted scalar at *s (its opening quote), ending on this line. Single
 * quotes escape only '' and double quotes only \\ and \". */
static int webcfg_quoted(struct webcfg_parser *p, const char **s, const char *end, char *out,
			 size_t n)
{
	char q = **s;
	size_t k = 0;

	for (const char *c = *s + 1; c < end; c++) {
		char ch = *c;

		if (ch == q && q == '\'' && c + 1 < end && c[1] == '\'') {
			c++;
		} else if (ch == q) {
			out[k] = '\0';
			*s = c + 1;
			return 0;
		} else if (ch == '\\' && q == '"') {
			if (c + 1 >= end || (c[1] != '\\' && c[1] != '"'))
				return webcfg_fail(p,
						   "only \\\\ and \\\" are taken as escapes in a "
						   "double-quoted value");
			ch = *++c;
		}
		if (k + 1 >= n)
			return webcfg_fail(p, "a value longer than %zu bytes", n - 1);
		out[k++] = ch;
	}
	return webcfg_fail(p, "a quoted value must end on its line");
}

/* Spaces, then nothing or a comment. */
static bool webcfg_rest_empty(const char *s, const char *end)
{
	while (s < end && *s == ' ')
		s++;
	return s == end || *s == '#';
}

/* The key of "key: value" at s: plain or quoted; *s moves past the colon. */
static int webcfg_key(struct webcfg_parser *p, const char **s, const char *end, char *out, size_t n)
{
	const char *c = *s, *k;
	size_t len;
	int rc;

	if (*c == '"' || *c == '\'') {
		if ((rc = webcfg_quoted(p, &c, end, out, n)) < 0)
			return rc;
		if (c >= end || *c != ':')
			return webcfg_fail(p, "expected a colon after the quoted key");
		*s = c + 1;
		return (*s < end && **s != ' ') ? webcfg_fail(p, "expected a space after the colon")
						: 0;
	}
	if (*c == '-' && (c + 1 == end || c[1] == ' '))
		return webcfg_fail(p, "a list item: lists are not supported in the web config");
	if (webcfg_indicator(*c))
		return webcfg_fail(p, "'%c' starts YAML syntax this reader does not take", *c);
	for (k = c; k < end && !(*k == ':' && (k + 1 == end || k[1] == ' ')); k++)
		if (*k == '#' && k[-1] == ' ')
			break;
	if (k == end || *k != ':')
		return webcfg_fail(p, "expected \"key: value\"");
	len = (size_t)(k - c);
	while (len && c[len - 1] == ' ')
		len--;
	if (len >= n)
		return webcfg_fail(p, "a key longer than %zu bytes", n - 1);
	memcpy(out, c, len);
	out[len] = '\0';
	*s = k + 1;
	return 0;
}

/* The value after a key's colon, up to the line's end or a comment. */
static int webcfg_value(struct webcfg_parser *p, const char *s, const char *end,
			struct webcfg_val *v)
{
	size_t len;
	int rc;

	v->s[0] = '\0';
	v->empty = v->empty_map = false;
	while (s < end && *s == ' ')
		s++;
	if (s == end || *s == '#') {
		v->empty = true;
		return 0;
	}
	if (*s == '"' || *s == '\'') {
		if ((rc = webcfg_quoted(p, &s, end, v->s, sizeof(v->s))) < 0)
			return rc;
		return webcfg_rest_empty(s, end) ? 0
						 : webcfg_fail(p, "text after the quoted value");
	}
	if (*s == '{' && s + 1 < end && s[1] == '}' && webcfg_rest_empty(s + 2, end)) {
		v->empty_map = true;
		return 0;
	}
	if (webcfg_indicator(*s) && !(*s == '-' && s + 1 < end && s[1] != ' '))
		return webcfg_fail(p,
				   "'%c' starts YAML syntax this reader does not take (quote the "
				   "value)",
				   *s);
	for (len = 0; s + len < end && !(s[len] == '#' && len && s[len - 1] == ' '); len++)
		if (s[len] == ':' && (s + len + 1 == end || s[len + 1] == ' '))
			return webcfg_fail(p, "a nested \"key: value\": not supported here");
	while (len && s[len - 1] == ' ')
		len--;
	memcpy(v->s, s, len); /* len < the line's length < sizeof(v->s) */
	v->s[len] = '\0';
	if (!strcmp(v->s, "~") || !strcmp(v->s, "null"))
		v->empty = true;
	return 0;
}

static int webcfg_version(struct webcfg_parser *p, const char *key, const char *v,
			  enum serve_tls_version *out)
{
	static const char *const names[] = {"TLS10", "TLS11", "TLS12", "TLS13"};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(v, names[i])) {
			*out = (enum serve_tls_version)(SERVE_TLS10 + i);
			return 0;
		}
	return webcfg_fail(p, "%s: '%s' is none of TLS10, TLS11, TLS12, TLS13", key, v);
}

/* A path as written, made absolute against the file's folder. */
static int webcfg_path(struct webcfg_parser *p, const char *key, const char *v, char *out)
{
	int k;

	if (!*v)
		return webcfg_fail(p, "%s: empty", key);
	if (v[0] == '/' || !p->dir || !*p->dir)
		k = snprintf(out, SERVE_WEB_PATH_MAX, "%s", v);
	else
		k = snprintf(out, SERVE_WEB_PATH_MAX, "%s/%s", p->dir, v);
	return (k < 0 || k >= SERVE_WEB_PATH_MAX) ? webcfg_fail(p, "%s: a path too long", key) : 0;
}

/* A key as the format spells its keys (tls_server_config, min_version):
 * only such a key is quoted in a message, so that a file that is no web
 * config (--web-config /etc/shadow) never has a line of it printed. */
static bool webcfg_key_shown(const char *key)
{
	size_t n = strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789_");

	return n && n <= 40 && !key[n] && key[0] >= 'a' && key[0] <= 'z';
}

/* The bit of a key of tls_server_config, before its value is read: a key
 * asys does not take is what a user needs to hear of first. */
static int webcfg_tls_name(struct webcfg_parser *p, const char *key, unsigned *out)
{
	static const char *const keys[] = {"cert_file",	  "key_file",	      "min_version",
					   "max_version", "client_auth_type", "client_ca_file"};
	static const char *const unsupported[] = {"cipher_suites",
						  "curve_preferences",
						  "prefer_server_cipher_suites",
						  "client_allowed_sans",
						  "cert",
						  "key",
						  "client_ca"};
	unsigned bit = 0;

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strcmp(key, keys[i]))
			bit = 1u << i;
	for (size_t i = 0; !bit && i < ARRAY_SIZE(unsupported); i++)
		if (!strcmp(key, unsupported[i]))
			return webcfg_fail(p, "tls_server_config: '%s' is not supported by asys",
					   key);
	if (!bit)
		return webcfg_fail(p,
				   "tls_server_config: unknown key '%s' (asys takes cert_file, "
				   "key_file, min_version, max_version, client_auth_type, "
				   "client_ca_file)",
				   webcfg_key_shown(key) ? key : "(not shown)");
	if (p->tls_keys & bit)
		return webcfg_fail(p, "tls_server_config: '%s' given twice", key);
	p->tls_keys |= bit;
	*out = bit;
	return 0;
}

/* client_auth_type: the types that verify against client_ca_file; the
 * two that take a certificate unverified would check nothing. */
static int webcfg_client_auth(struct webcfg_parser *p, const struct webcfg_val *v)
{
	if (v->empty || !strcmp(v->s, "NoClientCert"))
		p->c->client_auth = SERVE_CLIENT_NONE;
	else if (!strcmp(v->s, "RequireAndVerifyClientCert"))
		p->c->client_auth = SERVE_CLIENT_VERIFY;
	else if (!strcmp(v->s, "VerifyClientCertIfGiven"))
		p->c->client_auth = SERVE_CLIENT_VERIFY_IF_GIVEN;
	else if (!strcmp(v->s, "RequestClientCert") || !strcmp(v->s, "RequireAnyClientCert"))
		return webcfg_fail(
		    p,
		    "tls_server_config: client_auth_type %s is not supported by asys: "
		    "it verifies nothing (use RequireAndVerifyClientCert)",
		    v->s);
	else
		return webcfg_fail(
		    p,
		    "tls_server_config: client_auth_type '%s' is none of NoClientCert, "
		    "RequireAndVerifyClientCert, VerifyClientCertIfGiven",
		    v->s);
	return 0;
}

static int webcfg_tls_key(struct webcfg_parser *p, const char *key, unsigned bit,
			  const struct webcfg_val *v)
{
	if (bit == WEBCFG_AUTH)
		return webcfg_client_auth(p, v);
	if (v->empty || v->empty_map)
		return webcfg_fail(p, "tls_server_config: '%s' needs a value", key);
	if (bit == WEBCFG_CA)
		return webcfg_path(p, key, v->s, p->c->client_ca_file);
	if (bit == WEBCFG_CERT)
		return webcfg_path(p, key, v->s, p->c->cert_file);
	if (bit == WEBCFG_KEY)
		return webcfg_path(p, key, v->s, p->c->key_file);
	return webcfg_version(p, key, v->s,
			      bit == WEBCFG_MIN ? &p->c->min_version : &p->c->max_version);
}

/* A bcrypt hash as crypt(3) writes one: $2a$, $2b$ or $2y$, a two-digit
 * cost from 04 to 31, $, then 53 characters of its base-64 alphabet. */
static bool webcfg_bcrypt(const char *h)
{
	static const char b64[] =
	    "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	int cost;

	if (strlen(h) != SERVE_WEB_HASH_LEN || h[0] != '$' || h[1] != '2' || !strchr("aby", h[2]) ||
	    h[3] != '$' || h[6] != '$' || h[4] < '0' || h[4] > '3' || h[5] < '0' || h[5] > '9')
		return false;
	cost = (h[4] - '0') * 10 + (h[5] - '0');
	if (cost < 4 || cost > 31)
		return false;
	for (size_t i = 7; i < SERVE_WEB_HASH_LEN; i++)
		if (!h[i] || !strchr(b64, h[i]))
			return false;
	return true;
}

static int webcfg_user(struct webcfg_parser *p, const char *key, const struct webcfg_val *v)
{
	struct serve_webcfg *c = p->c;
	struct serve_web_user *u;

	if (!*key || strlen(key) >= SERVE_WEB_USER_MAX || strchr(key, ':'))
		return webcfg_fail(
		    p, "basic_auth_users: a user name must be 1 to %d bytes, without ':'",
		    SERVE_WEB_USER_MAX - 1);
	for (size_t i = 0; i < c->nusers; i++)
		if (!strcmp(c->users[i].name, key))
			return webcfg_fail(p, "basic_auth_users: '%s' given twice", key);
	if (v->empty || v->empty_map || !webcfg_bcrypt(v->s))
		return webcfg_fail(p,
				   "basic_auth_users: the password of '%s' is not a bcrypt hash "
				   "($2b$, $2y$ or $2a$, 60 characters: htpasswd -nBC 10 USER)",
				   key);
	if ((v->s[4] - '0') * 10 + (v->s[5] - '0') > SERVE_WEB_COST_MAX)
		return webcfg_fail(p,
				   "basic_auth_users: the hash of '%s' has cost %.2s, above the %d "
				   "asys takes: each check would take a CPU for seconds (make it "
				   "again: htpasswd -nBC 10 USER)",
				   key, v->s + 4, SERVE_WEB_COST_MAX);
	if (c->nusers == SERVE_WEB_USERS_MAX)
		return webcfg_fail(p, "basic_auth_users: more than %d users", SERVE_WEB_USERS_MAX);
	if (c->nusers == p->users_cap) {
		size_t cap = p->users_cap ? p->users_cap * 2 : 8;

		u = realloc(c->users, cap * sizeof(*u));
		if (!u) {
			snprintf(p->err, p->n, "out of memory");
			return -ENOMEM;
		}
		c->users = u;
		p->users_cap = cap;
	}
	u = &c->users[c->nusers++];
	util_strlcpy(u->name, key, sizeof(u->name));
	util_strlcpy(u->hash, v->s, sizeof(u->hash));
	return 0;
}

/* A line at indent 0: a section's name, before its value is read. */
static int webcfg_section_name(struct webcfg_parser *p, const char *key)
{
	bool *seen;

	if (!strcmp(key, "tls_server_config")) {
		p->sec = WEBCFG_TLS;
		seen = &p->seen_tls;
	} else if (!strcmp(key, "basic_auth_users")) {
		p->sec = WEBCFG_USERS;
		seen = &p->seen_users;
	} else if (!strcmp(key, "http_server_config")) {
		return webcfg_fail(p, "http_server_config is not supported by asys");
	} else if (webcfg_key_shown(key)) {
		return webcfg_fail(p,
				   "unknown key '%s' (the web config has tls_server_config and "
				   "basic_auth_users)",
				   key);
	} else {
		return webcfg_fail(p, "not a web config: a key that is neither tls_server_config "
				      "nor basic_auth_users (the line is not shown)");
	}
	if (*seen)
		return webcfg_fail(p, "'%s' given twice", key);
	*seen = true;
	return 0;
}

static int webcfg_section(struct webcfg_parser *p, const char *key, const struct webcfg_val *v)
{
	if (!v->empty && !v->empty_map)
		return webcfg_fail(p, "'%s' must be followed by indented \"key: value\" lines",
				   key);
	p->sec_indent = -1;
	if (v->empty_map)
		p->sec = WEBCFG_NONE;
	return 0;
}

/* One line without its newline, control bytes already refused. */
static int webcfg_line(struct webcfg_parser *p, const char *s, const char *end)
{
	char key[SERVE_WEB_LINE_MAX];
	struct webcfg_val v;
	unsigned bit = 0;
	int indent = 0, rc = 0;

	while (s + indent < end && s[indent] == ' ')
		indent++;
	if (s + indent == end || s[indent] == '#')
		return 0;
	if (!indent && end - s >= 3 && !memcmp(s, "---", 3) && webcfg_rest_empty(s + 3, end)) {
		return p->content ? webcfg_fail(p, "a second YAML document: one only") : 0;
	}
	p->content = true;
	if (!indent && (*s == '%' || (end - s >= 3 && !memcmp(s, "...", 3))))
		return webcfg_fail(p, "YAML directives and document ends are not supported");
	if (indent && p->sec == WEBCFG_NONE)
		return webcfg_fail(
		    p, "an indented line outside tls_server_config and basic_auth_users");
	if (indent && p->sec_indent < 0)
		p->sec_indent = indent;
	if (indent && indent != p->sec_indent)
		return webcfg_fail(p,
				   "indented by %d spaces where the section's lines have %d "
				   "(nested values are not supported)",
				   indent, p->sec_indent);
	s += indent;
	if ((rc = webcfg_key(p, &s, end, key, sizeof(key))) < 0)
		return rc;
	if (!indent)
		rc = webcfg_section_name(p, key);
	else if (p->sec == WEBCFG_TLS)
		rc = webcfg_tls_name(p, key, &bit);
	if (rc < 0 || (rc = webcfg_value(p, s, end, &v)) < 0)
		return rc;
	if (!indent)
		return webcfg_section(p, key, &v);
	return p->sec == WEBCFG_TLS ? webcfg_tls_key(p, key, bit, &v) : webcfg_user(p, key, &v);
}

/* The whole file's checks once every line is in. */
static int webcfg_finish(struct webcfg_parser *p)
{
	struct serve_webcfg *c = p->c;
	bool cert = p->tls_keys & WEBCFG_CERT, key = p->tls_keys & WEBCFG_KEY;

	p->line = 0;
	if (cert != key)
		return webcfg_fail(p, "tls_server_config needs both cert_file and key_file");
	c->tls = cert;
	if (c->min_version && c->max_version && c->min_version > c->max_version)
		return webcfg_fail(p, "tls_server_config: min_version is above max_version");
	if (!c->tls && (c->min_version || c->max_version || (p->tls_keys & WEBCFG_CA)))
		return webcfg_fail(
		    p, "tls_server_config: versions or client_ca_file without cert_file "
		       "and key_file");
	if (c->client_auth && !(p->tls_keys & WEBCFG_CA))
		return webcfg_fail(p, "tls_server_config: client_auth_type needs client_ca_file");
	if (!c->client_auth && (p->tls_keys & WEBCFG_CA))
		return webcfg_fail(p, "tls_server_config: client_ca_file checks nothing without "
				      "client_auth_type RequireAndVerifyClientCert or "
				      "VerifyClientCertIfGiven");
	return 0;
}

int serve_webcfg_parse(const char *name, const char *dir, const char *text, size_t len,
		       struct serve_webcfg *c, char *err, size_t n)
{
	struct webcfg_parser p = {.name = name, .dir = dir, .c = c, .err = err, .n = n};
	const char *s = text, *end = text + len;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	if (len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
		s += 3; /* a byte order mark */
	while (s < end && !rc) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *e = nl ? nl : end;

		p.line++;
		if (e > s && e[-1] == '\r')
			e--;
		if (e - s >= SERVE_WEB_LINE_MAX)
			rc = webcfg_fail(&p, "a line longer than %d bytes", SERVE_WEB_LINE_MAX - 1);
		for (const char *b = s; !rc && b < e; b++)
			if (str_ascii_control((unsigned char)*b))
				rc = *b == '\t' ? webcfg_fail(&p, "a tab: YAML indents with spaces")
						: webcfg_fail(&p, "a control byte 0x%02x",
							      (unsigned char)*b);
		if (!rc)
			rc = webcfg_line(&p, s, e);
		s = nl ? nl + 1 : end;
	}
	if (!rc)
		rc = webcfg_finish(&p);
	if (rc < 0)
		serve_webcfg_free(c);
	return rc;
}

void serve_webcfg_free(struct serve_webcfg *c)
{
	if (!c)
		return;
	free(c->users);
	if (c->key_pem) /* a private key: not left in freed memory */
		explicit_bzero(c->key_pem, c->key_len);
	free(c->key_pem);
	free(c->cert_pem);
	free(c->ca_pem);
	memset(c, 0, sizeof(*c));
}

void serve_webcfg_priorities(const struct serve_webcfg *c, char *buf, size_t n)
{
	int lo = c->min_version ? (int)c->min_version : SERVE_TLS12;
	int hi = c->max_version ? (int)c->max_version : SERVE_TLS13;
	size_t k = (size_t)snprintf(buf, n, "NORMAL:-VERS-ALL");

	for (int v = hi; v >= lo && k < n; v--)
		k += (size_t)snprintf(buf + k, n - k, ":+VERS-TLS1.%d", v - SERVE_TLS10);
}
