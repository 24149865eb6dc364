/* SPDX-License-Identifier: GPL-2.0-only */
/* Which variable makes a runtime load a profiling tool, and which profiling
 * library that tool then loads: (variable, library) pairs. Built in for
 * CUDA (CUDA_INJECTION64_PATH, libcupti.so); a site adds its runtime's
 * (HGGC's) with lines in the probe file (--hggc-probe-file):
 *     inject VARIABLE LIBRARY
 * The gpurt probe parser passes these lines over. */
#ifndef ASYS_KTIME_INJECT_H
#define ASYS_KTIME_INJECT_H

#include <stddef.h>

#include "job_env.h"

#define KTIME_VAR_MAX 64
#define KTIME_LIB_MAX 256
#define KTIME_INJECT_MAX 16
/* The variable asys sets with the libraries, ':'-separated, for
 * inject_ktime.c to try first. */
#define KTIME_LIBS_ENV "ASYS_KACT_LIBS"

struct ktime_inject {
	char var[KTIME_VAR_MAX];
	char lib[KTIME_LIB_MAX];
};

/* The built-in pairs, then those of the text's `inject` lines (text may be
 * NULL), into v (max of them). Their number, or -EINVAL with "line N: why"
 * in err (a bad variable name, a library with ':' or a blank, too many). */
int ktime_inject_table(const char *text, struct ktime_inject *v, size_t max, char *err, size_t n);
/* For the workload: every variable of the table (probe_file's lines added,
 * NULL for none) set to inject_so in env through the injection host (which
 * leaves a variable the user set, and says so in the KTIME section's note),
 * and KTIME_LIBS_ENV to the libraries. 0, or -errno with why in err. */
int ktime_inject_env(struct job_env *env, const char *probe_file, const char *inject_so, char *err,
		     size_t n);
struct asys_options;
/* The same for a command about to start, with the host's libasys-inject.so
 * and the options' probe file (--hggc-probe-file, in a build with the
 * runtime probes). -ENOENT when the library is missing (the note says how
 * to install it). */
int ktime_inject_setup(const struct asys_options *o, struct job_env *env, char *err, size_t n);

#endif
