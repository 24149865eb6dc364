/* SPDX-License-Identifier: GPL-2.0-only */
/* Writing asysrc: the values the setup screen changed replace those keys'
 * lines where the file has them, or go at the end of their section; every
 * other line (comments, unknown keys, bad lines) stays as it was. The new
 * file is written beside the old one and renamed over it, so a crash
 * leaves one or the other whole. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "asysrc.h"
#include "asysrc_int.h"
#include "buf.h"
#include "proc_cols.h"
#include "strsafe.h"
#include "util.h"

#define SAVE_KEYS 8
#define SAVE_VAL_MAX 512
/* room for the file and what setup adds */
#define SAVE_MAX (ASYSRC_FILE_MAX + SAVE_KEYS * (SAVE_VAL_MAX + 32) + 64)

struct save_key {
	enum asysrc_section sec;
	const char *key;
	char val[SAVE_VAL_MAX];
	bool done; /* written over a line of the file, or inserted */
};

static const char *const save_sections[] = {"options", "display"};

static int save_add(struct save_key *k, int n, enum asysrc_section sec, const char *key,
		    const char *val)
{
	k[n].sec = sec;
	k[n].key = key;
	util_strlcpy(k[n].val, val, sizeof(k[n].val));
	k[n].done = false;
	return n + 1;
}

/* The keys to write for what changed, their values from delay_s and u. */
static int save_keys(double delay_s, const struct asys_settings *u, unsigned changed,
		     struct save_key *k)
{
	char v[SAVE_VAL_MAX];
	int n = 0;

	if (changed & SET_CH_DELAY) {
		snprintf(v, sizeof(v), "%g", delay_s);
		n = save_add(k, n, CS_OPTIONS, "delay", v);
	}
	if (changed & SET_CH_PANES) {
		settings_format_list(&u->panes, v, sizeof(v));
		n = save_add(k, n, CS_DISPLAY, "panes", v);
	}
	if (changed & SET_CH_COLUMNS) {
		settings_format_list(&u->columns, v, sizeof(v));
		n = save_add(k, n, CS_DISPLAY, "columns", v);
	}
	if (changed & SET_CH_THEME)
		n = save_add(
		    k, n, CS_DISPLAY, "theme",
		    settings_themes[u->theme >= 0 && u->theme < SET_THEME_COUNT ? u->theme : 0]);
	if (changed & SET_CH_UNITS)
		n = save_add(k, n, CS_DISPLAY, "units", u->bytes ? "bytes" : "bits");
	if (changed & SET_CH_SORT) {
		n = save_add(k, n, CS_DISPLAY, "sort",
			     u->sort[0] ? u->sort : proc_col_default_sort());
		n = save_add(k, n, CS_DISPLAY, "sort-order",
			     u->sort_asc ? "ascending" : "descending");
	}
	return n;
}

static int save_line(struct buf *b, const struct save_key *k)
{
	char line[SAVE_VAL_MAX + 64];
	int len = snprintf(line, sizeof(line), "%s = %s\n", k->key, k->val);

	return buf_insert(b, b->len, line, (size_t)len);
}

/* At the end of a section of the file: the keys of sec it lacked go after
 * its last key line (at off), when it has one. */
static int save_region_end(struct buf *b, struct save_key *k, int nk, enum asysrc_section sec,
			   bool has_key, size_t off)
{
	for (int i = 0; i < nk && has_key; i++) {
		char line[SAVE_VAL_MAX + 64];
		int len;

		if (k[i].done || k[i].sec != sec)
			continue;
		len = snprintf(line, sizeof(line), "%s = %s\n", k[i].key, k[i].val);
		if (buf_insert(b, off, line, (size_t)len))
			return -EFBIG;
		off += (size_t)len;
		k[i].done = true;
	}
	return 0;
}

/* The key of sec named in line, among k[]; -1 when none. */
static int save_match(const struct save_key *k, int nk, enum asysrc_section sec, const char *line,
		      size_t len)
{
	const char *key;
	size_t klen;

	if (sec == CS_UNKNOWN || !asysrc_key(line, len, &key, &klen))
		return -1;
	for (int i = 0; i < nk; i++)
		if (k[i].sec == sec && strlen(k[i].key) == klen && !strncmp(k[i].key, key, klen))
			return i;
	return -1;
}

/* The file's text with the keys written in, into b. */
static int save_merge(const char *text, size_t tlen, struct save_key *k, int nk, struct buf *b)
{
	enum asysrc_section sec = CS_OPTIONS, next;
	const char *p = text, *end = text + tlen, *line, *key;
	size_t len, klen, off = 0;
	bool has_key = false;
	int rc = 0;

	while (!rc && (line = asysrc_next_line(&p, end, &len)) != NULL) {
		int m = save_match(k, nk, sec, line, len);

		if (asysrc_header(line, len, &next)) {
			rc = save_region_end(b, k, nk, sec, has_key, off);
			sec = next;
			has_key = false;
		}
		if (m >= 0) {
			rc = rc ? rc : save_line(b, &k[m]);
			k[m].done = true;
		} else {
			rc = rc ? rc : buf_insert(b, b->len, line, len);
			rc = rc ? rc : buf_insert(b, b->len, "\n", 1);
		}
		if (sec != CS_UNKNOWN && asysrc_key(line, len, &key, &klen)) {
			has_key = true;
			off = b->len;
		}
	}
	rc = rc ? rc : save_region_end(b, k, nk, sec, has_key, off);
	/* sections the file lacks, or where it has no key to follow */
	for (int s = CS_OPTIONS; !rc && s <= CS_DISPLAY; s++) {
		bool head = false;

		for (int i = 0; !rc && i < nk; i++) {
			char h[32];

			if (k[i].done || k[i].sec != (enum asysrc_section)s)
				continue;
			if (!head) {
				snprintf(h, sizeof(h), "%s[%s]\n", b->len ? "\n" : "",
					 save_sections[s]);
				rc = buf_insert(b, b->len, h, strlen(h));
				head = true;
			}
			rc = rc ? rc : save_line(b, &k[i]);
			k[i].done = true;
		}
	}
	return rc;
}

/* mkdir that is content with a directory already there. */
static int save_mkdir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) == 0)
		return 0;
	if (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	return errno == EEXIST ? -ENOTDIR : -errno;
}

/* The directory of path, and the one above it, made 0700 where missing. */
static int save_dirs(const char *path, char *dir, size_t n)
{
	char up[PATH_MAX], *slash;
	int rc;

	util_strlcpy(dir, path, n);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return -EINVAL;
	*slash = '\0';
	util_strlcpy(up, dir, sizeof(up));
	slash = strrchr(up, '/');
	if (slash && slash != up) {
		*slash = '\0';
		rc = save_mkdir(up);
		if (rc)
			return rc;
	}
	return save_mkdir(dir);
}

static int save_write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Writes a new file beside path and renames it over path. */
static int save_replace(const char *path, const char *buf, size_t len)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 64];
	int fd = -1, rc, dfd;

	rc = save_dirs(path, dir, sizeof(dir));
	if (rc)
		return rc;
	for (int i = 0; i < 16 && fd < 0; i++) {
		snprintf(tmp, sizeof(tmp), "%s/.asysrc.%ld.%llx", dir, (long)getpid(),
			 (unsigned long long)(util_now_ns(CLOCK_MONOTONIC) + (unsigned)i));
		/* never through a link another planted, never over a file */
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	/* 0644 whatever the umask: it holds no secret */
	rc = fchmod(fd, 0644) < 0 ? -errno : 0;
	rc = rc ? rc : save_write_all(fd, buf, len);
	rc = rc ? rc : fsync(fd) < 0 ? -errno : 0;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	rc = rc ? rc : rename(tmp, path) < 0 ? -errno : 0;
	if (rc) {
		unlink(tmp);
		return rc;
	}
	/* the rename itself survives a crash once the directory is synced */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}

static const char save_intro[] =
    "# asys settings (asysrc(5)). asys top's setup screen (F2) rewrites the values\n"
    "# it sets and keeps every other line.\n";

int asysrc_save(struct asysrc *c, double delay_s, const struct asys_settings *ui, unsigned changed,
		char *msg, size_t n)
{
	struct save_key k[SAVE_KEYS];
	struct buf b = {.max = SAVE_MAX};
	char why[200], shown[400], *text = NULL;
	size_t tlen = 0;
	int nk, rc;

	if (c->cmd & OPT_CMD_VIEW) {
		snprintf(msg, n, "settings are not saved while replaying");
		return -EPERM;
	}
	if (!c->user[0]) {
		snprintf(msg, n, "settings not saved: %s", c->user_why);
		return -ENOENT;
	}
	str_escape(shown, sizeof(shown), c->user, 300);
	nk = save_keys(delay_s, ui, changed, k);
	if (!nk) {
		msg[0] = '\0';
		return 0;
	}
	rc = asysrc_slurp(c->user, &text, &tlen, why, sizeof(why));
	if (rc && rc != -ENOENT) {
		snprintf(msg, n, "settings not saved: %s: %s", shown, why);
		return rc;
	}
	rc = text ? 0 : buf_insert(&b, 0, save_intro, sizeof(save_intro) - 1);
	rc = rc ? rc : save_merge(text ? text : "", tlen, k, nk, &b);
	rc = rc ? rc : save_replace(c->user, buf_str(&b), b.len);
	if (rc)
		snprintf(msg, n, "settings not saved to %s: %s", shown, strerror(-rc));
	else
		snprintf(msg, n, "settings saved to %s", shown);
	buf_free(&b);
	free(text);
	return rc;
}
