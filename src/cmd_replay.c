#include "config.h"

#include <curses.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "bus.h"
#include "collector.h"
#include "env.h"
#include "options.h"
#include "rec_export.h"
#include "rec_player.h"
#include "ring.h"
#include "store.h"
#include "tui.h"

struct replay_args {
	const char *path;
	const char *begin;
	double delay_s, speed;
};

struct replay_ctx {
	struct rec_player *p;
	char note[128]; /* a short message in the header, such as a bad `g` time */
	uint64_t note_until;
};

/* A one-line prompt on the bottom row; the TUI has no input widget. */
static bool replay_prompt(const char *label, char *buf, size_t n)
{
	size_t len = 0;
	int y = LINES - 1;

	buf[0] = 0;
	curs_set(1);
	for (;;) {
		int ch;

		move(y, 0);
		clrtoeol();
		attron(A_REVERSE);
		mvprintw(y, 0, "%s%s", label, buf);
		attroff(A_REVERSE);
		refresh();
		ch = wgetch(stdscr);
		if (ch == ERR)
			continue;
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
			break;
		if (ch == 27 || ch == 7) { /* Esc, ^G */
			buf[0] = 0;
			break;
		}
		if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && len)
			buf[--len] = 0;
		else if (ch >= 32 && ch < 127 && len + 1 < n) {
			buf[len++] = (char)ch;
			buf[len] = 0;
		}
	}
	curs_set(0);
	move(y, 0);
	clrtoeol();
	return buf[0] != 0;
}

static void replay_status(void *ctx, char *buf, size_t n)
{
	struct replay_ctx *c = ctx;

	if (c->note[0] && asys_now_ns() < c->note_until) {
		snprintf(buf, n, "%s", c->note);
		return;
	}
	rec_player_status(c->p, buf, n);
}

static double replay_progress(void *ctx)
{
	struct replay_ctx *c = ctx;

	return rec_player_progress(c->p);
}

static bool replay_key(void *ctx, int ch)
{
	struct replay_ctx *c = ctx;
	char in[64];
	int rc;

	switch (ch) {
	case ' ':
		rec_player_toggle(c->p);
		return true;
	case '.':
		rec_player_step(c->p, 1);
		return true;
	case ',':
		rec_player_step(c->p, -1);
		return true;
	case ']':
		rec_player_speed(c->p, 2.0);
		return true;
	case '[':
		rec_player_speed(c->p, 0.5);
		return true;
	case KEY_SRIGHT:
		rec_player_seek_rel(c->p, 10000000000ll);
		return true;
	case KEY_SLEFT:
		rec_player_seek_rel(c->p, -10000000000ll);
		return true;
	case 'g':
	case 'G':
		if (!replay_prompt("Go to (14:03:10, +90s, -5m, 40%; Esc cancels): ", in,
				   sizeof(in)))
			return true;
		rc = rec_player_seek_expr(c->p, in);
		if (rc == -ERANGE)
			snprintf(c->note, sizeof(c->note), "cannot go to '%s': out of range", in);
		else if (rc)
			snprintf(c->note, sizeof(c->note),
				 "cannot go to '%s': use HH:MM:SS, +90s, -5m or 40%%", in);
		if (rc)
			c->note_until = asys_now_ns() + 4000000000ull;
		return true;
	}
	return false;
}

static int replay_run(const struct replay_args *a)
{
	struct asys_options o;
	struct replay_ctx c = {0};
	struct tui_driver drv = {0};
	struct tui_ctx tc = {0};
	struct store *store = NULL;
	struct bus *bus = NULL;
	struct ring *ring = NULL;
	const char *nc = env_get("NO_COLOR");
	char msg[512], warn[512];
	uint64_t refresh;
	int rc, ret = 1;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "asys replay: needs a terminal; use 'asys replay --info' or "
				"'asys export' without one\n");
		return 1;
	}
	c.p = rec_player_open(a->path, msg, sizeof(msg), warn, sizeof(warn));
	if (!c.p) {
		fprintf(stderr, "asys replay: %s\n", msg);
		return 1;
	}
	if (*warn)
		fprintf(stderr, "asys replay: %s\n", warn);
	options_defaults(&o);
	o.delay_s = a->delay_s;
	o.no_color = nc && *nc;
	refresh = (uint64_t)(a->delay_s * 1e9);
	store = store_new(rec_player_streams(c.p), refresh);
	bus = bus_new();
	ring = ring_new(16u << 20);
	if (!store || !bus || !ring || bus_add_ring(bus, ring) ||
	    bus_attach(bus, &store_consumer_ops, store) < 0) {
		fprintf(stderr, "asys replay: out of memory\n");
		goto cleanup;
	}
	rc = bus_start(bus, 5000000);
	if (!rc)
		rc = rec_player_start(c.p, ring, store, refresh, a->speed, a->begin);
	if (rc == -EINVAL || rc == -ERANGE) {
		char range[160];

		rec_time_range(range, sizeof(range));
		if (rc == -ERANGE)
			fprintf(stderr,
				"asys replay: --begin '%s' is out of range: asys takes %s\n",
				a->begin, range);
		else
			fprintf(stderr,
				"asys replay: bad value '%s' for --begin: expected HH:MM:SS, "
				"+90s, -5m or NN%%\n",
				a->begin);
		ret = CLI_EXIT_USAGE;
		goto cleanup;
	}
	if (rc) {
		fprintf(stderr, "asys replay: cannot start: %s\n", strerror(-rc));
		goto cleanup;
	}
	drv.ctx = &c;
	drv.status = replay_status;
	drv.key = replay_key;
	drv.progress = replay_progress;
	drv.hint = "Space pause  . , step  ] [ speed  g go to  S-Left/Right 10s";
	drv.hint_title = "Replay";
	tc.opts = &o;
	tc.store = store;
	tc.streams = rec_player_streams(c.p);
	tc.driver = &drv;
	rc = tui_run(&tc);
	if (rc < 0) {
		/* tui_run has said why for a terminal it cannot drive */
		if (rc != -ENOTTY)
			fprintf(stderr, "asys replay: cannot use this terminal: %s\n",
				strerror(-rc));
		goto cleanup;
	}
	ret = 0;
cleanup:
	rec_player_stop(c.p);
	bus_free(bus);
	store_free(store);
	ring_free(ring);
	rec_player_free(c.p);
	return ret;
}

static void replay_usage(FILE *f)
{
	fprintf(
	    f, "Usage: asys replay FILE [-d SECONDS] [--speed X] [--begin TIME]\n"
	       "       asys replay --info FILE...\n"
	       "\n"
	       "Show a recording in the same interface as asys top.\n"
	       "\n"
	       "  -d, --delay SECONDS  refresh interval of the view (default 1)\n"
	       "      --speed X        replay speed, 1/64 to 64 (default 1)\n"
	       "      --begin TIME     start at TIME (HH:MM:SS, +DURATION, NN%%)\n"
	       "      --info           print host, version, span, streams, sample counts, gaps\n"
	       "                       and damage, then exit\n"
	       "  -h, --help           show this help and exit\n"
	       "\n"
	       "Keys: space pause, . and , step one refresh, ] and [ double or halve the speed,\n"
	       "g jump to a time (14:03:10, +90s, -5m, 40%%), Shift+Left/Right 10 s back/forward,\n"
	       "q quit. See asys-replay(1).\n");
}

int cmd_replay(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"info", no_argument, NULL, 'i'},	     {"delay", required_argument, NULL, 'd'},
	    {"speed", required_argument, NULL, 'S'}, {"begin", required_argument, NULL, 'b'},
	    {"help", no_argument, NULL, 'h'},	     {NULL, 0, NULL, 0},
	};
	struct replay_args a = {.delay_s = 1.0, .speed = 1.0};
	bool info = false;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "d:h", lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			info = true;
			break;
		case 'd':
			if (sscanf(optarg, "%lf", &a.delay_s) != 1 ||
			    !(a.delay_s >= 0.1 && a.delay_s <= 3600)) {
				fprintf(
				    stderr,
				    "asys replay: bad value '%s' for --delay: expected 0.1-3600 "
				    "seconds\n",
				    optarg);
				return CLI_EXIT_USAGE;
			}
			break;
		case 'S':
			if (sscanf(optarg, "%lf", &a.speed) != 1 ||
			    !(a.speed >= 1.0 / 64 && a.speed <= 64)) {
				fprintf(stderr,
					"asys replay: bad value '%s' for --speed: expected 1/64 to "
					"64\n",
					optarg);
				return CLI_EXIT_USAGE;
			}
			break;
		case 'b':
			a.begin = optarg;
			break;
		case 'h':
			replay_usage(stdout);
			return 0;
		default:
			fprintf(stderr,
				"asys replay: unknown option or missing value '%s'; see asys "
				"replay --help\n",
				argv[optind - 1]);
			return CLI_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "asys replay: no recording given; usage: asys replay FILE\n");
		return CLI_EXIT_USAGE;
	}
	if (info)
		return rec_info_files(argv + optind, argc - optind, stdout, stderr);
	if (argc - optind > 1) {
		fprintf(stderr,
			"asys replay: one recording at a time (got %d); --info takes several\n",
			argc - optind);
		return CLI_EXIT_USAGE;
	}
	a.path = argv[optind];
	return replay_run(&a);
}
