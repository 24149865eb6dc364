#include "config.h"

#include <pthread.h>
#include <stdio.h>

#include "dl_load.h"
#include "rec_zstd.h"

static struct rec_zstd_api api;
static const char *api_missing; /* the first symbol not found, or the soname */
static char api_why[256];
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

static void rec_zstd_load(void)
{
	static const char *const names[] = {REC_ZSTD_SONAME, NULL};
	const struct dl_sym syms[] = {
	    DL_SYM("ZSTD_createCCtx", &api.create_cctx),
	    DL_SYM("ZSTD_freeCCtx", &api.free_cctx),
	    DL_SYM("ZSTD_compressBound", &api.compress_bound),
	    DL_SYM("ZSTD_compressCCtx", &api.compress_cctx),
	    DL_SYM("ZSTD_createDCtx", &api.create_dctx),
	    DL_SYM("ZSTD_freeDCtx", &api.free_dctx),
	    DL_SYM("ZSTD_decompressDCtx", &api.decompress_dctx),
	    DL_SYM("ZSTD_isError", &api.is_error),
	    DL_SYM_END,
	};
	struct dl_why w;

	/* kept open for the life of the process: recordings come and go */
	if (dl_load(names, RTLD_NOW | RTLD_LOCAL, syms, &w))
		return;
	api_missing = w.missing ? w.missing : REC_ZSTD_SONAME;
	if (!w.missing)
		snprintf(api_why, sizeof(api_why),
			 "cannot load %s (%s): install the zstd library (Debian and Ubuntu: "
			 "libzstd1; Fedora and RHEL: libzstd)",
			 REC_ZSTD_SONAME, w.err);
	else
		snprintf(api_why, sizeof(api_why), "%s lacks %s: install zstd 1.3 or later",
			 REC_ZSTD_SONAME, w.missing);
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
