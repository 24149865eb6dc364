/* SPDX-License-Identifier: GPL-2.0-only */
/* The test HGML's per-process utilisation calls (the pattern and switches
 * are described at the top of libhgml.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libhgml_int.h"

#define FK_UTIL_PERIOD_US 20000ull
#define FK_UTIL_KEEP 50ull
#define FK_NA 0xffffffffu

struct fk_putil {
	unsigned long long ts;
	unsigned int pid, sm, mem, enc, dec;
};

/* nvmlProcessUtilizationSample_t and nvmlProcessUtilizationInfo_v1_t */
struct fk_util_sample {
	unsigned int pid;
	unsigned long long ts;
	unsigned int sm, mem, enc, dec;
};

struct fk_util_info {
	unsigned long long ts;
	unsigned int pid, sm, mem, enc, dec, jpg, ofa;
};

struct fk_utils_info {
	unsigned int version, count;
	unsigned long long last_seen;
	struct fk_util_info *array;
};

#define FK_UTILS_INFO_V1 ((unsigned int)sizeof(struct fk_utils_info) | (1u << 24))

struct fk_util_stats {
	_Atomic unsigned long long served, repeated, newest, calls_new, calls_old;
};

static struct fk_util_stats fk_ustats[FK_MAX_DEV];

static int fk_putil_is(const char *how)
{
	const char *s = getenv("FAKE_HGML_PUTIL");

	return s && !strcmp(s, how);
}

static void fk_util_at(unsigned int d, unsigned int i, struct fk_putil *u)
{
	unsigned long long used;

	fk_proc_at(d, i, &u->pid, &used);
	u->sm = 1 + (10 * d + i) % 100;
	u->mem = u->sm / 2;
	u->enc = (d + i) % 100;
	u->dec = i % 2 ? FK_NA : 2 * d % 100;
}

/* The periods after last_seen that are kept: [*k0, *k1]; their count. */
static unsigned long long fk_util_periods(unsigned long long last_seen, unsigned long long *k0,
					  unsigned long long *k1)
{
	unsigned long long first = (fk_util_t0 + FK_UTIL_PERIOD_US - 1) / FK_UTIL_PERIOD_US;

	*k1 = fk_real_us() / FK_UTIL_PERIOD_US;
	*k0 = last_seen / FK_UTIL_PERIOD_US + 1;
	if (*k1 >= FK_UTIL_KEEP && *k0 < *k1 - FK_UTIL_KEEP + 1)
		*k0 = *k1 - FK_UTIL_KEEP + 1;
	if (*k0 < first)
		*k0 = first;
	return *k1 >= *k0 ? *k1 - *k0 + 1 : 0;
}

/* The samples newer than last_seen through put(i, sample); 0, or an error
 * with *n set to the count wanted. */
static int fk_util_fill(struct fk_dev *d, unsigned long long last_seen, unsigned int *n,
			int have_room,
			void (*put)(void *arr, unsigned int i, const struct fk_putil *u), void *arr)
{
	struct fk_util_stats *st;
	unsigned long long k0, k1, periods = fk_util_periods(last_seen, &k0, &k1);
	unsigned int active =
	    fk_in_list("FAKE_HGML_PUTIL_IDLE", d->index) ? 1 : fk_nproc_all(d->index);
	unsigned long long want = periods * active, newest;
	unsigned int j = 0;

	if (fk_putil_is("huge")) {
		*n = 0xfffffff0u;
		return FK_INSUFFICIENT_SIZE;
	}
	if (want == 0)
		return FK_NOT_FOUND;
	if (!have_room || *n < want) {
		*n = (unsigned int)want;
		return FK_INSUFFICIENT_SIZE;
	}
	st = &fk_ustats[d->index];
	newest = st->newest;
	for (unsigned long long k = k0; k <= k1; k++)
		for (unsigned int i = 0; i < active; i++) {
			struct fk_putil u;

			fk_util_at(d->index, i, &u);
			u.ts = k * FK_UTIL_PERIOD_US;
			put(arr, j++, &u);
			if (u.ts <= newest)
				st->repeated++;
		}
	st->served += j;
	if (k1 * FK_UTIL_PERIOD_US > st->newest)
		st->newest = k1 * FK_UTIL_PERIOD_US;
	*n = j;
	return FK_OK;
}

static void fk_put_sample(void *arr, unsigned int i, const struct fk_putil *u)
{
	((struct fk_util_sample *)arr)[i] =
	    (struct fk_util_sample){u->pid, u->ts, u->sm, u->mem, u->enc, u->dec};
}

static int fk_get_proc_util(struct fk_dev *d, struct fk_util_sample *s, unsigned int *n,
			    unsigned long long last_seen)
{
	int r = fk_dev_ok(d);

	if (r)
		return r;
	if (!n)
		return FK_INVALID_ARGUMENT;
	fk_ustats[d->index].calls_old++;
	if (fk_putil_is("not_supported"))
		return FK_NOT_SUPPORTED;
	return fk_util_fill(d, last_seen, n, s != NULL, fk_put_sample, s);
}

#ifndef FAKE_HGML_OLD
static void fk_put_info(void *arr, unsigned int i, const struct fk_putil *u)
{
	((struct fk_util_info *)arr)[i] =
	    (struct fk_util_info){u->ts, u->pid, u->sm, u->mem, u->enc, u->dec, 0, 0};
}

static int fk_get_procs_util(struct fk_dev *d, struct fk_utils_info *info)
{
	int r = fk_dev_ok(d);

	if (r)
		return r;
	if (!info)
		return FK_INVALID_ARGUMENT;
	if (info->version != FK_UTILS_INFO_V1)
		return FK_ARGUMENT_VERSION_MISMATCH;
	fk_ustats[d->index].calls_new++;
	if (fk_putil_is("not_supported") || fk_putil_is("new_not_supported"))
		return FK_NOT_SUPPORTED;
	return fk_util_fill(d, info->last_seen, &info->count, info->array != NULL, fk_put_info,
			    info->array);
}
#endif

/* For tests: what device d's utilisation calls did (see the top). */
__attribute__((visibility("default"))) void fakeHgmlUtilStats(unsigned int d,
							      unsigned long long out[4]);
__attribute__((visibility("default"))) void fakeHgmlUtilStats(unsigned int d,
							      unsigned long long out[4])
{
	const struct fk_util_stats *st = &fk_ustats[d < FK_MAX_DEV ? d : 0];

	out[0] = st->served;
	out[1] = st->repeated;
	out[2] = st->calls_new;
	out[3] = st->calls_old;
}

/* ---- exports ---- */

FK_BOTH(int, DeviceGetProcessUtilization,
	(struct fk_dev * d, struct fk_util_sample *s, unsigned int *n, unsigned long long t),
	(d, s, n, t), fk_get_proc_util)
#ifndef FAKE_HGML_OLD
FK_BOTH(int, DeviceGetProcessesUtilizationInfo, (struct fk_dev * d, struct fk_utils_info *i),
	(d, i), fk_get_procs_util)
#endif
