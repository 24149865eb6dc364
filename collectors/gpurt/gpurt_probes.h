/* SPDX-License-Identifier: GPL-2.0-only */
/* The gpurt probe table: which library (a file-name glob), which symbol, what
 * it does (a role) and where its arguments are. Built in for libcudart,
 * libcuda and the HGGC runtime; --hggc-probe-file adds lines without a
 * rebuild (format in man asys-top, "Runtime probes"). */
#ifndef ASYS_GPURT_PROBES_H
#define ASYS_GPURT_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GPURT_LIB_MAX 64
#define GPURT_SYM_MAX 128
#define GPURT_PROBE_FILE_MAX (1u << 20) /* --hggc-probe-file, bytes */

struct gpurt_probe {
	char lib[GPURT_LIB_MAX]; /* fnmatch glob on the library's file name */
	char sym[GPURT_SYM_MAX]; /* plain symbol name, no @version */
	uint32_t role;		 /* enum gpurt_role */
	uint32_t a[5];		 /* 1-based argument numbers, 0 = unused */
	uint32_t shift;		 /* log2 of the element size of the size argument */
};

struct gpurt_probes {
	struct gpurt_probe *v;
	size_t n, cap;
};

/* Appends the built-in table. 0 or -ENOMEM. */
int gpurt_probes_builtin(struct gpurt_probes *p);
/* Appends the lines of text. 0, or -EINVAL with "line N: why" in err. */
int gpurt_probes_parse(struct gpurt_probes *p, const char *text, char *err, size_t errlen);
/* Reads and parses a probe file (at most 1 MiB). 0 or -errno with err set. */
int gpurt_probes_load_file(struct gpurt_probes *p, const char *path, char *err, size_t errlen);
void gpurt_probes_clear(struct gpurt_probes *p);
/* Whether a probe of role class wants the library of this file name. */
bool gpurt_probes_lib_wanted(const struct gpurt_probes *p, const char *file_name);
/* fnmatch(pattern, file_name, 0) == 0, without its cost when the pattern's
 * literal head already differs. */
bool gpurt_lib_match(const char *pattern, const char *file_name);
struct gpurt_head;
/* The literal heads of the library globs (cut to GPURT_HEAD_MAX bytes),
 * none starting another, into v (max of them). Their number, or -1 when a
 * glob starts with a wildcard or they do not fit: then any file name may be
 * a runtime library's. */
int gpurt_probes_heads(const struct gpurt_probes *p, struct gpurt_head *v, size_t max);
/* A role from its name ("dev-alloc", ...), or -EINVAL. */
int gpurt_role_parse(const char *s);
/* Number of arguments a role needs (0 to 5), whether it has a return probe. */
int gpurt_role_nargs(uint32_t role);
bool gpurt_role_has_return(uint32_t role);
/* Which option turns a role on: memory (allocations, copies; memory) or
 * tracing (launches, names, ranges; -t). */
bool gpurt_role_is_mem(uint32_t role);
bool gpurt_role_is_copy(uint32_t role);
bool gpurt_role_is_range(uint32_t role);
/* The attach cookie of a probe (gpurt.h). */
uint64_t gpurt_probe_cookie(const struct gpurt_probe *p);

#endif
