/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "asysrc.h"
#include "asysrc_int.h"
#include "cli.h"
#include "env.h"
#include "setup.h"
#include "strsafe.h"
#include "util.h"

#define ASYSRC_SYSTEM "/etc/asys/asysrc"

/* Options of the command line that are about one run, not a preference:
 * a file holding them would surprise every later run. */
static const char *const asysrc_not_kept[] = {
    "pid",	"workload-log", "output",    "force",
    "duration", "max-size",	"rotate",    "begin",
    "end",	"info",		"once",	     "format",
    "streams",	"summary",	"no-config", "check-ppu-metrics-list",
};

/* The user's directory for asysrc: $XDG_CONFIG_HOME/asys when that is an
 * absolute path (the XDG rule), else $HOME/.config/asys, else the home of
 * the passwd entry. With privileges, only where root alone could have put
 * it: the caller must not lead asys to read, or write, another's file. */
static int asysrc_user_dir(char *buf, size_t n, char *why, size_t wn)
{
	const char *xdg = secure_getenv("XDG_CONFIG_HOME"), *home = secure_getenv("HOME");
	struct passwd *pw;
	int len;

	if (xdg && xdg[0] == '/') {
		len = snprintf(buf, n, "%s/asys", xdg);
	} else {
		if (!home || home[0] != '/') {
			pw = getpwuid(geteuid());
			home = pw ? pw->pw_dir : NULL;
		}
		if (!home || home[0] != '/') {
			snprintf(why, wn, "no home directory");
			return -ENOENT;
		}
		len = snprintf(buf, n, "%s/.config/asys", home);
	}
	if (len < 0 || (size_t)len >= n - sizeof("/asysrc")) {
		snprintf(why, wn, "the path is too long");
		return -ENAMETOOLONG;
	}
	if (env_privileged() && env_trusted_path(buf, why, wn))
		return -EPERM;
	return 0;
}

struct asysrc *asysrc_new(unsigned cmd)
{
	struct asysrc *c = calloc(1, sizeof(*c));
	const char *root;
	char why[200];
	int rc;

	if (!c)
		return NULL;
	c->cmd = cmd;
	root = env_path("ASYS_SYSROOT");
	if (snprintf(c->system, sizeof(c->system), "%s%s", root && strcmp(root, "/") ? root : "",
		     ASYSRC_SYSTEM) >= (int)sizeof(c->system))
		c->system[0] = '\0';
	rc = asysrc_user_dir(c->user, sizeof(c->user), why, sizeof(why));
	if (rc == -EPERM) {
		/* asysrc_user_dir left room for the name */
		if (snprintf(c->denied, sizeof(c->denied), "%s/asysrc", c->user) >=
		    (int)sizeof(c->denied))
			c->denied[0] = '\0';
		snprintf(c->user_why, sizeof(c->user_why),
			 "not used: asys runs with privileges, and %s", why);
	} else if (rc) {
		snprintf(c->user_why, sizeof(c->user_why), "no file of the user's: %s", why);
	}
	if (rc)
		c->user[0] = '\0';
	else
		strcat(c->user, "/asysrc");
	return c;
}

void asysrc_free(struct asysrc *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->ntext; i++)
		free(c->text[i]);
	free(c);
}

const char *asysrc_user_path(const struct asysrc *c)
{
	return c->user;
}

const char *asysrc_system_path(const struct asysrc *c)
{
	return c->system;
}

/* One message: "PATH:LINE: text" (no line when ln is 0). */
__attribute__((format(printf, 4, 5))) static void asysrc_msg(struct asysrc *c, const char *path,
							     int ln, const char *fmt, ...)
{
	char raw[ASYSRC_MSG_LEN], text[ASYSRC_MSG_LEN], shown[256];
	va_list ap;

	c->total++;
	if (c->nmsg >= ASYSRC_MSGS_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* the option parsers echo the file's values: escaped here, whoever
	 * wrote the message (a message escaped already has nothing to do) */
	if (str_needs_escape(raw))
		str_escape(text, sizeof(text), raw, 0);
	else
		memcpy(text, raw, sizeof(text));
	str_escape(shown, sizeof(shown), path, 160);
	/* cut when long: the file's name and line come first */
	if ((ln ? snprintf(c->msg[c->nmsg], ASYSRC_MSG_LEN, "%s:%d: %s", shown, ln, text)
		: snprintf(c->msg[c->nmsg], ASYSRC_MSG_LEN, "%s: %s", shown, text)) >=
	    ASYSRC_MSG_LEN)
		c->msg[c->nmsg][ASYSRC_MSG_LEN - 1] = '\0';
	c->nmsg++;
}

void asysrc_messages(const struct asysrc *c, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < c->nmsg && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "\n" : "", c->msg[i]);
	if (c->total > c->nmsg && len < n)
		snprintf(buf + len, n - len, "\nasysrc: %d more messages not shown",
			 c->total - c->nmsg);
}

int asysrc_message_count(const struct asysrc *c)
{
	return c->total;
}

/* Up to ASYSRC_FILE_MAX + 1 bytes into buf: the file may grow between
 * fstat and read, and one byte over says so. 0 or -errno. */
int asysrc_slurp(const char *path, char **out, size_t *len, char *why, size_t n)
{
	int rc;
	/* no final symbolic link, no FIFO to block on, no terminal to take */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	*out = NULL;
	if (fd < 0) {
		rc = -errno;
		if (rc == -ELOOP)
			snprintf(why, n, "a symbolic link: not read (name the file itself)");
		else if (rc != -ENOENT)
			snprintf(why, n, "cannot read: %s", strerror(-rc));
		return rc;
	}
	rc = env_read_fd(fd, ASYSRC_FILE_MAX, out, len);
	if (rc == -EINVAL)
		snprintf(why, n, "not a regular file: not read");
	else if (rc == -EFBIG)
		snprintf(why, n, "larger than %d KiB: not read", ASYSRC_FILE_MAX / 1024);
	else if (rc == -ENOMEM)
		snprintf(why, n, "out of memory");
	else if (rc)
		snprintf(why, n, "cannot read: %s", strerror(-rc));
	close(fd);
	return rc;
}

const char *asysrc_next_line(const char **p, const char *end, size_t *len)
{
	const char *s = *p, *nl;

	if (s >= end)
		return NULL;
	nl = memchr(s, '\n', (size_t)(end - s));
	*len = nl ? (size_t)(nl - s) : (size_t)(end - s);
	*p = nl ? nl + 1 : end;
	return s;
}

static bool asysrc_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

/* line[0..*len) without the blanks around it. */
static const char *asysrc_trim(const char *line, size_t *len)
{
	while (*len && asysrc_blank(*line)) {
		line++;
		(*len)--;
	}
	while (*len && asysrc_blank(line[*len - 1]))
		(*len)--;
	return line;
}

bool asysrc_header(const char *line, size_t len, enum asysrc_section *s)
{
	line = asysrc_trim(line, &len);
	if (!len || line[0] != '[' || line[len - 1] != ']')
		return false;
	line++;
	len -= 2;
	line = asysrc_trim(line, &len);
	if (len == 7 && !strncasecmp(line, "options", 7))
		*s = CS_OPTIONS;
	else if (len == 7 && !strncasecmp(line, "display", 7))
		*s = CS_DISPLAY;
	else
		*s = CS_UNKNOWN;
	return true;
}

bool asysrc_key(const char *line, size_t len, const char **key, size_t *klen)
{
	const char *eq;

	line = asysrc_trim(line, &len);
	if (!len || line[0] == '#' || line[0] == ';' || line[0] == '[')
		return false;
	eq = memchr(line, '=', len);
	if (!eq)
		return false;
	*klen = (size_t)(eq - line);
	*key = asysrc_trim(line, klen);
	return *klen > 0;
}

static bool asysrc_kept(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(asysrc_not_kept); i++)
		if (!strcmp(key, asysrc_not_kept[i]))
			return false;
	return true;
}

/* One name of a list of choices, any case: its index, or -1. */
static int asysrc_choice(const char *const *choices, const char *val)
{
	for (int i = 0; choices[i]; i++)
		if (!strcasecmp(val, choices[i]))
			return i;
	return -1;
}

static const char *const asysrc_units[] = {"bits", "bytes", "bit/s", "B/s", NULL};
static const char *const asysrc_orders[] = {"descending", "ascending", NULL};

/* A [display] key. 0, -ENOENT (no such key) or -EINVAL with err. */
static int asysrc_display(struct asys_settings *u, const char *key, const char *val, char *err,
			  size_t n)
{
	char why[200];
	int i;

	if (!strcmp(key, "panes") || !strcmp(key, "columns")) {
		bool panes = key[0] == 'p';

		if (settings_parse_list(val, panes ? &u->panes : &u->columns,
					panes ? tui_setup_pane_name : tui_setup_column_name, why,
					sizeof(why)) == 0)
			return 0;
		snprintf(err, n, "bad value for %s: %s", key, why);
		return -EINVAL;
	}
	if (!strcmp(key, "theme")) {
		if ((i = asysrc_choice(settings_themes, val)) < 0)
			goto bad;
		u->theme = i;
		return 0;
	}
	if (!strcmp(key, "units")) {
		/* in case: b/s is bits to some, B/s bytes to all */
		for (i = 0; asysrc_units[i] && strcmp(val, asysrc_units[i]); i++)
			;
		if (!asysrc_units[i])
			goto bad;
		u->bytes = i % 2 == 1;
		return 0;
	}
	if (!strcmp(key, "sort")) {
		if (!tui_setup_column_name(val, u->sort, sizeof(u->sort)))
			goto bad;
		return 0;
	}
	if (!strcmp(key, "sort-order")) {
		if ((i = asysrc_choice(asysrc_orders, val)) < 0)
			goto bad;
		u->sort_asc = i == 1;
		return 0;
	}
	return -ENOENT;
bad:
	opt_bad_value(err, n, key, val,
		      !strcmp(key, "theme")   ? "default, light, midnight or mono"
		      : !strcmp(key, "units") ? "bits or bytes"
		      : !strcmp(key, "sort")  ? "a column of the process table, such as RSS"
					      : "descending or ascending");
	return -EINVAL;
}

/* An [options] key: a long option of the command line. */
static int asysrc_option(struct asysrc *c, struct cli_options *o, const char *key, const char *val,
			 char *err, size_t n)
{
	int rc;

	if (!asysrc_kept(key)) {
		snprintf(err, n, "%s is for one run: give it on the command line", key);
		return -EINVAL;
	}
	/* a listing ends the command: every run would stop at it */
	if (!strcmp(val, "help")) {
		snprintf(err, n, "%s = help lists the choices: ask on the command line", key);
		return -EINVAL;
	}
	rc = cli_set_quiet(c->cmd, o, key, val, err, n);
	return rc == 1 ? 0 : rc;
}

static const char *const asysrc_section_names[] = {"options", "display"};

/* A key line, cut in place into key and value. 1 applied, 0 not, after a
 * message. */
static int asysrc_pair(struct asysrc *c, struct cli_options *o, const char *path, int ln,
		       char *line, size_t len, enum asysrc_section sec)
{
	char *eq = memchr(line, '=', len), err[ASYSRC_MSG_LEN - 64], shown[200];
	const char *key, *val;
	size_t klen, vlen;
	int rc;

	if (!eq) {
		asysrc_msg(c, path, ln, "expected 'key = value', '[section]' or a comment");
		return 0;
	}
	klen = (size_t)(eq - line);
	key = asysrc_trim(line, &klen);
	vlen = len - (size_t)(eq + 1 - line);
	val = asysrc_trim(eq + 1, &vlen);
	if (!klen) {
		asysrc_msg(c, path, ln, "no key before '='");
		return 0;
	}
	((char *)key)[klen] = '\0';
	((char *)val)[vlen] = '\0';
	if (!vlen) {
		asysrc_msg(c, path, ln, "no value for %s",
			   str_escape(shown, sizeof(shown), key, 40));
		return 0;
	}
	err[0] = '\0';
	rc = sec == CS_DISPLAY ? asysrc_display(&o->view.ui, key, val, err, sizeof(err))
			       : asysrc_option(c, o, key, val, err, sizeof(err));
	if (rc == -ENOENT) {
		asysrc_msg(c, path, ln, "unknown key '%s' in [%s]",
			   str_escape(shown, sizeof(shown), key, 40), asysrc_section_names[sec]);
		return 0;
	}
	if (rc) {
		asysrc_msg(c, path, ln, "%s", err);
		return 0;
	}
	return 1;
}

/* One line of a file. 1 when it set something. */
static int asysrc_line(struct asysrc *c, struct cli_options *o, const char *path, int ln,
		       char *line, size_t len, enum asysrc_section *sec)
{
	char shown[200], name[80];
	const char *t;
	size_t tlen = len;

	if (len > ASYSRC_LINE_MAX) {
		asysrc_msg(c, path, ln, "line longer than %d bytes: ignored", ASYSRC_LINE_MAX);
		return 0;
	}
	if (memchr(line, '\0', len)) {
		asysrc_msg(c, path, ln, "a NUL byte: line ignored");
		return 0;
	}
	t = asysrc_trim(line, &tlen);
	if (!tlen || t[0] == '#' || t[0] == ';')
		return 0;
	if (t[0] == '[') {
		if (!asysrc_header(t, tlen, sec)) {
			*sec = CS_UNKNOWN;
			asysrc_msg(c, path, ln,
				   "a section header needs a closing ']': its lines "
				   "are ignored");
		} else if (*sec == CS_UNKNOWN) {
			snprintf(name, sizeof(name), "%.*s", (int)(tlen < 60 ? tlen : 60), t);
			asysrc_msg(c, path, ln,
				   "unknown section %s: its lines are ignored "
				   "(expected [options] or [display])",
				   str_escape(shown, sizeof(shown), name, 60));
		}
		return 0;
	}
	if (*sec == CS_UNKNOWN)
		return 0; /* said once, at its header */
	return asysrc_pair(c, o, path, ln, (char *)t, tlen, *sec);
}

int asysrc_parse(struct asysrc *c, const char *name, char *text, size_t len, struct cli_options *o)
{
	enum asysrc_section sec = CS_OPTIONS;
	const char *p = text, *end = text + len, *line;
	size_t llen;
	int ln = 0, applied = 0;

	if (c->ntext >= ASYSRC_FILES) {
		free(text);
		return 0;
	}
	/* values are cut in place and kept by pointer: the text lives on */
	c->text[c->ntext++] = text;
	while ((line = asysrc_next_line(&p, end, &llen)) != NULL)
		applied += asysrc_line(c, o, name, ++ln, (char *)line, llen, &sec);
	return applied;
}

int asysrc_read(struct asysrc *c, const char *path, struct cli_options *o)
{
	char why[200], *text;
	size_t len;
	int rc;

	if (!path || !*path)
		return 0;
	rc = asysrc_slurp(path, &text, &len, why, sizeof(why));
	if (rc == -ENOENT)
		return 0;
	if (rc) {
		asysrc_msg(c, path, 0, "%s", why);
		return 0;
	}
	return asysrc_parse(c, path, text, len, o);
}

struct asysrc *asysrc_load(struct cli_options *o, unsigned cmd, int argc, char **argv)
{
	struct asysrc *c = asysrc_new(cmd);
	struct stat st;

	if (!c)
		return NULL;
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--no-config"))
			return c;
	asysrc_read(c, c->system, o);
	if (c->user[0])
		asysrc_read(c, c->user, o);
	else if (c->denied[0] && lstat(c->denied, &st) == 0)
		asysrc_msg(c, c->denied, 0, "%s", c->user_why);
	return c;
}
