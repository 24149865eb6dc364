/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "serve_webcfg.h"

/* How a file is read. */
enum webcfg_how {
	WEBCFG_NOFOLLOW = 1 << 0, /* a final symbolic link is refused */
	WEBCFG_SECRET = 1 << 1,	  /* a key: refused when every user may read it */
};

/* The file to open for path. As a privileged process (root, or any
 * capability), asys believes a file only where root alone could have put
 * it, the rule of the libraries it loads (env_trusted_path); the file
 * opened is then the resolved path that was checked, so that no link
 * changed meanwhile can lead elsewhere. 0 or -errno with why in err. */
static int webcfg_resolve(const char *path, unsigned how, char *real, size_t rn, char *err,
			  size_t n)
{
	char why[160];
	struct stat st;

	if (!env_privileged()) {
		if (strlen(path) >= rn)
			return -ENAMETOOLONG;
		memcpy(real, path, strlen(path) + 1);
		return 0;
	}
	if ((how & WEBCFG_NOFOLLOW) && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		snprintf(err, n, "a symbolic link: not read (name the file itself)");
		return -ELOOP;
	}
	if (env_trusted_path(path, why, sizeof(why)) < 0) {
		snprintf(err, n,
			 "asys runs with privileges, and %s: it must be root's and writable by "
			 "no one else, in folders only root can write",
			 why);
		return -EPERM;
	}
	if (rn < PATH_MAX || !realpath(path, real)) {
		int e = rn < PATH_MAX ? ENAMETOOLONG : errno;

		snprintf(err, n, "%s", strerror(e));
		return -e;
	}
	return 0;
}

/* Reads at most max bytes of the regular file at path into a NUL-ended
 * buffer. 0 or -errno with why (without the path) in err. */
static int webcfg_read_file(const char *path, unsigned how, size_t max, char **out, size_t *len,
			    char *err, size_t n)
{
	char real[PATH_MAX];
	struct stat st;
	int fd, rc = webcfg_resolve(path, how, real, sizeof(real), err, n);

	*out = NULL;
	if (rc < 0)
		return rc;
	/* no FIFO to block on, no terminal to take */
	fd = open(real, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
			    ((how & WEBCFG_NOFOLLOW) ? O_NOFOLLOW : 0));
	if (fd < 0) {
		rc = -errno;
		snprintf(err, n, "%s",
			 rc == -ELOOP && (how & WEBCFG_NOFOLLOW)
			     ? "a symbolic link: not read (name the file itself)"
			     : strerror(-rc));
		return rc;
	}
	if ((how & WEBCFG_SECRET) && fstat(fd, &st) == 0 && (st.st_mode & S_IROTH)) {
		snprintf(err, n, "a private key every user of this host may read (chmod o-r it)");
		rc = -EPERM;
	} else {
		rc = env_read_fd(fd, max, out, len);
	}
	if (rc == -EINVAL)
		snprintf(err, n, "not a regular file");
	else if (rc == -EFBIG)
		snprintf(err, n, "larger than %zu KiB", max >> 10);
	else if (rc < 0 && rc != -EPERM)
		snprintf(err, n, "%s", strerror(-rc));
	close(fd);
	return rc;
}

/* The certificate chain and the key, PEM both. */
static int webcfg_read_pems(struct serve_webcfg *c, char *err, size_t n)
{
	char why[320];
	int rc = webcfg_read_file(c->cert_file, 0, SERVE_WEB_PEM_MAX, &c->cert_pem, &c->cert_len,
				  why, sizeof(why));

	if (rc < 0) {
		snprintf(err, n, "cert_file %s: %s", c->cert_file, why);
		return rc;
	}
	if (!strstr(c->cert_pem, "-----BEGIN CERTIFICATE-----")) {
		snprintf(err, n, "cert_file %s: no PEM certificate in it", c->cert_file);
		return -EINVAL;
	}
	rc = webcfg_read_file(c->key_file, WEBCFG_SECRET, SERVE_WEB_PEM_MAX, &c->key_pem,
			      &c->key_len, why, sizeof(why));
	if (rc < 0) {
		snprintf(err, n, "key_file %s: %s", c->key_file, why);
		return rc;
	}
	if (!strstr(c->key_pem, "-----BEGIN") || !strstr(c->key_pem, "PRIVATE KEY-----")) {
		snprintf(err, n, "key_file %s: no PEM private key in it", c->key_file);
		return -EINVAL;
	}
	if (c->client_auth) {
		rc = webcfg_read_file(c->client_ca_file, 0, SERVE_WEB_PEM_MAX, &c->ca_pem,
				      &c->ca_len, why, sizeof(why));
		if (rc < 0) {
			snprintf(err, n, "client_ca_file %s: %s", c->client_ca_file, why);
			return rc;
		}
		if (!strstr(c->ca_pem, "-----BEGIN CERTIFICATE-----")) {
			snprintf(err, n, "client_ca_file %s: no PEM certificate in it",
				 c->client_ca_file);
			return -EINVAL;
		}
	}
	if (strstr(c->key_pem, "ENCRYPTED")) {
		snprintf(err, n,
			 "key_file %s: an encrypted key (asys takes a key without a "
			 "passphrase)",
			 c->key_file);
		return -EINVAL;
	}
	return 0;
}

int serve_webcfg_load(const char *path, struct serve_webcfg *c, char *err, size_t n)
{
	char why[320], dir[SERVE_WEB_PATH_MAX];
	const char *slash = strrchr(path, '/');
	char *text;
	size_t len;
	int rc;

	memset(c, 0, sizeof(*c));
	if (slash && (size_t)(slash - path) < sizeof(dir)) {
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
		if (slash == path)
			snprintf(dir, sizeof(dir), "/");
	} else {
		dir[0] = '\0';
	}
	rc = webcfg_read_file(path, WEBCFG_NOFOLLOW, SERVE_WEB_FILE_MAX, &text, &len, why,
			      sizeof(why));
	if (rc < 0) {
		snprintf(err, n, "%s: %s", path, why);
		return rc;
	}
	if (memchr(text, '\0', len)) {
		snprintf(err, n, "%s: a NUL byte: not a text file", path);
		rc = -EINVAL;
	} else {
		rc = serve_webcfg_parse(path, dir, text, len, c, err, n);
	}
	free(text);
	if (!rc && c->tls && (rc = webcfg_read_pems(c, err, n)) < 0)
		serve_webcfg_free(c);
	return rc;
}
