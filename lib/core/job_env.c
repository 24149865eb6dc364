/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "job_env.h"
#include "util.h"

void job_env_init(struct job_env *e)
{
	e->nvars = 0;
	e->nfds = 0;
	e->warnings[0] = '\0';
	e->notes[0] = '\0';
}

int job_env_set(struct job_env *e, const char *name, const char *value)
{
	int i = 0;

	while (i < e->nvars && strcmp(e->vars[i].name, name))
		i++;
	if (i >= JOB_ENV_VARS || strlen(name) >= JOB_ENV_NAME_MAX ||
	    strlen(value) >= JOB_ENV_VALUE_MAX)
		return -ENOSPC;
	util_strlcpy(e->vars[i].name, name, JOB_ENV_NAME_MAX);
	util_strlcpy(e->vars[i].value, value, JOB_ENV_VALUE_MAX);
	if (i == e->nvars)
		e->nvars++;
	return 0;
}

int job_env_keep_fd(struct job_env *e, int fd)
{
	for (int i = 0; i < e->nfds; i++)
		if (e->fds[i] == fd)
			return 0;
	if (e->nfds >= JOB_ENV_FDS)
		return -ENOSPC;
	e->fds[e->nfds++] = fd;
	return 0;
}

static void job_env_line(char *buf, const char *fmt, va_list ap)
{
	size_t used = strlen(buf);

	if (used && used + 1 < JOB_ENV_TEXT_MAX)
		buf[used++] = '\n';
	if (used < JOB_ENV_TEXT_MAX)
		vsnprintf(buf + used, JOB_ENV_TEXT_MAX - used, fmt, ap);
}

void job_env_warn(struct job_env *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	job_env_line(e->warnings, fmt, ap);
	va_end(ap);
}

void job_env_note(struct job_env *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	job_env_line(e->notes, fmt, ap);
	va_end(ap);
}

void job_env_prepare(struct job_env *e, const struct collector *const *reg,
		     const struct asys_options *o)
{
	const struct coll_ctx ctx = {.opts = o};

	for (size_t i = 0; reg[i]; i++)
		if (reg[i]->prepare_job)
			reg[i]->prepare_job(&ctx, e);
}

void job_env_apply(const struct job_env *e)
{
	for (int i = 0; i < e->nfds; i++)
		if (fcntl(e->fds[i], F_SETFD, 0) < 0)
			return;
	for (int i = 0; i < e->nvars; i++)
		setenv(e->vars[i].name, e->vars[i].value, 1);
}
