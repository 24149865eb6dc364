/* SPDX-License-Identifier: GPL-2.0-only */
/* Times in a recording: the expressions of --begin, --end and the replay's
 * `g` key, and the wall-clock time of a record. Every product and sum is
 * checked: the clock origin and the times come from the file, the
 * expressions from the user, and neither may overflow or cast a double out
 * of range. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rec_export.h"
#include "util.h"

#define NS 1000000000ll

bool rec_wall_ns(int64_t origin, uint64_t t_ns, int64_t *wall)
{
	if (t_ns > INT64_MAX || __builtin_add_overflow((int64_t)t_ns, origin, wall))
		return false;
	return *wall >= 0;
}

void rec_time_range(char *buf, size_t n)
{
	snprintf(buf, n,
		 "times from 1970-01-01 00:00:00 to 2262-04-11 23:47:16 UTC, durations "
		 "up to %lld days",
		 (long long)(INT64_MAX / NS / 86400));
}

/* seconds -> ns in [0, INT64_MAX]; -ERANGE for anything else (NaN too) */
static int secs_to_ns(double d, uint64_t *ns)
{
	double x = d * 1e9;

	if (!(x >= 0 && x < 0x1p63))
		return -ERANGE;
	*ns = (uint64_t)x;
	return 0;
}

static int parse_relative(const char *s, uint64_t plus_base, uint64_t minus_base, uint64_t *out)
{
	uint64_t dns;
	double d;
	int rc;

	if (util_parse_duration(s + 1, &d) || !(d >= 0))
		return -EINVAL;
	rc = secs_to_ns(d, &dns);
	if (rc)
		return rc;
	if (*s == '-') {
		*out = minus_base > dns ? minus_base - dns : 0;
		return 0;
	}
	if (__builtin_add_overflow(plus_base, dns, out) || *out > INT64_MAX)
		return -ERANGE;
	return 0;
}

static int parse_percent(const char *s, uint64_t t0, uint64_t t1, uint64_t *out)
{
	size_t len = strlen(s);
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (end != s + len - 1 || errno || !(d >= 0 && d <= 100))
		return -EINVAL;
	if (t1 < t0)
		t1 = t0;
	/* (double)(t1 - t0) may round up to 2^64: the end is the end */
	*out = d >= 100 ? t1 : t0 + (uint64_t)((double)(t1 - t0) * (d / 100.0));
	return 0;
}

/* "HH:MM[:SS][.frac]" on the recording's first day, or with a date */
static int parse_wall(const char *s, int64_t origin, uint64_t t0, uint64_t *out)
{
	struct tm tm = {0}, day;
	int64_t wall0, t, fns;
	const char *rest;
	double frac = 0;
	char *end;
	time_t w, s0;

	rest = strptime(s, "%Y-%m-%d %H:%M:%S", &tm);
	if (!rest)
		rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!rest) {
		memset(&tm, 0, sizeof(tm));
		rest = strptime(s, "%H:%M:%S", &tm);
		if (!rest)
			rest = strptime(s, "%H:%M", &tm);
		if (!rest)
			return -EINVAL;
		if (!rec_wall_ns(origin, t0, &wall0))
			return -ERANGE; /* no first day to put it on */
		s0 = (time_t)(wall0 / NS);
		localtime_r(&s0, &day);
		tm.tm_year = day.tm_year;
		tm.tm_mon = day.tm_mon;
		tm.tm_mday = day.tm_mday;
	}
	if (*rest == '.') {
		frac = strtod(rest, &end);
		rest = end;
		if (!(frac >= 0 && frac < 1))
			return -EINVAL;
	}
	if (*rest)
		return -EINVAL;
	tm.tm_isdst = -1;
	w = mktime(&tm);
	if (w == (time_t)-1)
		return -EINVAL;
	fns = (int64_t)(frac * 1e9);
	if (__builtin_mul_overflow((int64_t)w, NS, &t) || __builtin_add_overflow(t, fns, &t) ||
	    t < 0 || __builtin_sub_overflow(t, origin, &t))
		return -ERANGE;
	/* a time of day before the start belongs to the next day */
	if (!strchr(s, '-') && t < (int64_t)(t0 > INT64_MAX ? INT64_MAX : t0) - 3600 * NS &&
	    __builtin_add_overflow(t, 86400 * NS, &t))
		return -ERANGE;
	*out = t < 0 ? 0 : (uint64_t)t;
	return 0;
}

int rec_parse_time(const char *s, int64_t origin, uint64_t t0, uint64_t t1, uint64_t plus_base,
		   uint64_t minus_base, uint64_t *out)
{
	if (!s || !*s)
		return -EINVAL;
	if (*s == '+' || *s == '-')
		return parse_relative(s, plus_base, minus_base, out);
	if (*s == '@')
		return util_parse_u64(s + 1, out) ? -EINVAL : 0;
	if (s[strlen(s) - 1] == '%')
		return parse_percent(s, t0, t1, out);
	return parse_wall(s, origin, t0, out);
}
