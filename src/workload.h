/* SPDX-License-Identifier: GPL-2.0-only */
/* The command after `--`: started stopped, released once the collectors are
 * attached, and watched until it exits. */
#ifndef ASYS_WORKLOAD_H
#define ASYS_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "job_env.h"
#include "options.h"

/* The options of a command that starts one (top, record). */
struct workload_opts {
	const char *log; /* --workload-log FILE; NULL: the command's default */
};

struct workload {
	pid_t pid;
	int go_fd;  /* write end: closing it lets the child exec */
	int err_fd; /* read end: carries errno when exec fails */
	int log_fd; /* the default log, kept to tell whether it stayed empty; else -1 */
	bool exited;
	int status;	/* wait status once exited */
	char name[256]; /* argv[0], escaped for the screen */
	char log[4096]; /* where its stdout/stderr go; "" where they are asys's own */
};

#define WORKLOAD_SHOWN 808 /* an escaped path of at most 200 bytes */

/* Where the command's stdout and stderr go when no --workload-log names a
 * file: asys's own (a recorder without a screen, as perf record does), or a
 * new file $TMPDIR/asys-workload.*.log of mode 0600, so that they do not
 * tear the screen. */
enum workload_output { WORKLOAD_OUT_INHERIT, WORKLOAD_OUT_TEMP_LOG };

/* Before the fork: what the registry's collectors put in the job
 * (job_env_prepare) into env, for the options o; what they could not do
 * said on stderr, each line after who ("asys top"). */
void workload_prepare(struct job_env *env, const struct asys_options *o, const char *who);
/* Each line of text on stderr after who: "asys record: LINE". */
void workload_say(const char *text, const char *who);
/* Forks; the child waits for workload_release, then execs argv with env
 * applied (job_env_apply). stdout and stderr go to log_path, or (NULL) as
 * dflt says. 0 or -errno, with a message on stderr when the command cannot
 * be run. */
int workload_start(struct workload *w, char **argv, const char *log_path, enum workload_output dflt,
		   const struct job_env *env);
void workload_release(struct workload *w);
/* Reaps without blocking; true once exited. */
bool workload_poll(struct workload *w);
/* "workload: make (pid 42) running, output in /tmp/..." / "... exited with 0";
 * no path where the output is asys's own. */
void workload_describe(const struct workload *w, char *buf, size_t n);
/* SIGTERM to its process group if still running; reaps. */
void workload_stop(struct workload *w);
/* Once stopped: removes the default log if the command wrote nothing to it
 * (true then), so that runs leave no empty files in $TMPDIR; a log named by
 * --workload-log stays. */
bool workload_drop_empty_log(struct workload *w);

#endif
