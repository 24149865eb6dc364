/* SPDX-License-Identifier: GPL-2.0-only */
/* The shared region between asys and the tools it injects into a workload
 * (libasys-inject.so: the NVTX/HGTX ranges, the profiling interface's kernel
 * and copy activity). asys creates the region as a memfd before it starts
 * the workload after `--`, and hands its descriptor over in the environment
 * (ASYS_INJECT_FD_ENV); the library maps it MAP_SHARED and writes, asys maps
 * it read-only and reads once per refresh, except for the few control words
 * a section's header names as asys's (the HGTX section's version and epoch),
 * which it writes through a mapping of that section alone. Nothing here
 * takes a lock or makes a system call: writers publish with release stores,
 * the reader copies with acquire loads and checks sequence numbers.
 *
 * The region is a header and a directory of sections, each owned by one
 * part of the library and laid out by that part's own header. A reader
 * trusts nothing it maps: the workload can write anything there, so every
 * offset, size and count is checked against the region's real size (from
 * fstat on asys's own descriptor, never from the header) before use.
 *
 * This header is included by the injection library and by the collectors
 * that read the region; it includes only the C library. */
#ifndef ASYS_INJECT_H
#define ASYS_INJECT_H

#include <stddef.h>
#include <stdint.h>

#define ASYS_INJECT_MAGIC 0x314a4e4953595341ull /* "ASYSINJ1", little-endian */
#define ASYS_INJECT_VERSION 1u
/* The descriptor number of the region, in decimal, in the workload's
 * environment. */
#define ASYS_INJECT_FD_ENV "ASYS_INJECT_FD"
#define ASYS_INJECT_SECTIONS_MAX 8u
#define ASYS_INJECT_SIZE_MAX (256u << 20) /* bytes; a reader refuses more */

enum asys_inject_section_id {
	ASYS_INJECT_SEC_NONE = 0,
	ASYS_INJECT_SEC_HGTX = 1,  /* ranges: inject/inject_hgtx.h */
	ASYS_INJECT_SEC_KTIME = 2, /* kernel and copy activity: inject/inject_ktime.h */
};

struct asys_inject_section {
	uint32_t id;	/* enum asys_inject_section_id, 0 = unused entry */
	uint32_t flags; /* 0 */
	uint64_t off;	/* from the start of the region, 64-byte aligned */
	uint64_t size;	/* bytes */
};

/* Written once by asys before the workload starts; read-only afterwards. */
struct asys_inject_head {
	uint64_t magic;
	uint32_t version;
	uint32_t head_size;  /* sizeof(struct asys_inject_head) */
	uint64_t size;	     /* of the whole region */
	uint64_t created_ns; /* CLOCK_MONOTONIC when asys created it */
	uint32_t asys_pid;
	uint32_t nsec; /* entries used in sec[] */
	struct asys_inject_section sec[ASYS_INJECT_SECTIONS_MAX];
};

/* The section of this id in a region of real_size bytes, with its size in
 * *len, or NULL when the header is not a region of this version or the
 * entry points outside the region. */
static inline void *asys_inject_section(void *base, size_t real_size, uint32_t id, size_t *len)
{
	struct asys_inject_head *h = (struct asys_inject_head *)base;
	uint32_t i, n;

	if (!base || real_size < sizeof(*h) || h->magic != ASYS_INJECT_MAGIC ||
	    h->version != ASYS_INJECT_VERSION || h->head_size != sizeof(*h))
		return NULL;
	n = h->nsec < ASYS_INJECT_SECTIONS_MAX ? h->nsec : ASYS_INJECT_SECTIONS_MAX;
	for (i = 0; i < n; i++) {
		const struct asys_inject_section *s = &h->sec[i];
		if (s->id != id)
			continue;
		if (s->off % 64 || s->off < sizeof(*h) || s->off > real_size ||
		    s->size > real_size - s->off)
			return NULL;
		if (len)
			*len = (size_t)s->size;
		return (char *)base + s->off;
	}
	return NULL;
}

#endif
