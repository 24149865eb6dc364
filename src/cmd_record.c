#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "env.h"
#include "ppu_cli.h"
#include "collector.h"
#include "commands.h"
#include "rec_writer.h"
#include "session.h"
#include "strsafe.h"
#include "sysroot.h"
#include "util.h"
#include "workload.h"

#define RECORD_GROUPS                                                                              \
	(CLI_G_COMMON | CLI_G_PPU | CLI_G_NIC | CLI_G_PROBES | CLI_G_OUTPUT | CLI_G_RECORD |       \
	 CLI_G_COMMAND)

static volatile sig_atomic_t record_stop;

static void on_signal(int sig)
{
	record_stop = sig;
}

/* The command line, for the file's META. */
static void join_args(char *buf, size_t n, int argc, char **argv)
{
	size_t l = (size_t)snprintf(buf, n, "asys");

	for (int i = 0; i < argc && l < n; i++)
		l += (size_t)snprintf(buf + l, n - l, " %s", argv[i]);
}

int cmd_record(int argc, char **argv)
{
	struct asys_options o;
	struct session *s = NULL;
	struct rec_writer *w = NULL;
	struct rec_writer_opts wo;
	struct rec_writer_stats st;
	struct workload wl;
	bool have_wl = false, was_paused = false;
	struct sigaction sa = {.sa_handler = on_signal};
	char cmdline[1024], msg[512], size[32], shown[2410];
	uint64_t t0;
	int rc, err = 0, handle = -1, ret = 1;

	options_defaults(&o);
	rc = cli_parse("record", RECORD_GROUPS, argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	if ((rc = ppu_cli_early(&o, "record", stdout)) >= 0)
		return rc;
	if (!o.output) {
		fprintf(stderr,
			"asys record: no output file: add -o FILE (for example -o run.asys)\n");
		return CLI_EXIT_USAGE;
	}
	sysroot_set(env_path("ASYS_SYSROOT"));
	join_args(cmdline, sizeof(cmdline), argc, argv);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (o.command) {
		char log[WORKLOAD_SHOWN];

		if (workload_start(&wl, o.command, o.workload_log) < 0)
			return 1;
		have_wl = true;
		fprintf(stderr, "asys record: the workload's output goes to %s\n",
			str_escape(log, sizeof(log), wl.log, 200));
		if (o.npids < OPT_MAX_PIDS)
			o.pids[o.npids++] = wl.pid;
	}
	s = session_new(&o, false);
	if (!s)
		goto cleanup;
	if (env_note_count()) {
		char notes[ENV_NOTES_MAX];

		env_notes(notes, sizeof(notes));
		fprintf(stderr, "asys record: %s\n", notes);
	}
	rec_writer_opts_from(&wo, &o, cmdline);
	w = rec_writer_new(s->streams, &wo, &err, msg, sizeof(msg));
	if (!w) {
		/* the message holds the path as given: escaped */
		fprintf(stderr, "asys record: %s\n", str_escape(shown, sizeof(shown), msg, 600));
		goto cleanup;
	}
	handle = bus_attach_within(s->bus, &rec_writer_consumer_ops, w, REC_WRITER_LATENCY_NS);
	if (handle < 0) {
		fprintf(stderr, "asys record: cannot attach the recorder: %s\n", strerror(-handle));
		goto cleanup;
	}
	rc = session_start(s);
	if (rc < 0) {
		fprintf(stderr, "asys record: cannot start sampling threads: %s\n", strerror(-rc));
		goto cleanup;
	}
	if (have_wl)
		workload_release(&wl);
	t0 = asys_now_ns();
	while (!record_stop) {
		struct timespec ts = {0, 50000000};

		nanosleep(&ts, NULL);
		if (o.duration_s > 0 && (double)(asys_now_ns() - t0) / 1e9 >= o.duration_s)
			break;
		if (have_wl && workload_poll(&wl))
			break;
		rec_writer_get_stats(w, &st);
		if (st.paused != was_paused) {
			was_paused = st.paused;
			if (was_paused)
				fprintf(stderr,
					"asys record: recording paused: %s; retrying every "
					"second\n",
					st.error == ENOSPC || st.error == EDQUOT || !st.error
					    ? "disk full"
					    : strerror(st.error));
			else
				fprintf(stderr, "asys record: recording resumed\n");
		}
		if (st.limit_reached) {
			fprintf(stderr, "asys record: --max-size reached; stopping\n");
			break;
		}
	}
	ret = 0;
cleanup:
	session_stop(s);
	if (s && handle >= 0)
		bus_detach(s->bus, handle);
	if (w) {
		rc = rec_writer_close(w);
		rec_writer_get_stats(w, &st);
		util_fmt_bytes(size, sizeof(size), (double)st.bytes);
		fprintf(stderr, "asys record: %s: %llu records, %s%s",
			str_escape(shown, sizeof(shown), st.path, 600),
			(unsigned long long)st.records, size, st.segment ? "" : "\n");
		if (st.segment)
			fprintf(stderr, " in %u segments\n", st.segment + 1);
		if (st.dropped)
			fprintf(stderr,
				"asys record: %llu records lost (disk full or writer behind)\n",
				(unsigned long long)st.dropped);
		if (rc < 0) {
			fprintf(stderr, "asys record: last write failed: %s\n", strerror(-rc));
		}
		rec_writer_free(w);
	}
	if (have_wl)
		workload_stop(&wl);
	session_free(s);
	return ret;
}
