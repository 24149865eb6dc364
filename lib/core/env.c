/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "env.h"
#include "strsafe.h"
#include "util.h"

#define ENV_MAX_NOTES 8

static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;
static char env_note[ENV_MAX_NOTES][320];
static int env_nnotes;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static bool env_priv, env_elev;

static bool env_has_capabilities(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2] = {{0}};

	/* when the kernel cannot say, assume the worst */
	if (syscall(SYS_capget, &h, d) < 0)
		return true;
	return d[0].effective || d[1].effective;
}

static void env_look(void)
{
	bool ids = geteuid() != getuid() || getegid() != getgid();

	env_elev = ids || getauxval(AT_SECURE);
	env_priv = env_elev || env_has_capabilities();
}

bool env_privileged(void)
{
	pthread_once(&env_once, env_look);
	return env_priv;
}

bool env_elevated(void)
{
	pthread_once(&env_once, env_look);
	return env_elev;
}

/* The note about name ("NAME=..."), or -1; under env_lock. */
static int env_note_find(const char *name)
{
	size_t len = strlen(name);

	for (int i = 0; i < env_nnotes; i++)
		if (!strncmp(env_note[i], name, len) && env_note[i][len] == '=')
			return i;
	return -1;
}

static void env_add_note(const char *name, const char *value, const char *why)
{
	char v[96];

	str_escape(v, sizeof(v), value, 80);
	pthread_mutex_lock(&env_lock);
	if (env_note_find(name) < 0 && env_nnotes < ENV_MAX_NOTES)
		snprintf(env_note[env_nnotes++], sizeof(env_note[0]), "%s=%s ignored: %s", name, v,
			 why);
	pthread_mutex_unlock(&env_lock);
}

const char *env_get(const char *name)
{
	const char *v = secure_getenv(name);

	if (!v && getenv(name) && *getenv(name))
		env_add_note(name, getenv(name), "asys runs with privileges its caller may lack");
	return v && *v ? v : NULL;
}

const char *env_path(const char *name)
{
	const char *v = env_get(name);
	char why[200], full[240];

	if (!v || !env_privileged())
		return v;
	if (env_trusted_path(v, why, sizeof(why)) == 0)
		return v;
	snprintf(full, sizeof(full), "asys runs with privileges, and %s", why);
	env_add_note(name, v, full);
	return NULL;
}

/* Owned by root and writable by nobody else, or a sticky directory of
 * root's such as /tmp, where others cannot replace what root put there. */
static bool env_safe_mode(const struct stat *st, bool parent)
{
	if (st->st_uid != 0)
		return false;
	if (!(st->st_mode & (S_IWGRP | S_IWOTH)))
		return true;
	return parent && S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX);
}

/* Each directory above real (a resolved path, changed in place) up to "/". */
static int env_trusted_parents(char *real, char *why, size_t n)
{
	struct stat st;
	char *slash;

	while ((slash = strrchr(real, '/')) != NULL) {
		*slash = '\0';
		if (stat(*real ? real : "/", &st) < 0 || !env_safe_mode(&st, true)) {
			snprintf(why, n, "a directory above it is not root's alone");
			return -EPERM;
		}
		if (!*real)
			break;
	}
	return 0;
}

/* A path that does not exist yet is as safe as the nearest directory that
 * does, when only root may create things there (no sticky exception: in
 * /tmp anyone could create the rest later). */
static int env_trusted_missing(const char *path, char *why, size_t n)
{
	char up[PATH_MAX], real[PATH_MAX], *slash;
	struct stat st;

	if (snprintf(up, sizeof(up), "%s", path) >= (int)sizeof(up))
		return -ENAMETOOLONG;
	while ((slash = strrchr(up, '/')) != NULL && slash != up) {
		*slash = '\0';
		if (realpath(up, real))
			break;
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
	}
	if (!slash || slash == up)
		snprintf(real, sizeof(real), "%s", "/");
	if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode) || !env_safe_mode(&st, false)) {
		snprintf(why, n, "it does not exist, and others could create it");
		return -EPERM;
	}
	return env_trusted_parents(real, why, n);
}

int env_trusted_path(const char *path, char *why, size_t n)
{
	char real[PATH_MAX];
	struct stat st;

	if (path[0] != '/') {
		snprintf(why, n, "it is not an absolute path");
		return -EPERM;
	}
	if (!realpath(path, real)) {
		if (errno == ENOENT || errno == ENOTDIR)
			return env_trusted_missing(path, why, n);
		snprintf(why, n, "it cannot be resolved (%s)", strerror(errno));
		return -errno;
	}
	if (stat(real, &st) < 0 || !env_safe_mode(&st, false)) {
		snprintf(why, n, "it is not owned by root or is writable by others");
		return -EPERM;
	}
	return env_trusted_parents(real, why, n);
}

int env_user_file_ok(const char *path, char *why, size_t n)
{
	struct stat st;

	if (!env_elevated())
		return 0;
	if (env_trusted_path(path, why, n) == 0)
		return 0;
	/* access() checks with the real ids: the caller must be able to read it */
	if (access(path, R_OK) < 0 || stat(path, &st) < 0) {
		snprintf(why, n, "the user running asys cannot read it (%s)", strerror(errno));
		return -EPERM;
	}
	if (st.st_uid != getuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(why, n,
			 "asys runs with privileges, and the file is neither root's nor the "
			 "caller's alone");
		return -EPERM;
	}
	return 0;
}

void env_notes(char *buf, size_t n)
{
	size_t used = 0;

	if (!n)
		return;
	buf[0] = '\0';
	pthread_mutex_lock(&env_lock);
	for (int i = 0; i < env_nnotes && used + 1 < n; i++) {
		int k = snprintf(buf + used, n - used, "%s%s", i ? "; " : "", env_note[i]);

		if (k < 0)
			break;
		used += (size_t)k < n - used ? (size_t)k : n - used - 1;
	}
	pthread_mutex_unlock(&env_lock);
}

bool env_note_for(const char *name, char *buf, size_t n)
{
	int i;

	pthread_mutex_lock(&env_lock);
	i = env_note_find(name);
	if (i >= 0)
		snprintf(buf, n, "%s", env_note[i]);
	pthread_mutex_unlock(&env_lock);
	return i >= 0;
}

int env_note_count(void)
{
	int k;

	pthread_mutex_lock(&env_lock);
	k = env_nnotes;
	pthread_mutex_unlock(&env_lock);
	return k;
}

void env_reset_notes(void)
{
	pthread_mutex_lock(&env_lock);
	env_nnotes = 0;
	pthread_mutex_unlock(&env_lock);
}

int env_read_fd(int fd, size_t max, char **out, size_t *len)
{
	struct stat st;
	char *buf;
	size_t got = 0;

	*out = NULL;
	*len = 0;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uint64_t)st.st_size > max)
		return -EFBIG;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	/* the size may change while we read: never past what was allocated */
	while (got < (size_t)st.st_size) {
		ssize_t k = read(fd, buf + got, (size_t)st.st_size - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int rc = -errno;

			free(buf);
			return rc;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	buf[got] = '\0';
	*out = buf;
	*len = got;
	return 0;
}

int env_read_file(const char *path, size_t max, char **out, size_t *len, char *err, size_t n)
{
	int fd, rc;

	*out = NULL;
	*len = 0;
	rc = env_user_file_ok(path, err, n);
	if (rc)
		return rc;
	/* O_NONBLOCK: a FIFO must not hang start-up until someone writes */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, n, "%s", strerror(errno));
		return rc;
	}
	rc = env_read_fd(fd, max, out, len);
	if (rc == -EINVAL)
		snprintf(err, n, "not a regular file");
	else if (rc == -EFBIG)
		snprintf(err, n, "larger than the %zu bytes allowed", max);
	else if (rc)
		snprintf(err, n, "%s", strerror(-rc));
	close(fd);
	return rc;
}

int env_open_output(const char *path)
{
	struct stat st;
	int fd =
	    open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0600);
	int e;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		goto fail;
	errno = EPERM;
	if (S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && st.st_uid != getuid()))
		goto fail;
	if (S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0)
		goto fail;
	/* writes may block like any program's */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
		goto fail;
	return fd;
fail:
	e = errno;
	close(fd);
	return -e;
}
