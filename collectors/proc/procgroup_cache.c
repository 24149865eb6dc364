/* SPDX-License-Identifier: GPL-2.0-only */
/* A bounded map from the text of /proc/PID/cgroup to its procgroup: a
 * node's thousands of processes live in a few hundred cgroups, and a name
 * look-up reads a file of tens of KiB. The whole text is the key and is
 * compared byte for byte, so two texts whose hashes collide (a user can
 * choose the names of cgroups delegated to it) never share an entry.
 * Eviction is the clock: an entry used since the hand last passed stays. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "khash.h"
#include "procgroup.h"

struct pg_entry {
	char *key;
	size_t klen;
	uint64_t hash;
	uint64_t tried_ns; /* the last name look-up */
	int32_t next;	   /* in the bucket's chain, -1 ends it */
	uint8_t ref;
	struct procgroup g;
};

struct procgroup_cache {
	size_t cap, nbuckets, count, hand;
	unsigned flags;
	int32_t *bucket;
	struct pg_entry *e;
	struct procgroup scratch; /* a text too long to keep */
	struct procgroup_cache_stats st;
};

struct procgroup_cache *procgroup_cache_new(size_t cap, unsigned flags)
{
	struct procgroup_cache *c;

	if (cap < 1 || cap > 65536)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cap = cap;
	c->flags = flags;
	c->nbuckets = 1;
	while (c->nbuckets < cap * 2)
		c->nbuckets <<= 1;
	c->bucket = malloc(c->nbuckets * sizeof(*c->bucket));
	c->e = calloc(cap, sizeof(*c->e));
	if (!c->bucket || !c->e) {
		procgroup_cache_free(c);
		return NULL;
	}
	for (size_t i = 0; i < c->nbuckets; i++)
		c->bucket[i] = -1;
	return c;
}

void procgroup_cache_free(struct procgroup_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; c->e && i < c->count; i++)
		free(c->e[i].key);
	free(c->e);
	free(c->bucket);
	free(c);
}

static int wants_name(const struct procgroup *g)
{
	return !g->name[0] && (g->kind == PROCGROUP_POD || g->kind == PROCGROUP_DOCKER ||
			       g->kind == PROCGROUP_CONTAINERD);
}

static void pg_fill(struct procgroup_cache *c, struct procgroup *g, const char *text, size_t len)
{
	procgroup_parse(text, len, g);
	if ((c->flags & PROCGROUP_RESOLVE) && wants_name(g)) {
		c->st.resolves++;
		procgroup_resolve(g);
	}
}

/* Frees the slot the hand stops at and takes it out of its chain. */
static size_t pg_evict(struct procgroup_cache *c)
{
	struct pg_entry *v;
	int32_t *link;
	size_t idx;

	while (c->e[c->hand].ref) {
		c->e[c->hand].ref = 0;
		c->hand = (c->hand + 1) % c->cap;
	}
	idx = c->hand;
	c->hand = (c->hand + 1) % c->cap;
	v = &c->e[idx];
	for (link = &c->bucket[v->hash & (c->nbuckets - 1)]; *link >= 0; link = &c->e[*link].next)
		if ((size_t)*link == idx) {
			*link = v->next;
			break;
		}
	free(v->key);
	v->key = NULL;
	c->st.evictions++;
	return idx;
}

const struct procgroup *procgroup_cache_get(struct procgroup_cache *c, const char *text, size_t len,
					    uint64_t now_ns)
{
	const char *nul;
	struct pg_entry *e;
	uint64_t h;
	size_t b, idx;

	if (!text) {
		text = "";
		len = 0;
	}
	nul = memchr(text, '\0', len);
	if (nul)
		len = (size_t)(nul - text);
	h = khash_bytes(text, len); /* a hit costs a hash and one memcmp */
	b = h & (c->nbuckets - 1);
	for (int32_t i = c->bucket[b]; i >= 0; i = c->e[i].next) {
		e = &c->e[i];
		if (e->hash != h || e->klen != len || memcmp(e->key, text, len))
			continue;
		c->st.hits++;
		e->ref = 1;
		if ((c->flags & PROCGROUP_RESOLVE) && wants_name(&e->g) &&
		    now_ns - e->tried_ns >= PROCGROUP_RETRY_NS) {
			e->tried_ns = now_ns;
			c->st.resolves++;
			procgroup_resolve(&e->g);
		}
		return &e->g;
	}
	c->st.misses++;
	if (len > PROCGROUP_TEXT_MAX)
		goto uncached;
	idx = c->count < c->cap ? c->count++ : pg_evict(c);
	e = &c->e[idx];
	e->key = malloc(len ? len : 1);
	if (!e->key) {
		/* the slot stays in the table, empty: it never matches */
		e->klen = (size_t)-1;
		e->hash = 0;
		e->next = c->bucket[0];
		c->bucket[0] = (int32_t)idx;
		goto uncached;
	}
	memcpy(e->key, text, len);
	e->klen = len;
	e->hash = h;
	e->ref = 0;
	e->tried_ns = now_ns;
	pg_fill(c, &e->g, text, len);
	e->next = c->bucket[b];
	c->bucket[b] = (int32_t)idx;
	return &e->g;
uncached:
	pg_fill(c, &c->scratch, text, len);
	return &c->scratch;
}

size_t procgroup_cache_count(const struct procgroup_cache *c)
{
	return c->count;
}

struct procgroup_cache_stats procgroup_cache_stats(const struct procgroup_cache *c)
{
	return c->st;
}
