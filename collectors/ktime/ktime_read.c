/* SPDX-License-Identifier: GPL-2.0-only */
/* Reads the KTIME section without locks: each row under its sequence number
 * (a seqlock; the workload is the only writer), each count bounded. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "ktime_read.h"
#include "strsafe.h"

#define KTIME_TRIES 4 /* copies of a busy row before it waits for the next refresh */

static uint64_t ld64(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static uint32_t ld32(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* A bounded string of the section, escaped for a terminal. The bytes may
 * change while they are copied: the copy is what is shown. */
static void copy_name(char *dst, size_t n, const char *src, size_t max)
{
	char raw[KTIME_STATUS_MAX > KTIME_SEC_NAME_MAX ? KTIME_STATUS_MAX : KTIME_SEC_NAME_MAX];
	size_t k = max < sizeof(raw) ? max : sizeof(raw);

	for (size_t i = 0; i < k; i++)
		raw[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	raw[k - 1] = '\0';
	str_escape(dst, n, raw, 0);
}

static bool read_kernel(const struct ktime_sec_kernel *r, struct ktime_kernel *k)
{
	for (int t = 0; t < KTIME_TRIES; t++) {
		uint64_t s1 = __atomic_load_n(&r->seq, __ATOMIC_ACQUIRE);

		if (s1 & 1)
			continue;
		k->count = ld64(&r->count);
		k->total_ns = ld64(&r->total_ns);
		k->min_ns = ld64(&r->min_ns);
		k->max_ns = ld64(&r->max_ns);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (ld64(&r->seq) == s1)
			return true;
	}
	return false;
}

static bool read_copy(const struct ktime_sec_copy *c, struct ktime_copy *k)
{
	for (int t = 0; t < KTIME_TRIES; t++) {
		uint64_t s1 = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);

		if (s1 & 1)
			continue;
		k->count = ld64(&c->count);
		k->bytes = ld64(&c->bytes);
		k->total_ns = ld64(&c->total_ns);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (ld64(&c->seq) == s1)
			return true;
	}
	return false;
}

static void read_slot(const struct ktime_sec_proc *p, uint32_t pid, uint32_t nkernels,
		      const struct ktime_visit *v, void *ctx)
{
	struct ktime_proc kp = {.pid = pid};
	uint32_t n = __atomic_load_n(&p->nrows, __ATOMIC_ACQUIRE);

	kp.state = ld32(&p->state);
	if (kp.state > KTIME_FAILED)
		kp.state = KTIME_FAILED;
	kp.records = ld64(&p->records);
	kp.dropped = ld64(&p->dropped);
	kp.buffers = ld64(&p->buffers);
	copy_name(kp.status, sizeof(kp.status), p->status, KTIME_STATUS_MAX);
	if (v->proc)
		v->proc(ctx, &kp);
	for (uint32_t d = 0; v->copy && d < KTIME_COPY_NDIR; d++) {
		struct ktime_copy c = {.pid = pid, .dir = d};

		if (read_copy(&p->copy[d], &c) && c.count)
			v->copy(ctx, &c);
	}
	if (!v->kernel)
		return;
	/* the rows in use, and the overflow row (the last) once used */
	if (n > nkernels - 1)
		n = nkernels - 1;
	for (uint32_t i = 0; i < nkernels; i++) {
		const struct ktime_sec_kernel *r = &p->rows[i];
		struct ktime_kernel k = {.pid = pid};

		if (i >= n && i != nkernels - 1)
			continue;
		k.overflow = i == nkernels - 1;
		if (k.overflow && !ld32(&r->overflow))
			continue;
		if (!read_kernel(r, &k) || !k.count)
			continue;
		k.device = k.overflow ? UINT32_MAX : ld32(&r->device);
		copy_name(k.name, sizeof(k.name), r->name, KTIME_SEC_NAME_MAX);
		v->kernel(ctx, &k);
	}
}

int ktime_read(const void *sec, size_t len, const struct ktime_visit *v, void *ctx)
{
	uint32_t np, nk;
	int seen = 0;

	if ((uintptr_t)sec % 8 || ktime_section_geometry(sec, len, &np, &nk))
		return -EINVAL;
	for (uint32_t i = 0; i < np; i++) {
		const struct ktime_sec_proc *p = ktime_sec_proc_at((void *)(uintptr_t)sec, i, nk);
		uint32_t pid = __atomic_load_n(&p->pid, __ATOMIC_ACQUIRE);

		/* a pid beyond the kernel's largest is no process: garbage */
		if (!pid || pid > (1u << 22))
			continue;
		read_slot(p, pid, nk, v, ctx);
		seen++;
	}
	return seen;
}

const char *ktime_dir_name(uint32_t dir)
{
	static const char *const names[KTIME_COPY_NDIR] = {
	    [KTIME_COPY_HTOD] = "HtoD", [KTIME_COPY_DTOH] = "DtoH", [KTIME_COPY_DTOD] = "DtoD",
	    [KTIME_COPY_HTOH] = "HtoH", [KTIME_COPY_PTOP] = "PtoP", [KTIME_COPY_OTHER] = "other",
	};

	return dir < KTIME_COPY_NDIR ? names[dir] : "?";
}
