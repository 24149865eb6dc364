/* SPDX-License-Identifier: GPL-2.0-only */
/* The injection table: built-in pairs and a site's `inject` lines. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asys_inject.h"
#include "env.h"
#include "hgtx.h"
#include "ktime_inject.h"
#include "options.h"
#include "strsafe.h"
#include "util.h"
#ifdef HAVE_BPF
#include "gpurt_api.h"
#endif

#define KTIME_FILE_MAX (1u << 20)

static const struct ktime_inject builtin[] = {
    {"CUDA_INJECTION64_PATH", "libcupti.so"},
};

static bool var_ok(const char *s)
{
	if (!*s || strlen(s) >= KTIME_VAR_MAX || isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isupper((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static int add(struct ktime_inject *v, size_t *nv, size_t max, const char *var, const char *lib)
{
	for (size_t i = 0; i < *nv; i++)
		if (!strcmp(v[i].var, var) && !strcmp(v[i].lib, lib))
			return 0;
	if (*nv == max)
		return -E2BIG;
	util_strlcpy(v[*nv].var, var, sizeof(v[*nv].var));
	util_strlcpy(v[*nv].lib, lib, sizeof(v[*nv].lib));
	(*nv)++;
	return 0;
}

/* One line; lines of another kind are the probe table's. */
static int parse_line(char *line, struct ktime_inject *v, size_t *nv, size_t max, char *why,
		      size_t n)
{
	char *save = NULL, *tok[4];
	int nt = 0;

	line[strcspn(line, "#")] = '\0';
	for (char *t = strtok_r(line, " \t\r", &save); t && nt < 4;
	     t = strtok_r(NULL, " \t\r", &save))
		tok[nt++] = t;
	if (!nt || strcmp(tok[0], "inject"))
		return 0;
	if (nt != 3) {
		snprintf(why, n, "want: inject VARIABLE LIBRARY");
		return -EINVAL;
	}
	if (!var_ok(tok[1])) {
		snprintf(why, n, "'%.40s' is no variable name (A-Z, 0-9, _)", tok[1]);
		return -EINVAL;
	}
	if (strlen(tok[2]) >= KTIME_LIB_MAX || strchr(tok[2], ':')) {
		snprintf(why, n, "library name too long or with ':'");
		return -EINVAL;
	}
	if (add(v, nv, max, tok[1], tok[2])) {
		snprintf(why, n, "more than %zu inject lines", max);
		return -EINVAL;
	}
	return 0;
}

int ktime_inject_table(const char *text, struct ktime_inject *v, size_t max, char *err, size_t n)
{
	size_t nv = 0;
	char *copy = NULL, *s, *next;
	int lineno = 0, r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++)
		if (add(v, &nv, max, builtin[i].var, builtin[i].lib))
			return -EINVAL;
	if (!text)
		return (int)nv;
	copy = util_strdup(text);
	if (!copy)
		return -ENOMEM;
	for (s = copy; s && !r; s = next) {
		char why[160] = "";
		char *nl = strchr(s, '\n');

		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		r = parse_line(s, v, &nv, max, why, sizeof(why));
		if (r)
			snprintf(err, n, "line %d: %s", lineno, why);
	}
	free(copy);
	return r ? r : (int)nv;
}

/* The libraries, in table order, ':'-joined; the first of a name kept. */
static void join_libs(const struct ktime_inject *v, int nv, char *buf, size_t n)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < nv; i++) {
		bool dup = false;

		for (int j = 0; j < i; j++)
			dup = dup || !strcmp(v[i].lib, v[j].lib);
		if (dup || at + strlen(v[i].lib) + 2 > n)
			continue;
		at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? ":" : "", v[i].lib);
	}
}

int ktime_inject_env(struct job_env *env, const char *probe_file, const char *inject_so, char *err,
		     size_t n)
{
	struct ktime_inject v[KTIME_INJECT_MAX];
	char why[256] = "", shown[200] = "", libs[KTIME_INJECT_MAX * KTIME_LIB_MAX], *text = NULL;
	size_t len;
	int nv, r;

	if (probe_file) {
		str_escape(shown, sizeof(shown), probe_file, 120);
		r = env_read_file(probe_file, KTIME_FILE_MAX, &text, &len, why, sizeof(why));
		if (r) {
			snprintf(err, n, "probe file %s: %s", shown, why);
			return r;
		}
	}
	nv = ktime_inject_table(text, v, KTIME_INJECT_MAX, why, sizeof(why));
	free(text);
	if (nv < 0) {
		snprintf(err, n, "probe file %s: %s", shown, why);
		return nv;
	}
	for (int i = 0; i < nv; i++) {
		bool seen = false;

		for (int j = 0; j < i; j++)
			seen = seen || !strcmp(v[i].var, v[j].var);
		r = seen ? 0 : inject_host_env(env, ASYS_INJECT_SEC_KTIME, v[i].var, inject_so);
		if (r < 0) {
			snprintf(err, n, "cannot set %s for the workload: %s", v[i].var,
				 strerror(-r));
			return r;
		}
	}
	join_libs(v, nv, libs, sizeof(libs));
	r = inject_host_env(env, ASYS_INJECT_SEC_KTIME, KTIME_LIBS_ENV, libs);
	if (r < 0)
		snprintf(err, n, "cannot set %s for the workload: %s", KTIME_LIBS_ENV,
			 strerror(-r));
	return r < 0 ? r : 0;
}

int ktime_inject_setup(const struct asys_options *o, struct job_env *env, char *err, size_t n)
{
	const char *probe_file = NULL, *lib = inject_host_lib(ASYS_INJECT_SEC_KTIME);

#ifdef HAVE_BPF
	const struct gpurt_opts *go = options_get(o, &gpurt_options);

	probe_file = go ? go->probe_file : NULL;
#else
	(void)o;
#endif
	if (!lib) {
		snprintf(err, n, "%s", inject_host_note(ASYS_INJECT_SEC_KTIME));
		return -ENOENT;
	}
	return ktime_inject_env(env, probe_file, lib, err, n);
}
