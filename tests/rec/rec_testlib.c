#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rec_testlib.h"

static const struct field_desc fa[] = { { "g1", "W", FIELD_GAUGE }, { "c1", "B", FIELD_COUNTER } };
static const struct field_desc fb[] = { { "rss", "B", FIELD_GAUGE }, { "hwm", "B", FIELD_GAUGE },
					{ "threads", "", FIELD_GAUGE }, { "io", "B", FIELD_COUNTER } };
static const struct field_desc fc[] = {
	{ "user", "jiffies", FIELD_COUNTER }, { "nice", "jiffies", FIELD_COUNTER },
	{ "system", "jiffies", FIELD_COUNTER }, { "idle", "jiffies", FIELD_COUNTER },
	{ "iowait", "jiffies", FIELD_COUNTER }, { "irq", "jiffies", FIELD_COUNTER },
	{ "softirq", "jiffies", FIELD_COUNTER }, { "temp", "C", FIELD_GAUGE },
};
static const struct stream_desc sd[] = {
	{ "syn.a", 1, ENTITY_NONE, 2, fa, "synthetic gauge and counter" },
	{ "syn.b", 2, ENTITY_PID, 4, fb, "synthetic per-process" },
	{ "syn.c", 1, ENTITY_CPU, 8, fc, "synthetic per-cpu" },
};

struct stream_table *tl_table(void)
{
	struct stream_table *t = stream_table_new();

	for (size_t i = 0; i < sizeof(sd) / sizeof(sd[0]); i++)
		stream_table_add(t, &sd[i]);
	return t;
}

static uint64_t rnd(struct tl_gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

const struct rec *tl_next(struct tl_gen *g, void *buf)
{
	struct rec *r = buf;
	uint64_t x;
	uint32_t s;

	if (!g->rng)
		g->rng = 0x1234567;
	g->n++;
	g->ts += 1000000 + rnd(g) % 1000;
	if (g->gap_every && g->n % g->gap_every == 0)
		g->ts += 10000000000ull;
	x = rnd(g);
	s = (uint32_t)(x % 3);
	memset(r, 0, sizeof(*r));
	r->stream = s;
	r->ts_ns = g->ts;
	r->entity = s == 0 ? 0 : s == 1 ? 100 + x % 7 : (x >> 8) % 4;
	if (s == 2 && (x >> 20) % 50 == 0)
		r->entity = ENTITY_CPU_TOTAL;
	if ((x >> 32) % 40 == 0 && s == 1) {
		char *t = (char *)(r + 1);
		int n = snprintf(t, 64, "proc-%llu \"x\",y", (unsigned long long)r->entity);

		r->kind = (x >> 40) % 3 == 0 ? REC_STATUS : REC_LABEL;
		memset(t + n, 0, 8);
		r->len = (uint32_t)(sizeof(*r) + (((size_t)n + 1 + 7) & ~(size_t)7));
		return r;
	}
	r->kind = REC_SAMPLE;
	r->nvals = (uint16_t)sd[s].nfields;
	if (s == 1 && (x >> 44) % 10 == 0)
		r->nvals = 2; /* fewer values than fields */
	for (uint32_t f = 0; f < r->nvals; f++) {
		double *v = (double *)(r + 1);

		v[f] = (double)(g->n * (f + 1)) + (double)(rnd(g) % 100) / 8;
		if ((rnd(g) % 97) == 0)
			v[f] = NAN;
	}
	r->len = (uint32_t)(sizeof(*r) + r->nvals * 8);
	return r;
}

int tl_write(const char *path, uint64_t nrecs, size_t chunk_bytes, uint64_t gap_every,
	     struct rec_buf *expect)
{
	struct stream_table *t = tl_table();
	struct rec_writer_opts o = { .path = path, .force = true, .chunk_bytes = chunk_bytes,
				     .command = "test" };
	_Alignas(8) uint8_t buf[4096];
	struct tl_gen g = { .gap_every = gap_every, .ts = 1000000000000ull };
	char msg[256];
	int err = 0;
	struct rec_writer *w = rec_writer_new(t, &o, &err, msg, sizeof(msg));

	if (!w) {
		fprintf(stderr, "tl_write: %s\n", msg);
		stream_table_free(t);
		return err;
	}
	for (uint64_t i = 0; i < nrecs; i++) {
		const struct rec *r = tl_next(&g, buf);

		rec_writer_consumer_ops.consume(w, r);
		if (expect)
			rec_buf_put(expect, r, r->len);
		if (i % 64 == 0)
			rec_writer_consumer_ops.end(w);
	}
	err = rec_writer_close(w);
	rec_writer_free(w);
	stream_table_free(t);
	return err;
}

static void collect(void *ctx, const struct rec *r)
{
	rec_buf_put(ctx, r, r->len);
}

int tl_read_all(const char *path, struct rec_buf *out, uint64_t *holes)
{
	struct rec_reader *r;
	struct rec_item it;
	char msg[256];
	int rc = rec_reader_open(path, &r, msg, sizeof(msg), NULL, 0);

	*holes = 0;
	if (rc)
		return rc;
	while ((rc = rec_reader_next(r, &it)) == 1) {
		if (it.kind == REC_ITEM_HOLE)
			(*holes)++;
		else if (it.h.type == REC_FT_DATA)
			rec_reader_data(r, &it, collect, out);
	}
	rec_reader_free(r);
	return rc;
}

size_t tl_frames(const char *path, struct tl_frame *out, size_t max)
{
	struct rec_reader *r;
	struct rec_item it;
	char msg[256];
	size_t n = 0;

	if (rec_reader_open(path, &r, msg, sizeof(msg), NULL, 0))
		return 0;
	while (rec_reader_next(r, &it) == 1 && n < max) {
		if (it.kind != REC_ITEM_FRAME)
			continue;
		out[n].off = it.off;
		out[n].end = it.end;
		out[n].t_max = it.h.t_max;
		out[n].type = it.h.type;
		out[n].crc = rec_crc32c(0, it.payload, it.len);
		n++;
	}
	rec_reader_free(r);
	return n;
}

char *tl_tmpdir(void)
{
	/* tmpfs when there is one: ext4 flushes a file rewritten with O_TRUNC on
	 * close, and the truncation sweep rewrites one thousands of times */
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	char *d = malloc(64);

	if (!d)
		return NULL;
	snprintf(d, 64, "%s/asys-rec-test-XXXXXX", base);
	return mkdtemp(d);
}
