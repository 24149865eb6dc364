/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "asysrc.h"
#include "cli.h"
#include "env.h"
#include "collector.h"
#include "commands.h"
#include "engine.h"
#include "rec_writer.h"
#include "listen.h"
#include "session.h"
#include "strsafe.h"
#include "sysroot.h"
#include "util.h"
#include "workload.h"

static const struct cli_cmd record_cli = {
    .sub = "record",
    .cmd = OPT_CMD_RECORD,
    .command = true,
    .about = "Record the metrics of asys top to a .asys file, without a screen.\n"
	     "See asys-record(1).",
};

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

/* Everything one run holds, released by record_end. */
struct record_run {
	struct cli_options o;
	struct session *s;
	struct rec_writer *w;
	struct workload wl;
	struct job_env job; /* what the collectors put in the workload */
	bool have_wl;
	int handle;
	struct listener *serve; /* --listen */
	sigset_t wait_mask;	/* the signal mask while record_wait sleeps */
};

static void record_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Blocks the stop signals in this thread and every thread started after,
 * so that they wake record_wait's ppoll, which alone unblocks them, rather
 * than land in a sampling thread and wait there for the next wake. A
 * signal that comes before is kept pending until then. */
static void record_block(struct record_run *r)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, &r->wait_mask);
	sigdelset(&r->wait_mask, SIGINT);
	sigdelset(&r->wait_mask, SIGTERM);
	sigdelset(&r->wait_mask, SIGHUP);
}

/* A descriptor that polls readable when the workload exits, or -1 where
 * the kernel has no pidfd_open. */
static int record_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

/* The workload, the session and the writer, attached and started. 0, or 1
 * after saying why on stderr. */
static int record_start(struct record_run *r, const char *cmdline)
{
	struct rec_writer_opts wo;
	char msg[512], shown[2410];
	int rc, err = 0;

	if (r->o.eng.command) {
		/* before the fork: the child inherits the region and its variables */
		workload_prepare(&r->job, &r->o.eng, "asys record");
		/* no screen to protect: the command's output stays where it was */
		if (workload_start(&r->wl, r->o.eng.command, r->o.job.log, WORKLOAD_OUT_INHERIT,
				   &r->job) < 0)
			return 1;
		r->have_wl = true;
		if (*r->wl.log)
			fprintf(stderr, "asys record: the workload's output goes to %s\n",
				str_escape(shown, sizeof(shown), r->wl.log, 200));
		workload_say(r->job.notes, "asys record");
		if (r->o.eng.npids < OPT_MAX_PIDS)
			r->o.eng.pids[r->o.eng.npids++] = r->wl.pid;
	}
	/* after the fork: the workload keeps the signals unblocked */
	record_block(r);
	/* the endpoint reads the store; a plain recording needs none */
	r->s = session_new(&r->o.eng, r->o.serve.listen != NULL);
	if (!r->s)
		return 1;
	if (r->o.serve.listen) {
		r->serve = listen_start(r->s, &r->o.serve, r->o.serve.listen, "record");
		if (!r->serve)
			return 1;
		fprintf(stderr, "asys record: serving %s://%s/metrics\n", listen_scheme(r->serve),
			listen_address(r->serve));
	}
	if (env_note_count()) {
		char notes[ENV_NOTES_MAX];

		env_notes(notes, sizeof(notes));
		fprintf(stderr, "asys record: %s\n", notes);
	}
	record_writer_opts(&wo, &r->o.rec, cmdline);
	r->w = rec_writer_new(r->s->streams, &wo, &err, msg, sizeof(msg));
	if (!r->w) {
		/* the message holds the path as given: escaped */
		fprintf(stderr, "asys record: %s\n", str_escape(shown, sizeof(shown), msg, 600));
		return 1;
	}
	r->handle =
	    bus_attach_within(r->s->bus, &rec_writer_consumer_ops, r->w, REC_WRITER_LATENCY_NS);
	if (r->handle < 0) {
		fprintf(stderr, "asys record: cannot attach the recorder: %s\n",
			strerror(-r->handle));
		return 1;
	}
	rc = session_start(r->s);
	if (rc < 0) {
		fprintf(stderr, "asys record: cannot start sampling threads: %s\n", strerror(-rc));
		return 1;
	}
	if (r->have_wl)
		workload_release(&r->wl);
	return 0;
}

/* The wait's timeout in ns from now: the rest of --duration, capped at 1 s
 * where an exit or the writer's state has no descriptor to wake on;
 * UINT64_MAX for none. */
static uint64_t record_next_ns(const struct record_run *r, uint64_t t0, bool poll_1s)
{
	uint64_t next = UINT64_MAX, el = asys_now_ns() - t0;

	if (r->o.rec.duration_s > 0) {
		double left = r->o.rec.duration_s * 1e9 - (double)el;

		next = left > 0 ? (uint64_t)left : 0;
	}
	if (poll_1s && next > 1000000000ull)
		next = 1000000000ull;
	return next;
}

/* Says when a full disk pauses the recording and when it resumes; true
 * once --max-size stopped it. */
static bool record_report(struct record_run *r, bool *was_paused)
{
	struct rec_writer_stats st;

	rec_writer_get_stats(r->w, &st);
	if (st.paused != *was_paused) {
		*was_paused = st.paused;
		if (st.paused)
			fprintf(stderr,
				"asys record: recording paused: %s; retrying every second\n",
				st.error == ENOSPC || st.error == EDQUOT || !st.error
				    ? "disk full"
				    : strerror(st.error));
		else
			fprintf(stderr, "asys record: recording resumed\n");
	}
	if (st.limit_reached)
		fprintf(stderr, "asys record: --max-size reached; stopping\n");
	return st.limit_reached;
}

/* Until a signal, --duration, the workload's end or --max-size. The thread
 * sleeps in ppoll until the first of them: the signals are blocked outside
 * it (record_start), the workload's exit wakes its pidfd, the writer's
 * state changes wake its eventfd, and --duration is the timeout. */
static void record_wait(struct record_run *r)
{
	uint64_t t0 = asys_now_ns(), next;
	bool was_paused = false, poll_1s;
	struct pollfd pf[2] = {{.fd = rec_writer_event_fd(r->w), .events = POLLIN},
			       {.fd = -1, .events = POLLIN}};

	if (r->have_wl)
		pf[1].fd = record_pidfd(r->wl.pid);
	poll_1s = pf[0].fd < 0 || (r->have_wl && pf[1].fd < 0);
	while (!record_stop) {
		if (r->have_wl && workload_poll(&r->wl))
			break;
		if (record_report(r, &was_paused))
			break;
		next = record_next_ns(r, t0, poll_1s);
		if (next == 0)
			break;
		if (next == UINT64_MAX)
			ppoll(pf, 2, NULL, &r->wait_mask);
		else
			ppoll(pf, 2,
			      &(struct timespec){(time_t)(next / 1000000000ull),
						 (long)(next % 1000000000ull)},
			      &r->wait_mask);
		if (pf[0].fd >= 0 && (pf[0].revents & POLLIN))
			(void)eventfd_read(pf[0].fd, &(eventfd_t){0});
	}
	if (pf[1].fd >= 0)
		close(pf[1].fd);
}

/* What the recording lacks because sampling fell behind: ticks a starved
 * thread skipped (over a quarter second behind at once) and records a full
 * ring refused. Without this line a gap in a 1 kHz recording is a mystery. */
static void record_say_behind(struct session *s)
{
	struct engine_group_stats st[ENGINE_MAX_GROUPS];
	int k = s && s->engine ? engine_stats(s->engine, st, ENGINE_MAX_GROUPS) : 0;

	for (int i = 0; i < k; i++) {
		char late[96] = "", lost[320] = "";

		if (!st[i].late && !st[i].dropped)
			continue;
		if (st[i].late)
			snprintf(late, sizeof(late),
				 " %llu ticks skipped (held off over 0.25 s at a time)%s",
				 (unsigned long long)st[i].late, st[i].dropped ? "," : "");
		/* by stream, so a loss says whom it hit; a workload-fed
		 * collector's ring holds nothing of the host's */
		if (st[i].dropped)
			snprintf(lost, sizeof(lost), " %llu records lost to a full ring%s%s%s%s",
				 (unsigned long long)st[i].dropped, st[i].lost[0] ? " (" : "",
				 st[i].lost, st[i].lost[0] ? ")" : "",
				 st[i].alone ? "; the workload wrote them, on a ring and a "
					       "thread apart from the host's"
					     : "");
		/* one write: stderr is unbuffered */
		fprintf(stderr, "asys record: sampling of %s at %.0f Hz fell behind:%s%s\n",
			st[i].names, st[i].hz_requested, late, lost);
	}
}

/* Stops sampling, closes the file (its trailer) and says what it holds. */
static void record_end(struct record_run *r)
{
	struct rec_writer_stats st;
	char size[32], shown[2410];
	int rc;

	listen_stop(r->serve);
	session_stop(r->s);
	record_say_behind(r->s);
	if (r->s && r->handle >= 0)
		bus_detach(r->s->bus, r->handle);
	if (r->w) {
		rc = rec_writer_close(r->w);
		rec_writer_get_stats(r->w, &st);
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
		if (rc < 0)
			fprintf(stderr, "asys record: last write failed: %s\n", strerror(-rc));
		rec_writer_free(r->w);
	}
	if (r->have_wl) {
		workload_stop(&r->wl);
		if (workload_drop_empty_log(&r->wl))
			fprintf(stderr, "asys record: removed the workload's empty log %s\n",
				str_escape(shown, sizeof(shown), r->wl.log, 200));
	}
	session_free(r->s);
}

/* asysrc's messages on stderr: record has no screen. */
static void record_config_messages(const struct asysrc *cfg)
{
	char msgs[ASYSRC_NOTES_MAX];

	if (!cfg || !asysrc_message_count(cfg))
		return;
	asysrc_messages(cfg, msgs, sizeof(msgs));
	fprintf(stderr, "%s\n", msgs);
}

int cmd_record(int argc, char **argv)
{
	struct record_run r = {.handle = -1};
	struct asysrc *cfg;
	char cmdline[1024];
	int rc, ret = 1;

	cli_options_defaults(&r.o);
	/* the files first: the command line overrides them */
	cfg = asysrc_load(&r.o, OPT_CMD_RECORD, argc, argv);
	record_config_messages(cfg);
	if ((rc = cli_parse(&record_cli, argc, argv, &r.o)) >= 0)
		goto out;
	rc = CLI_EXIT_USAGE;
	if (!r.o.rec.output) {
		fprintf(stderr,
			"asys record: no output file: add -o FILE (for example -o run.asys)\n");
		goto out;
	}
	sysroot_set(env_path("ASYS_SYSROOT"));
	join_args(cmdline, sizeof(cmdline), argc, argv);
	record_signals();
	if (record_start(&r, cmdline) == 0) {
		record_wait(&r);
		ret = 0;
	}
	record_end(&r);
	rc = ret;
out:
	asysrc_free(cfg);
	return rc;
}
