/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: serial */
/* A stream that first appears mid-recording (a NIC showing up, a workload
 * starting): the reader knows it from the start, and when a growing file
 * brings a new SCHEMA during replay, the player adds it while the TUI and
 * the bus read the stream table: an entry must be published whole, never
 * torn or moved. Worth running under ThreadSanitizer by hand:
 *   mkdir b-tsan && cd b-tsan && ../configure CFLAGS='-g -O1 -fsanitize=thread' \
 *     LDFLAGS=-fsanitize=thread && make libasys.la tests/rec/test_late &&
 *   CK_FORK=no ./tests/rec/test_late */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus.h"
#include "rec_check.h"
#include "rec_export.h"
#include "rec_player.h"
#include "rec_testlib.h"
#include "ring.h"
#include "store.h"

static char *dir;

static void path_in(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", dir, name);
}

/* Without a trailer, the late SCHEMA sits after DATA frames: the reader
 * registers it at open all the same, so export can select it by name. */
START_TEST(late_stream_known_at_open)
{
	char p[512], msg[256], out[600];
	struct rec_reader *r;
	uint64_t n = 0, rows = 0;
	struct rec_export_opts o = {.format = REC_EXPORT_CSV, .streams = "nic.link"};
	char *files[1] = {p};
	char line[512];
	FILE *f, *err;

	for (int trailer = 0; trailer < 2; trailer++) {
		path_in(p, sizeof(p), trailer ? "late-t.asys" : "late.asys");
		ck_assert_int_eq(tl_write_late(p, 3, 1, trailer, &n), 0);
		ck_assert_int_eq(rec_reader_open(p, &r, msg, sizeof(msg), NULL, 0), 0);
		ck_assert_int_eq(rec_reader_has_trailer(r), trailer);
		ck_assert_int_ge(stream_table_find(rec_reader_streams(r), "nic.link"), 0);
		rec_reader_free(r);
		snprintf(out, sizeof(out), "%s.csv", p);
		f = fopen(out, "w+");
		err = tmpfile();
		ck_assert_int_eq(rec_export_files(&o, files, 1, f, err), 0);
		rewind(f);
		rows = 0;
		while (fgets(line, sizeof(line), f))
			rows += strstr(line, ",nic.link,7,late0,rx_bytes,B,") != NULL;
		ck_assert_uint_eq(rows, n);
		fclose(f);
		fclose(err);
	}
}
END_TEST

struct tap {
	_Atomic uint64_t late;
	int late_id;
};

static void tap_consume(void *ctx, const struct rec *r)
{
	struct tap *t = ctx;

	if ((int)r->stream == t->late_id && r->kind == REC_SAMPLE)
		atomic_fetch_add(&t->late, 1);
}

static const struct bus_consumer_ops tap_ops = {.consume = tap_consume};

struct ui {
	const struct stream_table *t;
	struct store *st;
	_Atomic bool stop;
	_Atomic uint64_t seen_late; /* reads that found nic.link with its label */
	uint64_t loops;
};

/* What the TUI thread does each frame: walk the table, find streams by
 * name, read their series. */
static void *ui_thread(void *arg)
{
	struct ui *u = arg;

	while (!atomic_load(&u->stop)) {
		uint32_t n = stream_table_count(u->t);
		size_t len = 0;
		int id;

		for (uint32_t i = 0; i < n; i++) {
			const struct stream_desc *d = stream_table_get(u->t, i);

			ck_assert_ptr_nonnull(d);
			len += strlen(d->name) + d->nfields;
			for (uint32_t f = 0; f < d->nfields; f++)
				len += strlen(d->fields[f].name) + strlen(d->fields[f].unit);
		}
		ck_assert_uint_gt(len, 0);
		id = stream_table_find(u->t, "nic.link");
		if (id >= 0) {
			const struct series *se;

			ck_assert_uint_eq(stream_table_get(u->t, (uint32_t)id)->nfields, 8);
			store_lock(u->st);
			se = store_series(u->st, (uint32_t)id, TL_LATE_IFINDEX);
			if (se && series_label(se) && !strcmp(series_label(se), "late0"))
				atomic_fetch_add(&u->seen_late, 1);
			store_unlock(u->st);
		}
		u->loops++;
		usleep(200);
	}
	return NULL;
}

static int copy_range(const char *from, const char *to, off_t a, off_t b, int flags)
{
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | flags, 0644);
	char buf[65536];
	int rc = -1;

	if (in < 0 || out < 0)
		goto cleanup;
	while (a < b) {
		ssize_t k = pread(in, buf,
				  (size_t)(b - a) < sizeof(buf) ? (size_t)(b - a) : sizeof(buf), a);

		if (k <= 0 || write(out, buf, (size_t)k) != k)
			goto cleanup;
		a += k;
	}
	rc = 0;
cleanup:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

/* A replay of a growing file into a store, with a tap that counts the late
 * stream's samples: what both replay tests below set up and tear down. */
struct rig {
	struct rec_player *pl;
	struct store *st;
	struct bus *b;
	struct ring *ring;
	struct tap tap;
};

/* Opens path (which lacks the late stream so far) and starts replaying it,
 * paused or not. */
static const struct stream_table *rig_start(struct rig *g, const char *path, bool paused)
{
	char msg[256];
	const struct stream_table *t;

	memset(g, 0, sizeof(*g));
	g->pl = rec_player_open(path, msg, sizeof(msg), NULL, 0);
	ck_assert_msg(g->pl != NULL, "%s", msg);
	t = rec_player_streams(g->pl);
	ck_assert_int_lt(stream_table_find(t, "nic.link"), 0);
	g->tap.late_id = (int)stream_table_count(t); /* the id it will get */
	g->st = store_new(t, 100000000ull);
	g->b = bus_new();
	g->ring = ring_new(1 << 22);
	ck_assert(g->st && g->b && g->ring);
	ck_assert_int_eq(bus_add_ring(g->b, g->ring), 0);
	ck_assert_int_ge(bus_attach(g->b, &store_consumer_ops, g->st), 0);
	ck_assert_int_ge(bus_attach(g->b, &tap_ops, &g->tap), 0);
	ck_assert_int_eq(bus_start(g->b, 2000000), 0);
	rec_player_pause(g->pl, paused);
	ck_assert_int_eq(rec_player_start(g->pl, g->ring, g->st, 100000000ull, 64, NULL), 0);
	return t;
}

/* Waits up to 10 s for the replay to reach the end of what is there. */
static void rig_wait_end(struct rig *g)
{
	for (int i = 0; i < 1000 && !rec_player_at_end(g->pl); i++)
		usleep(10000);
	ck_assert(rec_player_at_end(g->pl));
	usleep(100000); /* the bus's last drain */
}

/* Every late sample reached the bus, none lost to a full ring; frees all. */
static void rig_end(struct rig *g, uint64_t nlate)
{
	ck_assert_uint_eq(atomic_load(&g->tap.late), nlate);
	ck_assert_uint_eq(ring_dropped(g->ring), 0);
	rec_player_stop(g->pl);
	bus_free(g->b);
	store_free(g->st);
	ring_free(g->ring);
	rec_player_free(g->pl);
}

/* A whole recording with a late stream at NAME-full.asys (its frames in fr)
 * and the path of the growing copy the test makes, NAME-grow.asys. */
static size_t late_file(const char *name, char full[512], char grow[512], struct tl_frame *fr,
			size_t max, uint64_t *nlate)
{
	snprintf(full, 512, "%s/%s-full.asys", dir, name);
	snprintf(grow, 512, "%s/%s-grow.asys", dir, name);
	ck_assert_int_eq(tl_write_late(full, 5, 2, false, nlate), 0);
	return tl_frames(full, fr, max);
}

/* The file grows during replay with a stream it did not have at open: the
 * player thread adds it while a UI thread and the bus read the table. */
START_TEST(late_stream_added_during_replay)
{
	char full[512], grow[512];
	struct tl_frame fr[4096];
	size_t nf, first_data = 0;
	uint64_t nlate = 0, cut = 0, end = 0;
	struct rig g;
	struct ui u = {0};
	pthread_t th;

	nf = late_file("late", full, grow, fr, sizeof(fr) / sizeof(fr[0]), &nlate);
	for (size_t i = 0; i < nf; i++) {
		if (fr[i].type == REC_FT_DATA && !first_data)
			first_data = i;
		if (fr[i].type == REC_FT_SCHEMA && first_data && !cut)
			cut = fr[i].off;
		end = fr[i].end;
	}
	ck_assert_uint_gt(cut, 0); /* the late SCHEMA comes after data */
	ck_assert_int_eq(copy_range(full, grow, 0, (off_t)cut, O_TRUNC), 0);

	u.t = rig_start(&g, grow, true);
	u.st = g.st;
	ck_assert_int_eq(pthread_create(&th, NULL, ui_thread, &u), 0);
	usleep(200000); /* paused at the start, it reads 1 s ahead, not to the cut */
	ck_assert_int_eq(copy_range(full, grow, (off_t)cut, (off_t)end, O_APPEND), 0);
	rec_player_pause(g.pl, false);
	rig_wait_end(&g);
	atomic_store(&u.stop, true);
	pthread_join(th, NULL);
	ck_assert_int_eq(stream_table_find(u.t, "nic.link"), g.tap.late_id);
	ck_assert_uint_gt(atomic_load(&u.seen_late), 0);
	rig_end(&g, nlate);
}
END_TEST

/* A replay that caught up with a recording still being written, at a frame
 * boundary, goes on when the file grows: the end of a file without a
 * trailer is not final. */
START_TEST(replay_follows_after_catching_up)
{
	char full[512], grow[512];
	struct tl_frame fr[4096];
	size_t nf;
	uint64_t nlate = 0, cut = 0, end = 0;
	struct rig g;
	int i;

	nf = late_file("follow", full, grow, fr, sizeof(fr) / sizeof(fr[0]), &nlate);
	for (size_t k = 0; k < nf; k++) {
		/* the last DATA frame's end before the late SCHEMA */
		if (fr[k].type == REC_FT_SCHEMA && cut)
			break;
		if (fr[k].type == REC_FT_DATA)
			cut = fr[k].end;
	}
	end = fr[nf - 1].end;
	ck_assert_uint_gt(cut, 0);
	ck_assert_int_eq(copy_range(full, grow, 0, (off_t)cut, O_TRUNC), 0);

	rig_start(&g, grow, false);
	rig_wait_end(&g); /* caught up, at a frame boundary */
	usleep(200000);
	ck_assert_int_eq(copy_range(full, grow, (off_t)cut, (off_t)end, O_APPEND), 0);
	for (i = 0; i < 300 && rec_player_at_end(g.pl); i++)
		usleep(10000);
	ck_assert_msg(!rec_player_at_end(g.pl), "the replay did not go on when the file grew");
	rig_wait_end(&g);
	rig_end(&g, nlate);
}
END_TEST

static Suite *late_suite(void)
{
	Suite *s = suite_create("rec-late");
	TCase *tc = tcase_create("late");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, late_stream_known_at_open);
	tcase_add_test(tc, late_stream_added_during_replay);
	tcase_add_test(tc, replay_follows_after_catching_up);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rec_check_main(late_suite, &dir);
}
