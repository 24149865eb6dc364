/* SPDX-License-Identifier: GPL-2.0-only */
/* A recorder fed by a synthetic producer through the real ring, bus and
 * writer, for the SIGKILL and disk-full tests:
 *   rec_synth FILE [RATE_HZ] [SECONDS]
 * Runs until SIGTERM/SIGINT or SECONDS; prints "state: recording|paused"
 * on each change and a final "records N dropped N" on stderr. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bus.h"
#include "collector.h"
#include "rec_testlib.h"
#include "ring.h"

static volatile sig_atomic_t stop;

static void on_sig(int s)
{
	stop = s;
}

int main(int argc, char **argv)
{
	struct stream_table *t = tl_table();
	struct bus *b = bus_new();
	struct ring *ring = ring_new(1 << 20);
	struct emitter em = {.ring = ring};
	struct rec_writer_opts o = {.force = true, .command = "rec_synth"};
	struct rec_writer_stats st;
	struct rec_writer *w;
	double rate = argc > 2 ? atof(argv[2]) : 1000, secs = argc > 3 ? atof(argv[3]) : 0;
	uint64_t t0, n = 0, period;
	char msg[256];
	int err, h, paused = -1;
	struct sigaction sa = {.sa_handler = on_sig};

	if (argc < 2 || rate <= 0) {
		fprintf(stderr, "usage: rec_synth FILE [RATE_HZ] [SECONDS]\n");
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	o.path = argv[1];
	w = rec_writer_new(t, &o, &err, msg, sizeof(msg));
	if (!w) {
		fprintf(stderr, "rec_synth: %s\n", msg);
		return 1;
	}
	bus_add_ring(b, ring);
	h = bus_attach(b, &rec_writer_consumer_ops, w);
	bus_start(b, 5000000);
	emit_label(&em, 1, 101, asys_now_ns(), "worker");
	period = (uint64_t)(1e9 / rate);
	t0 = asys_now_ns();
	while (!stop && (secs <= 0 || asys_now_ns() - t0 < (uint64_t)(secs * 1e9))) {
		uint64_t now = asys_now_ns();
		double v[8];

		for (int f = 0; f < 8; f++)
			v[f] = (double)n * (f + 1);
		/* value 0 of every sample is its own time, so a reader can check order */
		v[0] = (double)now;
		emit_sample(&em, (uint32_t)(n % 3), n % 3 == 1 ? 101 : 0, now, v,
			    n % 3 == 0	 ? 2
			    : n % 3 == 1 ? 4
					 : 8);
		n++;
		if (n % 64 == 0) {
			rec_writer_get_stats(w, &st);
			if ((int)st.paused != paused) {
				paused = st.paused;
				fprintf(stderr, "state: %s\n", paused ? "paused" : "recording");
			}
		}
		{
			uint64_t next = t0 + n * period;
			struct timespec ts;

			now = asys_now_ns();
			if (next > now) {
				ts.tv_sec = (time_t)((next - now) / 1000000000ull);
				ts.tv_nsec = (long)((next - now) % 1000000000ull);
				nanosleep(&ts, NULL);
			}
		}
	}
	bus_stop(b);
	bus_detach(b, h);
	rec_writer_close(w);
	rec_writer_get_stats(w, &st);
	fprintf(stderr, "records %llu dropped %llu emitted %llu\n", (unsigned long long)st.records,
		(unsigned long long)st.dropped, (unsigned long long)n);
	rec_writer_free(w);
	bus_free(b);
	ring_free(ring);
	stream_table_free(t);
	return 0;
}
