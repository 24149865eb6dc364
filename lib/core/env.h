/* SPDX-License-Identifier: GPL-2.0-only */
/* Whom asys believes. The environment and the files a user names are
 * hostile when asys holds privileges its caller may not have: a binary given
 * cap_bpf,cap_perfmon by setcap, or root under `sudo -E` with the caller's
 * environment. Every variable asys reads goes through here. */
#ifndef ASYS_ENV_H
#define ASYS_ENV_H

#include <stdbool.h>
#include <stddef.h>

/* Any effective capability, or an effective uid or gid other than the real
 * one: then variables that name paths are believed only for trusted paths. */
bool env_privileged(void);
/* The privileges came with exec (setuid, setgid, file capabilities) or the
 * ids differ: the caller does not hold them, so the files it names on the
 * command line are checked as well. */
bool env_elevated(void);

/* A variable that tunes behaviour (no path): secure_getenv, so that a
 * setuid or file-capability run sees none. NULL when unset or empty. */
const char *env_get(const char *name);
/* A variable that names a file or directory. When privileged, the path must
 * be trusted; otherwise it is ignored and a note says so. NULL when unset,
 * empty or ignored. */
const char *env_path(const char *name);

/* Trusted: the path resolves to a file or directory owned by root, not
 * writable by group or others, under directories that are all owned by root
 * and either not writable by others or sticky (as /tmp). 0, or -EPERM/-errno
 * with a sentence in why. */
int env_trusted_path(const char *path, char *why, size_t n);

/* A file the user named on the command line (a probe file, a log): when
 * elevated it must be trusted or owned by the real user and writable by
 * nobody else. 0, or -EPERM with a sentence in why. */
int env_user_file_ok(const char *path, char *why, size_t n);

#define ENV_NOTES_MAX 2600 /* room for every note, joined */

/* Reads a whole regular file from an open descriptor into a NUL-terminated
 * buffer the caller frees: 0, -EINVAL (not a regular file), -EFBIG (over
 * max bytes), -ENOMEM or the read's -errno. Never reads past the size fstat
 * gave, so a file that grows meanwhile is cut there. */
int env_read_fd(int fd, size_t max, char **out, size_t *len);
/* Reads a whole regular file the user named (never a FIFO or a device,
 * which could block or never end) of at most max bytes, checked with
 * env_user_file_ok. *out is NUL-terminated and the caller's to free. 0, or
 * -errno with the reason (without the path) in err. */
int env_read_file(const char *path, size_t max, char **out, size_t *len, char *err, size_t n);

/* Opens a file the user named for writing: never through a final symbolic
 * link, never blocking on a FIFO without a reader, and a regular file only
 * when it is the real user's (root must not be led to truncate another's
 * file); a regular file is truncated. A terminal, /dev/null or a FIFO with a
 * reader is written as it is. The fd, or -errno (-EPERM for a refusal). */
int env_open_output(const char *path);

/* The notes so far, joined with "; " ("" when none). */
void env_notes(char *buf, size_t n);
/* The note about one variable into buf; false when it was not ignored. */
bool env_note_for(const char *name, char *buf, size_t n);
/* How many notes were made. */
int env_note_count(void);

/* For tests: forget the notes. */
void env_reset_notes(void);

#endif
