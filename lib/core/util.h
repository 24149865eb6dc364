/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ASYS_UTIL_H
#define ASYS_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* splitmix64's finaliser: a 64-bit key spread over every bit, the same in
 * every run (entity ids built from it stay the same across recordings). */
static inline uint64_t util_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Strict number parsing: whole string, no overflow. 0 or -EINVAL/-ERANGE. */
int util_parse_double(const char *s, double *out);
int util_parse_u64(const char *s, uint64_t *out);
/* "10s", "5m", "1h", "250ms", plain seconds. */
int util_parse_duration(const char *s, double *seconds);
/* "512", "64K", "10M", "2G" (powers of 1024). */
int util_parse_size(const char *s, uint64_t *bytes);
/* "1.2K", "34M": bytes in powers of 1024; buf gets at most n bytes. */
void util_fmt_bytes(char *buf, size_t n, double bytes);
uint64_t util_now_ns(int clock);
/* ns as a struct timespec (for timers, ppoll) */
struct timespec util_timespec(uint64_t ns);
char *util_strdup(const char *s); /* NULL-safe */
/* Blocks the terminating and resize signals in the calling thread, so that
 * they reach the main thread and end its wait at once. */
void util_block_signals(void);
size_t util_strlcpy(char *dst, const char *src, size_t n);
/* Read-only bytes of the binary that are not needed again (an embedded BPF
 * object after its load): the whole pages among them leave the resident
 * set. They stay correct: read again, they come back from the file. Done
 * only where they lie in a read-only mapping of a file. */
void util_rodata_done(const void *p, size_t len);

#endif
