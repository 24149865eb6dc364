/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "inject_lib.h"

/* libasys-inject.so's NVTX side: InitializeInjectionNvtx2 writes these
 * functions into the program's NVTX tables (core and core2/domain
 * modules). A range costs two clock reads, a hash of its name and a row
 * update in the thread's own shard: no lock, no system call, no allocation.
 *
 * Handles are small numbers, never pointers into memory: a domain is its
 * index (NULL the default domain), a registered string 1 + its name id. A
 * handle the program made up or kept from a fork's parent falls back to
 * the default domain or the "other" name. */

#define INJ_UNNAMED "(unnamed)"
#define INJ_ATTR_MIN 48 /* sizeof(nvtxEventAttributes_v2): up to the message */

static uint32_t inj_dom_of(const void *h)
{
	uintptr_t v = (uintptr_t)h;

	return v < INJ_HGTX_DOMAINS ? (uint32_t)v : 0;
}

static void inj_color(uint32_t name, uint32_t argb)
{
	uint32_t c = INJ_HGTX_COLOR_SET | (argb & 0xffffffu);
	uint32_t *slot = &inj_proc->names[name].color;

	if (INJ_LOAD(slot) != c) /* a write only when it changes: the line stays shared */
		INJ_STORE(slot, c);
}

static uint32_t inj_text_name(uint32_t dom, uint32_t cat, const char *s)
{
	if (!s)
		return inj_name(dom, cat, INJ_UNNAMED, sizeof(INJ_UNNAMED) - 1);
	return inj_name(dom, cat, s, inj_text_len(s));
}

static uint32_t inj_wide_name(uint32_t dom, uint32_t cat, const wchar_t *w)
{
	char buf[INJ_HGTX_TEXT + 1];
	uint32_t n = inj_from_wide(buf, w);

	return inj_name(dom, cat, buf, n);
}

/* The name a registered string stands for in this domain and category. */
static uint32_t inj_registered(uint32_t dom, uint32_t cat, const void *h)
{
	uintptr_t v = (uintptr_t)h;
	struct inj_hgtx_name *n;

	if (v == 0 || v > INJ_HGTX_NAMES - 1)
		return 0;
	n = &inj_proc->names[v - 1];
	if (__atomic_load_n(&n->state, __ATOMIC_ACQUIRE) != INJ_HGTX_READY)
		return 0;
	if (n->domain == dom && n->category == cat)
		return (uint32_t)(v - 1);
	return inj_name(dom, cat, n->text, n->len < INJ_HGTX_TEXT ? n->len : INJ_HGTX_TEXT);
}

static uint32_t inj_attr_name(uint32_t dom, const struct nvtx_abi_attr *a)
{
	uint32_t id;

	if (!a || a->size < INJ_ATTR_MIN)
		return inj_text_name(dom, 0, NULL);
	switch (a->message_type) {
	case NVTX_ABI_MESSAGE_ASCII:
		id = inj_text_name(dom, a->category, a->message.ascii);
		break;
	case NVTX_ABI_MESSAGE_UNICODE:
		id = inj_wide_name(dom, a->category, a->message.unicode);
		break;
	case NVTX_ABI_MESSAGE_REGISTERED:
		id = inj_registered(dom, a->category, a->message.registered);
		break;
	default:
		id = inj_text_name(dom, a->category, NULL);
	}
	if (a->color_type == NVTX_ABI_COLOR_ARGB)
		inj_color(id, a->color);
	return id;
}

/* ---- push / pop: a stack per thread ---- */

static int inj_push(struct inj_hgtx_shard *sh, uint32_t dom, uint32_t name)
{
	uint32_t d = sh->depth;

	if (d < INJ_HGTX_STACK) {
		struct inj_hgtx_frame *f = &sh->stack[d];

		f->name = name;
		f->domain = dom;
		f->child_ns = 0;
		f->start_ns = inj_now_ns();
	} else {
		__atomic_fetch_add(&inj_proc->stack_deep, 1, __ATOMIC_RELAXED);
	}
	INJ_STORE(&sh->depth, d + 1);
	return (int)d;
}

/* Ends the innermost range of this domain (the top one, unless the
 * program mixes domains out of order). */
static int inj_pop(uint32_t dom)
{
	uint64_t now = inj_now_ns(), dur, self;
	struct inj_hgtx_shard *sh = inj_shard();
	struct inj_hgtx_frame f;
	uint32_t d, k;

	if (!sh || sh->depth == 0) {
		if (inj_proc)
			__atomic_fetch_add(&inj_proc->pops_unmatched, 1, __ATOMIC_RELAXED);
		return -1;
	}
	d = sh->depth - 1;
	if (d >= INJ_HGTX_STACK) {
		INJ_STORE(&sh->depth, d);
		return (int)d;
	}
	for (k = d; k > 0 && sh->stack[k].domain != dom; k--)
		;
	if (sh->stack[k].domain != dom)
		k = d;
	f = sh->stack[k];
	if (k != d)
		memmove(&sh->stack[k], &sh->stack[k + 1], (d - k) * sizeof(f));
	INJ_STORE(&sh->depth, d);
	dur = now > f.start_ns ? now - f.start_ns : 0;
	self = dur > f.child_ns ? dur - f.child_ns : 0;
	if (k > 0)
		sh->stack[k - 1].child_ns += dur;
	inj_row_add(sh, f.name, k, dur, self);
	return (int)k;
}

static int inj_push_attr(uint32_t dom, const struct nvtx_abi_attr *a)
{
	struct inj_hgtx_shard *sh = inj_shard();

	return sh ? inj_push(sh, dom, inj_attr_name(dom, a)) : -1;
}

static int inj_RangePushA(const char *s)
{
	struct inj_hgtx_shard *sh = inj_shard();

	return sh ? inj_push(sh, 0, inj_text_name(0, 0, s)) : -1;
}

static int inj_RangePushW(const wchar_t *s)
{
	struct inj_hgtx_shard *sh = inj_shard();

	return sh ? inj_push(sh, 0, inj_wide_name(0, 0, s)) : -1;
}

static int inj_RangePushEx(const struct nvtx_abi_attr *a)
{
	return inj_push_attr(0, a);
}

static int inj_RangePop(void)
{
	return inj_pop(0);
}

static int inj_DomainRangePushEx(const void *dom, const struct nvtx_abi_attr *a)
{
	return inj_push_attr(inj_dom_of(dom), a);
}

static int inj_DomainRangePop(const void *dom)
{
	return inj_pop(inj_dom_of(dom));
}

/* ---- start / end: ids per process, a range may end on another thread ---- */

static uint64_t inj_start(uint32_t name)
{
	struct inj_hgtx_proc *p = inj_proc;
	struct inj_hgtx_open *o;
	uint64_t id;

	id = __atomic_add_fetch(&p->next_id, 1, __ATOMIC_RELAXED);
	o = &p->open[id % INJ_HGTX_OPEN];
	if (INJ_LOAD(&o->id))
		__atomic_fetch_add(&p->open_lost, 1, __ATOMIC_RELAXED);
	INJ_STORE(&o->name, name);
	INJ_STORE(&o->start_ns, inj_now_ns());
	__atomic_store_n(&o->id, id, __ATOMIC_RELEASE);
	return id;
}

static void inj_end(uint64_t id)
{
	uint64_t now = inj_now_ns(), start, want = id;
	struct inj_hgtx_proc *p = inj_proc;
	struct inj_hgtx_shard *sh;
	struct inj_hgtx_open *o;
	uint32_t name;

	if (!p || !id)
		return;
	o = &p->open[id % INJ_HGTX_OPEN];
	if (__atomic_load_n(&o->id, __ATOMIC_ACQUIRE) != id)
		return;
	name = INJ_LOAD(&o->name);
	start = INJ_LOAD(&o->start_ns);
	if (!__atomic_compare_exchange_n(&o->id, &want, 0, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return;
	sh = inj_shard();
	if (sh && name < INJ_HGTX_NAMES && now > start)
		inj_row_add(sh, name, 0, now - start, now - start);
}

static uint64_t inj_RangeStartA(const char *s)
{
	return inj_proc ? inj_start(inj_text_name(0, 0, s)) : 0;
}

static uint64_t inj_RangeStartW(const wchar_t *s)
{
	return inj_proc ? inj_start(inj_wide_name(0, 0, s)) : 0;
}

static uint64_t inj_RangeStartEx(const struct nvtx_abi_attr *a)
{
	return inj_proc ? inj_start(inj_attr_name(0, a)) : 0;
}

static uint64_t inj_DomainRangeStartEx(const void *dom, const struct nvtx_abi_attr *a)
{
	return inj_proc ? inj_start(inj_attr_name(inj_dom_of(dom), a)) : 0;
}

static void inj_RangeEnd(uint64_t id)
{
	inj_end(id);
}

static void inj_DomainRangeEnd(const void *dom, uint64_t id)
{
	(void)dom;
	inj_end(id);
}

/* ---- marks, domains, strings ---- */

static void inj_mark(void)
{
	if (inj_proc)
		__atomic_fetch_add(&inj_proc->marks, 1, __ATOMIC_RELAXED);
}

static void inj_MarkA(const char *s)
{
	(void)s;
	inj_mark();
}

static void inj_MarkW(const wchar_t *s)
{
	(void)s;
	inj_mark();
}

static void inj_MarkEx(const struct nvtx_abi_attr *a)
{
	(void)a;
	inj_mark();
}

static void inj_DomainMarkEx(const void *dom, const struct nvtx_abi_attr *a)
{
	(void)dom;
	(void)a;
	inj_mark();
}

static void *inj_DomainCreateA(const char *name)
{
	if (!inj_proc || !name)
		return NULL;
	return (void *)(uintptr_t)inj_domain(name, inj_text_len(name));
}

static void *inj_DomainCreateW(const wchar_t *name)
{
	char buf[INJ_HGTX_TEXT + 1];
	uint32_t n;

	if (!inj_proc || !name)
		return NULL;
	n = inj_from_wide(buf, name);
	return (void *)(uintptr_t)inj_domain(buf, n);
}

static void inj_DomainDestroy(const void *dom)
{
	(void)dom; /* its rows stay: they are sums of what happened */
}

static const void *inj_RegisterStringA(const void *dom, const char *s)
{
	if (!inj_proc)
		return NULL;
	return (const void *)(uintptr_t)(1 + inj_text_name(inj_dom_of(dom), 0, s));
}

static const void *inj_RegisterStringW(const void *dom, const wchar_t *s)
{
	if (!inj_proc)
		return NULL;
	return (const void *)(uintptr_t)(1 + inj_wide_name(inj_dom_of(dom), 0, s));
}

static void inj_name_noop(uint32_t id, const char *name)
{
	(void)id;
	(void)name;
}

static void inj_name_noop_w(uint32_t id, const wchar_t *name)
{
	(void)id;
	(void)name;
}

static void inj_dom_name_noop(const void *dom, uint32_t id, const char *name)
{
	(void)dom;
	(void)id;
	(void)name;
}

static void inj_dom_name_noop_w(const void *dom, uint32_t id, const wchar_t *name)
{
	(void)dom;
	(void)id;
	(void)name;
}

static void *inj_ResourceCreate(const void *dom, const void *attr)
{
	(void)dom;
	(void)attr;
	return NULL;
}

static void inj_ResourceDestroy(const void *res)
{
	(void)res;
}

/* ---- the tables ---- */

struct inj_cb {
	unsigned id;
	nvtx_abi_fn fn;
};

#define INJ_CB(id, f)                                                                              \
	{                                                                                          \
		id, (nvtx_abi_fn)(void (*)(void))(f)                                               \
	}

static const struct inj_cb inj_core[] = {
    INJ_CB(NVTX_ABI_CORE_MarkEx, inj_MarkEx),
    INJ_CB(NVTX_ABI_CORE_MarkA, inj_MarkA),
    INJ_CB(NVTX_ABI_CORE_MarkW, inj_MarkW),
    INJ_CB(NVTX_ABI_CORE_RangeStartEx, inj_RangeStartEx),
    INJ_CB(NVTX_ABI_CORE_RangeStartA, inj_RangeStartA),
    INJ_CB(NVTX_ABI_CORE_RangeStartW, inj_RangeStartW),
    INJ_CB(NVTX_ABI_CORE_RangeEnd, inj_RangeEnd),
    INJ_CB(NVTX_ABI_CORE_RangePushEx, inj_RangePushEx),
    INJ_CB(NVTX_ABI_CORE_RangePushA, inj_RangePushA),
    INJ_CB(NVTX_ABI_CORE_RangePushW, inj_RangePushW),
    INJ_CB(NVTX_ABI_CORE_RangePop, inj_RangePop),
    INJ_CB(NVTX_ABI_CORE_NameCategoryA, inj_name_noop),
    INJ_CB(NVTX_ABI_CORE_NameCategoryW, inj_name_noop_w),
    INJ_CB(NVTX_ABI_CORE_NameOsThreadA, inj_name_noop),
    INJ_CB(NVTX_ABI_CORE_NameOsThreadW, inj_name_noop_w),
};

static const struct inj_cb inj_core2[] = {
    INJ_CB(NVTX_ABI_CORE2_DomainMarkEx, inj_DomainMarkEx),
    INJ_CB(NVTX_ABI_CORE2_DomainRangeStartEx, inj_DomainRangeStartEx),
    INJ_CB(NVTX_ABI_CORE2_DomainRangeEnd, inj_DomainRangeEnd),
    INJ_CB(NVTX_ABI_CORE2_DomainRangePushEx, inj_DomainRangePushEx),
    INJ_CB(NVTX_ABI_CORE2_DomainRangePop, inj_DomainRangePop),
    INJ_CB(NVTX_ABI_CORE2_DomainResourceCreate, inj_ResourceCreate),
    INJ_CB(NVTX_ABI_CORE2_DomainResourceDestroy, inj_ResourceDestroy),
    INJ_CB(NVTX_ABI_CORE2_DomainNameCategoryA, inj_dom_name_noop),
    INJ_CB(NVTX_ABI_CORE2_DomainNameCategoryW, inj_dom_name_noop_w),
    INJ_CB(NVTX_ABI_CORE2_DomainRegisterStringA, inj_RegisterStringA),
    INJ_CB(NVTX_ABI_CORE2_DomainRegisterStringW, inj_RegisterStringW),
    INJ_CB(NVTX_ABI_CORE2_DomainCreateA, inj_DomainCreateA),
    INJ_CB(NVTX_ABI_CORE2_DomainCreateW, inj_DomainCreateW),
    INJ_CB(NVTX_ABI_CORE2_DomainDestroy, inj_DomainDestroy),
};

/* Writes a module's functions through the program's table; -1 when the
 * program has no such table. */
static int inj_fill(const struct nvtx_abi_callbacks *cb, int module, const struct inj_cb *list,
		    size_t n)
{
	nvtx_abi_table table = NULL;
	unsigned int size = 0;

	if (!cb->get_module_table(module, &table, &size) || !table)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (list[i].id < size && table[list[i].id])
			*table[list[i].id] = list[i].fn;
	return 0;
}

/* The entry point NVTX looks up in the library NVTX_INJECTION64_PATH names.
 * 0 makes NVTX turn every call into a no-op: without asys's region there is
 * nothing to write to. */
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(nvtx_abi_get_export_table get)
{
	const struct nvtx_abi_callbacks *cb;

	if (!get || !inj_region_init())
		return 0;
	cb = get(NVTX_ABI_ETID_CALLBACKS);
	if (!cb || cb->struct_size < sizeof(*cb) || !cb->get_module_table)
		return 0;
	if (inj_fill(cb, NVTX_ABI_MODULE_CORE, inj_core, sizeof(inj_core) / sizeof(*inj_core)) < 0)
		return 0;
	/* a program of an NVTX without domains still gets its core */
	inj_fill(cb, NVTX_ABI_MODULE_CORE2, inj_core2, sizeof(inj_core2) / sizeof(*inj_core2));
	return 1;
}
