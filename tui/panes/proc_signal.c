/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "proc.h"
#include "util.h"

/* k / F9: a list of signals, SIGTERM first, then a confirmation; F7 / F8:
 * nice. Both act on this machine, so a recording refuses them, and the
 * kernel's refusal is shown in words. */

static const struct {
	int sig;
	const char *name;
} sigs[] = {
    {SIGTERM, "SIGTERM"}, {SIGKILL, "SIGKILL"}, {SIGINT, "SIGINT"},   {SIGHUP, "SIGHUP"},
    {SIGSTOP, "SIGSTOP"}, {SIGCONT, "SIGCONT"}, {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"},
};

#define NSIGS ((int)ARRAY_SIZE(sigs))

/* Why an action cannot be done on row r, or NULL. */
static const char *refusal(const struct view *v, const struct proc_row *r)
{
	if (v->recorded)
		return "not in a replay: these processes are the recording's, not this machine's";
	if (!proc_act_here())
		return "not under ASYS_SYSROOT: these processes are the tree's, not this machine's";
	if (!r)
		return "no process selected";
	if (r->flags & PR_GROUP)
		return "a group row is not a process";
	return NULL;
}

static void name_of(struct proc_pane *s, const struct proc_row *r)
{
	snprintf(s->act_name, sizeof(s->act_name), "%.80s", r->label ? r->label : "?");
}

void proc_signal_open(struct proc_pane *s, const struct view *v, const struct proc_row *r)
{
	const char *why = refusal(v, r);
	int rc;

	if (why) {
		snprintf(s->msg, sizeof(s->msg), "k: %s", why);
		return;
	}
	/* the process is held from now: the answer reaches it or nothing */
	proc_act_release(&s->target);
	rc = proc_act_hold(&s->target, r->pid, r->start);
	/* signal 0 asks the kernel whether we may, before offering the list */
	if (!rc)
		rc = proc_act_signal(&s->target, 0);
	if (rc < 0) {
		proc_act_release(&s->target);
		if (rc == -ESRCH)
			snprintf(s->msg, sizeof(s->msg),
				 "k: %llu has ended (No such process): nothing sent",
				 (unsigned long long)r->pid);
		else
			snprintf(s->msg, sizeof(s->msg), "k: cannot signal %llu: %s",
				 (unsigned long long)r->pid, strerror(-rc));
		return;
	}
	s->act_pid = r->pid;
	name_of(s, r);
	s->sig_sel = 0;
	s->mode = PM_SIGNAL;
}

static void send(struct proc_pane *s)
{
	int rc = proc_act_signal(&s->target, sigs[s->sig_sel].sig);

	proc_act_release(&s->target);
	if (rc == -ESRCH)
		snprintf(s->msg, sizeof(s->msg),
			 "%llu (%s) has ended: nothing sent (its pid may be another's now)",
			 (unsigned long long)s->act_pid, s->act_name);
	else if (rc < 0)
		snprintf(s->msg, sizeof(s->msg), "kill %s %llu: %s", sigs[s->sig_sel].name,
			 (unsigned long long)s->act_pid, strerror(-rc));
	else
		snprintf(s->msg, sizeof(s->msg), "sent %s to %llu (%s)", sigs[s->sig_sel].name,
			 (unsigned long long)s->act_pid, s->act_name);
	s->mode = PM_TABLE;
}

/* The list and the confirmation take every key; Esc cancels either. */
bool proc_signal_key(struct proc_pane *s, int ch)
{
	bool enter = ch == '\n' || ch == '\r' || ch == KEY_ENTER;

	if (ch == 27 || ch == 'q' || (s->mode == PM_CONFIRM && (ch == 'n' || ch == 'N'))) {
		s->mode = PM_TABLE;
		proc_act_release(&s->target);
		snprintf(s->msg, sizeof(s->msg), "no signal sent");
		return true;
	}
	if (s->mode == PM_CONFIRM) {
		if (ch == 'y' || ch == 'Y' || enter)
			send(s);
		return true;
	}
	if (ch == KEY_UP && s->sig_sel > 0)
		s->sig_sel--;
	else if (ch == KEY_DOWN && s->sig_sel < NSIGS - 1)
		s->sig_sel++;
	else if (ch >= '1' && ch <= '0' + NSIGS)
		s->sig_sel = ch - '1';
	else if (enter)
		s->mode = PM_CONFIRM;
	return true;
}

/* Over the top of the table, whole lines: the list, or the question. */
void proc_signal_draw(struct proc_pane *s, WINDOW *w, const struct view *v)
{
	int cols = getmaxx(w), rows = getmaxy(w), bw = cols;
	char line[160];

	if (s->mode == PM_CONFIRM) {
		snprintf(line, sizeof(line), " Send %s to %llu (%s)?  y: send  n, Esc: cancel",
			 sigs[s->sig_sel].name, (unsigned long long)s->act_pid, s->act_name);
		widget_attr_on(w, v, TC_SELECT);
		mvwhline(w, 0, 0, ' ', cols);
		widget_text(w, 0, 0, cols, line, false);
		widget_attr_off(w, v, TC_SELECT);
		return;
	}
	snprintf(line, sizeof(line), " Send signal to %llu (%s):", (unsigned long long)s->act_pid,
		 s->act_name);
	widget_attr_on(w, v, TC_TITLE);
	mvwhline(w, 0, 0, ' ', bw);
	widget_text(w, 0, 0, bw, line, false);
	widget_attr_off(w, v, TC_TITLE);
	for (int i = 0; i < NSIGS && i + 1 < rows; i++) {
		bool sel = i == s->sig_sel;

		snprintf(line, sizeof(line), " %d  %-8s (%d)%s", i + 1, sigs[i].name, sigs[i].sig,
			 i == 0 ? "  default" : "");
		if (sel)
			widget_attr_on(w, v, TC_SELECT);
		mvwhline(w, i + 1, 0, ' ', bw);
		widget_text(w, i + 1, 0, bw, line, false);
		if (sel)
			widget_attr_off(w, v, TC_SELECT);
	}
	if (NSIGS + 1 < rows) {
		mvwhline(w, NSIGS + 1, 0, ' ', bw);
		widget_text(w, NSIGS + 1, 0, bw, " Enter: choose  Esc: cancel", false);
	}
}

/* F7 / F8: nice one step down (more CPU) or up (less). */
void proc_nice(struct proc_pane *s, const struct view *v, const struct proc_row *r, int delta)
{
	const char *why = refusal(v, r);
	int now = 0, rc;

	if (why) {
		snprintf(s->msg, sizeof(s->msg), "nice: %s", why);
		return;
	}
	rc = proc_act_nice(r->pid, r->start, delta, &now);
	if (rc == -ESRCH)
		snprintf(s->msg, sizeof(s->msg), "renice %llu: it has ended (No such process)",
			 (unsigned long long)r->pid);
	else if (rc < 0)
		snprintf(s->msg, sizeof(s->msg), "renice %llu by %+d: %s",
			 (unsigned long long)r->pid, delta, strerror(-rc));
	else
		snprintf(s->msg, sizeof(s->msg), "%llu now has nice %d", (unsigned long long)r->pid,
			 now);
}
