/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rec_testlib.h"

/* g1 has display metadata, c1 none: a file has both kinds of field */
static const struct field_desc fa[] = {{.name = "g1",
					.unit = "W",
					.kind = FIELD_GAUGE,
					.group = "power",
					.label = "pwr",
					.display = "Power draw",
					.show = FIELD_SHOW_COUNT},
				       FIELD_DESC("c1", "B", FIELD_COUNTER)};
static const struct field_desc fb[] = {
    FIELD_DESC("rss", "B", FIELD_GAUGE), FIELD_DESC("hwm", "B", FIELD_GAUGE),
    FIELD_DESC("threads", "", FIELD_GAUGE), FIELD_DESC("io", "B", FIELD_COUNTER)};
static const struct field_desc fc[] = {
    FIELD_DESC("user", "jiffies", FIELD_COUNTER),    FIELD_DESC("nice", "jiffies", FIELD_COUNTER),
    FIELD_DESC("system", "jiffies", FIELD_COUNTER),  FIELD_DESC("idle", "jiffies", FIELD_COUNTER),
    FIELD_DESC("iowait", "jiffies", FIELD_COUNTER),  FIELD_DESC("irq", "jiffies", FIELD_COUNTER),
    FIELD_DESC("softirq", "jiffies", FIELD_COUNTER), FIELD_DESC("temp", "C", FIELD_GAUGE),
};
static const struct stream_desc sd[] = {
    {"syn.a", 1, ENTITY_NONE, 2, fa, "synthetic gauge and counter", .rate_hz = 0},
    {"syn.b", 2, ENTITY_PID, 4, fb, "synthetic per-process", .rate_hz = 0},
    {"syn.c", 1, ENTITY_CPU, 8, fc, "synthetic per-cpu", .rate_hz = 0},
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
	     struct buf *expect)
{
	struct stream_table *t = tl_table();
	struct rec_writer_opts o = {
	    .path = path, .force = true, .chunk_bytes = chunk_bytes, .command = "test"};
	_Alignas(8) uint8_t buf[4096];
	struct tl_gen g = {.gap_every = gap_every, .ts = 1000000000000ull};
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
			buf_put(expect, r, r->len);
		if (i % 64 == 0)
			rec_writer_consumer_ops.end(w);
	}
	err = rec_writer_close(w);
	rec_writer_free(w);
	stream_table_free(t);
	return err;
}

static const struct field_desc nic_fields[] = {
    FIELD_DESC("rx_bytes", "B", FIELD_COUNTER),
    FIELD_DESC("tx_bytes", "B", FIELD_COUNTER),
    FIELD_DESC("rx_packets", "packets", FIELD_COUNTER),
    FIELD_DESC("tx_packets", "packets", FIELD_COUNTER),
    FIELD_DESC("rx_errors", "packets", FIELD_COUNTER),
    FIELD_DESC("tx_errors", "packets", FIELD_COUNTER),
    FIELD_DESC("rx_dropped", "packets", FIELD_COUNTER),
    FIELD_DESC("tx_dropped", "packets", FIELD_COUNTER),
};
static const struct stream_desc nic_link = {
    "nic.link", 1, ENTITY_NIC, 8, nic_fields, "netdev counters (a test copy)", .rate_hz = 0};

static void late_put(struct rec_writer *w, void *buf, uint32_t stream, uint64_t entity, uint64_t ts,
		     const double *v, uint16_t n, const char *label)
{
	struct rec *r = buf;

	memset(r, 0, sizeof(*r));
	r->stream = stream;
	r->entity = entity;
	r->ts_ns = ts;
	if (label) {
		size_t l = strlen(label);

		r->kind = REC_LABEL;
		memset(r + 1, 0, (l + 8) & ~(size_t)7);
		memcpy(r + 1, label, l);
		r->len = (uint32_t)(sizeof(*r) + ((l + 1 + 7) & ~(size_t)7));
	} else {
		r->kind = REC_SAMPLE;
		r->nvals = n;
		memcpy(r + 1, v, n * sizeof(double));
		r->len = (uint32_t)(sizeof(*r) + n * sizeof(double));
	}
	rec_writer_consumer_ops.consume(w, r);
}

int tl_write_late(const char *path, double early_s, double late_s, bool trailer,
		  uint64_t *late_samples)
{
	struct stream_table *t = tl_table();
	/* small chunks: the early data is in frames before the late SCHEMA */
	struct rec_writer_opts o = {
	    .path = path, .force = true, .chunk_bytes = 2048, .command = "test late stream"};
	_Alignas(8) uint8_t buf[4096];
	uint64_t t0 = 1000000000000ull, step = 10000000ull, n_early, n_late, trailer_off = 0;
	struct tl_frame fr[4096];
	size_t nf;
	char msg[256];
	int err = 0, late = -1;
	struct rec_writer *w = rec_writer_new(t, &o, &err, msg, sizeof(msg));

	if (!w) {
		fprintf(stderr, "tl_write_late: %s\n", msg);
		stream_table_free(t);
		return err;
	}
	n_early = (uint64_t)(early_s * 100);
	n_late = (uint64_t)(late_s * 100);
	for (uint64_t i = 0; i < n_early + n_late; i++) {
		uint64_t ts = t0 + i * step;
		double a[2] = {(double)(i % 50), (double)i * 1000};

		if (i == n_early) {
			/* a collector registering its stream while recording goes on */
			late = stream_table_add(t, &nic_link);
			if (late < 0)
				break;
			late_put(w, buf, (uint32_t)late, TL_LATE_IFINDEX, ts, NULL, 0, "late0");
		}
		late_put(w, buf, 0, 0, ts, a, 2, NULL);
		if (late >= 0) {
			double v[8] = {0};
			uint64_t k = i - n_early;

			v[0] = (double)k * 10000; /* 1 MB/s received */
			v[1] = (double)k * 5000;
			v[2] = v[3] = (double)k * 10;
			late_put(w, buf, (uint32_t)late, TL_LATE_IFINDEX, ts + 1000, v, 8, NULL);
		}
		if (i % 16 == 0)
			rec_writer_consumer_ops.end(w);
	}
	err = rec_writer_close(w);
	rec_writer_free(w);
	stream_table_free(t);
	if (late < 0)
		return late;
	if (late_samples)
		*late_samples = n_late;
	if (err || trailer)
		return err;
	/* as if the recorder had been killed before its trailer */
	nf = tl_frames(path, fr, sizeof(fr) / sizeof(fr[0]));
	for (size_t i = 0; i < nf; i++)
		if (fr[i].type == REC_FT_TRAILER)
			trailer_off = fr[i].off;
	if (!trailer_off || truncate(path, (off_t)trailer_off) < 0)
		return -EIO;
	return 0;
}

static void collect(void *ctx, const struct rec *r)
{
	buf_put(ctx, r, r->len);
}

int tl_read_all(const char *path, struct buf *out, uint64_t *holes)
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

uint64_t tl_seek_target(const struct tl_frame *fr, size_t n, size_t i, uint64_t *rng)
{
	if (i < n)
		return fr[i].t_max + (i % 3) - 1;
	if (i < n + 4)
		return (uint64_t[]){0, 1, fr[n - 1].t_max + 1, UINT64_MAX}[i - n];
	*rng = *rng * 6364136223846793005ull + 1;
	return fr[0].t_max + (*rng >> 11) % (fr[n - 1].t_max - fr[0].t_max);
}
