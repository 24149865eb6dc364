/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers for bench/record:
 *   rec_bench gen FILE MIB       a synthetic recording of about MIB MiB
 *   rec_bench seek FILE N        N random seeks, with the trailer and without
 *   rec_bench decode FILE        values per second decoding every DATA frame */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collector.h"
#include "rec_reader.h"
#include "rec_writer.h"

static const struct field_desc f8[] = {
    FIELD_DESC("a", "B", FIELD_COUNTER), FIELD_DESC("b", "B", FIELD_COUNTER),
    FIELD_DESC("c", "", FIELD_GAUGE),	 FIELD_DESC("d", "", FIELD_GAUGE),
    FIELD_DESC("e", "W", FIELD_GAUGE),	 FIELD_DESC("f", "C", FIELD_GAUGE),
    FIELD_DESC("g", "%", FIELD_GAUGE),	 FIELD_DESC("h", "%", FIELD_GAUGE),
};

static double now_s(void)
{
	return (double)asys_now_ns() / 1e9;
}

static int gen(const char *path, uint64_t mib)
{
	struct stream_table *t = stream_table_new();
	struct rec_writer_opts o = {.path = path, .force = true, .queue_bytes = 256u << 20};
	struct rec_writer_stats st;
	_Alignas(8) uint8_t buf[512];
	struct rec *r = (struct rec *)buf;
	double *v = (double *)(r + 1);
	uint64_t rng = 88172645463325252ull, ts = 1000000000000ull, n = 0;
	char msg[256];
	int err;
	struct rec_writer *w;

	for (int s = 0; s < 16; s++) {
		char name[32];
		struct stream_desc d = {name, 1, ENTITY_KEY, 8, f8, "synthetic", 0};

		snprintf(name, sizeof(name), "synth.%d", s);
		stream_table_add(t, &d);
	}
	w = rec_writer_new(t, &o, &err, msg, sizeof(msg));
	if (!w) {
		fprintf(stderr, "%s\n", msg);
		return 1;
	}
	for (;;) {
		memset(r, 0, sizeof(*r));
		r->kind = REC_SAMPLE;
		r->stream = (uint32_t)(n % 16);
		r->entity = n / 16 % 8;
		r->nvals = 8;
		r->len = sizeof(*r) + 64;
		r->ts_ns = ts;
		ts += 10000; /* 100 kHz over all streams */
		for (int f = 0; f < 8; f++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			v[f] = (double)(rng >> 11); /* noise: little for zstd to squeeze */
		}
		rec_writer_consumer_ops.consume(w, r);
		if (++n % 4096 == 0) {
			rec_writer_consumer_ops.end(w);
			rec_writer_get_stats(w, &st);
			if (st.bytes >= mib << 20)
				break;
			/* keep the writer's queue short: no drops, and a size that is right */
			while (st.records + 500000 < n) {
				struct timespec ms = {0, 1000000};

				nanosleep(&ms, NULL);
				rec_writer_get_stats(w, &st);
			}
		}
	}
	rec_writer_close(w);
	rec_writer_get_stats(w, &st);
	printf("wrote %llu samples, %llu bytes, %.1f bytes/sample\n", (unsigned long long)n,
	       (unsigned long long)st.bytes, (double)st.bytes / (double)n);
	rec_writer_free(w);
	stream_table_free(t);
	return 0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int seek(const char *path, int n)
{
	struct rec_reader *r;
	char msg[256];
	uint64_t t0, t1, rng = 7;
	double *lat = calloc((size_t)n, sizeof(double));

	double open_s = now_s();
	bool trailer;

	if (!lat || rec_reader_open(path, &r, msg, sizeof(msg), NULL, 0)) {
		fprintf(stderr, "%s\n", msg);
		return 1;
	}
	open_s = now_s() - open_s;
	trailer = rec_reader_has_trailer(r);
	if (!trailer)
		printf(
		    "open without a trailer (walks the frames for streams and seek checkpoints): "
		    "%.0f ms\n",
		    open_s * 1e3);
	rec_reader_time_bounds(r, &t0, &t1);
	for (int mode = 0; mode < (trailer ? 2 : 1); mode++) {
		if (mode)
			rec_reader_no_trailer(r);
		for (int i = 0; i < n; i++) {
			double a;

			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			a = now_s();
			rec_reader_seek_time(r, t0 + (rng >> 11) % (t1 - t0 + 1));
			lat[i] = (now_s() - a) * 1e3;
		}
		qsort(lat, (size_t)n, sizeof(double), cmp_d);
		printf("seek %s: median %.3f ms, p99 %.3f ms, max %.3f ms (%d seeks)\n",
		       !trailer ? "with the checkpoints of the open walk (file cut, no trailer)"
		       : mode	? "by bisecting (trailer ignored)"
				: "through the trailer",
		       lat[n / 2], lat[n * 99 / 100], lat[n - 1], n);
	}
	rec_reader_free(r);
	free(lat);
	return 0;
}

static void count(void *ctx, const struct rec *r)
{
	*(uint64_t *)ctx += r->nvals;
}

static int decode(const char *path)
{
	struct rec_reader *r;
	struct rec_item it;
	char msg[256];
	uint64_t vals = 0;
	double a;

	if (rec_reader_open(path, &r, msg, sizeof(msg), NULL, 0)) {
		fprintf(stderr, "%s\n", msg);
		return 1;
	}
	a = now_s();
	while (rec_reader_next(r, &it) == 1)
		if (it.kind == REC_ITEM_FRAME && it.h.type == REC_FT_DATA)
			rec_reader_data(r, &it, count, &vals);
	a = now_s() - a;
	printf("decode: %llu values in %.2f s = %.1f million values/s on one core\n",
	       (unsigned long long)vals, a, (double)vals / a / 1e6);
	rec_reader_free(r);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "gen"))
		return gen(argv[2], strtoull(argv[3], NULL, 10));
	if (argc >= 4 && !strcmp(argv[1], "seek"))
		return seek(argv[2], atoi(argv[3]));
	if (argc >= 3 && !strcmp(argv[1], "decode"))
		return decode(argv[2]);
	fprintf(stderr, "usage: rec_bench gen FILE MIB | seek FILE N | decode FILE\n");
	return 2;
}
