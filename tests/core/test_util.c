/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* The small helpers of lib/core/util.c: the parsers of numbers, durations
 * and sizes, and the release of read-only bytes of the binary. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util.h"
#include "../check_run.h"

START_TEST(util_parsers)
{
	double d;
	uint64_t u;

	ck_assert_int_eq(util_parse_duration("5m", &d), 0);
	ck_assert_double_eq(d, 300);
	ck_assert_int_eq(util_parse_duration("250ms", &d), 0);
	ck_assert_double_eq_tol(d, 0.25, 1e-12);
	ck_assert_int_ne(util_parse_duration("5x", &d), 0);
	ck_assert_int_ne(util_parse_duration("-5", &d), 0);
	ck_assert_int_eq(util_parse_size("64M", &u), 0);
	ck_assert_uint_eq(u, 64ull << 20);
	ck_assert_int_eq(util_parse_size("2GiB", &u), 0);
	ck_assert_uint_eq(u, 2ull << 30);
	ck_assert_int_ne(util_parse_size("2Q", &u), 0);
	ck_assert_int_eq(util_parse_u64("18446744073709551616", &u), -ERANGE);
	ck_assert_int_eq(util_parse_double("1e999", &d), -ERANGE);
	/* only plain decimals: strtod alone takes all of these */
	ck_assert_int_eq(util_parse_double("nan", &d), -EINVAL);
	ck_assert_int_eq(util_parse_double("inf", &d), -EINVAL);
	ck_assert_int_eq(util_parse_double(" 1", &d), -EINVAL);
	ck_assert_int_eq(util_parse_double("1 ", &d), -EINVAL);
	ck_assert_int_eq(util_parse_double("0x1p-3", &d), -EINVAL);
	ck_assert_int_eq(util_parse_double("1e", &d), -EINVAL);
	ck_assert_int_eq(util_parse_double(".", &d), -EINVAL);
	ck_assert_int_eq(util_parse_double("-.5e-1", &d), 0);
	ck_assert_double_eq_tol(d, -0.05, 1e-12);
	ck_assert_int_eq(util_parse_u64(" 1", &u), -EINVAL);
	ck_assert_int_eq(util_parse_u64("0x10", &u), -EINVAL);
	ck_assert_int_ne(util_parse_duration(" 5s", &d), 0);
	ck_assert_int_ne(util_parse_duration("0x5s", &d), 0);
	ck_assert_int_ne(util_parse_size(" 64M", &u), 0);
}
END_TEST

/* 64 KiB of the test binary's read-only data, made of a pattern the
 * compiler cannot fold away, as an embedded BPF object is. */
#define BLOB_LEN (64 * 1024)
#define B8(i)                                                                                      \
	(uint8_t)((i)*7), (uint8_t)((i)*7 + 1), (uint8_t)((i)*7 + 2), (uint8_t)((i)*7 + 3),        \
	    (uint8_t)((i)*7 + 4), (uint8_t)((i)*7 + 5), (uint8_t)((i)*7 + 6), (uint8_t)((i)*7 + 7)
#define B64(i) B8(i), B8(i + 1), B8(i + 2), B8(i + 3), B8(i + 4), B8(i + 5), B8(i + 6), B8(i + 7)
#define B512(i)                                                                                    \
	B64(i), B64(i + 8), B64(i + 16), B64(i + 24), B64(i + 32), B64(i + 40), B64(i + 48),       \
	    B64(i + 56)
#define B4K(i)                                                                                     \
	B512(i), B512(i + 64), B512(i + 128), B512(i + 192), B512(i + 256), B512(i + 320),         \
	    B512(i + 384), B512(i + 448)
static const uint8_t blob[BLOB_LEN] = {
    B4K(0),    B4K(512),  B4K(1024), B4K(1536), B4K(2048), B4K(2560), B4K(3072), B4K(3584),
    B4K(4096), B4K(4608), B4K(5120), B4K(5632), B4K(6144), B4K(6656), B4K(7168), B4K(7680)};

/* Pages of [p, p + len) whose page-table entry is present, from
 * /proc/self/pagemap (bit 63; readable without privileges). */
static int present_pages(const void *p, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)p / (uintptr_t)pg, b = ((uintptr_t)p + len - 1) / (uintptr_t)pg;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC), n = 0;

	ck_assert_int_ge(fd, 0);
	for (uintptr_t i = a; i <= b; i++) {
		uint64_t e = 0;

		ck_assert_int_eq(pread(fd, &e, sizeof(e), (off_t)(i * sizeof(e))), sizeof(e));
		n += (int)(e >> 63);
	}
	close(fd);
	return n;
}

static uint64_t blob_sum(void)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < BLOB_LEN; i++)
		sum = sum * 31 + ((volatile const uint8_t *)blob)[i];
	return sum;
}

START_TEST(rodata_done_leaves_the_resident_set)
{
	long pg = sysconf(_SC_PAGESIZE);
	int pages = (int)(BLOB_LEN / pg);
	uint64_t sum = blob_sum();

	/* read once: every page of it is mapped */
	ck_assert_int_ge(present_pages(blob, BLOB_LEN), pages);
	util_rodata_done(blob, BLOB_LEN);
	/* the whole pages inside it are gone; at most the two it shares with
	 * the data around it stay */
	ck_assert_int_le(present_pages(blob, BLOB_LEN), 2);
	/* and read again, the same bytes come back from the file */
	ck_assert_uint_eq(blob_sum(), sum);
	ck_assert_int_ge(present_pages(blob, BLOB_LEN), pages);
	/* nothing at all, or less than a page: no call, no harm */
	util_rodata_done(NULL, 100);
	util_rodata_done(blob + 1, 10);
	ck_assert_uint_eq(blob_sum(), sum);
}
END_TEST

START_TEST(rodata_done_leaves_other_memory_alone)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)pg * 8;
	uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	/* in anonymous memory MADV_DONTNEED would zero the bytes */
	ck_assert_ptr_ne(m, MAP_FAILED);
	memset(m, 0xa5, len);
	mprotect(m, len, PROT_READ);
	util_rodata_done(m, len);
	for (size_t i = 0; i < len; i += (size_t)pg / 2)
		ck_assert_uint_eq(m[i], 0xa5);
	munmap(m, len);
}
END_TEST

static Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("util");

	tcase_add_test(tc, util_parsers);
	tcase_add_test(tc, rodata_done_leaves_the_resident_set);
	tcase_add_test(tc, rodata_done_leaves_other_memory_alone);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(util_suite(), NULL);
}
