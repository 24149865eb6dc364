/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "asys_inject.h"
#include "collector.h"
#include "env.h"
#include "inject_host.h"
#include "inject_ktime.h"
#include "inject_hgtx.h"
#include "proc_api.h"
#include "strsafe.h"
#include "sysroot.h"
#include "util.h"

#ifndef ASYS_PKGLIBDIR
#define ASYS_PKGLIBDIR "/usr/local/lib/asys"
#endif

/* The sections of the region and their sizes: one line per part of the
 * library. Each starts on a page, so asys can map a section's control
 * words writable on their own. The memfd is sparse: a section costs the
 * pages its writers touch. */
struct inject_host_sec {
	uint32_t id;
	size_t size;
};

static const struct inject_host_sec inject_host_secs[] = {
    {ASYS_INJECT_SEC_HGTX, sizeof(struct inj_hgtx_section)},
    {ASYS_INJECT_SEC_KTIME, KTIME_SECTION_SIZE_DEFAULT},
};

#define INJECT_HOST_PAGE 4096u
#define INJECT_HOST_DEPTH_MAX 256 /* generations of the job walked up */

static struct {
	int fd;
	void *ro; /* the whole region, read-only */
	size_t size;
	void *rw[ASYS_INJECT_SECTIONS_MAX]; /* sections mapped writable, by entry */
	int err;
	char fd_value[16];
	char note[ASYS_INJECT_SECTIONS_MAX][INJECT_HOST_NOTE_MAX];
} ih = {.fd = -1};

static size_t inject_host_round(size_t n)
{
	return (n + INJECT_HOST_PAGE - 1) / INJECT_HOST_PAGE * INJECT_HOST_PAGE;
}

/* The header and directory, written through a writable mapping of the
 * first page before anyone else sees the region. */
static int inject_host_write_head(int fd, size_t size)
{
	struct asys_inject_head *h;
	size_t off = inject_host_round(sizeof(*h));

	h = mmap(NULL, INJECT_HOST_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return -errno;
	h->magic = ASYS_INJECT_MAGIC;
	h->version = ASYS_INJECT_VERSION;
	h->head_size = sizeof(*h);
	h->size = size;
	h->created_ns = asys_now_ns();
	h->asys_pid = (uint32_t)getpid();
	for (size_t i = 0; i < ARRAY_SIZE(inject_host_secs); i++) {
		h->sec[i].id = inject_host_secs[i].id;
		h->sec[i].off = off;
		h->sec[i].size = inject_host_secs[i].size;
		off += inject_host_round(inject_host_secs[i].size);
	}
	h->nsec = (uint32_t)ARRAY_SIZE(inject_host_secs);
	munmap(h, INJECT_HOST_PAGE);
	return 0;
}

static size_t inject_host_total(void)
{
	size_t size = inject_host_round(sizeof(struct asys_inject_head));

	for (size_t i = 0; i < ARRAY_SIZE(inject_host_secs); i++)
		size += inject_host_round(inject_host_secs[i].size);
	return size;
}

/* The region's size is fixed for good: shrink, grow and any further seal
 * are refused to everyone, the workload included (seals belong to the
 * file, not to a descriptor). A region the workload could shrink would
 * fault asys's next read of its mapping (SIGBUS) and kill it; a mapping of
 * a sealed memfd of this size cannot fault. Checked with F_GET_SEALS, not
 * trusted from F_ADD_SEALS: without the seals asys shares no region at all,
 * since every read of it would have to guard against the fault. */
static int inject_host_seal(int fd, size_t size)
{
	const int want = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;
	struct stat sb;
	int got;

	if (fcntl(fd, F_ADD_SEALS, want) < 0)
		return -errno;
	got = fcntl(fd, F_GET_SEALS);
	if (got < 0)
		return -errno;
	if ((got & want) != want || fstat(fd, &sb) < 0 || (size_t)sb.st_size != size)
		return -EPERM;
	return 0;
}

int inject_host_create(void)
{
	size_t size = inject_host_total();
	int fd, rc;

	_Static_assert(ARRAY_SIZE(inject_host_secs) <= ASYS_INJECT_SECTIONS_MAX,
		       "more sections than the directory holds");
	if (ih.ro || ih.err)
		return ih.ro ? 0 : ih.err;
	fd = memfd_create("asys-inject", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return ih.err = -errno;
	rc = ftruncate(fd, (off_t)size) < 0 ? -errno : inject_host_write_head(fd, size);
	if (rc == 0)
		rc = inject_host_seal(fd, size);
	if (rc < 0) {
		close(fd);
		return ih.err = rc;
	}
	ih.ro = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (ih.ro == MAP_FAILED) {
		ih.ro = NULL;
		rc = -errno;
		close(fd);
		return ih.err = rc;
	}
	ih.fd = fd;
	ih.size = size;
	snprintf(ih.fd_value, sizeof(ih.fd_value), "%d", fd);
	return 0;
}

const void *inject_host_map(size_t *size)
{
	if (size)
		*size = ih.ro ? ih.size : 0;
	return ih.ro;
}

/* Where asys put the section of this id, from its own table: the header
 * in the region is the workload's to overwrite, and a mapping at an offset
 * it chose could reach past the end. -1 when there is no such section. */
static int inject_host_layout(uint32_t id, size_t *off, size_t *size)
{
	size_t o = inject_host_round(sizeof(struct asys_inject_head));

	for (size_t i = 0; i < ARRAY_SIZE(inject_host_secs); i++) {
		if (inject_host_secs[i].id == id) {
			*off = o;
			*size = inject_host_secs[i].size;
			return (int)i;
		}
		o += inject_host_round(inject_host_secs[i].size);
	}
	return -1;
}

const void *inject_host_section(uint32_t id, size_t *len)
{
	size_t off, size;

	if (!ih.ro || inject_host_layout(id, &off, &size) < 0)
		return NULL;
	if (len)
		*len = size;
	return (const char *)ih.ro + off;
}

void *inject_host_section_rw(uint32_t id, size_t *len)
{
	size_t off, size;
	int i = ih.ro ? inject_host_layout(id, &off, &size) : -1;

	if (i < 0)
		return NULL;
	if (!ih.rw[i]) {
		void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, ih.fd, (off_t)off);

		if (p == MAP_FAILED)
			return NULL;
		ih.rw[i] = p;
	}
	if (len)
		*len = size;
	return ih.rw[i];
}

static void inject_host_say(uint32_t sec, const char *text)
{
	char *n;
	size_t used;

	if (sec >= ASYS_INJECT_SECTIONS_MAX)
		return;
	n = ih.note[sec];
	used = strlen(n);
	snprintf(n + used, INJECT_HOST_NOTE_MAX - used, "%s%s", used ? "; " : "", text);
}

int inject_host_env(struct job_env *env, uint32_t sec, const char *name, const char *value)
{
	const char *user = getenv(name);
	char shown[808], msg[1024];

	if (user && *user) {
		snprintf(msg, sizeof(msg),
			 "%s is already set to %s: asys leaves it, so the workload loads that tool "
			 "instead of asys's",
			 name, str_escape(shown, sizeof(shown), user, 200));
		inject_host_say(sec, msg);
		return 0;
	}
	if (job_env_set(env, name, value) < 0)
		return -ENOSPC;
	return 1;
}

const char *inject_host_lib(uint32_t sec)
{
	static char path[4096];
	const char *over = env_path("ASYS_INJECT_LIB");
	char shown[808], msg[1400];

	if (over)
		util_strlcpy(path, over, sizeof(path));
	else
		snprintf(path, sizeof(path), "%s/%s", ASYS_PKGLIBDIR, INJECT_HOST_LIB);
	if (path[0] == '/' && access(path, R_OK) == 0)
		return path;
	if (over && path[0] != '/') {
		/* the workload may chdir before its first NVTX call */
		snprintf(msg, sizeof(msg), "ASYS_INJECT_LIB must name %s by its full path, not %s",
			 INJECT_HOST_LIB, str_escape(shown, sizeof(shown), path, 200));
		inject_host_say(sec, msg);
		return NULL;
	}
	snprintf(msg, sizeof(msg),
		 "%s is not installed (looked for %s): install asys with 'make install' "
		 "(it goes to %s), or set ASYS_INJECT_LIB to the library's full path, then "
		 "start the workload again under asys",
		 INJECT_HOST_LIB, str_escape(shown, sizeof(shown), path, 200), ASYS_PKGLIBDIR);
	inject_host_say(sec, msg);
	return NULL;
}

int inject_host_prepare(struct job_env *env)
{
	bool first = !ih.ro && !ih.err;
	char msg[256];
	int rc = inject_host_create();

	if (rc < 0) {
		/* once, for whichever collector asked first */
		if (!first)
			return rc;
		snprintf(msg, sizeof(msg),
			 "cannot create the region shared with the workload (a memfd "
			 "whose size asys seals): %s",
			 strerror(-rc));
		for (size_t i = 0; i < ARRAY_SIZE(inject_host_secs); i++)
			inject_host_say(inject_host_secs[i].id, msg);
		return rc;
	}
	/* MFD_CLOEXEC keeps it from asys's other children; the workload keeps it */
	rc = job_env_keep_fd(env, ih.fd);
	return rc ? rc : job_env_set(env, ASYS_INJECT_FD_ENV, ih.fd_value);
}

/* A process's parent and start time (clock ticks since boot); -1 when it
 * has ended or its stat cannot be read. */
static int inject_host_stat(uint32_t pid, uint32_t *ppid, uint64_t *start)
{
	struct procfs_pid_stat ps;
	char path[40], buf[1024];

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	if (sysroot_read_file(path, buf, sizeof(buf)) <= 0 || procfs_parse_pid_stat(buf, &ps) < 0 ||
	    ps.ppid < 0)
		return -1;
	*ppid = (uint32_t)ps.ppid;
	*start = ps.starttime;
	return 0;
}

bool inject_host_in_job(uint32_t pid)
{
	uint32_t self = (uint32_t)getpid(), cur = pid, ppid;
	uint64_t start, child_start = UINT64_MAX;

	if (!ih.ro || pid <= 1 || pid == self)
		return false;
	/* The job is asys's only child (workload.c) and all it starts: walk up
	 * to asys. A parent started no later than its child, so a pid reused
	 * by a newer process between two reads breaks the chain. */
	for (int depth = 0; depth < INJECT_HOST_DEPTH_MAX; depth++) {
		if (inject_host_stat(cur, &ppid, &start) < 0 || start > child_start)
			return false;
		if (ppid == self)
			return true;
		if (ppid <= 1)
			return false;
		child_start = start;
		cur = ppid;
	}
	return false;
}

const char *inject_host_note(uint32_t sec)
{
	return sec < ASYS_INJECT_SECTIONS_MAX ? ih.note[sec] : "";
}

void inject_host_reset(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(inject_host_secs); i++)
		if (ih.rw[i])
			munmap(ih.rw[i], inject_host_secs[i].size);
	if (ih.ro)
		munmap(ih.ro, ih.size);
	if (ih.fd >= 0)
		close(ih.fd);
	memset(&ih, 0, sizeof(ih));
	ih.fd = -1;
}
