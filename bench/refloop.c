/* The least a 1 kHz sampler of /proc/stat and /proc/meminfo can cost: a
 * timerfd with absolute deadlines, two preads and a parse of the numbers,
 * nothing else. bench/overhead compares asys against it, and runs it at
 * 10 Hz on /proc/meminfo alone (a third argument, "meminfo") as the least
 * the default host-memory rate can cost; "none" reads nothing: the cost of
 * the wakes alone.
 * Usage: refloop [hz] [seconds] [meminfo|none] */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(int argc, char **argv)
{
	double hz = argc > 1 ? atof(argv[1]) : 1000;
	double secs = argc > 2 ? atof(argv[2]) : 60;
	uint64_t period = (uint64_t)(1e9 / hz), next, end;
	int only_mem = argc > 3 && !strcmp(argv[3], "meminfo");
	int none = argc > 3 && !strcmp(argv[3], "none");
	int st = only_mem || none ? -1 : open("/proc/stat", O_RDONLY);
	int mi = none ? -1 : open("/proc/meminfo", O_RDONLY);
	int tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct timespec now;
	static char buf[1 << 16];
	unsigned long long sink = 0;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
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
	printf("%llu\n", sink & 1);
	return 0;
}
