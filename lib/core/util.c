/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/* Length of the plain decimal number at s (digits, an optional fraction and
 * exponent), or 0. strtod alone would also take leading blanks, hex floats,
 * "inf" and "nan", none of which a person means on a command line. */
static size_t util_decimal_len(const char *s)
{
	size_t i = 0, digits = 0;

	while (s[i] >= '0' && s[i] <= '9')
		i++, digits++;
	if (s[i] == '.')
		for (i++; s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
	if (!digits)
		return 0;
	if (s[i] == 'e' || s[i] == 'E') {
		size_t j = i + 1;

		if (s[j] == '+' || s[j] == '-')
			j++;
		if (s[j] >= '0' && s[j] <= '9') {
			while (s[j] >= '0' && s[j] <= '9')
				j++;
			i = j;
		}
	}
	return i;
}

int util_parse_double(const char *s, double *out)
{
	char *end;
	double v;
	size_t sign;

	if (!s || !*s)
		return -EINVAL;
	sign = *s == '-' || *s == '+';
	if (!util_decimal_len(s + sign) || s[sign + util_decimal_len(s + sign)])
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end)
		return -EINVAL;
	if (errno == ERANGE || !isfinite(v))
		return -ERANGE;
	*out = v;
	return 0;
}

int util_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || *end)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

static int split_suffix(const char *s, double *num, const char **suffix)
{
	char *end;
	double v;

	if (!s || !util_decimal_len(s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end != s + util_decimal_len(s))
		return -EINVAL;
	if (errno == ERANGE || !isfinite(v))
		return -ERANGE;
	*num = v;
	*suffix = end;
	return 0;
}

int util_parse_duration(const char *s, double *seconds)
{
	static const struct {
		const char *sfx;
		double mul;
	} units[] = {{"", 1},	{"s", 1},    {"ms", 1e-3}, {"us", 1e-6},
		     {"m", 60}, {"min", 60}, {"h", 3600},  {"d", 86400}};
	const char *sfx;
	double v;
	int rc = split_suffix(s, &v, &sfx);

	if (rc)
		return rc;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (!strcmp(sfx, units[i].sfx)) {
			*seconds = v * units[i].mul;
			return 0;
		}
	}
	return -EINVAL;
}

int util_parse_size(const char *s, uint64_t *bytes)
{
	static const char sfx[] = "KMGTP";
	const char *suffix;
	double v, mul = 1;
	int rc = split_suffix(s, &v, &suffix);

	if (rc)
		return rc;
	if (*suffix) {
		const char *p = strchr(sfx, suffix[0] & ~0x20);

		if (!p || !suffix[0])
			return -EINVAL;
		for (long i = 0; i <= p - sfx; i++)
			mul *= 1024;
		suffix++;
		if (*suffix == 'i')
			suffix++;
		if (*suffix == 'B' || *suffix == 'b')
			suffix++;
		if (*suffix)
			return -EINVAL;
	}
	v *= mul;
	if (v >= 1.8e19)
		return -ERANGE;
	*bytes = (uint64_t)v;
	return 0;
}

/* One style for every size a user reads (panes, header, record, export):
 * binary units, a decimal below 100 ("9.5K", "41.2G", "143K"), whole bytes
 * as they are ("512B"). */
void util_fmt_bytes(char *buf, size_t n, double v)
{
	static const char sfx[] = "BKMGTPE";
	int i = 0;

	if (isnan(v)) {
		snprintf(buf, n, "n/a");
		return;
	}
	while (fabs(v) >= 1024 * 0.9995 && i < 6) {
		v /= 1024;
		i++;
	}
	if (i == 0 && v == floor(v))
		snprintf(buf, n, "%.0fB", v);
	else
		snprintf(buf, n, fabs(v) < 99.95 ? "%.1f%c" : "%.0f%c", v, sfx[i]);
}

struct timespec util_timespec(uint64_t ns)
{
	return (struct timespec){(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
}

uint64_t util_now_ns(int clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

char *util_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

size_t util_strlcpy(char *dst, const char *src, size_t n)
{
	size_t len = strlen(src);

	if (n) {
		size_t c = len < n - 1 ? len : n - 1;

		memcpy(dst, src, c);
		dst[c] = '\0';
	}
	return len;
}

void util_block_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGWINCH);
	sigaddset(&set, SIGTSTP);
	sigaddset(&set, SIGCONT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

/* Whether [a, b) lies in one mapping of a file that cannot be written
 * (/proc/self/maps: no 'w', an inode). Only there does MADV_DONTNEED keep
 * the bytes: in anonymous memory (a binary unpacked at start) it would
 * zero them. */
static bool util_file_ro(uintptr_t a, uintptr_t b)
{
	FILE *f = fopen("/proc/self/maps", "re");
	/* a whole line: a path of PATH_MAX after the fields, so that no
	 * piece of a long path is read as a line of its own */
	char line[4352], perm[8];
	unsigned long lo, hi, ino;
	bool ok = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %*s %*s %lu", &lo, &hi, perm, &ino) != 4)
			continue;
		if (lo <= a && a < hi) {
			ok = b <= hi && ino && perm[0] == 'r' && perm[1] == '-';
			break;
		}
	}
	fclose(f);
	return ok;
}

void util_rodata_done(const void *p, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t a, b;

	if (!p || pg <= 0)
		return;
	a = ((uintptr_t)p + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
	b = ((uintptr_t)p + len) & ~((uintptr_t)pg - 1);
	/* a private file mapping never written: MADV_DONTNEED drops the page
	 * table entries and leaves the page cache, so a later read faults the
	 * same bytes back in; a failure only keeps them resident */
	if (b > a && util_file_ro(a, b))
		(void)madvise((void *)a, b - a, MADV_DONTNEED);
}
