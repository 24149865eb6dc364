/* SPDX-License-Identifier: GPL-2.0-only */
/* procrun: see procrun.h. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procrun.h"

const struct procrun_sum *procrun_find(const struct procrun_sum *sums, size_t n, uint32_t tgid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sums[mid].tgid == tgid)
			return &sums[mid];
		if (sums[mid].tgid < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

#ifdef HAVE_BPF

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gpurt_api.h"
#include "procrun.skel.h"
#include "util.h"

/* procrun.bpf.c's record */
struct procrun_rec {
	uint32_t tgid;
	uint32_t tid;
	uint64_t run_ns;
	uint64_t switches;
};

/* The most tasks read: the kernel's PID_MAX_LIMIT. */
#define PROCRUN_TASKS_MAX (1u << 22)

struct procrun {
	struct procrun_bpf *skel;
	struct bpf_link *link;
	struct procrun_rec *recs;
	struct procrun_sum *sums;
	size_t cap_recs, cap_sums;
};

int procrun_open(struct procrun **out)
{
	struct procrun *pr = calloc(1, sizeof(*pr));
	const void *elf;
	size_t sz = 0;
	int rc;

	*out = NULL;
	if (!pr)
		return -ENOMEM;
	/* libbpf's messages would land on the TUI's terminal */
	gpurt_libbpf_quiet();
	pr->skel = procrun_bpf__open_and_load();
	if (!pr->skel) {
		rc = errno ? -errno : -EINVAL;
		goto fail;
	}
	/* the object's bytes in the binary are not read after the load */
	elf = procrun_bpf__elf_bytes(&sz);
	util_rodata_done(elf, sz);
	pr->link = bpf_program__attach_iter(pr->skel->progs.procrun_task, NULL);
	if (!pr->link) {
		rc = errno ? -errno : -EINVAL;
		goto fail;
	}
	*out = pr;
	return 0;
fail:
	procrun_close(pr);
	return rc;
}

void procrun_close(struct procrun *pr)
{
	if (!pr)
		return;
	bpf_link__destroy(pr->link);
	procrun_bpf__destroy(pr->skel);
	free(pr->recs);
	free(pr->sums);
	free(pr);
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 256;
	void *n;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	n = realloc(*p, c * size);
	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = c;
	return 0;
}

/* Every record of one pass of the iterator into pr->recs; how many, or
 * -errno. */
static ssize_t read_all(struct procrun *pr)
{
	int fd = bpf_iter_create(bpf_link__fd(pr->link));
	size_t len = 0;
	ssize_t r = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		size_t room;

		if (len / sizeof(*pr->recs) >= PROCRUN_TASKS_MAX) {
			r = -E2BIG;
			break;
		}
		if (grow((void **)&pr->recs, &pr->cap_recs, len / sizeof(*pr->recs) + 64,
			 sizeof(*pr->recs))) {
			r = -ENOMEM;
			break;
		}
		room = pr->cap_recs * sizeof(*pr->recs) - len;
		r = read(fd, (char *)pr->recs + len, room);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			r = -errno; /* before close() can change errno */
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	return r < 0 ? r : (ssize_t)(len / sizeof(*pr->recs));
}

static int sum_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct procrun_sum *)a)->tgid,
		 y = ((const struct procrun_sum *)b)->tgid;

	return x < y ? -1 : x > y;
}

int procrun_read(struct procrun *pr, const struct procrun_sum **sums, size_t *n)
{
	ssize_t nrec = read_all(pr);
	size_t ns = 0;
	bool sorted = true;

	if (nrec < 0)
		return (int)nrec;
	if (grow((void **)&pr->sums, &pr->cap_sums, (size_t)nrec, sizeof(*pr->sums)))
		return -ENOMEM;
	/* tasks come by tid: a process's leader first (its tid is its tgid)
	 * and its threads after it, usually right after */
	for (ssize_t i = 0; i < nrec; i++) {
		const struct procrun_rec *r = &pr->recs[i];
		struct procrun_sum *s = NULL;

		if (ns && pr->sums[ns - 1].tgid == r->tgid)
			s = &pr->sums[ns - 1];
		else if (sorted)
			s = (struct procrun_sum *)procrun_find(pr->sums, ns, r->tgid);
		if (!s) {
			/* unsorted (tids wrapped): duplicates are merged below */
			s = &pr->sums[ns++];
			*s = (struct procrun_sum){.tgid = r->tgid};
			if (ns > 1 && s[-1].tgid > r->tgid)
				sorted = false;
		}
		s->threads++;
		s->run_ns += r->run_ns;
		s->switches += r->switches;
	}
	if (!sorted) {
		/* merge the duplicates an unsorted pass made */
		size_t k = 0;

		qsort(pr->sums, ns, sizeof(*pr->sums), sum_cmp);
		for (size_t i = 0; i < ns; i++) {
			if (k && pr->sums[k - 1].tgid == pr->sums[i].tgid) {
				pr->sums[k - 1].threads += pr->sums[i].threads;
				pr->sums[k - 1].run_ns += pr->sums[i].run_ns;
				pr->sums[k - 1].switches += pr->sums[i].switches;
			} else {
				pr->sums[k++] = pr->sums[i];
			}
		}
		ns = k;
	}
	*sums = pr->sums;
	*n = ns;
	return 0;
}

#else

int procrun_open(struct procrun **out)
{
	*out = NULL;
	return -ENOSYS;
}

void procrun_close(struct procrun *pr)
{
	(void)pr;
}

int procrun_read(struct procrun *pr, const struct procrun_sum **sums, size_t *n)
{
	(void)pr;
	*sums = NULL;
	*n = 0;
	return -ENOSYS;
}

#endif
