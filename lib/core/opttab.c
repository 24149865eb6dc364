/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#include "opttab.h"
#include "strsafe.h"
#include "util.h"

/* An argument as it may be echoed: escaped and at most 80 bytes, since a
 * value can hold escape sequences, newlines or 100 KB. */
#define OPT_ECHO_LEN 80
#define OPT_ECHO_BUF (4 * OPT_ECHO_LEN + 8)

int opt_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = {"true", "yes", "1", "on"};
	static const char *const no[] = {"false", "no", "0", "off"};

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

void opt_bad_value(char *err, size_t n, const char *name, const char *val, const char *expect)
{
	char v[OPT_ECHO_BUF];

	snprintf(err, n, "bad value '%s' for %s: expected %s",
		 str_escape(v, sizeof(v), val, OPT_ECHO_LEN), name, expect);
}

static int opt_choice(const struct opt_desc *d, const char *name, const char *val, int *out,
		      char *err, size_t n)
{
	char expect[256] = "";
	size_t len = 0;

	for (int i = 0; d->choices[i]; i++) {
		if (!strcmp(val, d->choices[i])) {
			*out = i;
			return 0;
		}
	}
	for (int i = 0; d->choices[i] && len < sizeof(expect); i++) {
		const char *sep = !i ? "" : d->choices[i + 1] ? ", " : " or ";

		len += (size_t)snprintf(expect + len, sizeof(expect) - len, "%s%s", sep,
					d->choices[i]);
	}
	opt_bad_value(err, n, name, val, expect);
	return -EINVAL;
}

int opt_apply(const struct opt_desc *d, const char *name, const char *val, void *block, char *err,
	      size_t n)
{
	char *p = (char *)block + d->off, expect[128];
	double v;
	int rc = 0;

	err[0] = '\0';
	switch (d->type) {
	case OPT_FLAG:
		*(bool *)(void *)p = true;
		break;
	case OPT_BOOL:
		if (opt_parse_bool(val, (bool *)(void *)p)) {
			opt_bad_value(err, n, name, val, "true or false");
			rc = -EINVAL;
		}
		break;
	case OPT_DOUBLE:
		if (util_parse_double(val, &v) || v < d->lo || v > d->hi) {
			snprintf(expect, sizeof(expect), "%s between %g and %g", d->unit, d->lo,
				 d->hi);
			opt_bad_value(err, n, name, val, expect);
			rc = -EINVAL;
		} else {
			*(double *)(void *)p = v;
		}
		break;
	case OPT_STRING:
		if (!*val) {
			opt_bad_value(err, n, name, val, d->expect ? d->expect : d->arg);
			rc = -EINVAL;
		} else {
			*(const char **)(void *)p = val;
		}
		break;
	case OPT_CHOICE:
		rc = opt_choice(d, name, val, (int *)(void *)p, err, n);
		break;
	case OPT_PARSE:
		rc = d->parse(d, name, val, block, err, n);
		if (rc && !err[0])
			opt_bad_value(err, n, name, val, d->expect ? d->expect : d->arg);
		break;
	}
	if (!rc && d->given)
		*((bool *)(void *)((char *)block + d->given - 1)) = true;
	return rc;
}

void opt_format_left(const struct opt_desc *d, char *buf, size_t n)
{
	if (d->shrt)
		snprintf(buf, n, "-%c, --%s%s%s", d->shrt, d->lng, d->arg ? " " : "",
			 d->arg ? d->arg : "");
	else
		snprintf(buf, n, "    --%s%s%s", d->lng, d->arg ? " " : "", d->arg ? d->arg : "");
}
