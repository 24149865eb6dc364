/* SPDX-License-Identifier: GPL-2.0-only */
/* What a job that asys starts (the command after --) is handed besides its
 * argv: variables and descriptors that collectors prepare before its fork
 * (struct collector's prepare_job), applied in the child before exec; and
 * what the preparing has to tell the user. The command that starts the job
 * knows none of the collectors that reach into it. */
#ifndef ASYS_JOB_ENV_H
#define ASYS_JOB_ENV_H

#include <stddef.h>

#define JOB_ENV_VARS 24	       /* NVTX, the kernel-time table with its libraries, the region */
#define JOB_ENV_NAME_MAX 64    /* bytes of a name, NUL included */
#define JOB_ENV_VALUE_MAX 4096 /* bytes of a value, NUL included */
#define JOB_ENV_FDS 4
#define JOB_ENV_TEXT_MAX 4096

struct job_env_var {
	char name[JOB_ENV_NAME_MAX];
	char value[JOB_ENV_VALUE_MAX];
};

struct job_env {
	struct job_env_var vars[JOB_ENV_VARS];
	int nvars;
	int fds[JOB_ENV_FDS]; /* kept open across exec */
	int nfds;
	/* what could not be prepared, to be said at once: one sentence a line */
	char warnings[JOB_ENV_TEXT_MAX];
	/* what a user should know of the tools put in the job (a variable the
	 * user set left alone, a library missing): one a line; a command
	 * without a screen says them, a screen shows them in its panes */
	char notes[JOB_ENV_TEXT_MAX];
};

struct collector;
struct asys_options;

void job_env_init(struct job_env *e);
/* Sets name to value for the job, replacing what an earlier call set.
 * 0, or -ENOSPC when there is no room. */
int job_env_set(struct job_env *e, const char *name, const char *value);
/* Keeps fd open in the job (it is opened close-on-exec). 0 or -ENOSPC. */
int job_env_keep_fd(struct job_env *e, int fd);
/* Adds a line to e->warnings or e->notes; one that does not fit is cut. */
void job_env_warn(struct job_env *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void job_env_note(struct job_env *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Runs the prepare_job hook of each collector of reg (NULL-terminated)
 * that has one, in its order, for the options o. */
void job_env_prepare(struct job_env *e, const struct collector *const *reg,
		     const struct asys_options *o);
/* In the child, after fork and before exec: the descriptors lose their
 * close-on-exec flag and the variables are set. The parent has no thread
 * in the child, so setenv is safe there. */
void job_env_apply(const struct job_env *e);

#endif
