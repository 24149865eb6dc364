#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "rec_zstd.h"

static struct rec_zstd_api api;
static const char *api_missing; /* the first symbol not found, or the soname */
static char api_why[256];
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

#define REC_ZSTD_SYM(field, name)                                                                  \
	do {                                                                                       \
		if (!(api.field = (__typeof__(api.field))dlsym(h, name)) && !api_missing)          \
			api_missing = name;                                                        \
	} while (0)

static void rec_zstd_load(void)
{
	/* kept open for the life of the process: recordings come and go */
	void *h = dlopen(REC_ZSTD_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		const char *e = dlerror();

		snprintf(api_why, sizeof(api_why),
			 "cannot load %s (%s): install the zstd library (Debian and Ubuntu: "
			 "libzstd1; Fedora and RHEL: libzstd)",
			 REC_ZSTD_SONAME, e ? e : "not found");
		api_missing = REC_ZSTD_SONAME;
		return;
	}
	REC_ZSTD_SYM(create_cctx, "ZSTD_createCCtx");
	REC_ZSTD_SYM(free_cctx, "ZSTD_freeCCtx");
	REC_ZSTD_SYM(compress_bound, "ZSTD_compressBound");
	REC_ZSTD_SYM(compress_cctx, "ZSTD_compressCCtx");
	REC_ZSTD_SYM(create_dctx, "ZSTD_createDCtx");
	REC_ZSTD_SYM(free_dctx, "ZSTD_freeDCtx");
	REC_ZSTD_SYM(decompress_dctx, "ZSTD_decompressDCtx");
	REC_ZSTD_SYM(is_error, "ZSTD_isError");
	if (api_missing)
		snprintf(api_why, sizeof(api_why), "%s lacks %s: install zstd 1.3 or later",
			 REC_ZSTD_SONAME, api_missing);
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
