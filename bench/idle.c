/* SPDX-License-Identifier: GPL-2.0-only */
/* bench/procs' idle processes: forks N children that sleep in pause() until
 * this process ends. SIGTERM, SIGINT or SIGHUP kill them all and wait for
 * them; if this process is killed outright, PR_SET_PDEATHSIG ends each
 * child with it. Usage: idle N READY_FILE (written once all N exist). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigset_t block, old;
	pid_t self = getpid(), *kids;
	long n = argc == 3 ? strtol(argv[1], NULL, 10) : 0;
	long made = 0;
	FILE *f;

	if (n < 1 || n > 100000) {
		fprintf(stderr, "usage: idle N(1-100000) READY_FILE\n");
		return 2;
	}
	kids = calloc((size_t)n, sizeof(*kids));
	if (!kids)
		return 1;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	for (; made < n && !stop; made++) {
		pid_t p = fork();

		if (p < 0) {
			fprintf(stderr, "idle: fork %ld: %s\n", made, strerror(errno));
			break;
		}
		if (p == 0) {
			sigprocmask(SIG_SETMASK, &old, NULL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != self)
				_exit(0);
			for (;;)
				pause();
		}
		kids[made] = p;
	}
	if (made == n && (f = fopen(argv[2], "w"))) {
		fprintf(f, "%ld\n", made);
		fclose(f);
	}
	while (!stop)
		sigsuspend(&old);
	for (long i = 0; i < made; i++)
		kill(kids[i], SIGKILL);
	for (long i = 0; i < made; i++)
		waitpid(kids[i], NULL, 0);
	return made == n ? 0 : 1;
}
