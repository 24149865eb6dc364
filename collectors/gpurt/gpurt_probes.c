/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/types.h>

#include "env.h"
#include "gpurt.h"
#include "gpurt_probes.h"
#include "options.h"
#include "strsafe.h"
#include "util.h"

static const char *const role_names[GPURT_ROLE_MAX] = {
    [GPURT_DEV_ALLOC] = "dev-alloc",
    [GPURT_PIN_ALLOC] = "pin-alloc",
    [GPURT_PIN_REGISTER] = "pin-register",
    [GPURT_DEV_FREE] = "dev-free",
    [GPURT_PIN_FREE] = "pin-free",
    [GPURT_LAUNCH_STUB] = "launch-stub",
    [GPURT_LAUNCH_HANDLE] = "launch-handle",
    [GPURT_NAME_HANDLE] = "name-handle",
    [GPURT_NAME_COPY] = "name-copy",
    [GPURT_COPY] = "copy",
    [GPURT_COPY_2D] = "copy-2d",
    [GPURT_COPY_HTOD] = "copy-htod",
    [GPURT_COPY_DTOH] = "copy-dtoh",
    [GPURT_COPY_DTOD] = "copy-dtod",
    [GPURT_COPY_HTOH] = "copy-htoh",
    [GPURT_COPY_ANY] = "copy-any",
    [GPURT_COPY_DESC] = "copy-desc",
    [GPURT_SET] = "set",
    [GPURT_SET_2D] = "set-2d",
    [GPURT_RANGE_PUSH] = "range-push",
    [GPURT_RANGE_PUSH_EX] = "range-push-ex",
    [GPURT_RANGE_POP] = "range-pop",
    [GPURT_RANGE_START] = "range-start",
    [GPURT_RANGE_START_EX] = "range-start-ex",
    [GPURT_RANGE_END] = "range-end",
};

/* The runtime API (libcudart) and the driver API (libcuda); HGGC libraries
 * export the same names. Argument numbers are from the API signatures; N*E
 * in a comment is an argument counting elements of E bytes. */
#define RT "libcudart.so*"
#define DRV "libcuda.so*"
#define HG "libhggc*.so*"
#define NVTX "libnvToolsExt.so*"
static const struct {
	const char *lib, *sym;
	uint32_t role, a[5], shift;
} builtin[] = {
    {RT, "cudaMalloc", GPURT_DEV_ALLOC, {1, 2}, 0},	 /* (void **p, size_t n) */
    {RT, "cudaMallocAsync", GPURT_DEV_ALLOC, {1, 2}, 0}, /* (void **p, size_t n, stream) */
    {RT, "cudaFree", GPURT_DEV_FREE, {1}, 0},
    {RT, "cudaFreeAsync", GPURT_DEV_FREE, {1}, 0},
    {RT, "cudaHostAlloc", GPURT_PIN_ALLOC, {1, 2}, 0}, /* (void **p, size_t n, flags) */
    {RT, "cudaMallocHost", GPURT_PIN_ALLOC, {1, 2}, 0},
    {RT, "cudaFreeHost", GPURT_PIN_FREE, {1}, 0},
    {RT, "cudaHostRegister", GPURT_PIN_REGISTER, {1, 2}, 0}, /* (void *p, size_t n, flags) */
    {RT, "cudaHostUnregister", GPURT_PIN_FREE, {1}, 0},
    {RT, "cudaLaunchKernel", GPURT_LAUNCH_STUB, {1}, 0},    /* (const void *func, ...) */
    {RT, "cudaLaunchKernelExC", GPURT_LAUNCH_STUB, {2}, 0}, /* (config, func, args) */
    /* (dst, src, count, kind[, stream]) */
    {RT, "cudaMemcpy", GPURT_COPY, {1, 2, 3, 4}, 0},
    {RT, "cudaMemcpyAsync", GPURT_COPY, {1, 2, 3, 4}, 0},
    /* (dst, dpitch, src, spitch, width, height, kind[, stream]) */
    {RT, "cudaMemcpy2D", GPURT_COPY_2D, {1, 3, 5, 6, 7}, 0},
    {RT, "cudaMemcpy2DAsync", GPURT_COPY_2D, {1, 3, 5, 6, 7}, 0},
    /* (symbol, src, count, offset, kind[, stream]) and (dst, symbol, ...) */
    {RT, "cudaMemcpyToSymbol", GPURT_COPY, {1, 2, 3, 5}, 0},
    {RT, "cudaMemcpyToSymbolAsync", GPURT_COPY, {1, 2, 3, 5}, 0},
    {RT, "cudaMemcpyFromSymbol", GPURT_COPY, {1, 2, 3, 5}, 0},
    {RT, "cudaMemcpyFromSymbolAsync", GPURT_COPY, {1, 2, 3, 5}, 0},
    /* (dst, dstDevice, src, srcDevice, count[, stream]) */
    {RT, "cudaMemcpyPeer", GPURT_COPY_DTOD, {1, 3, 5}, 0},
    {RT, "cudaMemcpyPeerAsync", GPURT_COPY_DTOD, {1, 3, 5}, 0},
    {RT, "cudaMemset", GPURT_SET, {1, 3}, 0},	   /* (ptr, value, count) */
    {RT, "cudaMemsetAsync", GPURT_SET, {1, 3}, 0}, /* (ptr, value, count, stream) */
    /* (ptr, pitch, value, width, height[, stream]) */
    {RT, "cudaMemset2D", GPURT_SET_2D, {1, 4, 5}, 0},
    {RT, "cudaMemset2DAsync", GPURT_SET_2D, {1, 4, 5}, 0},
    {DRV, "cuMemAlloc_v2", GPURT_DEV_ALLOC, {1, 2}, 0}, /* (CUdeviceptr *p, size_t n) */
    {DRV, "cuMemFree_v2", GPURT_DEV_FREE, {1}, 0},
    {DRV, "cuMemHostAlloc", GPURT_PIN_ALLOC, {1, 2}, 0},
    {DRV, "cuMemAllocHost_v2", GPURT_PIN_ALLOC, {1, 2}, 0},
    {DRV, "cuMemFreeHost", GPURT_PIN_FREE, {1}, 0},
    {DRV, "cuLaunchKernel", GPURT_LAUNCH_HANDLE, {1}, 0},	/* (CUfunction f, ...) */
    {DRV, "cuLaunchKernelEx", GPURT_LAUNCH_HANDLE, {2}, 0},	/* (config, f, ...) */
    {DRV, "cuModuleGetFunction", GPURT_NAME_HANDLE, {1, 3}, 0}, /* (CUfunction *, mod, name) */
    {DRV, "cuLibraryGetKernel", GPURT_NAME_HANDLE, {1, 3}, 0},	/* (CUkernel *, lib, name) */
    {DRV, "cuKernelGetFunction", GPURT_NAME_COPY, {1, 2}, 0},	/* (CUfunction *, CUkernel) */
    /* (dst, src, bytes[, stream]): unified addresses, as cudaMemcpyDefault */
    {DRV, "cuMemcpy", GPURT_COPY_ANY, {1, 2, 3}, 0},
    {DRV, "cuMemcpyAsync", GPURT_COPY_ANY, {1, 2, 3}, 0},
    {DRV, "cuMemcpyHtoD_v2", GPURT_COPY_HTOD, {1, 2, 3}, 0},
    {DRV, "cuMemcpyHtoDAsync_v2", GPURT_COPY_HTOD, {1, 2, 3}, 0},
    {DRV, "cuMemcpyDtoH_v2", GPURT_COPY_DTOH, {1, 2, 3}, 0},
    {DRV, "cuMemcpyDtoHAsync_v2", GPURT_COPY_DTOH, {1, 2, 3}, 0},
    {DRV, "cuMemcpyDtoD_v2", GPURT_COPY_DTOD, {1, 2, 3}, 0},
    {DRV, "cuMemcpyDtoDAsync_v2", GPURT_COPY_DTOD, {1, 2, 3}, 0},
    /* (dst, dstCtx, src, srcCtx, bytes[, stream]) */
    {DRV, "cuMemcpyPeer", GPURT_COPY_DTOD, {1, 3, 5}, 0},
    {DRV, "cuMemcpyPeerAsync", GPURT_COPY_DTOD, {1, 3, 5}, 0},
    /* (const CUDA_MEMCPY2D *[, stream]) */
    {DRV, "cuMemcpy2D_v2", GPURT_COPY_DESC, {1}, 0},
    {DRV, "cuMemcpy2DAsync_v2", GPURT_COPY_DESC, {1}, 0},
    {DRV, "cuMemcpy2DUnaligned_v2", GPURT_COPY_DESC, {1}, 0},
    /* (dst, value, N elements[, stream]) */
    {DRV, "cuMemsetD8_v2", GPURT_SET, {1, 3}, 0},
    {DRV, "cuMemsetD8Async", GPURT_SET, {1, 3}, 0},
    {DRV, "cuMemsetD16_v2", GPURT_SET, {1, 3}, 1}, /* N*2 */
    {DRV, "cuMemsetD16Async", GPURT_SET, {1, 3}, 1},
    {DRV, "cuMemsetD32_v2", GPURT_SET, {1, 3}, 2}, /* N*4 */
    {DRV, "cuMemsetD32Async", GPURT_SET, {1, 3}, 2},
    /* (dst, pitch, value, width in elements, height[, stream]) */
    {DRV, "cuMemsetD2D8_v2", GPURT_SET_2D, {1, 4, 5}, 0},
    {DRV, "cuMemsetD2D8Async", GPURT_SET_2D, {1, 4, 5}, 0},
    {DRV, "cuMemsetD2D16_v2", GPURT_SET_2D, {1, 4, 5}, 1},
    {DRV, "cuMemsetD2D16Async", GPURT_SET_2D, {1, 4, 5}, 1},
    {DRV, "cuMemsetD2D32_v2", GPURT_SET_2D, {1, 4, 5}, 2},
    {DRV, "cuMemsetD2D32Async", GPURT_SET_2D, {1, 4, 5}, 2},
    /* NVTX v2's library, for processes not started under asys */
    {NVTX, "nvtxRangePushA", GPURT_RANGE_PUSH, {1}, 0},	      /* (const char *) */
    {NVTX, "nvtxRangePushEx", GPURT_RANGE_PUSH_EX, {1}, 0},   /* (const attributes *) */
    {NVTX, "nvtxRangePop", GPURT_RANGE_POP, {0}, 0},	      /* (void) */
    {NVTX, "nvtxRangeStartA", GPURT_RANGE_START, {1}, 0},     /* id (const char *) */
    {NVTX, "nvtxRangeStartEx", GPURT_RANGE_START_EX, {1}, 0}, /* id (const attributes *) */
    {NVTX, "nvtxRangeEnd", GPURT_RANGE_END, {1}, 0},	      /* (id) */
};

int gpurt_role_parse(const char *s)
{
	for (int i = 1; i < GPURT_ROLE_MAX; i++)
		if (!strcmp(s, role_names[i]))
			return i;
	return -EINVAL;
}

int gpurt_role_nargs(uint32_t role)
{
	switch (role) {
	case GPURT_RANGE_POP:
		return 0;
	case GPURT_DEV_ALLOC:
	case GPURT_PIN_ALLOC:
	case GPURT_PIN_REGISTER:
	case GPURT_NAME_HANDLE:
	case GPURT_NAME_COPY:
	case GPURT_SET:
		return 2;
	case GPURT_COPY_HTOD:
	case GPURT_COPY_DTOH:
	case GPURT_COPY_DTOD:
	case GPURT_COPY_HTOH:
	case GPURT_COPY_ANY:
	case GPURT_SET_2D:
		return 3;
	case GPURT_COPY:
		return 4;
	case GPURT_COPY_2D:
		return 5;
	default:
		return 1;
	}
}

/* The argument that counts bytes (or elements, with N*E), or -1. */
static int role_size_arg(uint32_t role)
{
	switch (role) {
	case GPURT_SET:
	case GPURT_SET_2D:
		return 1;
	case GPURT_COPY:
	case GPURT_COPY_2D:
	case GPURT_COPY_HTOD:
	case GPURT_COPY_DTOH:
	case GPURT_COPY_DTOD:
	case GPURT_COPY_HTOH:
	case GPURT_COPY_ANY:
		return 2;
	default:
		return -1;
	}
}

bool gpurt_role_has_return(uint32_t role)
{
	return (role >= GPURT_DEV_ALLOC && role <= GPURT_PIN_REGISTER) ||
	       role == GPURT_NAME_HANDLE || role == GPURT_NAME_COPY || role == GPURT_RANGE_START ||
	       role == GPURT_RANGE_START_EX;
}

bool gpurt_role_is_mem(uint32_t role)
{
	return (role >= GPURT_DEV_ALLOC && role <= GPURT_PIN_FREE) || gpurt_role_is_copy(role);
}

bool gpurt_role_is_copy(uint32_t role)
{
	return role >= GPURT_COPY && role <= GPURT_SET_2D;
}

bool gpurt_role_is_range(uint32_t role)
{
	return role >= GPURT_RANGE_PUSH && role <= GPURT_RANGE_END;
}

uint64_t gpurt_probe_cookie(const struct gpurt_probe *p)
{
	uint64_t c = p->role;

	for (int i = 0; i < GPURT_ARGS_MAX; i++)
		c |= (uint64_t)(p->a[i] & 0xf) << (8 + 4 * i);
	return c | (uint64_t)(p->shift & 3) << 28;
}

static int probes_add(struct gpurt_probes *p, const char *lib, const char *sym, uint32_t role,
		      const uint32_t *a, uint32_t shift)
{
	if (strlen(lib) >= GPURT_LIB_MAX || strlen(sym) >= GPURT_SYM_MAX)
		return -ENAMETOOLONG;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 32;
		struct gpurt_probe *v = realloc(p->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	struct gpurt_probe *e = &p->v[p->n++];
	memset(e, 0, sizeof(*e));
	util_strlcpy(e->lib, lib, sizeof(e->lib));
	util_strlcpy(e->sym, sym, sizeof(e->sym));
	e->role = role;
	memcpy(e->a, a, sizeof(e->a));
	e->shift = shift;
	return 0;
}

int gpurt_probes_builtin(struct gpurt_probes *p)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++) {
		int r = probes_add(p, builtin[i].lib, builtin[i].sym, builtin[i].role, builtin[i].a,
				   builtin[i].shift);
		/* the HGGC runtime exports the runtime's and the driver's names */
		if (!r && strcmp(builtin[i].lib, NVTX))
			r = probes_add(p, HG, builtin[i].sym, builtin[i].role, builtin[i].a,
				       builtin[i].shift);
		if (r)
			return r;
	}
	return 0;
}

#define PROBE_FIELDS "want LIBRARY SYMBOL ROLE [ARG...]"

/* An argument number (1..8), with "*E", an element size, where allowed:
 * "3*2" is argument 3 counting elements of 2 bytes. */
static int parse_arg(const char *t, bool sized, uint32_t *a, uint32_t *shift, char *why, size_t n)
{
	char num[24];
	const char *star = strchr(t, '*');
	uint64_t v, e = 1;
	size_t len = star ? (size_t)(star - t) : strlen(t);

	if (len >= sizeof(num))
		len = sizeof(num) - 1;
	memcpy(num, t, len);
	num[len] = '\0';
	if (util_parse_u64(num, &v) || v < 1 || v > GPURT_ARG_NMAX) {
		snprintf(why, n, "argument number '%.20s' is not 1..8", t);
		return -EINVAL;
	}
	if (star &&
	    (!sized || util_parse_u64(star + 1, &e) || (e != 1 && e != 2 && e != 4 && e != 8))) {
		snprintf(why, n,
			 sized ? "element size in '%.20s' is not 1, 2, 4 or 8"
			       : "'%.20s': only the size argument takes an element size",
			 t);
		return -EINVAL;
	}
	*a = (uint32_t)v;
	*shift = e == 8 ? 3 : e == 4 ? 2 : e == 2 ? 1 : 0;
	return 0;
}

/* One line: LIBGLOB SYMBOL ROLE [ARG...]; '#' starts a comment. */
static int parse_line(struct gpurt_probes *p, char *line, char *why, size_t n)
{
	char *save = NULL, *tok[3 + GPURT_ARGS_MAX];
	int nt = 0;
	char *hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		if (nt == 3 + GPURT_ARGS_MAX) {
			snprintf(why, n, "too many fields (" PROBE_FIELDS ")");
			return -EINVAL;
		}
		tok[nt++] = t;
	}
	/* the injection table's lines (ktime_inject.c) */
	if (nt == 0 || !strcmp(tok[0], "inject"))
		return 0;
	if (nt < 3) {
		snprintf(why, n, "too few fields (" PROBE_FIELDS ")");
		return -EINVAL;
	}
	int role = gpurt_role_parse(tok[2]);
	if (role < 0) {
		snprintf(why, n, "unknown role '%.40s' (see ROLES in man asys-top)", tok[2]);
		return -EINVAL;
	}
	int want = gpurt_role_nargs((uint32_t)role);
	if (nt - 3 != want) {
		snprintf(why, n, "role %s takes %d argument number%s", tok[2], want,
			 want == 1 ? "" : "s");
		return -EINVAL;
	}
	uint32_t a[GPURT_ARGS_MAX] = {0}, shift = 0;
	for (int i = 0; i < want; i++) {
		uint32_t sh = 0;
		bool sized = i == role_size_arg((uint32_t)role);
		if (parse_arg(tok[3 + i], sized, &a[i], &sh, why, n))
			return -EINVAL;
		if (sized)
			shift = sh;
	}
	if (strchr(tok[1], '@')) {
		snprintf(why, n, "give the plain symbol name, without @version");
		return -EINVAL;
	}
	int r = probes_add(p, tok[0], tok[1], (uint32_t)role, a, shift);
	if (r == -ENAMETOOLONG)
		snprintf(why, n, "library glob or symbol too long");
	return r;
}

int gpurt_probes_parse(struct gpurt_probes *p, const char *text, char *err, size_t errlen)
{
	char *copy = util_strdup(text);
	if (!copy)
		return -ENOMEM;
	int r = 0, lineno = 0;
	char *save = NULL;
	/* strtok_r would skip empty lines and so miscount: walk by hand */
	for (char *s = copy; s && !r; s = save) {
		char *nl = strchr(s, '\n');
		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		char why[200] = "";
		r = parse_line(p, s, why, sizeof(why));
		if (r)
			snprintf(err, errlen, "line %d: %s", lineno, why);
	}
	free(copy);
	return r;
}

int gpurt_probes_load_file(struct gpurt_probes *p, const char *path, char *err, size_t errlen)
{
	char why[256] = "", shown[200], *buf = NULL;
	size_t len;
	int r;

	str_escape(shown, sizeof(shown), path, 120);
	r = env_read_file(path, GPURT_PROBE_FILE_MAX, &buf, &len, why, sizeof(why));
	if (r) {
		snprintf(err, errlen, "probe file %s: %s", shown, why);
		return r;
	}
	if (memchr(buf, '\0', len)) {
		r = -EINVAL;
		snprintf(err, errlen, "probe file %s is not text", shown);
		goto cleanup;
	}
	r = gpurt_probes_parse(p, buf, why, sizeof(why));
	if (r)
		snprintf(err, errlen, "probe file %s: %s", shown, why);
cleanup:
	free(buf);
	return r;
}

void gpurt_probes_clear(struct gpurt_probes *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}

/* fnmatch in a UTF-8 locale converts both strings to wide characters at
 * every call; the discovery tries every probe's pattern on every line of
 * every maps file it reads, which made it a third of the 1 Hz thread. A
 * pattern's literal head ("libcuda" of "libcuda.so*") rules out almost every
 * file first. */
bool gpurt_lib_match(const char *pattern, const char *file_name)
{
	size_t head = strcspn(pattern, "*?[\\");

	return !strncmp(pattern, file_name, head) && !fnmatch(pattern, file_name, 0);
}

bool gpurt_probes_lib_wanted(const struct gpurt_probes *p, const char *file_name)
{
	for (size_t i = 0; i < p->n; i++)
		if (gpurt_lib_match(p->v[i].lib, file_name))
			return true;
	return false;
}

/* Adds head (len bytes) unless a kept head starts it; drops the kept heads
 * it starts. false when there is no room. */
static bool head_add(struct gpurt_head *v, size_t *n, size_t max, const char *head, size_t len)
{
	for (size_t i = 0; i < *n; i++)
		if (v[i].len <= len && !memcmp(v[i].s, head, v[i].len))
			return true;
	for (size_t i = 0; i < *n;)
		if (len <= v[i].len && !memcmp(v[i].s, head, len))
			v[i] = v[--*n];
		else
			i++;
	if (*n == max)
		return false;
	memset(&v[*n], 0, sizeof(v[*n]));
	memcpy(v[*n].s, head, len);
	memset(v[*n].mask, 0xff, len);
	v[(*n)++].len = (__u32)len;
	return true;
}

int gpurt_probes_heads(const struct gpurt_probes *p, struct gpurt_head *v, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++) {
		size_t len = strcspn(p->v[i].lib, "*?[\\");

		if (len > GPURT_HEAD_MAX)
			len = GPURT_HEAD_MAX;
		if (!len || !head_add(v, &n, max, p->v[i].lib, len))
			return -1;
	}
	return (int)n;
}
