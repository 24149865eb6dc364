/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <pthread.h>
#include <stdio.h>

#include "dl_load.h"
#include "rec_zstd.h"

static struct rec_zstd_api api;
static const char *api_missing; /* the first symbol not found, or the soname */
static char api_why[256];
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

static const char *const zstd_names[] = {REC_ZSTD_SONAME, NULL};
static const struct dl_sym zstd_syms[] = {DL_SYM("ZSTD_createCCtx", &api.create_cctx),
					  DL_SYM("ZSTD_freeCCtx", &api.free_cctx),
					  DL_SYM("ZSTD_compressBound", &api.compress_bound),
					  DL_SYM("ZSTD_compressCCtx", &api.compress_cctx),
					  DL_SYM("ZSTD_createDCtx", &api.create_dctx),
					  DL_SYM("ZSTD_freeDCtx", &api.free_dctx),
					  DL_SYM("ZSTD_decompressDCtx", &api.decompress_dctx),
					  DL_SYM("ZSTD_isError", &api.is_error),
					  DL_SYM_END};

static void rec_zstd_load(void)
{
	struct dl_why w;

	/* kept open for the life of the process: recordings come and go */
	if (dl_load(zstd_names, RTLD_NOW | RTLD_LOCAL, zstd_syms, &w))
		return;
	api_missing = w.missing ? w.missing : REC_ZSTD_SONAME;
	dl_why_text(&w, api_why, sizeof(api_why),
		    "install the zstd library (Debian and Ubuntu: libzstd1; Fedora and RHEL: "
		    "libzstd)",
		    "install zstd 1.3 or later");
}

const struct rec_zstd_api *rec_zstd(const char **why)
{
	pthread_once(&api_once, rec_zstd_load);
	if (!api_missing)
		return &api;
	if (why)
		*why = api_why;
	return NULL;
}
