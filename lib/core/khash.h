/* SPDX-License-Identifier: GPL-2.0-only */
/* The hash functions of the keyed tables, header-only and freestanding (libc
 * headers only): libasys-inject.so, which may include nothing of the core but
 * this, hashes the names of its shared tables with the same functions. */
#ifndef ASYS_KHASH_H
#define ASYS_KHASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A (small key, 64-bit key) pair such as (stream, entity), mixed by one
 * multiply: sequential entities (pids, CPUs) fall on distinct low bits, and
 * the fold brings the high bits down for a table that masks the low ones. */
static inline uint64_t khash_pair(uint32_t k2, uint64_t k)
{
	uint64_t h = k * 0x9e3779b97f4a7c15ull ^ ((uint64_t)k2 << 32 | k2);

	return h ^ (h >> 29);
}

/* A 64-bit key alone (a pid) */
static inline uint64_t khash_u64(uint64_t k)
{
	return (k * 0x9e3779b97f4a7c15ull) >> 20;
}

/* FNV-1a over n bytes, from h (2166136261, or a seed mixed into it) */
static inline uint32_t khash_fnv32(uint32_t h, const void *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 16777619u;
	return h;
}

/* FNV-1a over n bytes, 64-bit, from h (14695981039346656037, or a seed) */
static inline uint64_t khash_fnv64(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ull;
	return h;
}

/* Eight bytes a step, for long texts (a KiB or more) where FNV's byte a
 * step costs more than the lookup it serves. */
static inline uint64_t khash_bytes(const void *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;
	uint64_t h = 1469598103934665603ull ^ n, w;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, s + i, n - i);
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 32);
}

#endif
