/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* Names kept whole from the stream table through the writer and the reader,
 * and what asys export writes: nothing at all when it fails, a time with its
 * zone, JSON ids that survive a double, a kernel's label as pid and name,
 * and a summary's names, rates and units. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <msgpack.h>

#include "rec_check.h"
#include "rec_export.h"
#include "rec_reader.h"
#include "rec_writer.h"

static char *dir;

static void path_in(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", dir, name);
}

/* A name of n bytes: "f" then as many 'x' as needed. */
static char *long_name(size_t n)
{
	char *s = malloc(n + 1);

	ck_assert_ptr_nonnull(s);
	memset(s, 'x', n);
	s[0] = 'f';
	s[n] = 0;
	return s;
}

/* ---- names ---- */

START_TEST(table_keeps_or_refuses_whole_names)
{
	char *ok = long_name(STREAM_NAME_MAX - 1), *over = long_name(STREAM_NAME_MAX);
	struct field_desc f = FIELD_DESC(ok, "%", FIELD_GAUGE);
	struct stream_desc d = {"t.names", 1, ENTITY_NONE, 1, &f, "long names", .rate_hz = 0};
	struct stream_table *t = stream_table_new();

	ck_assert_int_eq(stream_table_add(t, &d), 0);
	ck_assert_str_eq(stream_table_get(t, 0)->fields[0].name, ok);
	f.name = over;
	d.name = "t.over";
	ck_assert_int_eq(stream_table_add(t, &d), -ENAMETOOLONG);
	f.name = "f";
	d.name = over;
	ck_assert_int_eq(stream_table_add(t, &d), -ENAMETOOLONG);
	ck_assert_uint_eq(stream_table_count(t), 1);
	stream_table_free(t);
	free(ok);
	free(over);
}
END_TEST

/* The writer says which string a reader would cut, and leaves no file. */
START_TEST(writer_refuses_what_a_reader_would_cut)
{
	char p[512], msg[256] = "";
	char *unit = long_name(REC_FIELD_UNIT_MAX + 1);
	struct field_desc f = FIELD_DESC("tensor", unit, FIELD_GAUGE);
	struct stream_desc d = {"t.unit", 1, ENTITY_NONE, 1, &f, "a long unit", .rate_hz = 0};
	struct stream_table *t = stream_table_new();
	struct rec_writer_opts o = {.path = p, .command = "test"};
	int err = 0;

	path_in(p, sizeof(p), "refused.asys");
	ck_assert_int_eq(stream_table_add(t, &d), 0);
	ck_assert_ptr_null(rec_writer_new(t, &o, &err, msg, sizeof(msg)));
	ck_assert_int_eq(err, -ENAMETOOLONG);
	ck_assert_msg(strstr(msg, "t.unit") && strstr(msg, "tensor") && strstr(msg, "unit is 33"),
		      "message: %s", msg);
	ck_assert_int_ne(access(p, F_OK), 0);
	stream_table_free(t);
	free(unit);
}
END_TEST

/* A forged entry with a name past the cap is refused, and the entry after it
 * still reads: the cursor is past the refused one. */
START_TEST(reader_refuses_a_long_name_and_reads_on)
{
	char *over = long_name(200);
	struct field_desc f = FIELD_DESC(over, "%", FIELD_GAUGE), g = FIELD_DESC("g", "", 0);
	struct stream_desc bad = {"t.bad", 1, ENTITY_NONE, 1, &f, NULL, .rate_hz = 0};
	struct stream_desc good = {"t.good", 1, ENTITY_NONE, 1, &g, NULL, .rate_hz = 0};
	struct buf b = {0};
	struct stream_desc got;
	msgpack_packer pk;
	uint32_t id = 0;

	msgpack_packer_init(&pk, &b, rec_buf_msgpack_write);
	rec_schema_encode_one(&pk, 0, &bad);
	rec_schema_encode_one(&pk, 1, &good);
	{
		struct mp_cur c = {b.p, b.p + b.len, false};

		ck_assert_int_eq(rec_schema_decode_one(&c, &id, &got), -ENAMETOOLONG);
		ck_assert_int_eq(rec_schema_decode_one(&c, &id, &got), 0);
		ck_assert_uint_eq(id, 1);
		ck_assert_str_eq(got.name, "t.good");
		rec_schema_desc_free(&got);
	}
	buf_free(&b);
	free(over);
}
END_TEST

/* ---- a recording to export ---- */

#define KERN_HASH 0xdeadbeefcafef00dull
#define KERN_LABEL "4242\tvoid k<float>(float*, int)"
static const struct field_desc cpu_f[] = {FIELD_DESC("user", "jiffies", FIELD_COUNTER)};
static const struct field_desc kern_f[] = {FIELD_DESC("launches", "", FIELD_COUNTER),
					   FIELD_DESC("pid", "", FIELD_GAUGE)};

static void put(struct rec_writer *w, uint8_t kind, uint32_t stream, uint64_t ent, uint64_t ts,
		const double *v, uint16_t nv, const char *text)
{
	_Alignas(8) uint8_t buf[512] = {0};
	struct rec *r = (struct rec *)(void *)buf;
	size_t tl = text ? strlen(text) + 1 : 0;

	*r = (struct rec){.kind = kind, .stream = stream, .entity = ent, .ts_ns = ts};
	if (v) {
		r->nvals = nv;
		memcpy(r + 1, v, nv * sizeof(*v));
		r->len = (uint32_t)(sizeof(*r) + nv * sizeof(*v));
	} else {
		memcpy(r + 1, text, tl);
		r->len = (uint32_t)(sizeof(*r) + ((tl + 7) & ~(size_t)7));
	}
	rec_writer_consumer_ops.consume(w, r);
}

/* t.cpu: core 0 and the all-CPU total; t.kern: one kernel under a hash. */
static void write_sample_file(const char *p)
{
	const struct stream_desc sd[] = {
	    {"t.cpu", 1, ENTITY_CPU, 1, cpu_f, "per cpu", .rate_hz = 0},
	    {"t.kern", 1, ENTITY_KEY, 2, kern_f, "label PID<TAB>name", .rate_hz = 0},
	};
	struct stream_table *t = stream_table_new();
	struct rec_writer_opts o = {.path = p, .force = true, .command = "test"};
	char msg[256];
	int err = 0;
	struct rec_writer *w;
	uint64_t ts = 5000000000ull;

	for (size_t i = 0; i < 2; i++)
		ck_assert_int_eq(stream_table_add(t, &sd[i]), (int)i);
	w = rec_writer_new(t, &o, &err, msg, sizeof(msg));
	ck_assert_msg(w != NULL, "%s", msg);
	put(w, REC_LABEL, 1, KERN_HASH, ts, NULL, 0, KERN_LABEL);
	for (int i = 0; i < 3; i++, ts += 1000000000ull) {
		double c0[1] = {100.0 + i}, tot[1] = {400.0 + i}, k[2] = {10.0 * i, 4242};

		put(w, REC_SAMPLE, 0, 0, ts, c0, 1, NULL);
		put(w, REC_SAMPLE, 0, ENTITY_CPU_TOTAL, ts, tot, 1, NULL);
		put(w, REC_SAMPLE, 1, KERN_HASH, ts, k, 2, NULL);
	}
	ck_assert_int_eq(rec_writer_close(w), 0);
	rec_writer_free(w);
	stream_table_free(t);
}

/* Runs an export into a string; *rc gets its exit status. */
static char *export_to_string(const struct rec_export_opts *o, char **files, int n, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len), *err = fopen("/dev/null", "w");

	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(err);
	*rc = rec_export_files(o, files, n, out, err);
	fclose(out);
	fclose(err);
	return buf;
}

START_TEST(failure_writes_nothing)
{
	char p[512], missing[512];
	char *files[2] = {p, missing};
	struct rec_export_opts o = {.format = REC_EXPORT_CSV};
	int rc;
	char *s;

	path_in(p, sizeof(p), "fail.asys");
	path_in(missing, sizeof(missing), "missing.asys");
	write_sample_file(p);
	for (int fmt = REC_EXPORT_CSV; fmt <= REC_EXPORT_SUMMARY; fmt++) {
		o = (struct rec_export_opts){.format = fmt, .streams = "bogus"};
		s = export_to_string(&o, files, 1, &rc);
		ck_assert_int_eq(rc, 2);
		ck_assert_str_eq(s, "");
		free(s);
		o = (struct rec_export_opts){.format = fmt, .begin = "soon"};
		s = export_to_string(&o, files, 1, &rc);
		ck_assert_int_eq(rc, 2);
		ck_assert_str_eq(s, "");
		free(s);
		/* the missing file comes second: still nothing of the first */
		o = (struct rec_export_opts){.format = fmt};
		s = export_to_string(&o, files, 2, &rc);
		ck_assert_int_eq(rc, 1);
		ck_assert_str_eq(s, "");
		free(s);
		ck_assert_int_eq(rec_export_check(&o, files, 1, stderr), 0);
	}
}
END_TEST

START_TEST(csv_time_zone_and_kernel_columns)
{
	char p[512], line[512];
	char *files[1] = {p};
	struct rec_export_opts o = {.format = REC_EXPORT_CSV};
	int rc, kern = 0;
	char *s, *save = NULL;

	path_in(p, sizeof(p), "csv.asys");
	write_sample_file(p);
	setenv("TZ", "Asia/Kolkata", 1);
	tzset();
	s = export_to_string(&o, files, 1, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(
	    !strncmp(s, "t_ns,time,stream,entity,label,field,unit,value,pid,name,host\n",
		     strlen("t_ns,time,stream,entity,label,field,unit,value,pid,name,host\n")),
	    "header: %.80s", s);
	for (char *l = strtok_r(s, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, "t_ns,", 5))
			continue;
		/* 2026-12-01T23:53:04.464958585+05:30 */
		ck_assert_msg(strstr(l, "+05:30,"), "no zone in: %s", l);
		ck_assert_ptr_null(strchr(l, '\t'));
		snprintf(line, sizeof(line), ",t.kern,%llu,,", (unsigned long long)KERN_HASH);
		if (strstr(l, line)) {
			ck_assert_msg(strstr(l, ",4242,\"void k<float>(float*, int)\""),
				      "kernel row: %s", l);
			kern++;
		} else {
			/* ...,pid,name,host: the host is the recorder's */
			const char *h = strrchr(l, ',');

			ck_assert_msg(h - l > 2 && h[-1] == ',' && h[-2] == ',',
				      "pid and name not empty: %s", l);
			ck_assert_msg(h[1], "no host in: %s", l);
		}
	}
	ck_assert_int_eq(kern, 6); /* 3 samples of 2 fields */
	free(s);
	setenv("TZ", "UTC", 1);
	tzset();
	s = export_to_string(&o, files, 1, &rc);
	ck_assert_ptr_nonnull(strstr(s, "+00:00,t.cpu,"));
	free(s);
	unsetenv("TZ");
	tzset();
}
END_TEST

START_TEST(json_ids_as_strings_and_kernel_fields)
{
	char p[512], want[128];
	char *files[1] = {p};
	struct rec_export_opts o = {.format = REC_EXPORT_JSON};
	int rc;
	char *s;

	path_in(p, sizeof(p), "json.asys");
	write_sample_file(p);
	s = export_to_string(&o, files, 1, &rc);
	ck_assert_int_eq(rc, 0);
	/* a core is a number; the total and a key are strings of digits */
	ck_assert_ptr_nonnull(strstr(s, "\"stream\":\"t.cpu\",\"entity\":0,\"label\":null"));
	ck_assert_ptr_nonnull(
	    strstr(s, "\"stream\":\"t.cpu\",\"entity\":\"18446744073709551615\",\"label\":null"));
	snprintf(want, sizeof(want),
		 "\"stream\":\"t.kern\",\"entity\":\"%llu\",\"pid\":4242,"
		 "\"name\":\"void k<float>(float*, int)\",\"values\":{",
		 (unsigned long long)KERN_HASH);
	ck_assert_msg(strstr(s, want), "no %s in %s", want, s);
	ck_assert_ptr_null(strstr(s, "\\t"));
	free(s);
}
END_TEST

/* ---- the summary ---- */

/* Two processes in one container, scanned once a second by a collector
 * whose rate is 10 Hz, as asys records them: mem.proc labelled with the
 * command, proc.cpu with the container; and a counter of packets. */
static void write_proc_file(const char *p)
{
	static const struct field_desc mem_f[] = {FIELD_DESC("rss", "B", FIELD_GAUGE)};
	static const struct field_desc cpu_f2[] = {FIELD_DESC("utime", "s", FIELD_COUNTER)};
	static const struct field_desc nic_f[] = {FIELD_DESC("rx", "packets", FIELD_COUNTER)};
	const struct stream_desc sd[] = {
	    {"mem.proc", 1, ENTITY_PID, 1, mem_f, "rss", .rate_hz = 10},
	    {"proc.cpu", 1, ENTITY_PID, 1, cpu_f2, "cpu", .rate_hz = 10},
	    {"t.nic", 1, ENTITY_NIC, 1, nic_f, "nic", .rate_hz = 1},
	};
	const char *ctr = "0ab2f277114251ea46b5e0123456789abcdef0123456789abcdef0123456789a";
	struct stream_table *t = stream_table_new();
	struct rec_writer_opts o = {.path = p, .force = true, .command = "test"};
	char msg[256];
	int err = 0;
	struct rec_writer *w;
	uint64_t ts = 5000000000ull;

	for (size_t i = 0; i < 3; i++)
		ck_assert_int_eq(stream_table_add(t, &sd[i]), (int)i);
	w = rec_writer_new(t, &o, &err, msg, sizeof(msg));
	ck_assert_msg(w != NULL, "%s", msg);
	put(w, REC_LABEL, 0, 100, ts, NULL, 0, "python3 train.py");
	put(w, REC_LABEL, 0, 200, ts, NULL, 0, "nginx: worker");
	put(w, REC_LABEL, 1, 100, ts, NULL, 0, ctr);
	put(w, REC_LABEL, 1, 200, ts, NULL, 0, ctr);
	for (int i = 0; i < 4; i++, ts += 1000000000ull) {
		double rss[1] = {1048576}, u[1] = {0.5 * i}, rx[1] = {5.0 * i};

		put(w, REC_SAMPLE, 0, 100, ts, rss, 1, NULL);
		put(w, REC_SAMPLE, 0, 200, ts, rss, 1, NULL);
		put(w, REC_SAMPLE, 1, 100, ts, u, 1, NULL);
		put(w, REC_SAMPLE, 1, 200, ts, u, 1, NULL);
		put(w, REC_SAMPLE, 2, 1, ts, rx, 1, NULL);
	}
	ck_assert_int_eq(rec_writer_close(w), 0);
	rec_writer_free(w);
	stream_table_free(t);
}

/* A process's rows are named by pid and command with the container beside
 * them, also when only proc.cpu is selected; the note gives the interval
 * the file holds, not the collector's rate; a unit is a column of its own. */
START_TEST(summary_names_processes_rates_and_units)
{
	char p[512];
	char *files[1] = {p};
	struct rec_export_opts o = {.format = REC_EXPORT_SUMMARY, .streams = "proc.cpu,t.nic"};
	int rc;
	char *s;

	path_in(p, sizeof(p), "sum.asys");
	write_proc_file(p);
	s = export_to_string(&o, files, 1, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(
	    strstr(s, "  proc.cpu         1 s (samples 1 s apart: the median interval)\n"), "%s",
	    s);
	ck_assert_msg(!strstr(s, "10 Hz"), "%s", s);
	ck_assert_msg(strstr(s, " p99 unit       host "), "%s", s);
	/* 0.5 s of CPU a second */
	ck_assert_msg(strstr(s, " 0.500 s/s        "), "%s", s);
	ck_assert_msg(
	    strstr(s, " 100 python3 train.py (0ab2f277114251ea46b5e0123456789abcdef0123456"), "%s",
	    s);
	ck_assert_msg(strstr(s, " 200 nginx: worker (0ab2f2771142"), "%s", s);
	ck_assert_msg(strstr(s, " 5.000 packets/s  "), "%s", s);
	ck_assert_msg(!strstr(s, "0packets") && !strstr(s, "0s/s"), "%s", s);
	free(s);
}
END_TEST

static Suite *export_suite(void)
{
	Suite *s = suite_create("rec-export");
	TCase *tc = tcase_create("export");

	ADD(table_keeps_or_refuses_whole_names);
	ADD(writer_refuses_what_a_reader_would_cut);
	ADD(reader_refuses_a_long_name_and_reads_on);
	ADD(failure_writes_nothing);
	ADD(csv_time_zone_and_kernel_columns);
	ADD(json_ids_as_strings_and_kernel_fields);
	ADD(summary_names_processes_rates_and_units);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rec_check_main(export_suite, &dir);
}
