/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "cli.h"
#include "commands.h"
#include "env.h"
#include "serve.h"
#include "ppu.h"
#include "registry.h"
#include "serve_addr.h"
#include "listen.h"
#include "session.h"
#include "sysroot.h"

static const struct cli_cmd cmd_serve_cli = {
    .sub = "serve",
    .cmd = OPT_CMD_SERVE,
    .about = "Sample as asys top does, without a screen, and serve the metrics at\n"
	     "http://127.0.0.1:9459/metrics for Prometheus. See asys-serve(1).",
};

static volatile sig_atomic_t cmd_serve_stop_sig;

static void cmd_serve_on_signal(int sig)
{
	cmd_serve_stop_sig = sig;
}

/* The stop signals are blocked in every thread (the sampling threads and
 * the HTTP thread are started after), and taken only in sigsuspend. */
static void cmd_serve_signals(sigset_t *wait_mask)
{
	struct sigaction sa = {.sa_handler = cmd_serve_on_signal};
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

#define SERVE_LIST_STREAMS 32

/* --list-metrics: the families of every stream of this build, the PPU
 * metrics as the whole catalogue (a run registers only its set). */
static int cmd_serve_list(void)
{
	const struct stream_desc *sd[SERVE_LIST_STREAMS];
	struct field_desc *cat = calloc(ppu_metric_count, sizeof(*cat));
	struct stream_desc ppu = {0};
	size_t n = 0;
	int rc;

	if (!cat) {
		fprintf(stderr, "asys serve: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < ppu_metric_count; i++)
		cat[i] = (struct field_desc)FIELD_DESC(ppu_metric_catalogue[i].name,
						       ppu_metric_catalogue[i].unit, FIELD_GAUGE);
	for (size_t i = 0; collector_registry[i]; i++) {
		const struct stream_desc *const *st = collector_registry[i]->streams;

		for (size_t k = 0; st && st[k] && n < SERVE_LIST_STREAMS; k++) {
			sd[n] = st[k];
			if (!strcmp(st[k]->name, catalogue_name(STREAM_PPU_METRICS))) {
				ppu = *st[k];
				ppu.fields = cat;
				ppu.nfields = (uint32_t)ppu_metric_count;
				sd[n] = &ppu;
			}
			n++;
		}
	}
	rc = serve_list(sd, n, stdout);
	free(cat);
	return rc < 0 ? 1 : 0;
}

int cmd_serve(int argc, char **argv)
{
	struct cli_options o;
	struct session *s = NULL;
	struct listener *sv = NULL;
	sigset_t wait_mask;
	int rc, ret = 1;

	cli_options_defaults(&o);
	if ((rc = cli_parse(&cmd_serve_cli, argc, argv, &o)) >= 0)
		return rc;
	if (o.serve.list_metrics)
		return cmd_serve_list();
	sysroot_set(env_path("ASYS_SYSROOT"));
	cmd_serve_signals(&wait_mask);
	s = session_new(&o.eng, true);
	if (!s)
		goto cleanup;
	if (env_note_count()) {
		char notes[ENV_NOTES_MAX];

		env_notes(notes, sizeof(notes));
		fprintf(stderr, "asys serve: %s\n", notes);
	}
	/* before sampling: a port in use ends the command at once */
	sv = listen_start(s, &o.serve, o.serve.listen ? o.serve.listen : SERVE_DEFAULT_LISTEN,
			  "serve");
	if (!sv)
		goto cleanup;
	rc = session_start(s);
	if (rc < 0) {
		fprintf(stderr, "asys serve: cannot start sampling threads: %s\n", strerror(-rc));
		goto cleanup;
	}
	fprintf(stderr, "asys serve: serving %s://%s/metrics\n", listen_scheme(sv),
		listen_address(sv));
	while (!cmd_serve_stop_sig)
		sigsuspend(&wait_mask);
	ret = 0;
cleanup:
	listen_stop(sv); /* no scrape reads the store past here */
	session_free(s);
	return ret;
}
