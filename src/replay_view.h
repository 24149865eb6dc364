/* The replay view: a recording in the panes of asys top, played by the
 * player, with the replay keys. asys replay and asys demo both run it. */
#ifndef ASYS_REPLAY_VIEW_H
#define ASYS_REPLAY_VIEW_H

#include <stdbool.h>

struct replay_view {
	const char *prog;   /* "asys replay": the first words of every message */
	const char *no_tty; /* the rest of the sentence when there is no terminal */
	const char *path;
	const char *begin; /* a time expression, or NULL for the start */
	double delay_s, speed;
	/* at the end, go back to where the replay began and play on */
	bool loop;
};

/* -d and --speed, checked alike by every command that shows the view: 0,
 * or -EINVAL after saying on stderr what is expected. */
int replay_view_parse_delay(struct replay_view *a, const char *arg);
int replay_view_parse_speed(struct replay_view *a, const char *arg);

/* Runs until q; returns the exit status: 0, 1 when the file or the
 * terminal cannot be used, 2 for a bad begin time. */
int replay_view_run(const struct replay_view *a);

#endif
