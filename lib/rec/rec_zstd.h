/* SPDX-License-Identifier: GPL-2.0-only */
/* libzstd, loaded with dlopen when a recording is first written or a
 * compressed frame first read: linked, it is mapped into every asys top
 * (about 90 KiB resident) that never records. The types and prototypes
 * come from its header; the calls go through rec_zstd. */
#ifndef ASYS_REC_ZSTD_H
#define ASYS_REC_ZSTD_H

#include <zstd.h>

#define REC_ZSTD_SONAME "libzstd.so.1"

struct rec_zstd_api {
	__typeof__(ZSTD_createCCtx) *create_cctx;
	__typeof__(ZSTD_freeCCtx) *free_cctx;
	__typeof__(ZSTD_compressBound) *compress_bound;
	__typeof__(ZSTD_compressCCtx) *compress_cctx;
	__typeof__(ZSTD_createDCtx) *create_dctx;
	__typeof__(ZSTD_freeDCtx) *free_dctx;
	__typeof__(ZSTD_decompressDCtx) *decompress_dctx;
	__typeof__(ZSTD_isError) *is_error;
};

/* The library's calls, loaded once for the process; NULL where it cannot
 * be, with *why (when why is not NULL) a sentence that says what to
 * install, kept for the life of the process. Thread-safe. */
const struct rec_zstd_api *rec_zstd(const char **why);

#endif
