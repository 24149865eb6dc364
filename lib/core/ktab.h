/* SPDX-License-Identifier: GPL-2.0-only */
/* A keyed table: open addressing with linear probing, at most half full,
 * keyed by a 64-bit key or a (32-bit, 64-bit) pair. Every record starts with
 * a struct ktab_key and is esz bytes, the caller's size. The table owns its
 * array (or the caller does: ktab_init_fixed, which never allocates); records
 * own nothing it frees. A bound (max) makes a full table say so (-ENOSPC)
 * rather than grow. Lookups are inline: the hot paths probe without a call. */
#ifndef ASYS_KTAB_H
#define ASYS_KTAB_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "khash.h"

struct ktab_key {
	uint64_t key;
	uint32_t key2;
	uint32_t used;
};

enum ktab_hash {
	KTAB_MIXED, /* the key is already a mixed hash: its low bits place it */
	KTAB_PAIR,  /* khash_pair(key2, key) */
	KTAB_U64,   /* khash_u64(key): key2 is 0 */
};

struct ktab {
	unsigned char *v;
	size_t n, cap;
	size_t esz;	  /* bytes of a record */
	size_t first_cap; /* slots at the first insert (a power of two) */
	size_t max;	  /* records at most (0: no bound) */
	enum ktab_hash hash;
	bool fixed; /* the caller's array: never grows nor frees */
};

/* first_cap 0: 64 slots */
void ktab_init(struct ktab *t, size_t esz, size_t first_cap, enum ktab_hash hash);
/* Over the caller's zeroed array of cap slots (a power of two), at most
 * cap / 2 records: no allocation ever. */
void ktab_init_fixed(struct ktab *t, void *array, size_t cap, size_t esz, enum ktab_hash hash);
void ktab_fini(struct ktab *t);
/* Empties the table, keeping its array. */
void ktab_clear(struct ktab *t);
/* A larger array of cap slots, the records rehashed into it: 0 or -ENOMEM. */
int ktab_grow(struct ktab *t, size_t cap);
/* Every record for which drop(rec, ctx) returns true leaves the table (drop
 * runs once per record, and may emit what the record's end needs). Without
 * memory to rebuild the table nothing is dropped: -ENOMEM, else 0. */
int ktab_sweep(struct ktab *t, bool (*drop)(void *rec, void *ctx), void *ctx);
/* Takes rec out (shifting its probe run back): pointers to other records
 * may then point at another record. */
void ktab_remove(struct ktab *t, void *rec);

static inline struct ktab_key *ktab_at(const struct ktab *t, size_t i)
{
	return (struct ktab_key *)(void *)(t->v + i * t->esz);
}

static inline size_t ktab_home(const struct ktab *t, uint32_t key2, uint64_t key)
{
	uint64_t h = t->hash == KTAB_PAIR  ? khash_pair(key2, key)
		     : t->hash == KTAB_U64 ? khash_u64(key)
					   : key;

	return (size_t)h & (t->cap - 1);
}

/* The slot of (key2, key): its record, or the free slot where it would go. */
static inline struct ktab_key *ktab_slot(const struct ktab *t, uint32_t key2, uint64_t key)
{
	size_t mask = t->cap - 1;

	for (size_t i = ktab_home(t, key2, key);; i = (i + 1) & mask) {
		struct ktab_key *k = ktab_at(t, i);

		if (!k->used || (k->key == key && k->key2 == key2))
			return k;
	}
}

/* The record of (key2, key), or NULL when it is not there. */
static inline void *ktab_find(const struct ktab *t, uint32_t key2, uint64_t key)
{
	struct ktab_key *k;

	if (!t->cap)
		return NULL;
	k = ktab_slot(t, key2, key);
	return k->used ? k : NULL;
}

/* The record of (key2, key) in *rec: 0 when it was there, 1 when it was
 * taken (its key set, the rest zero); -ENOSPC when the table holds max
 * records (or a fixed one is half full), -ENOMEM when it cannot grow. */
static inline int ktab_get(struct ktab *t, uint32_t key2, uint64_t key, void **rec)
{
	struct ktab_key *k;

	*rec = NULL;
	if (t->cap && (k = ktab_slot(t, key2, key))->used) {
		*rec = k;
		return 0;
	}
	if (t->max && t->n >= t->max)
		return -ENOSPC;
	if ((t->n + 1) * 2 > t->cap) {
		int r = t->fixed ? -ENOSPC : ktab_grow(t, t->cap ? t->cap * 2 : t->first_cap);

		if (r)
			return r;
	}
	k = ktab_slot(t, key2, key);
	k->key = key;
	k->key2 = key2;
	k->used = 1;
	t->n++;
	*rec = k;
	return 1;
}

/* The next record from slot *i on (start at 0), or NULL at the end. */
static inline void *ktab_next(const struct ktab *t, size_t *i)
{
	for (; *i < t->cap; (*i)++)
		if (ktab_at(t, *i)->used)
			return ktab_at(t, (*i)++);
	return NULL;
}

#endif
