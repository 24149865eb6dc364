#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "gpurt_unlink.h"

/* Below this many links the wait is short enough to take in place. */
#define UNLINK_HANDOFF_MIN 8

struct unlink_job {
	struct bpf_link **links;
	size_t n, step;
};

static void *unlink_some(void *arg)
{
	struct unlink_job *j = arg;

	for (size_t i = 0; i < j->n; i += j->step)
		bpf_link__destroy(j->links[i]);
	return NULL;
}

/* In place, from several threads: the kernel serialises most of each wait
 * (its event mutex), so this overlaps only the rest (17 links: 1.65 s
 * instead of 2.0 s). One uprobe-multi link per library would wait once, but
 * needs kernel 6.6 and a newer libbpf than 1.1. */
static void unlink_threads(struct bpf_link **links, size_t n)
{
	enum { THREADS = 16 };
	pthread_t th[THREADS];
	struct unlink_job jobs[THREADS];
	size_t nt = n < THREADS ? n : THREADS, started = 0;

	for (size_t t = 0; t < nt; t++) {
		jobs[t] = (struct unlink_job){.links = links + t, .n = n - t, .step = nt};
		if (nt > 1 && !pthread_create(&th[started], NULL, unlink_some, &jobs[t]))
			started++;
		else
			unlink_some(&jobs[t]);
	}
	for (size_t t = 0; t < started; t++)
		pthread_join(th[t], NULL);
}

static int fd_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Closes the descriptors from from to before upto (-1: all the rest)
 * but keep. */
static void close_between(int from, int upto, int keep)
{
	int last = upto < 0 ? INT_MAX : upto - 1;

	if (keep >= from && keep <= last) {
		close_between(from, keep, -1);
		close_between(keep + 1, upto, -1);
		return;
	}
	if (from > last)
		return;
	if (syscall(SYS_close_range, (unsigned)from, (unsigned)last, 0) == 0)
		return;
	for (int fd = from; fd <= last && fd < 65536; fd++)
		close(fd);
}

/* The grandchild: keeps only the links' descriptors (sorted in fds) and
 * the pipe's read end, so that it holds no socket, file or terminal of
 * asys's, then waits for the pipe's end and exits. Only system calls: the
 * fork of a threaded process allows nothing more. */
static void holder(const int *fds, size_t n, int rd)
{
	int from = 0;
	char c;

	for (size_t i = 0; i <= n; i++) {
		int upto = i < n ? fds[i] : -1; /* -1: to the end */

		close_between(from, upto, rd);
		if (upto < 0)
			break;
		from = upto + 1;
	}
	while (read(rd, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/* Forks the holder through a child that exits at once (so that nobody has
 * to reap the holder); its pipe's write end in *wr. false when it could
 * not. */
static bool holder_start(const int *fds, size_t n, int *wr)
{
	int p[2], st;
	pid_t pid;

	if (pipe(p) < 0)
		return false;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (setsid() < 0) {
			/* a new session only keeps terminal signals away */
		}
		if (fork() == 0)
			holder(fds, n, p[0]);
		_exit(0);
	}
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		return false;
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	*wr = p[1];
	return true;
}

void gpurt_unlink_all(struct bpf_link **links, size_t n)
{
	int *fds = NULL, wr = -1;
	size_t nf = 0;

	if (n >= UNLINK_HANDOFF_MIN && (fds = calloc(n, sizeof(*fds)))) {
		for (size_t i = 0; i < n; i++)
			if (bpf_link__fd(links[i]) >= 0)
				fds[nf++] = bpf_link__fd(links[i]);
		qsort(fds, nf, sizeof(*fds), fd_cmp);
	}
	if (nf && holder_start(fds, nf, &wr)) {
		for (size_t i = 0; i < n; i++)
			bpf_link__destroy(links[i]);
		close(wr); /* the holder lets go, and its exit removes them */
	} else {
		unlink_threads(links, n);
	}
	free(fds);
}
