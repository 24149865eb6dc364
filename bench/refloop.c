/* SPDX-License-Identifier: GPL-2.0-only */
/* The least a 1 kHz sampler of /proc/stat and /proc/meminfo can cost: a
 * timerfd with absolute deadlines, two preads and a parse of the numbers,
 * nothing else. bench/overhead compares asys against it, and runs it at
 * 10 Hz on /proc/meminfo alone (a third argument, "meminfo") as the least
 * the default host-memory rate can cost; "none" reads nothing: the cost of
 * the wakes alone. "handoff" reads nothing either, and after each wake
 * wakes a second thread through an eventfd, as a sampling thread wakes the
 * recorder's writer: it prints the CPU per wake of each, a wake by a timer
 * against a wake by a thread that is running.
 * Usage: refloop [hz] [seconds] [meminfo|none|handoff] */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static unsigned long long parse_all(const char *p)
{
	unsigned long long sum = 0;

	while (*p) {
		if (*p >= '0' && *p <= '9') {
			char *end;

			sum += strtoull(p, &end, 10);
			p = end;
		} else {
			p++;
		}
	}
	return sum;
}

/* This thread's CPU time in ns, from its schedstat. */
static unsigned long long thread_cpu_ns(void)
{
	char b[128];
	int fd = open("/proc/thread-self/schedstat", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, b, sizeof(b) - 1);

	if (fd >= 0)
		close(fd);
	b[n > 0 ? n : 0] = 0;
	return strtoull(b, NULL, 10);
}

static int handoff_fd = -1;
static unsigned long long handoff_wakes, handoff_ns;

/* The woken side of "handoff": blocks on the eventfd until a zero-length
 * stop (the value 1 << 62) comes. */
static void *handoff_thread(void *arg)
{
	uint64_t v;

	(void)arg;
	while (read(handoff_fd, &v, sizeof(v)) == sizeof(v) && v < (1ull << 62))
		handoff_wakes++;
	handoff_ns = thread_cpu_ns();
	return NULL;
}

/* Stops the woken thread and prints both threads' CPU per wake. */
static int handoff_report(pthread_t th, unsigned long long ticks)
{
	uint64_t stop = 1ull << 62;

	if (write(handoff_fd, &stop, sizeof(stop)) < 0 || pthread_join(th, NULL))
		return 1;
	printf("woken by its timer: %.1f us of CPU a wake (%llu wakes, "
	       "the eventfd write included)\n",
	       (double)thread_cpu_ns() / 1e3 / (double)(ticks ? ticks : 1), ticks);
	printf("woken by that thread: %.1f us of CPU a wake (%llu wakes)\n",
	       (double)handoff_ns / 1e3 / (double)(handoff_wakes ? handoff_wakes : 1),
	       handoff_wakes);
	return 0;
}

int main(int argc, char **argv)
{
	double hz = argc > 1 ? atof(argv[1]) : 1000;
	double secs = argc > 2 ? atof(argv[2]) : 60;
	uint64_t period = (uint64_t)(1e9 / hz), next, end;
	int only_mem = argc > 3 && !strcmp(argv[3], "meminfo");
	int handoff = argc > 3 && !strcmp(argv[3], "handoff");
	int none = handoff || (argc > 3 && !strcmp(argv[3], "none"));
	unsigned long long ticks = 0;
	pthread_t th;
	int st = only_mem || none ? -1 : open("/proc/stat", O_RDONLY);
	int mi = none ? -1 : open("/proc/meminfo", O_RDONLY);
	int tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct timespec now;
	static char buf[1 << 16];
	unsigned long long sink = 0;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (handoff) {
		handoff_fd = eventfd(0, 0);
		if (handoff_fd < 0 || pthread_create(&th, NULL, handoff_thread, NULL))
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	next = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	end = next + (uint64_t)(secs * 1e9);
	while (next < end) {
		struct itimerspec its = {
		    {0, 0}, {(time_t)(next / 1000000000ull), (long)(next % 1000000000ull)}};
		uint64_t exp;
		ssize_t n;

		next += period;
		timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
		if (read(tfd, &exp, sizeof(exp)) < 0)
			break;
		ticks++;
		if (handoff) {
			uint64_t one = 1;

			if (write(handoff_fd, &one, sizeof(one)) < 0)
				break;
		}
		if (st >= 0) {
			n = pread(st, buf, sizeof(buf) - 1, 0);
			buf[n > 0 ? n : 0] = 0;
			sink += parse_all(buf);
		}
		if (mi < 0)
			continue;
		n = pread(mi, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = 0;
		sink += parse_all(buf);
	}
	if (handoff)
		return handoff_report(th, ticks);
	printf("%llu\n", sink & 1);
	return 0;
}
