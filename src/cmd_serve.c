#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "env.h"
#include "expo_addr.h"
#include "serve.h"
#include "session.h"
#include "sysroot.h"

static const struct cli_cmd serve_cli = {
    .sub = "serve",
    .cmd = OPT_CMD_SERVE,
    .about = "Sample as asys top does, without a screen, and serve the metrics at\n"
	     "http://127.0.0.1:9459/metrics for Prometheus. See asys-serve(1).",
};

static volatile sig_atomic_t serve_stop_sig;

static void serve_on_signal(int sig)
{
	serve_stop_sig = sig;
}

/* The stop signals are blocked in every thread (the sampling threads and
 * the HTTP thread are started after), and taken only in sigsuspend. */
static void serve_signals(sigset_t *wait_mask)
{
	struct sigaction sa = {.sa_handler = serve_on_signal};
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	sigset_t set;

	sigemptyset(&sa.sa_mask);
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&set, sigs[i]);
	}
	signal(SIGPIPE, SIG_IGN);
	pthread_sigmask(SIG_BLOCK, &set, wait_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigdelset(wait_mask, sigs[i]);
}

int cmd_serve(int argc, char **argv)
{
	struct asys_options o;
	struct session *s = NULL;
	struct serve *sv = NULL;
	sigset_t wait_mask;
	int rc, ret = 1;

	options_defaults(&o);
	if ((rc = cli_parse(&serve_cli, argc, argv, &o)) >= 0)
		return rc;
	sysroot_set(env_path("ASYS_SYSROOT"));
	serve_signals(&wait_mask);
	s = session_new(&o, true);
	if (!s)
		goto cleanup;
	if (env_note_count()) {
		char notes[ENV_NOTES_MAX];

		env_notes(notes, sizeof(notes));
		fprintf(stderr, "asys serve: %s\n", notes);
	}
	/* before sampling: a port in use ends the command at once */
	sv = serve_start(s, &o, o.listen ? o.listen : EXPO_DEFAULT_LISTEN, "serve");
	if (!sv)
		goto cleanup;
	rc = session_start(s);
	if (rc < 0) {
		fprintf(stderr, "asys serve: cannot start sampling threads: %s\n", strerror(-rc));
		goto cleanup;
	}
	fprintf(stderr, "asys serve: serving http://%s/metrics\n", serve_address(sv));
	while (!serve_stop_sig)
		sigsuspend(&wait_mask);
	ret = 0;
cleanup:
	serve_stop(sv); /* no scrape reads the store past here */
	session_free(s);
	return ret;
}
