/* SPDX-License-Identifier: GPL-2.0-only */
/* The web configuration of the metrics endpoint (--web-config FILE), in the
 * format of Prometheus' exporter-toolkit: TLS (tls_server_config) and basic
 * authentication (basic_auth_users, bcrypt hashes). The file is read by a
 * strict reader of the small part of YAML that format uses: one level of
 * sections, each a block of "key: value" lines with plain or quoted scalar
 * values. Anything else (lists, anchors, tags, flow collections, block
 * scalars, keys the format does not have or asys does not support) is
 * refused with FILE:LINE and why; nothing is ignored silently. */
#ifndef ASYS_SERVE_WEBCFG_H
#define ASYS_SERVE_WEBCFG_H

#include <stdbool.h>
#include <stddef.h>

#define SERVE_WEB_FILE_MAX (64u << 10) /* the web config file */
#define SERVE_WEB_PEM_MAX (1u << 20)   /* a certificate chain or a key */
#define SERVE_WEB_LINE_MAX 4096
#define SERVE_WEB_USERS_MAX 256
#define SERVE_WEB_USER_MAX 64 /* bytes of a user name, the NUL included */
#define SERVE_WEB_HASH_LEN 60 /* a bcrypt hash: $2b$CC$ + 22 + 31 */
/* The highest bcrypt cost taken: each step doubles a check's time (cost 10:
 * about 50 ms, 14: about 0.8 s of a CPU), and exporter-toolkit's users
 * rarely go past 12. */
#define SERVE_WEB_COST_MAX 14
#define SERVE_WEB_PATH_MAX 1024

/* TLS protocol versions as "TLS12" names them; 0: not given. */
enum serve_tls_version {
	SERVE_TLS_UNSET = 0,
	SERVE_TLS10 = 10,
	SERVE_TLS11 = 11,
	SERVE_TLS12 = 12,
	SERVE_TLS13 = 13,
};

/* What a client must show: exporter-toolkit's client_auth_type. */
enum serve_client_auth {
	SERVE_CLIENT_NONE = 0,	      /* NoClientCert */
	SERVE_CLIENT_VERIFY,	      /* RequireAndVerifyClientCert */
	SERVE_CLIENT_VERIFY_IF_GIVEN, /* VerifyClientCertIfGiven */
};

struct serve_web_user {
	char name[SERVE_WEB_USER_MAX];
	char hash[SERVE_WEB_HASH_LEN + 1];
};

struct serve_webcfg {
	bool tls; /* tls_server_config has a cert_file */
	/* as written, and resolved against the file's folder */
	char cert_file[SERVE_WEB_PATH_MAX], key_file[SERVE_WEB_PATH_MAX];
	char client_ca_file[SERVE_WEB_PATH_MAX];
	enum serve_tls_version min_version, max_version;
	enum serve_client_auth client_auth; /* with client_ca_file */
	char *cert_pem, *key_pem, *ca_pem;  /* the files' text (serve_webcfg_load) */
	size_t cert_len, key_len, ca_len;
	struct serve_web_user *users; /* basic_auth_users; none: no authentication */
	size_t nusers;
};

/* Parses the text of the file called name (for messages); relative paths
 * are taken from dir. Reads no other file. 0, or -EINVAL / -ENOMEM with
 * "NAME:LINE: why" in err. On failure *c holds nothing to free. */
int serve_webcfg_parse(const char *name, const char *dir, const char *text, size_t len,
		       struct serve_webcfg *c, char *err, size_t n);
/* Reads path (not through a final symbolic link, at most SERVE_WEB_FILE_MAX
 * bytes), parses it and reads the certificate and key it names. 0 or
 * -errno with the sentence in err. */
int serve_webcfg_load(const char *path, struct serve_webcfg *c, char *err, size_t n);
void serve_webcfg_free(struct serve_webcfg *c);
/* The GnuTLS priority string for the versions allowed: TLS 1.2 and later
 * when min_version is not given, as exporter-toolkit. */
void serve_webcfg_priorities(const struct serve_webcfg *c, char *buf, size_t n);

#endif
