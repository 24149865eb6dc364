/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <curses.h>

#include "env.h"
#include "frame_clock.h"
#include "setup.h"
#include "store.h"
#include "strsafe.h"
#include "tui.h"
#include "tui_int.h"
#include "util.h"
#include "widget.h"

/* The longest wait for a key or the next frame. A key or a signal ends the
 * wait at once (every other thread blocks the signals, so they come here);
 * the bound only covers a signal that lands between the flag check and
 * poll(), and is the timer's end of a frame's window (frame_clock) at the
 * default refresh. Each wake costs ~70 us on a VM, so the loop does not
 * wake more than it must: at 50 ms steps, waking alone cost more than
 * htop's refresh. */
#define TUI_WAIT_MAX_MS 2000

/* Signal handlers only set these; the loop does the work. */
static volatile sig_atomic_t sig_quit;
static volatile sig_atomic_t sig_winch;
static volatile sig_atomic_t sig_tstp; /* Ctrl-Z: suspend from the loop */
static volatile sig_atomic_t sig_cont; /* continued: the screen may be stale */

static void handle_resize(struct tui *t);

static void on_quit(int sig)
{
	(void)sig;
	sig_quit = 1;
}

static void on_winch(int sig)
{
	(void)sig;
	sig_winch = 1;
}

static void on_tstp(int sig)
{
	(void)sig;
	sig_tstp = 1;
}

static void on_cont(int sig)
{
	(void)sig;
	sig_cont = 1;
}

struct saved_signals {
	struct sigaction intr, term, hup, winch, tstp, cont;
};

/* Installed before curses starts, so that ncurses (which only catches
 * signals left at SIG_DFL) leaves them to us. No SA_RESTART: a signal cuts
 * the wait for a key short. */
static void signals_install(struct saved_signals *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_quit;
	sigaction(SIGINT, &sa, &old->intr);
	sigaction(SIGTERM, &sa, &old->term);
	sigaction(SIGHUP, &sa, &old->hup);
	sa.sa_handler = on_winch;
	sigaction(SIGWINCH, &sa, &old->winch);
	sa.sa_handler = on_cont;
	sigaction(SIGCONT, &sa, &old->cont);
	/* a shell without job control starts us with Ctrl-Z ignored: keep it
	 * so, or nobody could continue us */
	sigaction(SIGTSTP, NULL, &old->tstp);
	if (old->tstp.sa_handler != SIG_IGN) {
		sa.sa_handler = on_tstp;
		sigaction(SIGTSTP, &sa, NULL);
	}
}

static void signals_restore(const struct saved_signals *old)
{
	sigaction(SIGINT, &old->intr, NULL);
	sigaction(SIGTERM, &old->term, NULL);
	sigaction(SIGHUP, &old->hup, NULL);
	sigaction(SIGWINCH, &old->winch, NULL);
	sigaction(SIGTSTP, &old->tstp, NULL);
	sigaction(SIGCONT, &old->cont, NULL);
}

/* Ctrl-Z as every TUI does it: give the terminal back, stop, and redraw
 * whole when continued (the size may have changed meanwhile). Sampling
 * threads stop with us; their ticks resume on their grid. */
static void tui_suspend(struct tui *t)
{
	struct sigaction dfl, mine;

	endwin();
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGTSTP, &dfl, &mine);
	raise(SIGTSTP);
	sigaction(SIGTSTP, &mine, NULL);
	sig_cont = 0;
	reset_prog_mode();
	/* endwin took the keypad out of application mode and the resume does
	 * not put it back: the arrows would no longer match terminfo */
	keypad(stdscr, TRUE);
	handle_resize(t);
}

static uint64_t mono_ns(void)
{
	return util_now_ns(CLOCK_MONOTONIC);
}

static bool locale_is_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}

static bool want_color(const struct tui_opts *o)
{
	const char *nc = env_get("NO_COLOR");

	if (o && o->no_color)
		return false;
	return !(nc && *nc);
}

bool tui_pane_visible(struct tui *t, int i)
{
	const struct pane *p = &t->panes[i];

	return !p->cls->visible || p->cls->visible(p, &t->v);
}

/* Next visible pane from the focus in direction dir (+1 / -1). */
static void focus_step(struct tui *t, int dir)
{
	store_lock(t->v.store);
	for (int k = 1; k <= t->npanes; k++) {
		int i = ((t->focus + dir * k) % t->npanes + t->npanes) % t->npanes;

		if (tui_pane_visible(t, i)) {
			t->focus = i;
			break;
		}
	}
	store_unlock(t->v.store);
}

static bool focus_hotkey(struct tui *t, int ch)
{
	bool found = false;

	store_lock(t->v.store);
	for (int i = 0; i < t->npanes; i++) {
		if (t->panes[i].cls->hotkey == ch && tui_pane_visible(t, i)) {
			t->focus = i;
			found = true;
			break;
		}
	}
	store_unlock(t->v.store);
	return found;
}

/* The frame's windows share stdscr's cells (frame_win.c): they go before
 * curses resizes it, and the next frame makes them at the new size. */
static void handle_resize(struct tui *t)
{
	struct winsize ws;

	tui_wins_free(t);
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
		resize_term(ws.ws_row, ws.ws_col);
	clearok(curscr, TRUE);
}

/* What a key did: nothing yet (try the next handler), its work, or quit. */
enum key_act { ACT_PASS, ACT_DONE, ACT_QUIT };

/* Keys that are never text, so they act before the focused pane sees them. */
static enum key_act fixed_key(struct tui *t, int ch)
{
	switch (ch) {
	case KEY_F(10):
		return ACT_QUIT;
	case KEY_F(1):
		t->help = true;
		t->help_top = 0;
		return ACT_DONE;
	case KEY_F(2):
		tui_setup_open(t);
		return ACT_DONE;
	case '\t':
		focus_step(t, 1);
		return ACT_DONE;
	case KEY_BTAB:
		focus_step(t, -1);
		return ACT_DONE;
	}
	return ACT_PASS;
}

/* The focused pane may use any other key (a filter being typed). */
static bool pane_key(struct tui *t, int ch)
{
	struct pane *fp = t->npanes ? &t->panes[t->focus] : NULL;
	bool used;

	if (!fp || !fp->cls->key)
		return false;
	store_lock(t->v.store);
	used = fp->cls->key(fp, ch, &t->v);
	store_unlock(t->v.store);
	return used;
}

/* The screen-wide letter keys, when the focused pane did not take the key. */
static enum key_act global_key(struct tui *t, int ch)
{
	const struct tui_driver *d = t->ctx->driver;

	switch (ch) {
	case 'q':
	case 'Q':
		return ACT_QUIT;
	case 'h':
	case '?':
		t->help = true;
		t->help_top = 0;
		return ACT_DONE;
	case 'L':
		/* opens at the newest messages */
		t->log = true;
		t->log_top = INT_MAX;
		return ACT_DONE;
	case ' ':
		/* a driver may pause its source (replay's player), not just the drawing */
		if (d && d->key && d->key(d->ctx, ch))
			return ACT_DONE;
		t->paused = !t->paused;
		return ACT_DONE;
	case 'u':
		t->v.bits = !t->v.bits;
		return ACT_DONE;
	case 'o':
		t->v.overlay = true;
		return ACT_DONE;
	case 's':
		t->v.overlay = false;
		return ACT_DONE;
	case 12: /* ^L: redraw everything */
		clearok(curscr, TRUE);
		return ACT_DONE;
	}
	return ACT_PASS;
}

/* Returns false when the key asks to quit. */
static bool handle_key(struct tui *t, int ch)
{
	const struct tui_driver *d = t->ctx->driver;
	enum key_act r;

	if (ch == KEY_RESIZE) {
		handle_resize(t);
		return true;
	}
	if (t->help && tui_help_key(t, ch))
		return true;
	if (t->log && tui_log_key(t, ch))
		return true;
	if (t->setup)
		return tui_setup_key(t, ch);
	r = fixed_key(t, ch);
	if (r != ACT_PASS)
		return r == ACT_DONE;
	if (pane_key(t, ch))
		return true;
	r = global_key(t, ch);
	if (r != ACT_PASS)
		return r == ACT_DONE;
	if (ch >= '0' && ch <= '9' && focus_hotkey(t, ch))
		return true;
	if (d && d->key)
		d->key(d->ctx, ch);
	return true;
}

static void host_info(struct tui *t)
{
	struct utsname u;

	if (uname(&u) == 0) {
		char *dot = strchr(u.nodename, '.');

		if (dot)
			*dot = '\0';
		util_strlcpy(t->src.host, u.nodename, sizeof(t->src.host));
		util_strlcpy(t->src.kernel, u.release, sizeof(t->src.kernel));
	} else {
		util_strlcpy(t->src.host, "?", sizeof(t->src.host));
		util_strlcpy(t->src.kernel, "?", sizeof(t->src.kernel));
	}
	/* live sample times are CLOCK_MONOTONIC: this maps them to the wall clock */
	t->live_origin = (int64_t)(util_now_ns(CLOCK_REALTIME) - util_now_ns(CLOCK_MONOTONIC));
}

/* A terminal that cannot place the cursor ("dumb") would get a heap of text. */
static bool can_address_cursor(void)
{
	const char *cup = tigetstr("cup");

	return cup && cup != (const char *)-1;
}

/* The panes in the order of the settings, those hidden left out. */
static void panes_init(struct tui *t)
{
	const char *names[TUI_MAX_PANES] = {NULL};
	int order[TUI_MAX_PANES], n = 0;
	bool shown[TUI_MAX_PANES];

	while (pane_registry[n] && n < TUI_MAX_PANES) {
		names[n] = pane_registry[n]->name;
		n++;
	}
	settings_order(&t->opts.ui.panes, names, n, order, shown);
	for (int k = 0; k < n; k++) {
		struct pane *p;

		if (!shown[order[k]])
			continue;
		p = &t->panes[t->npanes++];
		memset(p, 0, sizeof(*p));
		p->cls = pane_registry[order[k]];
		store_lock(t->v.store);
		p->priv = p->cls->init ? p->cls->init(&t->v) : NULL;
		store_unlock(t->v.store);
	}
	/* start on the first visible pane */
	t->focus = t->npanes - 1;
	if (t->npanes)
		focus_step(t, 1);
}

static void panes_fini(struct tui *t)
{
	for (int i = 0; i < t->npanes; i++)
		if (t->panes[i].cls->fini)
			t->panes[i].cls->fini(t->panes[i].priv);
	t->npanes = 0;
}

void tui_panes_rebuild(struct tui *t)
{
	const struct pane_class *was = t->npanes ? t->panes[t->focus].cls : NULL;

	panes_fini(t);
	panes_init(t);
	for (int i = 0; i < t->npanes; i++)
		if (t->panes[i].cls == was)
			t->focus = i;
}

/* The time between frames, from -d (one second when unset). */
static uint64_t frame_delay_ns(double delay_s)
{
	return (uint64_t)(delay_s > 0 ? delay_s * 1e9 : 1e9);
}

/* The TUI state with the view set from the options; NULL when out of memory. */
static struct tui *tui_new(const struct tui_ctx *ctx)
{
	struct tui *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->ctx = ctx;
	setlocale(LC_ALL, "");
	t->opts = *ctx->view;
	t->delay_s = ctx->opts->delay_s;
	t->v.store = ctx->store;
	t->v.streams = ctx->streams;
	t->v.opts = &t->opts;
	t->v.utf8 = locale_is_utf8();
	t->v.bits = !t->opts.ui.bytes;
	/* the frame may widen it to the store's bucket */
	t->v.window_ns = frame_delay_ns(ctx->opts->delay_s);
	host_info(t);
	return t;
}

/* Shift+Left/Right (replay's 10 s seek): tmux and xterm send CSI 1;2 D/C
 * whatever TERM says, and screen's terminfo entries do not name them, so
 * curses would hand the sequence over as bytes. */
static void shift_arrows(void)
{
	if (key_defined("\033[1;2D") == 0)
		define_key("\033[1;2D", KEY_SLEFT);
	if (key_defined("\033[1;2C") == 0)
		define_key("\033[1;2C", KEY_SRIGHT);
}

/* The curses modes of the screen: raw keys, no cursor, keys read without waiting. */
static void screen_modes(struct tui *t)
{
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	shift_arrows();
	set_escdelay(25);
	curs_set(0);
	/* keys are read only after poll() says there are some */
	nodelay(stdscr, TRUE);
	/* no typeahead checks in the middle of an update: they cost a poll and
	 * a write each, and the frame is short */
	typeahead(-1);
	tui_apply_theme(t);
}

void tui_apply_theme(struct tui *t)
{
	t->v.color = want_color(&t->opts) && has_colors() && t->opts.ui.theme != SET_THEME_MONO;
	widget_colors_init(t->v.color, t->opts.ui.theme);
	clearok(curscr, TRUE);
}

/* Installs the signal handlers and starts curses on the terminal; on failure
 * says why on stderr, restores the signals and returns NULL. */
static SCREEN *screen_open(struct tui *t, struct saved_signals *old)
{
	SCREEN *scr;
	char term[80];

	sig_quit = 0;
	sig_winch = 0;
	sig_tstp = 0;
	sig_cont = 0;
	signals_install(old);
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		signals_restore(old);
		fprintf(stderr, "asys top: cannot use terminal type '%s': set TERM\n",
			str_escape(term, sizeof(term), secure_getenv("TERM"), 64));
		return NULL;
	}
	set_term(scr);
	if (!can_address_cursor()) {
		endwin();
		delscreen(scr);
		signals_restore(old);
		fprintf(stderr,
			"asys top: terminal type '%s' cannot move the cursor: set TERM "
			"(for example TERM=xterm-256color)\n",
			str_escape(term, sizeof(term), secure_getenv("TERM"), 64));
		return NULL;
	}
	screen_modes(t);
	/* ncurses 6 flushes its output at every cursor move until the screen
	 * has been suspended once (its state stays "initial" until then): a
	 * frame costs a write(2) per move, about a hundred, and each wakes the
	 * terminal, and over SSH sends a packet. One suspend and resume before
	 * the first frame leaves that state: a frame then goes out in a few
	 * writes. */
	endwin();
	doupdate();
	/* the resume leaves the keypad out of application mode (see
	 * tui_suspend) */
	keypad(stdscr, TRUE);
	return scr;
}

/* Draws a frame every refresh (which setup may change) and answers keys
 * and signals until asked to quit. */
static void main_loop(struct tui *t)
{
	struct frame_clock fc = {.fd = -1};

	while (!sig_quit) {
		struct pollfd pfd[2] = {{.fd = STDIN_FILENO, .events = POLLIN},
					{.fd = -1, .events = POLLIN}};
		uint64_t now = mono_ns(), v;
		int ch;

		if (sig_tstp) {
			sig_tstp = 0;
			tui_suspend(t);
			fc.due = 0;
		}
		if (sig_winch || sig_cont) {
			sig_winch = sig_cont = 0;
			handle_resize(t);
			fc.due = 0;
		}
		if (frame_clock_due(&fc, now)) {
			tui_frame(t);
			now = mono_ns();
			frame_clock_next(&fc, frame_delay_ns(t->delay_s), t->ctx->driver, now);
		}
		pfd[1].fd = fc.fd;
		if (poll(pfd, 2, frame_clock_wait_ms(&fc, now, TUI_WAIT_MAX_MS)) <= 0)
			continue; /* the frame is due, or a signal came */
		if ((pfd[1].revents & POLLIN) && read(fc.fd, &v, sizeof(v)) == sizeof(v))
			fc.woken = true;
		if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			return; /* the terminal is gone */
		if (!(pfd[0].revents & POLLIN))
			continue;
		/* every key that came, so none waits in curses' own buffer */
		while ((ch = wgetch(stdscr)) != ERR) {
			if (!handle_key(t, ch))
				return;
		}
		fc.due = 0; /* answer keys at once */
	}
}

int tui_run(const struct tui_ctx *ctx)
{
	struct saved_signals old;
	struct tui *t;
	SCREEN *scr;

	if (!ctx || !ctx->store || !ctx->opts || !ctx->view)
		return -EINVAL;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "asys top: needs a terminal on stdin and stdout\n");
		return -ENOTTY;
	}
	t = tui_new(ctx);
	if (!t)
		return -ENOMEM;
	scr = screen_open(t, &old);
	if (!scr) {
		free(t);
		return -ENOTTY;
	}
	panes_init(t);
	main_loop(t);
	tui_setup_close(t);
	panes_fini(t);
	tui_wins_free(t);
	endwin();
	delscreen(scr);
	signals_restore(&old);
	free(t);
	return 0;
}
