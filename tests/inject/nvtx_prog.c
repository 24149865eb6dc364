/* SPDX-License-Identifier: GPL-2.0-only */
/* A program annotated with the toolkit's header-only NVTX v3, as a user's
 * would be: in each of 4 threads, 1000 x Loop around DoProcess (a 1 ms
 * sleep) and a 0.2 ms sleep of its own, every 10th loop a range of a custom domain named by a
 * registered string, and one start/end range per thread. It measures the same ranges on its own
 * clock and prints, per name, "PROG name=N count=C total_ns=T self_ns=S depth=D", for the test to
 * hold asys's figures against.
 *
 * Usage: nvtx_prog [LOOPS [SLEEP_US [HOLD_FILE]]]: with HOLD_FILE, it stays
 * until that file exists, after printing, so its ranges can be looked at. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

#define THREADS 4

static int loops = 1000;
static long sleep_us = 1000;
static nvtxDomainHandle_t dom;
static nvtxStringHandle_t reg;

struct tally {
	uint64_t loop_n, loop_ns, proc_n, proc_ns, dom_n, dom_ns, phase_n, phase_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void nap(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};

	while (nanosleep(&ts, &ts))
		;
}

static void *worker(void *arg)
{
	struct tally *t = arg;
	nvtxEventAttributes_t a = {0};
	uint64_t p0 = now_ns();
	nvtxRangeId_t phase = nvtxRangeStartA("Phase");

	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.colorType = NVTX_COLOR_ARGB;
	a.color = 0xff3366cc;
	a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	a.message.registered = reg;
	for (int i = 0; i < loops; i++) {
		uint64_t t0 = now_ns(), t1, t2;

		nvtxRangePushA("Loop");
		t1 = now_ns();
		nvtxRangePushA("DoProcess");
		nap(sleep_us);
		nvtxRangePop();
		t2 = now_ns();
		t->proc_ns += t2 - t1;
		t->proc_n++;
		nap(sleep_us / 5); /* Loop's own time */
		nvtxRangePop();
		t->loop_ns += now_ns() - t0;
		t->loop_n++;
		if (i % 10 == 9) {
			uint64_t d0 = now_ns();

			nvtxDomainRangePushEx(dom, &a);
			nap(sleep_us / 5);
			nvtxDomainRangePop(dom);
			t->dom_ns += now_ns() - d0;
			t->dom_n++;
		}
	}
	nvtxRangeEnd(phase);
	t->phase_ns = now_ns() - p0;
	t->phase_n = 1;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[THREADS];
	struct tally t[THREADS] = {0}, s = {0};

	if (argc > 1)
		loops = atoi(argv[1]);
	if (argc > 2)
		sleep_us = atol(argv[2]);
	dom = nvtxDomainCreateA("asys-test");
	reg = nvtxDomainRegisterStringA(dom, "Registered");
	nvtxMarkA("start");
	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, worker, &t[i]);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		s.loop_n += t[i].loop_n, s.loop_ns += t[i].loop_ns;
		s.proc_n += t[i].proc_n, s.proc_ns += t[i].proc_ns;
		s.dom_n += t[i].dom_n, s.dom_ns += t[i].dom_ns;
		s.phase_n += t[i].phase_n, s.phase_ns += t[i].phase_ns;
	}
	printf("PROG name=Loop count=%llu total_ns=%llu self_ns=%llu depth=0\n",
	       (unsigned long long)s.loop_n, (unsigned long long)s.loop_ns,
	       (unsigned long long)(s.loop_ns - s.proc_ns));
	printf("PROG name=DoProcess count=%llu total_ns=%llu self_ns=%llu depth=1\n",
	       (unsigned long long)s.proc_n, (unsigned long long)s.proc_ns,
	       (unsigned long long)s.proc_ns);
	printf("PROG name=asys-test/Registered count=%llu total_ns=%llu self_ns=%llu depth=0\n",
	       (unsigned long long)s.dom_n, (unsigned long long)s.dom_ns,
	       (unsigned long long)s.dom_ns);
	printf("PROG name=Phase count=%llu total_ns=%llu self_ns=%llu depth=0\n",
	       (unsigned long long)s.phase_n, (unsigned long long)s.phase_ns,
	       (unsigned long long)s.phase_ns);
	fflush(stdout);
	while (argc > 3 && access(argv[3], F_OK) != 0)
		nap(20000);
	return 0;
}
