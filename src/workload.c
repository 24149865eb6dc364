/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "env.h"
#include "registry.h"
#include "strsafe.h"
#include "util.h"
#include "workload.h"

/* The default log: a new file of our own (O_EXCL, mode 0600) with a name
 * nobody can guess and plant a link at. */
static int workload_open_temp(char *path, size_t n)
{
	const char *tmp = env_path("TMPDIR");
	int fd;

	if (snprintf(path, n, "%s/asys-workload.XXXXXX.log", tmp ? tmp : "/tmp") >= (int)n)
		return -ENAMETOOLONG;
	fd = mkostemps(path, 4, O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* The log the workload's output goes to: its descriptor, or -errno with
 * a message on stderr. */
static int workload_open_log(struct workload *w, const char *log_path)
{
	int logfd;

	if (log_path) {
		util_strlcpy(w->log, log_path, sizeof(w->log));
		logfd = env_open_output(log_path);
	} else {
		logfd = workload_open_temp(w->log, sizeof(w->log));
	}
	if (logfd < 0) {
		char shown[WORKLOAD_SHOWN];

		fprintf(stderr, "asys: cannot create the workload's log %s: %s%s\n",
			str_escape(shown, sizeof(shown), w->log, 200), strerror(-logfd),
			log_path ? "" : " (set TMPDIR or use --workload-log FILE)");
	}
	return logfd;
}

/* In the child: waits for the go pipe to close, then execs argv with its
 * output in the log (logfd -1: asys's own); a failed exec sends errno up
 * the err pipe. */
static void workload_child(const int go[2], const int err[2], int logfd, char **argv,
			   const struct job_env *env)
{
	char c;
	int e;

	setpgid(0, 0);
	close(go[1]);
	close(err[0]);
	/* wait until the parent has its collectors attached */
	while (read(go[0], &c, 1) < 0 && errno == EINTR)
		;
	if (logfd >= 0) {
		dup2(logfd, STDOUT_FILENO);
		dup2(logfd, STDERR_FILENO);
	}
	job_env_apply(env);
	execvp(argv[0], argv);
	e = errno;
	if (write(err[1], &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

void workload_say(const char *text, const char *who)
{
	const char *p = text;

	while (*p) {
		size_t len = strcspn(p, "\n");

		fprintf(stderr, "%s: %.*s\n", who, (int)len, p);
		p += len + (p[len] == '\n');
	}
}

void workload_prepare(struct job_env *env, const struct asys_options *o, const char *who)
{
	job_env_init(env);
	job_env_prepare(env, collector_registry, o);
	workload_say(env->warnings, who);
}

int workload_start(struct workload *w, char **argv, const char *log_path, enum workload_output dflt,
		   const struct job_env *env)
{
	int go[2] = {-1, -1}, err[2] = {-1, -1}, e = 0, logfd = -1;

	memset(w, 0, sizeof(*w));
	w->go_fd = w->err_fd = w->log_fd = -1;
	str_escape(w->name, sizeof(w->name), argv[0], 60);
	if (log_path || dflt == WORKLOAD_OUT_TEMP_LOG) {
		logfd = workload_open_log(w, log_path);
		if (logfd < 0)
			return logfd;
	}
	if (!log_path && logfd >= 0)
		w->log_fd = fcntl(logfd, F_DUPFD_CLOEXEC, 0);
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		goto fail;
	w->pid = fork();
	if (w->pid < 0)
		goto fail;
	if (w->pid == 0)
		workload_child(go, err, logfd, argv, env);
	if (logfd >= 0)
		close(logfd);
	setpgid(w->pid, w->pid);
	close(go[0]);
	close(err[1]);
	w->go_fd = go[1];
	w->err_fd = err[0];
	return 0;
fail:
	e = errno;
	fprintf(stderr, "asys: cannot start '%s': %s\n", w->name, strerror(e));
	if (logfd >= 0)
		close(logfd);
	workload_drop_empty_log(w);
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (err[i] >= 0)
			close(err[i]);
	}
	return -e;
}

void workload_release(struct workload *w)
{
	int e = 0;
	ssize_t r;

	if (w->go_fd < 0)
		return;
	close(w->go_fd);
	w->go_fd = -1;
	/* the error pipe closes on a successful exec, or carries errno */
	r = read(w->err_fd, &e, sizeof(e));
	close(w->err_fd);
	w->err_fd = -1;
	if (r == sizeof(e)) {
		fprintf(stderr, "asys: cannot run '%s': %s\n", w->name, strerror(e));
		waitpid(w->pid, &w->status, 0);
		w->exited = true;
	}
}

bool workload_poll(struct workload *w)
{
	int st;

	if (w->pid <= 0 || w->exited)
		return w->exited;
	if (waitpid(w->pid, &st, WNOHANG) == w->pid) {
		w->exited = true;
		w->status = st;
	}
	return w->exited;
}

void workload_describe(const struct workload *w, char *buf, size_t n)
{
	char log[WORKLOAD_SHOWN];

	if (!w->exited && !*w->log)
		snprintf(buf, n, "workload: %s (pid %d) running", w->name, (int)w->pid);
	else if (!w->exited)
		snprintf(buf, n, "workload: %s (pid %d) running, output in %s", w->name,
			 (int)w->pid, str_escape(log, sizeof(log), w->log, 200));
	else if (WIFEXITED(w->status))
		snprintf(buf, n, "workload: %s (pid %d) exited with status %d; press q to quit",
			 w->name, (int)w->pid, WEXITSTATUS(w->status));
	else if (WIFSIGNALED(w->status))
		snprintf(buf, n,
			 "workload: %s (pid %d) exited, killed by signal %d (%s); press q to quit",
			 w->name, (int)w->pid, WTERMSIG(w->status), strsignal(WTERMSIG(w->status)));
	else
		snprintf(buf, n, "workload: %s (pid %d) exited; press q to quit", w->name,
			 (int)w->pid);
}

void workload_stop(struct workload *w)
{
	if (w->pid <= 0)
		return;
	if (w->go_fd >= 0)
		workload_release(w);
	if (!workload_poll(w)) {
		kill(-w->pid, SIGTERM);
		for (int i = 0; i < 50 && !workload_poll(w); i++) {
			struct timespec ts = {0, 20000000};

			nanosleep(&ts, NULL);
		}
		if (!w->exited) {
			kill(-w->pid, SIGKILL);
			waitpid(w->pid, &w->status, 0);
			w->exited = true;
		}
	}
}

bool workload_drop_empty_log(struct workload *w)
{
	struct stat fst, pst;
	bool dropped = false;

	if (w->log_fd < 0)
		return false;
	/* only the file we made: the name may have been replaced meanwhile */
	if (fstat(w->log_fd, &fst) == 0 && fst.st_size == 0 && lstat(w->log, &pst) == 0 &&
	    pst.st_dev == fst.st_dev && pst.st_ino == fst.st_ino)
		dropped = unlink(w->log) == 0;
	close(w->log_fd);
	w->log_fd = -1;
	return dropped;
}
