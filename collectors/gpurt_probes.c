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
    [GPURT_DEV_ALLOC] = "dev-alloc",	     [GPURT_PIN_ALLOC] = "pin-alloc",
    [GPURT_PIN_REGISTER] = "pin-register",   [GPURT_DEV_FREE] = "dev-free",
    [GPURT_PIN_FREE] = "pin-free",	     [GPURT_LAUNCH_STUB] = "launch-stub",
    [GPURT_LAUNCH_HANDLE] = "launch-handle", [GPURT_NAME_HANDLE] = "name-handle",
    [GPURT_NAME_COPY] = "name-copy",
};

/* The runtime API (libcudart) and the driver API (libcuda); HGGC libraries
 * export the same names. Argument numbers are from the API signatures. */
#define RT "libcudart.so*"
#define DRV "libcuda.so*"
#define HG "libhggc*.so*"
static const struct {
	const char *lib, *sym;
	uint32_t role, a1, a2;
} builtin[] = {
    {RT, "cudaMalloc", GPURT_DEV_ALLOC, 1, 2},	    /* (void **p, size_t n) */
    {RT, "cudaMallocAsync", GPURT_DEV_ALLOC, 1, 2}, /* (void **p, size_t n, stream) */
    {RT, "cudaFree", GPURT_DEV_FREE, 1, 0},
    {RT, "cudaFreeAsync", GPURT_DEV_FREE, 1, 0},
    {RT, "cudaHostAlloc", GPURT_PIN_ALLOC, 1, 2}, /* (void **p, size_t n, flags) */
    {RT, "cudaMallocHost", GPURT_PIN_ALLOC, 1, 2},
    {RT, "cudaFreeHost", GPURT_PIN_FREE, 1, 0},
    {RT, "cudaHostRegister", GPURT_PIN_REGISTER, 1, 2}, /* (void *p, size_t n, flags) */
    {RT, "cudaHostUnregister", GPURT_PIN_FREE, 1, 0},
    {RT, "cudaLaunchKernel", GPURT_LAUNCH_STUB, 1, 0},	  /* (const void *func, ...) */
    {RT, "cudaLaunchKernelExC", GPURT_LAUNCH_STUB, 2, 0}, /* (config, func, args) */
    {DRV, "cuMemAlloc_v2", GPURT_DEV_ALLOC, 1, 2},	  /* (CUdeviceptr *p, size_t n) */
    {DRV, "cuMemFree_v2", GPURT_DEV_FREE, 1, 0},
    {DRV, "cuMemHostAlloc", GPURT_PIN_ALLOC, 1, 2},
    {DRV, "cuMemAllocHost_v2", GPURT_PIN_ALLOC, 1, 2},
    {DRV, "cuMemFreeHost", GPURT_PIN_FREE, 1, 0},
    {DRV, "cuLaunchKernel", GPURT_LAUNCH_HANDLE, 1, 0},	   /* (CUfunction f, ...) */
    {DRV, "cuLaunchKernelEx", GPURT_LAUNCH_HANDLE, 2, 0},  /* (config, f, ...) */
    {DRV, "cuModuleGetFunction", GPURT_NAME_HANDLE, 1, 3}, /* (CUfunction *, mod, name) */
    {DRV, "cuLibraryGetKernel", GPURT_NAME_HANDLE, 1, 3},  /* (CUkernel *, lib, name) */
    {DRV, "cuKernelGetFunction", GPURT_NAME_COPY, 1, 2},   /* (CUfunction *, CUkernel) */
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
	case GPURT_DEV_ALLOC:
	case GPURT_PIN_ALLOC:
	case GPURT_PIN_REGISTER:
	case GPURT_NAME_HANDLE:
	case GPURT_NAME_COPY:
		return 2;
	default:
		return 1;
	}
}

bool gpurt_role_has_return(uint32_t role)
{
	return gpurt_role_nargs(role) == 2;
}

bool gpurt_role_is_mem(uint32_t role)
{
	return role >= GPURT_DEV_ALLOC && role <= GPURT_PIN_FREE;
}

static int probes_add(struct gpurt_probes *p, const char *lib, const char *sym, uint32_t role,
		      uint32_t a1, uint32_t a2)
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
	e->a1 = a1;
	e->a2 = a2;
	return 0;
}

int gpurt_probes_builtin(struct gpurt_probes *p)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++) {
		int r = probes_add(p, builtin[i].lib, builtin[i].sym, builtin[i].role,
				   builtin[i].a1, builtin[i].a2);
		/* the HGGC runtime exports the same names */
		if (!r)
			r = probes_add(p, HG, builtin[i].sym, builtin[i].role, builtin[i].a1,
				       builtin[i].a2);
		if (r)
			return r;
	}
	return 0;
}

/* One line: LIBGLOB SYMBOL ROLE ARG [ARG]; '#' starts a comment. */
static int parse_line(struct gpurt_probes *p, char *line, char *why, size_t n)
{
	char *save = NULL, *tok[6];
	int nt = 0;
	char *hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		if (nt == 5) {
			snprintf(why, n, "too many fields (want LIBRARY SYMBOL ROLE ARG [ARG])");
			return -EINVAL;
		}
		tok[nt++] = t;
	}
	/* the injection table's lines (ktime_inject.c) */
	if (nt == 0 || !strcmp(tok[0], "inject"))
		return 0;
	if (nt < 4) {
		snprintf(why, n, "too few fields (want LIBRARY SYMBOL ROLE ARG [ARG])");
		return -EINVAL;
	}
	int role = gpurt_role_parse(tok[2]);
	if (role < 0) {
		snprintf(why, n,
			 "unknown role '%.40s' (dev-alloc, pin-alloc, pin-register, "
			 "dev-free, pin-free, launch-stub, launch-handle, name-handle, name-copy)",
			 tok[2]);
		return -EINVAL;
	}
	int want = gpurt_role_nargs((uint32_t)role);
	if (nt - 3 != want) {
		snprintf(why, n, "role %s takes %d argument number%s", tok[2], want,
			 want == 1 ? "" : "s");
		return -EINVAL;
	}
	uint32_t a[2] = {0, 0};
	for (int i = 0; i < want; i++) {
		uint64_t v;
		if (util_parse_u64(tok[3 + i], &v) || v < 1 || v > 6) {
			snprintf(why, n, "argument number '%.20s' is not 1..6", tok[3 + i]);
			return -EINVAL;
		}
		a[i] = (uint32_t)v;
	}
	if (strchr(tok[1], '@')) {
		snprintf(why, n, "give the plain symbol name, without @version");
		return -EINVAL;
	}
	int r = probes_add(p, tok[0], tok[1], (uint32_t)role, a[0], a[1]);
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
