/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hgtx_read.h"
#include "strsafe.h"

#define HGTX_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define HGTX_TRIES 8 /* a row that stays torn this long is read next time */

/* The job writes src while it is read: a copy first, then the core's
 * escaper (controls, C1, bidi and bad UTF-8), cut to n bytes. */
size_t hgtx_clean(char *dst, const char *src, size_t n)
{
	char raw[INJ_HGTX_TEXT + 1];
	size_t i;

	if (n > INJ_HGTX_TEXT)
		n = INJ_HGTX_TEXT;
	for (i = 0; i < n; i++) {
		raw[i] = HGTX_LOAD(&src[i]);
		if (!raw[i])
			break;
	}
	raw[i] = '\0';
	str_escape(dst, n + 1, raw, 0);
	return strlen(dst);
}

/* A copy of a row made while its writer was not in it; false when torn. */
static bool hgtx_row_copy(const struct inj_hgtx_row *r, struct inj_hgtx_row *out)
{
	for (int t = 0; t < HGTX_TRIES; t++) {
		uint32_t s1 = __atomic_load_n(&r->seq, __ATOMIC_ACQUIRE), s2;

		if (s1 & 1)
			continue;
		out->depth = HGTX_LOAD(&r->depth);
		out->count = HGTX_LOAD(&r->count);
		out->total_ns = HGTX_LOAD(&r->total_ns);
		out->self_ns = HGTX_LOAD(&r->self_ns);
		for (int k = 0; k < 2; k++) {
			out->min_ns[k] = HGTX_LOAD(&r->min_ns[k]);
			out->max_ns[k] = HGTX_LOAD(&r->max_ns[k]);
			out->ep[k] = HGTX_LOAD(&r->ep[k]);
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = HGTX_LOAD(&r->seq);
		if (s1 == s2)
			return true;
	}
	return false;
}

static uint64_t hgtx_key(uint32_t pid, const char *label)
{
	uint64_t h = 1469598103934665603ull ^ pid;

	for (const char *p = label; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ull;
	return h >> 1; /* clear of STATUS_STREAM and the other reserved ids */
}

/* The row's label: the domain's name ("" for the default one), \x1f, the name. */
static void hgtx_label(const struct inj_hgtx_proc *p, uint32_t name, char *out)
{
	const struct inj_hgtx_name *n = &p->names[name];
	uint32_t dom = HGTX_LOAD(&n->domain);
	size_t k = 0;

	if (name == 0) {
		strcpy(out, "\x1f(other)");
		return;
	}
	if (dom > 0 && dom < INJ_HGTX_DOMAINS) {
		const struct inj_hgtx_domain *d = &p->dom[dom];

		if (__atomic_load_n(&d->state, __ATOMIC_ACQUIRE) == INJ_HGTX_READY)
			k = hgtx_clean(out, d->name, sizeof(d->name) - 1);
		else
			out[k++] = '?';
	} else if (dom) {
		out[k++] = '?';
	}
	out[k++] = '\x1f';
	hgtx_clean(out + k, n->text, sizeof(n->text) - 1);
}

/* Adds a copied row into the name's sums. */
static void hgtx_add(struct hgtx_row *o, const struct inj_hgtx_row *c, uint32_t closed)
{
	uint32_t k = closed & 1;

	o->count = (isnan(o->count) ? 0 : o->count) + (double)c->count;
	o->total_ns = (isnan(o->total_ns) ? 0 : o->total_ns) + (double)c->total_ns;
	o->self_ns = (isnan(o->self_ns) ? 0 : o->self_ns) + (double)c->self_ns;
	if (isnan(o->depth) || c->depth < o->depth)
		o->depth = c->depth;
	if (c->ep[k] != closed + 1)
		return;
	if (isnan(o->min_ns) || (double)c->min_ns[k] < o->min_ns)
		o->min_ns = (double)c->min_ns[k];
	if (isnan(o->max_ns) || (double)c->max_ns[k] > o->max_ns)
		o->max_ns = (double)c->max_ns[k];
}

static void hgtx_row_init(struct hgtx_row *o, const struct inj_hgtx_proc *p, uint32_t slot,
			  uint32_t pid, uint32_t name)
{
	uint32_t color = name ? HGTX_LOAD(&p->names[name].color) : 0;

	o->slot = slot;
	o->pid = pid;
	hgtx_label(p, name, o->label);
	o->key = hgtx_key(pid, o->label);
	o->depth = o->count = o->total_ns = o->self_ns = o->min_ns = o->max_ns = NAN;
	o->color = color & INJ_HGTX_COLOR_SET ? (double)(color & 0xffffffu) : NAN;
}

/* Folds into rows[i] a later row of the same key (another category). */
static void hgtx_merge(struct hgtx_row *a, const struct hgtx_row *b)
{
	if (!isnan(b->count)) {
		a->count = (isnan(a->count) ? 0 : a->count) + b->count;
		a->total_ns = (isnan(a->total_ns) ? 0 : a->total_ns) + b->total_ns;
		a->self_ns = (isnan(a->self_ns) ? 0 : a->self_ns) + b->self_ns;
	}
	if (isnan(a->depth) || b->depth < a->depth)
		a->depth = b->depth;
	if (isnan(a->min_ns) || b->min_ns < a->min_ns)
		a->min_ns = b->min_ns;
	if (isnan(a->max_ns) || b->max_ns > a->max_ns)
		a->max_ns = b->max_ns;
	if (isnan(a->color))
		a->color = b->color;
}

/* One process's rows: the sums of its shards per name, then names that
 * differ only by category folded together. */
static size_t hgtx_read_proc(const struct inj_hgtx_section *sec, uint32_t slot, uint32_t closed,
			     struct hgtx_row *rows, size_t max)
{
	const struct inj_hgtx_proc *p = &sec->procs[slot];
	uint32_t pid = HGTX_LOAD(&p->pid), mine[INJ_HGTX_SHARDS], nmine = 0;
	size_t n = 0;

	for (uint32_t s = 0; s < INJ_HGTX_SHARDS; s++)
		if (HGTX_LOAD(&sec->shards[s].proc) == slot + 1)
			mine[nmine++] = s;

	for (uint32_t name = 0; name < INJ_HGTX_NAMES && n < max; name++) {
		struct hgtx_row *o = &rows[n];
		struct inj_hgtx_row c;

		if (name &&
		    __atomic_load_n(&p->names[name].state, __ATOMIC_ACQUIRE) != INJ_HGTX_READY)
			continue;
		hgtx_row_init(o, p, slot, pid, name);
		for (uint32_t s = 0; s < nmine; s++)
			if (hgtx_row_copy(&sec->shards[mine[s]].rows[name], &c) && c.count)
				hgtx_add(o, &c, closed);
		if (isnan(o->count))
			continue; /* named, never ended */
		n++;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (rows[j].key == rows[i].key) {
				hgtx_merge(&rows[i], &rows[j]);
				rows[j--] = rows[--n];
			}
	return n;
}

size_t hgtx_read(const struct inj_hgtx_section *sec, size_t len, uint32_t closed,
		 struct hgtx_row *rows, size_t max, struct hgtx_lost *lost)
{
	size_t n = 0;

	if (lost)
		memset(lost, 0, sizeof(*lost));
	if (!sec || len < sizeof(*sec))
		return 0;
	if (lost) {
		lost->procs = HGTX_LOAD(&sec->procs_full);
		lost->shards = HGTX_LOAD(&sec->shards_full);
	}
	for (uint32_t slot = 0; slot < INJ_HGTX_PROCS && n < max; slot++) {
		const struct inj_hgtx_proc *p = &sec->procs[slot];

		if (!HGTX_LOAD(&p->pid))
			continue;
		if (lost) {
			lost->names += HGTX_LOAD(&p->names_full);
			lost->domains += HGTX_LOAD(&p->domains_full);
			lost->open += HGTX_LOAD(&p->open_lost);
			lost->deep += HGTX_LOAD(&p->stack_deep);
		}
		n += hgtx_read_proc(sec, slot, closed, rows + n, max - n);
	}
	return n;
}
