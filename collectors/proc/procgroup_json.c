/* SPDX-License-Identifier: GPL-2.0-only */
/* The bounded JSON look-up of the runtimes' state files: a string value at
 * a path of object keys, found only at its own depth, every length checked
 * against the end of the buffer, nesting counted rather than recursed into.
 * Escapes are not decoded: a value that holds one is not a name anyway. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "procgroup_int.h"

struct pg_json {
	const char *p, *end;
};

static void js_ws(struct pg_json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

/* At a '"': its raw content (escapes left in) and past its end. */
static int js_string(struct pg_json *j, const char **s, size_t *n)
{
	const char *q;

	if (j->p >= j->end || *j->p != '"')
		return -EINVAL;
	q = ++j->p;
	while (j->p < j->end && *j->p != '"') {
		if (*j->p == '\\' && j->p + 1 < j->end)
			j->p++;
		j->p++;
	}
	if (j->p >= j->end)
		return -EINVAL;
	*s = q;
	*n = (size_t)(j->p - q);
	j->p++;
	return 0;
}

/* Past one value of any kind; nesting is counted, not recursed into. */
static int js_skip(struct pg_json *j)
{
	const char *s;
	size_t n, depth = 0;

	if (j->p < j->end && *j->p == '"')
		return js_string(j, &s, &n);
	if (j->p < j->end && *j->p != '{' && *j->p != '[') {
		while (j->p < j->end && !strchr(",}] \t\r\n", *j->p))
			j->p++;
		return 0;
	}
	while (j->p < j->end) {
		if (*j->p == '"') {
			if (js_string(j, &s, &n))
				return -EINVAL;
			continue;
		}
		if (*j->p == '{' || *j->p == '[')
			depth++;
		else if ((*j->p == '}' || *j->p == ']') && --depth == 0) {
			j->p++;
			return 0;
		}
		j->p++;
	}
	return -EINVAL;
}

/* The string at keys[0].keys[1]... of the object at j; -ENOENT when absent,
 * -EINVAL when malformed or not a string. */
static int js_find(struct pg_json *j, const char *const *keys, size_t nkeys, const char **val,
		   size_t *vlen)
{
	js_ws(j);
	if (j->p >= j->end || *j->p != '{')
		return -EINVAL;
	j->p++;
	for (;;) {
		const char *k;
		size_t kn;

		js_ws(j);
		if (j->p < j->end && *j->p == '}')
			return -ENOENT;
		if (js_string(j, &k, &kn))
			return -EINVAL;
		js_ws(j);
		if (j->p >= j->end || *j->p != ':')
			return -EINVAL;
		j->p++;
		js_ws(j);
		if (kn == strlen(keys[0]) && !memcmp(k, keys[0], kn))
			return nkeys == 1 ? js_string(j, val, vlen)
					  : js_find(j, keys + 1, nkeys - 1, val, vlen);
		if (js_skip(j))
			return -EINVAL;
		js_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		return j->p < j->end && *j->p == '}' ? -ENOENT : -EINVAL;
	}
}

int procgroup_name_ok(const char *s, size_t n, size_t max)
{
	if (n == 0 || n > max)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

int procgroup_json_name(const char *buf, size_t len, const char *const *keys, size_t nkeys,
			char *dst, size_t cap)
{
	struct pg_json j = {buf, buf + len};
	const char *v;
	size_t n;

	if (js_find(&j, keys, nkeys, &v, &n))
		return 0;
	if (n > 0 && v[0] == '/') {
		v++;
		n--;
	}
	if (!procgroup_name_ok(v, n, 253))
		return 0;
	snprintf(dst, cap, "%.*s", (int)n, v);
	return 1;
}
