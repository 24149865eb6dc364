/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel and copy activity inside a workload started by asys: the driver
 * loads this library from CUDA_INJECTION64_PATH (or the variable a site
 * names for its runtime) and calls InitializeInjection; that loads the
 * profiling library (CUPTI) with dlopen, enables CONCURRENT_KERNEL and
 * MEMCPY activity and takes the record buffers CUPTI completes, from
 * CUPTI's own thread, into the KTIME section of the region asys handed over
 * (inject_ktime.h). A thread of ours asks for a flush every half second so
 * that asys sees the durations live, and an atexit handler flushes the
 * rest.
 *
 * Nothing here runs on a kernel launch: CUPTI records launches itself and
 * hands whole buffers over; the cost is CUPTI's (see man asys-top). */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "asys_inject.h"
#include "dl_load.h"
#include "khash.h"
#include "inject_ktime.h"

/* From cupti_result.h / cupti_activity.h: only what is used. */
typedef int cupti_result;
#define CUPTI_SUCCESS 0
#define CUPTI_ERROR_MAX_LIMIT_REACHED 12
#define CUPTI_ACTIVITY_KIND_MEMCPY 1
#define CUPTI_ACTIVITY_KIND_KERNEL 3
#define CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL 10
#define CUPTI_ACTIVITY_FLAG_FLUSH_FORCED 1u
#define CUPTI_MEMCPY_HTOD 1
#define CUPTI_MEMCPY_DTOH 2
#define CUPTI_MEMCPY_DTOD 8
#define CUPTI_MEMCPY_HTOH 9
#define CUPTI_MEMCPY_PTOP 10

/* The head every activity record starts with. */
struct cupti_activity {
	uint32_t kind;
};

/* The leading fields of CUpti_ActivityKernel4 .. 10 (the same in each). */
struct cupti_kernel {
	uint32_t kind;
	uint8_t cache_config, shared_memory_config;
	uint16_t registers_per_thread;
	uint32_t pgc_requested, pgc_executed;
	uint64_t start, end, completed;
	uint32_t device_id, context_id, stream_id;
	int32_t grid[3], block[3];
	int32_t static_shared, dynamic_shared;
	uint32_t local_per_thread, local_total;
	uint32_t correlation_id;
	int64_t grid_id;
	const char *name;
} __attribute__((aligned(8)));

/* The leading fields of CUpti_ActivityMemcpy3 .. 6. */
struct cupti_memcpy {
	uint32_t kind;
	uint8_t copy_kind, src_kind, dst_kind, flags;
	uint64_t bytes, start, end;
	uint32_t device_id, context_id, stream_id;
} __attribute__((aligned(8)));

typedef void (*cupti_req_fn)(uint8_t **buffer, size_t *size, size_t *max_records);
typedef void (*cupti_done_fn)(void *ctx, uint32_t stream, uint8_t *buffer, size_t size,
			      size_t valid);

struct cupti_api {
	cupti_result (*enable)(uint32_t kind);
	cupti_result (*register_callbacks)(cupti_req_fn req, cupti_done_fn done);
	cupti_result (*flush_all)(uint32_t flag);
	cupti_result (*next_record)(uint8_t *buf, size_t valid, struct cupti_activity **rec);
	cupti_result (*dropped)(void *ctx, uint32_t stream, size_t *n);
	cupti_result (*result_string)(cupti_result r, const char **s);
};

/* Where CUPTI is looked for when asys names none (ASYS_KACT_LIBS): the
 * loader's path first, then the toolkit's usual places. */
static const char *const ktime_builtin_libs[] = {
    "libcupti.so",
    "libcupti.so.13",
    "libcupti.so.12",
    "/usr/local/cuda/lib64/libcupti.so",
    "/usr/local/cuda/lib/libcupti.so",
    "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
};

#define KTIME_BUF_SIZE (256u << 10)
#define KTIME_FLUSH_MS_DEFAULT 500
#define KTIME_LIBS_MAX 16

static struct {
	pthread_mutex_t lock; /* one writer of the slot: CUPTI's thread or a flush */
	struct cupti_api api;
	void *lib;
	struct ktime_sec_proc *slot;
	uint32_t nkernels;
	uint32_t *index; /* open addressing: row + 1, 0 = empty; 2 * nkernels */
	uint32_t nindex;
	unsigned flush_ms;
	int ready;
} ktime = {.lock = PTHREAD_MUTEX_INITIALIZER};

static pthread_once_t ktime_once = PTHREAD_ONCE_INIT;
static int ktime_init_ok;

static void ktime_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void ktime_debug(const char *fmt, ...)
{
	va_list ap;

	if (!getenv("ASYS_KACT_DEBUG"))
		return;
	va_start(ap, fmt);
	fputs("asys-inject: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* The slot's status for asys to show; also on stderr under ASYS_KACT_DEBUG. */
static void ktime_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void ktime_fail(const char *fmt, ...)
{
	char msg[KTIME_STATUS_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ktime_debug("%s", msg);
	if (!ktime.slot)
		return;
	memcpy(ktime.slot->status, msg, sizeof(msg));
	__atomic_store_n(&ktime.slot->state, KTIME_FAILED, __ATOMIC_RELEASE);
}

/* The region from ASYS_INJECT_FD, mapped shared; NULL when there is none. */
static void *ktime_map_region(size_t *len)
{
	const char *v = getenv(ASYS_INJECT_FD_ENV);
	struct stat st;
	char *end;
	long fd;
	void *p;

	if (!v || !*v)
		return NULL;
	errno = 0;
	fd = strtol(v, &end, 10);
	if (errno || *end || fd < 0 || fd > 1 << 20 || fstat((int)fd, &st) ||
	    !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(struct asys_inject_head) ||
	    (uint64_t)st.st_size > ASYS_INJECT_SIZE_MAX)
		return NULL;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	*len = (size_t)st.st_size;
	return p;
}

/* A free slot of the section, claimed for this process. */
static int ktime_claim(void *sec, size_t len)
{
	uint32_t np, nk, pid = (uint32_t)getpid();

	if (ktime_section_geometry(sec, len, &np, &nk))
		return -EINVAL;
	for (uint32_t i = 0; i < np; i++) {
		struct ktime_sec_proc *p = ktime_sec_proc_at(sec, i, nk);
		uint32_t free_pid = 0;

		if (__atomic_compare_exchange_n(&p->pid, &free_pid, pid, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			ktime.slot = p;
			ktime.nkernels = nk;
			return 0;
		}
	}
	return -ENOSPC;
}

/* The first library of ASYS_KACT_LIBS (':'-separated, from the site's table)
 * or of the built-in list that loads and has the Activity API. */
static int ktime_open_cupti(char *tried, size_t n)
{
	const char *env = getenv("ASYS_KACT_LIBS");
	char list[1024], *save = NULL;
	const char
	    *names[KTIME_LIBS_MAX + sizeof(ktime_builtin_libs) / sizeof(*ktime_builtin_libs) + 1];
	/* the Activity API; the count of what was lost is a nicety */
	const struct dl_sym syms[] = {
	    DL_SYM("cuptiActivityEnable", &ktime.api.enable),
	    DL_SYM("cuptiActivityRegisterCallbacks", &ktime.api.register_callbacks),
	    DL_SYM("cuptiActivityFlushAll", &ktime.api.flush_all),
	    DL_SYM("cuptiActivityGetNextRecord", &ktime.api.next_record),
	    DL_SYM("cuptiGetResultString", &ktime.api.result_string),
	    DL_SYM_OPTIONAL("cuptiActivityGetNumDroppedRecords", &ktime.api.dropped),
	    DL_SYM_END,
	};
	struct dl_why w;
	size_t nn = 0;

	snprintf(list, sizeof(list), "%s", env ? env : "");
	for (char *t = strtok_r(list, ":", &save); t && nn < KTIME_LIBS_MAX;
	     t = strtok_r(NULL, ":", &save))
		names[nn++] = t;
	for (size_t i = 0; i < sizeof(ktime_builtin_libs) / sizeof(*ktime_builtin_libs); i++)
		names[nn++] = ktime_builtin_libs[i];
	names[nn] = NULL;
	ktime.lib = dl_load(names, RTLD_NOW | RTLD_LOCAL, syms, &w);
	if (ktime.lib) {
		ktime_debug("profiling library %s", w.name);
		return 0;
	}
	snprintf(tried, n, "%s", nn ? names[0] : "");
	return -ENOENT;
}

static uint32_t ktime_hash(const char *name, uint32_t device)
{
	return khash_fnv32(2166136261u ^ device, name, strnlen(name, KTIME_SEC_NAME_MAX - 1));
}

static void ktime_set(uint64_t *field, uint64_t v)
{
	__atomic_store_n(field, v, __ATOMIC_RELAXED);
}

/* The row of (name, device), made when new; the overflow row once full. */
static struct ktime_sec_kernel *ktime_row(const char *name, uint32_t device)
{
	struct ktime_sec_proc *p = ktime.slot;
	uint32_t n = p->nrows, mask = ktime.nindex - 1;
	uint32_t i = ktime_hash(name, device) & mask;
	struct ktime_sec_kernel *r;

	for (;; i = (i + 1) & mask) {
		uint32_t at = ktime.index[i];

		if (!at)
			break;
		r = &p->rows[at - 1];
		if (r->device == device && !strncmp(r->name, name, KTIME_SEC_NAME_MAX - 1))
			return r;
	}
	if (n + 1 >= ktime.nkernels) {
		r = &p->rows[ktime.nkernels - 1];
		if (!r->overflow) {
			r->overflow = 1;
			r->device = UINT32_MAX;
			snprintf(r->name, sizeof(r->name), "(other kernels)");
		}
		return r;
	}
	r = &p->rows[n];
	r->device = device;
	/* control characters would reach a terminal: asys escapes them again */
	for (size_t k = 0; k + 1 < KTIME_SEC_NAME_MAX && name[k]; k++)
		r->name[k] = (unsigned char)name[k] < 32 || name[k] == 127 ? '?' : name[k];
	ktime.index[i] = n + 1;
	__atomic_store_n(&p->nrows, n + 1, __ATOMIC_RELEASE);
	return r;
}

static void ktime_add_kernel(const struct cupti_kernel *k)
{
	struct ktime_sec_kernel *r = ktime_row(k->name ? k->name : "?", k->device_id);
	uint64_t d = k->end - k->start;
	uint64_t s = r->seq;

	__atomic_store_n(&r->seq, s + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	ktime_set(&r->count, r->count + 1);
	ktime_set(&r->total_ns, r->total_ns + d);
	if (r->count == 1 || d < r->min_ns)
		ktime_set(&r->min_ns, d);
	if (d > r->max_ns)
		ktime_set(&r->max_ns, d);
	__atomic_store_n(&r->seq, s + 2, __ATOMIC_RELEASE);
}

static int ktime_dir(uint8_t copy_kind)
{
	switch (copy_kind) {
	case CUPTI_MEMCPY_HTOD:
		return KTIME_COPY_HTOD;
	case CUPTI_MEMCPY_DTOH:
		return KTIME_COPY_DTOH;
	case CUPTI_MEMCPY_DTOD:
		return KTIME_COPY_DTOD;
	case CUPTI_MEMCPY_HTOH:
		return KTIME_COPY_HTOH;
	case CUPTI_MEMCPY_PTOP:
		return KTIME_COPY_PTOP;
	default:
		return KTIME_COPY_OTHER;
	}
}

static void ktime_add_copy(const struct cupti_memcpy *m)
{
	struct ktime_sec_copy *c = &ktime.slot->copy[ktime_dir(m->copy_kind)];
	uint64_t s = c->seq;

	__atomic_store_n(&c->seq, s + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	ktime_set(&c->count, c->count + 1);
	ktime_set(&c->bytes, c->bytes + m->bytes);
	ktime_set(&c->total_ns, c->total_ns + (m->end > m->start ? m->end - m->start : 0));
	__atomic_store_n(&c->seq, s + 2, __ATOMIC_RELEASE);
}

static void ktime_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	/* CUPTI wants 8-byte aligned buffers */
	*buffer = aligned_alloc(8, KTIME_BUF_SIZE);
	*size = *buffer ? KTIME_BUF_SIZE : 0;
	*max_records = 0;
}

static void ktime_buffer_completed(void *ctx, uint32_t stream, uint8_t *buffer, size_t size,
				   size_t valid)
{
	struct cupti_activity *rec = NULL;
	uint64_t taken = 0, other = 0;
	size_t lost = 0;

	(void)size;
	if (!__atomic_load_n(&ktime.ready, __ATOMIC_ACQUIRE)) { /* a forked child's copy */
		free(buffer);
		return;
	}
	pthread_mutex_lock(&ktime.lock);
	while (buffer && ktime.api.next_record(buffer, valid, &rec) == CUPTI_SUCCESS) {
		const struct cupti_kernel *k = (const struct cupti_kernel *)rec;
		const struct cupti_memcpy *m = (const struct cupti_memcpy *)rec;

		/* a forced flush hands over records still running: no duration
		 * yet, counted as lost rather than as 0 ns */
		if ((rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
		     rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) &&
		    k->start && k->end >= k->start)
			ktime_add_kernel(k), taken++;
		else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY && m->start && m->end >= m->start)
			ktime_add_copy(m), taken++;
		else
			other++;
	}
	if (ktime.api.dropped && ktime.api.dropped(ctx, stream, &lost) != CUPTI_SUCCESS)
		lost = 0;
	__atomic_fetch_add(&ktime.slot->records, taken, __ATOMIC_RELAXED);
	__atomic_fetch_add(&ktime.slot->dropped, other + lost, __ATOMIC_RELAXED);
	__atomic_fetch_add(&ktime.slot->buffers, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&ktime.lock);
	free(buffer);
}

/* Buffers are completed when full or flushed: flush on a period so that a
 * slow trickle of kernels still shows within a refresh or two. */
static void *ktime_flusher(void *arg)
{
	struct timespec ts = {.tv_sec = ktime.flush_ms / 1000,
			      .tv_nsec = (long)(ktime.flush_ms % 1000) * 1000000};

	(void)arg;
	for (;;) {
		nanosleep(&ts, NULL);
		ktime.api.flush_all(0);
	}
	return NULL;
}

static void ktime_at_exit(void)
{
	if (__atomic_load_n(&ktime.ready, __ATOMIC_ACQUIRE))
		ktime.api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

/* A child forked after the start (a data loader's workers) shares the
 * parent's slot and holds a copy of CUPTI's unflushed buffers, records the
 * parent hands over itself: the child writes nothing. Should it use the
 * runtime after all, the driver injects it anew only after an exec. */
static void ktime_at_fork_child(void)
{
	__atomic_store_n(&ktime.ready, 0, __ATOMIC_RELEASE);
}

static const char *ktime_strerror(cupti_result r)
{
	const char *s = NULL;

	if (ktime.api.result_string(r, &s) != CUPTI_SUCCESS || !s)
		return "unknown error";
	return s;
}

/* Activity on, callbacks in, the flusher started. */
static int ktime_start(void)
{
	static const uint32_t kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
					 CUPTI_ACTIVITY_KIND_MEMCPY};
	const char *ms = getenv("ASYS_KACT_FLUSH_MS");
	pthread_attr_t attr;
	pthread_t th;
	cupti_result r;

	/* buffers may complete as soon as activity is on */
	__atomic_store_n(&ktime.ready, 1, __ATOMIC_RELEASE);
	r = ktime.api.register_callbacks(ktime_buffer_requested, ktime_buffer_completed);
	if (r != CUPTI_SUCCESS) {
		__atomic_store_n(&ktime.ready, 0, __ATOMIC_RELEASE);
		ktime_fail("cuptiActivityRegisterCallbacks: %s", ktime_strerror(r));
		return -EIO;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++) {
		r = ktime.api.enable(kinds[i]);
		if (r != CUPTI_SUCCESS) {
			__atomic_store_n(&ktime.ready, 0, __ATOMIC_RELEASE);
			ktime_fail("cuptiActivityEnable(%u): %s", kinds[i], ktime_strerror(r));
			return -EIO;
		}
	}
	ktime.flush_ms =
	    ms && atoi(ms) >= 10 && atoi(ms) <= 60000 ? (unsigned)atoi(ms) : KTIME_FLUSH_MS_DEFAULT;
	atexit(ktime_at_exit);
	pthread_atfork(NULL, NULL, ktime_at_fork_child);
	if (pthread_attr_init(&attr))
		return 0;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &attr, ktime_flusher, NULL))
		ktime_debug("no flush thread: durations arrive as buffers fill");
	pthread_attr_destroy(&attr);
	return 0;
}

static void ktime_init(void)
{
	char tried[256];
	size_t len = 0, slen = 0;
	void *base = ktime_map_region(&len), *sec;

	if (!base) {
		ktime_debug("no region from asys (%s): nothing to do", ASYS_INJECT_FD_ENV);
		return;
	}
	sec = asys_inject_section(base, len, ASYS_INJECT_SEC_KTIME, &slen);
	if (!sec || ktime_claim(sec, slen)) {
		ktime_debug("no kernel activity section, or no free slot in it");
		munmap(base, len);
		return;
	}
	ktime.nindex = 1;
	while (ktime.nindex < 2 * ktime.nkernels)
		ktime.nindex <<= 1;
	ktime.index = calloc(ktime.nindex, sizeof(*ktime.index));
	if (!ktime.index) {
		ktime_fail("out of memory");
		return;
	}
	if (ktime_open_cupti(tried, sizeof(tried))) {
		ktime_fail("no profiling library (CUPTI) loads: tried %.60s and the toolkit's",
			   tried);
		return;
	}
	if (ktime_start())
		return;
	__atomic_store_n(&ktime.slot->state, KTIME_RUNNING, __ATOMIC_RELEASE);
	ktime_init_ok = 1;
}

/* Called by the driver once it has loaded this library from the injection
 * variable. 1 = the tool is running. */
__attribute__((visibility("default"))) int InitializeInjection(void);
int InitializeInjection(void)
{
	pthread_once(&ktime_once, ktime_init);
	return ktime_init_ok;
}
