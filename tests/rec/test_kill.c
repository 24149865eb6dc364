/* SPDX-License-Identifier: GPL-2.0-only */
/* SIGKILL the recorder at 50 random moments: every file still opens, has no
 * hole, and lost at most the last chunk (250 ms) of each stream, plus what
 * a loaded machine kept the recorder from running just before the kill.
 *   test_kill PATH_TO_rec_synth */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "rec_reader.h"

#define ROUNDS 50
#define RATE_HZ 300
/* The bound: one chunk (250 ms), plus one sample period and the bus's
 * 5 ms pump, plus 250 ms for a writer thread that a loaded 2-vCPU machine
 * runs late (with two CPU hogs beside it, 115 ms late was seen). */
#define LOSS_LIMIT_NS ((250 + 4 + 5 + 250) * 1000000ull)

static uint64_t last[3];

/* Each thread's time spent waiting for a CPU (schedstat's second field),
 * into wait[] (at most n threads, in directory order); how many. */
static int thread_waits(pid_t pid, uint64_t *wait, int n)
{
	char dir[64], path[400];
	struct dirent *de;
	DIR *d;
	int k = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d)) && k < n) {
		unsigned long long run, w;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/schedstat", dir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu %llu", &run, &w) == 2)
			wait[k++] = w;
		fclose(f);
	}
	closedir(d);
	return k;
}

/* The most any thread of pid waited for a CPU while we slept ns: time the
 * recorder could not have used to write, which a loaded machine adds to
 * what a kill loses. */
static uint64_t starved_during(pid_t pid, useconds_t us)
{
	uint64_t a[64], b[64], most = 0;
	int na = thread_waits(pid, a, 64), nb;

	usleep(us);
	nb = thread_waits(pid, b, 64);
	for (int i = 0; i < na && i < nb; i++)
		if (b[i] > a[i] && b[i] - a[i] > most)
			most = b[i] - a[i];
	return most;
}

static void on_rec(void *ctx, const struct rec *r)
{
	(void)ctx;
	if (r->kind == REC_SAMPLE && r->stream < 3 && r->ts_ns > last[r->stream])
		last[r->stream] = r->ts_ns;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/asys-kill-XXXXXX", path[128], msg[256];
	uint64_t worst = 0, worst_starved = 0;
	int fails = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: test_kill REC_SYNTH\n");
		return 2;
	}
	if (!mkdtemp(dir))
		return 99;
	snprintf(path, sizeof(path), "%s/k.asys", dir);
	srand((unsigned)time(NULL));
	for (int i = 0; i < ROUNDS; i++) {
		struct rec_reader *r;
		struct rec_item it;
		uint64_t killed, starved;
		int holes = 0, st, rc, pfd[2];
		pid_t pid;
		struct pollfd pf;
		char line[64];

		if (pipe(pfd))
			return 99;
		pid = fork();
		if (pid == 0) {
			char rate[16];

			snprintf(rate, sizeof(rate), "%d", RATE_HZ);
			dup2(pfd[1], 2);
			close(pfd[0]);
			execl(argv[1], argv[1], path, rate, (char *)NULL);
			_exit(127);
		}
		close(pfd[1]);
		/* wait until it samples ("state: recording"): a sanitizer build starts slowly */
		pf = (struct pollfd){.fd = pfd[0], .events = POLLIN};
		if (poll(&pf, 1, 20000) != 1 || read(pfd[0], line, sizeof(line)) <= 0) {
			printf("FAIL round %d: the recorder did not start\n", i);
			fails++;
		}
		/* then 550-950 ms: every stream has had time to close two chunks,
		 * and a recorder that never closed one loses more than the bound
		 * in every round; the last 300 ms are watched for starvation */
		usleep(250000 + (useconds_t)(rand() % 400000));
		starved = starved_during(pid, 300000);
		killed = asys_now_ns();
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		close(pfd[0]);
		memset(last, 0, sizeof(last));
		rc = rec_reader_open(path, &r, msg, sizeof(msg), NULL, 0);
		if (rc) {
			printf("FAIL round %d: %s\n", i, msg);
			fails++;
			continue;
		}
		while ((rc = rec_reader_next(r, &it)) == 1) {
			if (it.kind == REC_ITEM_HOLE)
				holes++;
			else if (it.h.type == REC_FT_DATA)
				rec_reader_data(r, &it, on_rec, NULL);
		}
		rec_reader_free(r);
		if (holes || (rc != 0 && rc != -EAGAIN)) {
			printf("FAIL round %d: %d holes, end %d\n", i, holes, rc);
			fails++;
		}
		for (int s = 0; s < 3; s++) {
			uint64_t lost = last[s] ? killed - last[s] : killed;

			if (lost > worst)
				worst = lost;
			if (lost > LOSS_LIMIT_NS + starved) {
				printf(
				    "FAIL round %d: stream %d lost %.1f ms (limit %.1f ms: %.1f ms "
				    "of it starved)\n",
				    i, s, lost / 1e6, (LOSS_LIMIT_NS + starved) / 1e6,
				    starved / 1e6);
				fails++;
			}
			if (starved > worst_starved)
				worst_starved = starved;
		}
	}
	printf("%d rounds, worst loss %.1f ms per stream (limit %.0f ms plus the time the "
	       "recorder waited for a CPU, at most %.1f ms)\n",
	       ROUNDS, worst / 1e6, LOSS_LIMIT_NS / 1e6, worst_starved / 1e6);
	unlink(path);
	rmdir(dir);
	return fails ? 1 : 0;
}
