/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* The exposition fed from a store: names, base units and counters, label
 * escaping, NaN left out, gone entities dropped, per-process series only
 * when asked, OpenMetrics' metadata, and the peak in a window of fixed
 * length. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve.h"
#include "store.h"
#include "stream.h"
#include "../check_run.h"

#define MS 1000000ull
#define SEC 1000000000ull

static const struct field_desc nic_fields[] = {
    FIELD_DESC("rx_bytes", "B", FIELD_COUNTER),
    FIELD_DESC("rx_packets", "packets", FIELD_COUNTER),
};
static const struct stream_desc nic_stream = {
    "nic.link", 1, ENTITY_NIC, 2, nic_fields, "netdev counters", .rate_hz = 100};
static const struct field_desc cpu_fields[] = {
    FIELD_DESC("user", "jiffies", FIELD_COUNTER),
    FIELD_DESC("util", "%", FIELD_GAUGE),
};
static const struct stream_desc cpu_stream = {
    "cpu.core", 1, ENTITY_CPU, 2, cpu_fields, "per-CPU time", .rate_hz = 0};
static const struct field_desc proc_fields[] = {
    FIELD_DESC("rss", "B", FIELD_GAUGE),
};
static const struct stream_desc proc_stream = {
    "mem.proc", 1, ENTITY_PID, 1, proc_fields, "per-process memory", .rate_hz = 0};

struct fx {
	struct stream_table *t;
	struct store *s;
	int nic, cpu, proc;
};

static void fx_init(struct fx *f)
{
	f->t = stream_table_new();
	f->nic = stream_table_add(f->t, &nic_stream);
	f->cpu = stream_table_add(f->t, &cpu_stream);
	f->proc = stream_table_add(f->t, &proc_stream);
	ck_assert_int_ge(f->proc, 0);
	f->s = store_new(f->t, SEC);
	ck_assert_ptr_nonnull(f->s);
}

static void fx_free(struct fx *f)
{
	store_free(f->s);
	stream_table_free(f->t);
}

static void put(struct fx *f, int stream, uint64_t ent, uint64_t ts, const double *v, int n)
{
	_Alignas(8) unsigned char buf[sizeof(struct rec) + 16 * sizeof(double)];
	struct rec *r = (struct rec *)buf;

	memset(buf, 0, sizeof(buf));
	r->len = (uint32_t)(sizeof(*r) + (size_t)n * sizeof(double));
	r->kind = REC_SAMPLE;
	r->nvals = (uint16_t)n;
	r->stream = (uint32_t)stream;
	r->entity = ent;
	r->ts_ns = ts;
	memcpy(buf + sizeof(*r), v, (size_t)n * sizeof(double));
	store_consume(f->s, r);
}

static void put_text(struct fx *f, int kind, int stream, uint64_t ent, uint64_t ts, const char *s)
{
	_Alignas(8) unsigned char buf[sizeof(struct rec) + 256];
	struct rec *r = (struct rec *)buf;
	size_t n = strlen(s) + 1;

	memset(buf, 0, sizeof(buf));
	r->len = (uint32_t)(sizeof(*r) + ((n + 7) & ~(size_t)7));
	r->kind = (uint8_t)kind;
	r->stream = (uint32_t)stream;
	r->entity = ent;
	r->ts_ns = ts;
	memcpy(buf + sizeof(*r), s, n);
	store_consume(f->s, r);
}

/* A scrape's text; the caller frees it. */
static char *scrape_in(struct fx *f, enum serve_format fmt, size_t procs, uint64_t window_ns)
{
	static const struct serve_collector col[] = {{"nic", true, 99.5}, {"ppu", false, NAN}};
	struct serve_snap_opts o = {.processes = procs, .window_ns = window_ns};
	struct serve_snap *s = serve_snap_take(f->s, f->t, &o);
	size_t len = 0;
	char *text;

	ck_assert_ptr_nonnull(s);
	text = serve_format(s, fmt, col, 2, "9.9", &len);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_eq(strlen(text), len);
	serve_snap_free(s);
	return text;
}

/* A scrape with the last whole bucket as its window. */
static char *scrape(struct fx *f, enum serve_format fmt, size_t procs)
{
	return scrape_in(f, fmt, procs, 0);
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

#define ck_line(text, line) ck_assert_msg(has_line(text, line), "no line '%s' in:\n%s", line, text)
#define ck_no(text, s) ck_assert_msg(!strstr(text, s), "'%s' should not be in:\n%s", s, text)

START_TEST(serve_names_units_counters)
{
	struct fx f;
	double jiffy = 1.0 / (double)sysconf(_SC_CLK_TCK);
	char *t, want[128];

	fx_init(&f);
	put_text(&f, REC_LABEL, f.nic, 3, 1 * SEC, "eth0 (rdma: mlx5_0)");
	put(&f, f.nic, 3, 1 * SEC, (double[]){1000, 10}, 2);
	put(&f, f.cpu, 0, 1 * SEC, (double[]){200, 50}, 2);
	put(&f, f.cpu, ENTITY_CPU_TOTAL, 1 * SEC, (double[]){400, 25}, 2);
	t = scrape(&f, SERVE_PROMETHEUS, 0);
	ck_line(t, "# TYPE asys_nic_rx_bytes_total counter");
	ck_line(t, "asys_nic_rx_bytes_total{netdev=\"eth0\",nic=\"mlx5_0\"} 1000");
	ck_line(t, "asys_nic_rx_packets_total{netdev=\"eth0\",nic=\"mlx5_0\"} 10");
	snprintf(want, sizeof(want), "asys_cpu_user_seconds_total{cpu=\"0\"} %.15g", 200 * jiffy);
	ck_line(t, want);
	ck_line(t, "asys_cpu_util_ratio{cpu=\"0\"} 0.5");
	ck_line(t, "asys_build_info{version=\"9.9\"} 1");
	ck_line(t, "asys_collector_up{collector=\"ppu\"} 0");
	ck_line(t, "asys_collector_rate_hz{collector=\"nic\"} 99.5");
	/* a collector that does not sample has no rate, not a rate of 0 */
	ck_no(t, "asys_collector_rate_hz{collector=\"ppu\"}");
	/* the total is what sum() makes: left out */
	ck_no(t, "18446744073709551615");
	ck_no(t, "# EOF");
	free(t);
	fx_free(&f);
}
END_TEST

/* A device's uuid and pci_bus_id come from the words of its ppu.dev
 * label: both, the bus id alone (a name with a space, no UUID), none (a
 * lost device's "n/a"). */
START_TEST(serve_ppu_device_ids)
{
	static const struct field_desc ppu_fields[] = {FIELD_DESC("temp", "C", FIELD_GAUGE)};
	static const struct stream_desc ppu_stream = {
	    "ppu.dev", 1, ENTITY_DEVICE, 1, ppu_fields, "PPU device state", .rate_hz = 1};
	struct fx f;
	int dev;
	char *t;

	fx_init(&f);
	dev = stream_table_add(f.t, &ppu_stream);
	ck_assert_int_ge(dev, 0);
	store_free(f.s);
	f.s = store_new(f.t, SEC);
	put_text(&f, REC_LABEL, dev, 0, 1 * SEC, "0: PPU 00000000:10:00.0 PPU-0a1b-2c3d");
	put_text(&f, REC_LABEL, dev, 1, 1 * SEC, "1: NVIDIA H200 00000000:11:00.0");
	put_text(&f, REC_LABEL, dev, 2, 1 * SEC, "2: PPU n/a");
	for (uint64_t d = 0; d < 3; d++)
		put(&f, dev, d, 1 * SEC, (double[]){40 + (double)d}, 1);
	t = scrape(&f, SERVE_PROMETHEUS, 0);
	ck_line(t, "asys_ppu_temp_celsius{device=\"0\",uuid=\"PPU-0a1b-2c3d\","
		   "pci_bus_id=\"00000000:10:00.0\"} 40");
	ck_line(t, "asys_ppu_temp_celsius{device=\"1\",pci_bus_id=\"00000000:11:00.0\"} 41");
	ck_line(t, "asys_ppu_temp_celsius{device=\"2\"} 42");
	free(t);
	fx_free(&f);
}
END_TEST

START_TEST(serve_escaping_nan_gone)
{
	struct fx f;
	char *t;

	fx_init(&f);
	put_text(&f, REC_LABEL, f.proc, 42, 1 * SEC, "a\"b\\c\nd\x01\xff");
	put(&f, f.proc, 42, 1 * SEC, (double[]){4096}, 1);
	put_text(&f, REC_LABEL, f.proc, 43, 1 * SEC, "gone");
	put(&f, f.proc, 43, 1 * SEC, (double[]){8192}, 1);
	put(&f, f.cpu, 1, 1 * SEC, (double[]){NAN, 20}, 2);
	t = scrape(&f, SERVE_PROMETHEUS, 10);
	ck_line(t, "asys_process_rss_bytes{pid=\"42\",comm=\"a\\\"b\\\\c\\nd??\"} 4096");
	ck_line(t, "asys_process_rss_bytes{pid=\"43\",comm=\"gone\"} 8192");
	/* unknown: no sample, never a 0 */
	ck_no(t, "asys_cpu_user_seconds_total{");
	ck_line(t, "asys_cpu_util_ratio{cpu=\"1\"} 0.2");
	free(t);
	put_text(&f, REC_GONE, f.proc, 43, 2 * SEC, "");
	t = scrape(&f, SERVE_PROMETHEUS, 10);
	ck_no(t, "pid=\"43\"");
	ck_line(t, "asys_process_rss_bytes{pid=\"42\",comm=\"a\\\"b\\\\c\\nd??\"} 4096");
	free(t);
	fx_free(&f);
}
END_TEST

/* proc.cpu names the container; mem.proc the command: each series of a
 * process carries both. */
static const struct field_desc pcpu_fields[] = {
    FIELD_DESC("utime", "s", FIELD_COUNTER),
};
static const struct stream_desc pcpu_stream = {
    "proc.cpu", 1, ENTITY_PID, 1, pcpu_fields, "per-process CPU", .rate_hz = 0};
static const struct field_desc pproc_fields[] = {
    FIELD_DESC("mem_used", "B", FIELD_GAUGE),
};
static const struct stream_desc pproc_stream = {
    "ppu.proc", 1, ENTITY_KEY, 1, pproc_fields, "device memory per process", .rate_hz = 0};

START_TEST(serve_process_container)
{
	struct fx f;
	char *t;
	int pcpu, pproc;

	fx_init(&f);
	pcpu = stream_table_add(f.t, &pcpu_stream);
	ck_assert_int_ge(pcpu, 0);
	put_text(&f, REC_LABEL, f.proc, 7, 1 * SEC, "python train.py");
	put(&f, f.proc, 7, 1 * SEC, (double[]){4096}, 1);
	put_text(&f, REC_LABEL, pcpu, 7, 1 * SEC, "docker 0123456789ab");
	put(&f, pcpu, 7, 1 * SEC, (double[]){2.5}, 1);
	t = scrape(&f, SERVE_PROMETHEUS, 5);
	ck_line(t, "asys_process_rss_bytes{pid=\"7\",comm=\"python train.py\","
		   "container=\"docker 0123456789ab\"} 4096");
	ck_line(t, "asys_process_utime_seconds_total{pid=\"7\",comm=\"python train.py\","
		   "container=\"docker 0123456789ab\"} 2.5");
	free(t);
	/* a Slurm job is a job label, not a container; PPU processes too */
	pproc = stream_table_add(f.t, &pproc_stream);
	ck_assert_int_ge(pproc, 0);
	put_text(&f, REC_LABEL, pproc, 1ull << 32 | 8, 1 * SEC, "8 srun");
	put(&f, pproc, 1ull << 32 | 8, 1 * SEC, (double[]){1024}, 1);
	put_text(&f, REC_LABEL, f.proc, 8, 1 * SEC, "srun");
	put(&f, f.proc, 8, 1 * SEC, (double[]){8192}, 1);
	put_text(&f, REC_LABEL, pcpu, 8, 1 * SEC, "job 4242");
	put(&f, pcpu, 8, 1 * SEC, (double[]){1}, 1);
	t = scrape(&f, SERVE_PROMETHEUS, 5);
	ck_line(t, "asys_process_rss_bytes{pid=\"8\",comm=\"srun\",job=\"4242\"} 8192");
	ck_line(t, "asys_ppu_process_mem_used_bytes{device=\"1\",pid=\"8\",comm=\"srun\","
		   "job=\"4242\"} 1024");
	ck_line(t, "asys_process_rss_bytes{pid=\"7\",comm=\"python train.py\","
		   "container=\"docker 0123456789ab\"} 4096");
	free(t);
	fx_free(&f);
}
END_TEST

START_TEST(serve_processes_opt_in)
{
	struct fx f;
	char *t;

	fx_init(&f);
	for (uint64_t pid = 100; pid < 110; pid++)
		put(&f, f.proc, pid, 1 * SEC, (double[]){(double)pid * 1000}, 1);
	t = scrape(&f, SERVE_PROMETHEUS, 0);
	ck_no(t, "asys_process_");
	free(t);
	t = scrape(&f, SERVE_PROMETHEUS, 2);
	ck_line(t, "asys_process_rss_bytes{pid=\"109\",comm=\"\"} 109000");
	ck_line(t, "asys_process_rss_bytes{pid=\"108\",comm=\"\"} 108000");
	ck_no(t, "pid=\"107\"");
	free(t);
	fx_free(&f);
}
END_TEST

START_TEST(serve_openmetrics)
{
	struct fx f;
	char *t;

	fx_init(&f);
	put(&f, f.nic, 3, 1 * SEC, (double[]){1000, 10}, 2);
	put(&f, f.cpu, 0, 1 * SEC, (double[]){200, 50}, 2);
	t = scrape(&f, SERVE_OPENMETRICS, 0);
	ck_line(t, "# TYPE asys_nic_rx_bytes counter");
	ck_line(t, "# UNIT asys_nic_rx_bytes bytes");
	ck_line(t, "asys_nic_rx_bytes_total{netdev=\"ifindex3\"} 1000");
	ck_line(t, "# UNIT asys_cpu_util_ratio ratio");
	/* a count has no unit */
	ck_no(t, "# UNIT asys_nic_rx_packets ");
	ck_assert_str_eq(t + strlen(t) - 6, "# EOF\n");
	free(t);
	ck_assert_int_eq(
	    serve_negotiate("application/openmetrics-text;version=1.0.0,text/plain;q=0.5"),
	    SERVE_OPENMETRICS);
	ck_assert_int_eq(serve_negotiate("text/plain"), SERVE_PROMETHEUS);
	ck_assert_int_eq(serve_negotiate(NULL), SERVE_PROMETHEUS);
	fx_free(&f);
}
END_TEST

/* 100 kB/s sampled at 100 Hz, with one 10 ms interval of 100 kB (10 MB/s)
 * at 1.5 s: every scrape whose window holds that second shows the burst,
 * however many scrapes came between (a scrape changes no window); one whose
 * window ends before or starts after does not. */
START_TEST(serve_peak_in_the_window)
{
	struct fx f;
	double bytes = 0;
	char *t;

	fx_init(&f);
	put_text(&f, REC_LABEL, f.nic, 1, 0, "veth0");
	for (uint64_t ts = 10 * MS; ts <= 2 * SEC; ts += 10 * MS) {
		bytes += ts == 1500 * MS ? 100000 : 1000;
		put(&f, f.nic, 1, ts, (double[]){bytes, 1}, 2);
	}
	for (int i = 0; i < 3; i++) {
		t = scrape_in(&f, SERVE_PROMETHEUS, 0, 15 * SEC);
		ck_line(t, "asys_nic_receive_peak_bytes_per_second{netdev=\"veth0\"} 10000000");
		free(t);
	}
	for (uint64_t ts = 2 * SEC + 10 * MS; ts <= 3 * SEC + 10 * MS; ts += 10 * MS) {
		bytes += 1000;
		put(&f, f.nic, 1, ts, (double[]){bytes, 1}, 2);
	}
	t = scrape_in(&f, SERVE_PROMETHEUS, 0, 15 * SEC);
	ck_line(t, "asys_nic_receive_peak_bytes_per_second{netdev=\"veth0\"} 10000000");
	free(t);
	/* the last whole second, [2 s, 3 s): no burst */
	t = scrape_in(&f, SERVE_PROMETHEUS, 0, SEC);
	ck_line(t, "asys_nic_receive_peak_bytes_per_second{netdev=\"veth0\"} 100000");
	free(t);
	fx_free(&f);
}
END_TEST

/* The snapshot's JSON: ids as strings, the total named, labels escaped,
 * unknown values null, counters' rates beside their raw values. */
START_TEST(serve_json_document)
{
	static const struct serve_collector col[] = {{"cpu", true, 10}, {"ppu", false, NAN}};
	struct serve_snap_opts o = {.processes = SIZE_MAX, .rates = true};
	struct fx f;
	struct serve_snap *s;
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	fx_init(&f);
	put_text(&f, REC_LABEL, f.proc, 42, 1 * SEC, "a\"b\\c\nd\x01\xff");
	put(&f, f.proc, 42, 1 * SEC, (double[]){4096}, 1);
	put(&f, f.cpu, ENTITY_CPU_TOTAL, 1 * SEC, (double[]){100, NAN}, 2);
	put(&f, f.cpu, ENTITY_CPU_TOTAL, 2 * SEC, (double[]){300, NAN}, 2);
	s = serve_snap_take(f.s, f.t, &o);
	ck_assert_ptr_nonnull(s);
	m = open_memstream(&text, &len);
	ck_assert_int_eq(serve_write_json(s, col, 2, "h\"ost", 1.5, m), 0);
	fclose(m);
	ck_assert_ptr_nonnull(strstr(text, "{\"schema\":\"asys-snapshot\",\"version\":1,"));
	ck_assert_ptr_nonnull(strstr(text, "\"host\":\"h\\\"ost\""));
	ck_assert_ptr_nonnull(strstr(
	    text, "{\"id\":\"42\",\"label\":\"a\\\"b\\\\c\\nd??\",\"values\":{\"rss\":4096}"));
	ck_assert_ptr_nonnull(strstr(text,
				     "{\"id\":\"total\",\"label\":null,\"values\":{\"user\":300,"
				     "\"util\":null},\"rates\":{\"user\":200}}"));
	ck_assert_ptr_nonnull(strstr(text, "{\"name\":\"ppu\",\"up\":false,\"rate_hz\":null}"));
	for (size_t i = 0; i < len; i++)
		ck_assert_msg((unsigned char)text[i] >= 0x20 || text[i] == '\n',
			      "raw control byte");
	free(text);
	serve_snap_free(s);
	fx_free(&f);
}
END_TEST

static Suite *serve_suite(void)
{
	Suite *s = suite_create("serve");
	TCase *tc = tcase_create("serve");

	tcase_add_test(tc, serve_names_units_counters);
	tcase_add_test(tc, serve_escaping_nan_gone);
	tcase_add_test(tc, serve_processes_opt_in);
	tcase_add_test(tc, serve_process_container);
	tcase_add_test(tc, serve_openmetrics);
	tcase_add_test(tc, serve_peak_in_the_window);
	tcase_add_test(tc, serve_json_document);
	tcase_add_test(tc, serve_ppu_device_ids);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(serve_suite(), NULL);
}
