/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "asys_inject.h"
#include "khash.h"
#include "inject_lib.h"

/* The region in the workload: mapped once per process from the descriptor
 * asys left open (ASYS_INJECT_FD), a process slot claimed by pid, and a
 * shard per thread. A child of a fork claims a slot of its own (pthread_atfork),
 * since its pid differs and its threads are gone; a program it execs loads
 * the library again and finds the descriptor in the same variable. */

struct inj_hgtx_section *inj_sec;
struct inj_hgtx_proc *inj_proc;

#if defined(__x86_64__) || defined(__i386__)
#define INJ_PAUSE() __builtin_ia32_pause()
#else
#define INJ_PAUSE() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif

static pthread_once_t inj_once = PTHREAD_ONCE_INIT;
static pthread_key_t inj_key;
static bool inj_key_ok;
static __thread struct inj_hgtx_shard *inj_tls_shard;

uint64_t inj_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* the vDSO: no system call */
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The descriptor's number, or -1 when the variable is not a plain number. */
static int inj_env_fd(void)
{
	const char *s = getenv(ASYS_INJECT_FD_ENV);
	long v = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 1000000)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return (int)v;
}

static struct inj_hgtx_section *inj_map(void)
{
	int fd = inj_env_fd();
	struct stat st;
	size_t len = 0;
	void *base;
	struct inj_hgtx_section *sec;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(struct asys_inject_head) ||
	    st.st_size > (off_t)ASYS_INJECT_SIZE_MAX)
		return NULL;
	base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return NULL;
	sec = asys_inject_section(base, (size_t)st.st_size, ASYS_INJECT_SEC_HGTX, &len);
	if (!sec || len < sizeof(*sec) ||
	    __atomic_load_n(&sec->version, __ATOMIC_ACQUIRE) != INJ_HGTX_VERSION) {
		munmap(base, (size_t)st.st_size);
		return NULL;
	}
	return sec;
}

/* A slot for this pid: the one it already holds (an exec keeps the pid), or
 * a free one. */
static struct inj_hgtx_proc *inj_claim_proc(struct inj_hgtx_section *sec)
{
	uint32_t pid = (uint32_t)getpid();

	for (int i = 0; i < INJ_HGTX_PROCS; i++)
		if (INJ_LOAD(&sec->procs[i].pid) == pid)
			return &sec->procs[i];
	for (int i = 0; i < INJ_HGTX_PROCS; i++) {
		struct inj_hgtx_proc *p = &sec->procs[i];
		uint32_t zero = 0;

		if (__atomic_compare_exchange_n(&p->pid, &zero, pid, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			INJ_STORE(&p->start_ns, inj_now_ns());
			__atomic_store_n(&p->state, INJ_HGTX_READY, __ATOMIC_RELEASE);
			return p;
		}
	}
	__atomic_fetch_add(&sec->procs_full, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* A thread's end retires its shard, for the next thread of this process. */
static void inj_thread_end(void *arg)
{
	struct inj_hgtx_shard *sh = arg;

	if (sh)
		__atomic_store_n(&sh->state, INJ_HGTX_RETIRED, __ATOMIC_RELEASE);
}

static void inj_after_fork(void)
{
	inj_tls_shard = NULL;
	inj_proc = inj_sec ? inj_claim_proc(inj_sec) : NULL;
}

static void inj_init_once(void)
{
	struct inj_hgtx_section *sec = inj_map();

	if (!sec)
		return;
	inj_key_ok = pthread_key_create(&inj_key, inj_thread_end) == 0;
	pthread_atfork(NULL, NULL, inj_after_fork);
	inj_proc = inj_claim_proc(sec);
	inj_sec = sec;
}

bool inj_region_init(void)
{
	pthread_once(&inj_once, inj_init_once);
	return inj_sec && inj_proc;
}

static struct inj_hgtx_shard *inj_claim_shard(uint32_t me)
{
	struct inj_hgtx_section *sec = inj_sec;

	/* a retired shard of this process first: its rows stay sums */
	for (int i = 0; i < INJ_HGTX_SHARDS; i++) {
		struct inj_hgtx_shard *sh = &sec->shards[i];
		uint32_t st = INJ_HGTX_RETIRED;

		if (INJ_LOAD(&sh->proc) == me &&
		    __atomic_compare_exchange_n(&sh->state, &st, INJ_HGTX_READY, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			INJ_STORE(&sh->depth, 0);
			return sh;
		}
	}
	for (int i = 0; i < INJ_HGTX_SHARDS; i++) {
		struct inj_hgtx_shard *sh = &sec->shards[i];
		uint32_t zero = 0;

		if (__atomic_compare_exchange_n(&sh->proc, &zero, me, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			__atomic_store_n(&sh->state, INJ_HGTX_READY, __ATOMIC_RELEASE);
			return sh;
		}
	}
	__atomic_fetch_add(&sec->shards_full, 1, __ATOMIC_RELAXED);
	return NULL;
}

struct inj_hgtx_shard *inj_shard(void)
{
	struct inj_hgtx_shard *sh = inj_tls_shard;

	if (__builtin_expect(sh != NULL, 1))
		return sh;
	if (!inj_proc)
		return NULL;
	sh = inj_claim_shard(1 + (uint32_t)(inj_proc - inj_sec->procs));
	if (!sh)
		return NULL;
	INJ_STORE(&sh->tid, (uint32_t)gettid());
	if (inj_key_ok)
		pthread_setspecific(inj_key, sh);
	inj_tls_shard = sh;
	return sh;
}

uint32_t inj_text_len(const char *s)
{
	uint32_t n = 0;

	if (!s)
		return 0;
	while (n < INJ_HGTX_TEXT && s[n])
		n++;
	return n;
}

uint32_t inj_from_wide(char *buf, const wchar_t *w)
{
	uint32_t n = 0;

	for (; w && n < INJ_HGTX_TEXT && w[n]; n++)
		buf[n] = w[n] > 0 && w[n] < 127 ? (char)w[n] : '?';
	buf[n] = '\0';
	return n;
}

static uint32_t inj_hash(uint32_t domain, uint32_t category, const char *s, uint32_t len)
{
	return khash_fnv32(2166136261u ^ (domain * 0x9e3779b1u) ^ (category * 0x85ebca6bu), s, len);
}

uint32_t inj_name(uint32_t domain, uint32_t category, const char *text, uint32_t len)
{
	struct inj_hgtx_proc *p = inj_proc;
	uint32_t h = inj_hash(domain, category, text, len);

	for (uint32_t i = 0; i < INJ_HGTX_PROBES; i++) {
		uint32_t idx = 1 + (h + i) % (INJ_HGTX_NAMES - 1), st;
		struct inj_hgtx_name *n = &p->names[idx];

		st = __atomic_load_n(&n->state, __ATOMIC_ACQUIRE);
		if (st == INJ_HGTX_FREE &&
		    __atomic_compare_exchange_n(&n->state, &st, INJ_HGTX_WRITING, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			n->domain = domain;
			n->category = category;
			n->hash = h;
			n->len = len;
			memcpy(n->text, text, len);
			n->text[len] = '\0';
			__atomic_store_n(&n->state, INJ_HGTX_READY, __ATOMIC_RELEASE);
			return idx;
		}
		/* another thread of this process is writing it: a few stores */
		while (st == INJ_HGTX_WRITING) {
			INJ_PAUSE();
			st = __atomic_load_n(&n->state, __ATOMIC_ACQUIRE);
		}
		if (n->hash == h && n->len == len && n->domain == domain &&
		    n->category == category && !memcmp(n->text, text, len))
			return idx;
	}
	__atomic_fetch_add(&p->names_full, 1, __ATOMIC_RELAXED);
	return 0;
}

uint32_t inj_domain(const char *name, uint32_t len)
{
	struct inj_hgtx_proc *p = inj_proc;

	for (uint32_t i = 1; i < INJ_HGTX_DOMAINS; i++) {
		struct inj_hgtx_domain *d = &p->dom[i];
		uint32_t st = __atomic_load_n(&d->state, __ATOMIC_ACQUIRE);

		if (st == INJ_HGTX_FREE &&
		    __atomic_compare_exchange_n(&d->state, &st, INJ_HGTX_WRITING, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			d->len = len;
			memcpy(d->name, name, len);
			d->name[len] = '\0';
			__atomic_store_n(&d->state, INJ_HGTX_READY, __ATOMIC_RELEASE);
			return i;
		}
		while (st == INJ_HGTX_WRITING) {
			INJ_PAUSE();
			st = __atomic_load_n(&d->state, __ATOMIC_ACQUIRE);
		}
		if (d->len == len && !memcmp(d->name, name, len))
			return i;
	}
	__atomic_fetch_add(&p->domains_full, 1, __ATOMIC_RELAXED);
	return 0;
}

void inj_row_add(struct inj_hgtx_shard *sh, uint32_t name, uint32_t depth, uint64_t dur,
		 uint64_t self)
{
	struct inj_hgtx_row *r = &sh->rows[name];
	uint32_t seq = r->seq, ep = INJ_LOAD(&inj_sec->epoch), k = ep & 1;

	INJ_STORE(&r->seq, seq + 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	INJ_STORE(&r->depth, depth);
	INJ_STORE(&r->count, r->count + 1);
	INJ_STORE(&r->total_ns, r->total_ns + dur);
	INJ_STORE(&r->self_ns, r->self_ns + self);
	if (r->ep[k] != ep + 1) {
		INJ_STORE(&r->min_ns[k], dur);
		INJ_STORE(&r->max_ns[k], dur);
		INJ_STORE(&r->ep[k], ep + 1);
	} else {
		if (dur < r->min_ns[k])
			INJ_STORE(&r->min_ns[k], dur);
		if (dur > r->max_ns[k])
			INJ_STORE(&r->max_ns[k], dur);
	}
	__atomic_store_n(&r->seq, seq + 2, __ATOMIC_RELEASE);
}
