/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"
#ifndef HAVE_PFM
#error "perfctr.c needs libpfm4 (HAVE_PFM): configure found no libpfm4-dev"
#endif

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <perfmon/pfmlib_perf_event.h>

#include "dl_load.h"
#include "perfctr.h"

/* PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING */
struct group_read {
	uint64_t nr, enabled, running;
	uint64_t v[2];
};

struct perfctr {
	int ncpu;
	int *fd; /* 2 per CPU: leader (cycles), member (instructions); -1 = none */
	struct perf_event_attr attr[2];
};

static const char *const perfctr_events[2] = {"cycles", "instructions"};

/* libpfm4 is needed only to turn two event names into perf_event_attrs, once:
 * it is loaded for that and unloaded after, since its event tables (over 2 MiB
 * resident, half of it dirtied by relocations) would otherwise stay mapped for
 * the life of the process. */
#define PERFCTR_PFM_SONAME "libpfm.so.4"

struct pfm_api {
	void *dl;
	int (*initialize)(void);
	void (*terminate)(void);
	const char *(*strerror)(int);
	int (*encode)(const char *, int, pfm_os_t, void *);
};

static int pfm_load(struct pfm_api *a, char *why, size_t n)
{
	static const char *const names[] = {PERFCTR_PFM_SONAME, NULL};
	const struct dl_sym syms[] = {
	    DL_SYM("pfm_initialize", &a->initialize),
	    DL_SYM("pfm_terminate", &a->terminate),
	    DL_SYM("pfm_strerror", &a->strerror),
	    DL_SYM("pfm_get_os_event_encoding", &a->encode),
	    DL_SYM_END,
	};
	struct dl_why w;

	memset(a, 0, sizeof(*a));
	a->dl = dl_load(names, RTLD_NOW | RTLD_LOCAL, syms, &w);
	if (a->dl)
		return 0;
	if (!w.missing)
		snprintf(why, n, "IPC n/a: cannot load %s", PERFCTR_PFM_SONAME);
	else
		snprintf(why, n, "IPC n/a: %s lacks the pfm_* entry points", PERFCTR_PFM_SONAME);
	return -ENOTSUP;
}

/* Both events' attrs, or -ENOTSUP with the reason in why. */
static int pfm_encode(const char *const events[2], struct perf_event_attr attr[2], char *why,
		      size_t n)
{
	struct pfm_api a;
	int rc = pfm_load(&a, why, n);

	if (rc)
		return rc;
	rc = a.initialize();
	if (rc != PFM_SUCCESS) {
		snprintf(why, n, "IPC n/a: libpfm4 failed to initialise (%s)", a.strerror(rc));
		dlclose(a.dl);
		return -ENOTSUP;
	}
	for (int k = 0; k < 2; k++) {
		pfm_perf_encode_arg_t arg;

		memset(&arg, 0, sizeof(arg));
		memset(&attr[k], 0, sizeof(attr[k]));
		arg.attr = &attr[k];
		arg.size = sizeof(arg);
		rc = a.encode(events[k], PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
		if (rc != PFM_SUCCESS) {
			snprintf(why, n, "IPC n/a: libpfm4 cannot encode '%s' (%s)", events[k],
				 a.strerror(rc));
			break;
		}
		attr[k].size = sizeof(attr[k]);
		attr[k].read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				      PERF_FORMAT_TOTAL_TIME_RUNNING;
	}
	a.terminate();
	dlclose(a.dl);
	return rc == PFM_SUCCESS ? 0 : -ENOTSUP;
}

void perfctr_explain(int err, char *buf, size_t n)
{
	switch (err) {
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		snprintf(buf, n, "IPC n/a: no hardware PMU on this machine (perf_event_open: %s)",
			 strerror(err));
		break;
	case EACCES:
	case EPERM:
		snprintf(buf, n,
			 "IPC n/a: not permitted; run as root or set kernel.perf_event_paranoid=0");
		break;
	case EINVAL:
		snprintf(buf, n,
			 "IPC n/a: the PMU refused cycles/instructions (perf_event_open: %s)",
			 strerror(err));
		break;
	case EMFILE:
	case ENFILE:
		snprintf(buf, n, "IPC n/a: out of file descriptors; raise the limit (ulimit -n)");
		break;
	default:
		snprintf(buf, n, "IPC n/a: perf_event_open: %s", strerror(err));
		break;
	}
}

static int perf_open(struct perf_event_attr *a, int cpu, int group_fd)
{
	long fd = syscall(SYS_perf_event_open, a, -1, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

static void close_cpu(struct perfctr *p, int cpu)
{
	for (int k = 1; k >= 0; k--) {
		if (p->fd[2 * cpu + k] >= 0)
			close(p->fd[2 * cpu + k]);
		p->fd[2 * cpu + k] = -1;
	}
}

int perfctr_reopen(struct perfctr *p, int cpu)
{
	int lead, mem;

	if (!p || cpu < 0 || cpu >= p->ncpu)
		return -EINVAL;
	if (p->fd[2 * cpu] >= 0)
		return 0;
	lead = perf_open(&p->attr[0], cpu, -1);
	if (lead < 0)
		return lead;
	mem = perf_open(&p->attr[1], cpu, lead);
	if (mem < 0) {
		close(lead);
		return mem;
	}
	p->fd[2 * cpu] = lead;
	p->fd[2 * cpu + 1] = mem;
	return 0;
}

int perfctr_open(const uint8_t *online, int ncpu, struct perfctr **out, char *why, size_t n)
{
	return perfctr_open_events(perfctr_events, online, ncpu, out, why, n);
}

int perfctr_open_events(const char *const events[2], const uint8_t *online, int ncpu,
			struct perfctr **out, char *why, size_t n)
{
	struct perfctr *p = NULL;
	int rc, opened = 0, first_err = 0;

	*out = NULL;
	if (ncpu <= 0 || ncpu > 65536)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p || !(p->fd = malloc(2 * (size_t)ncpu * sizeof(int)))) {
		snprintf(why, n, "IPC n/a: out of memory");
		rc = -ENOMEM;
		goto cleanup;
	}
	p->ncpu = ncpu;
	for (int i = 0; i < 2 * ncpu; i++)
		p->fd[i] = -1;
	rc = pfm_encode(events, p->attr, why, n);
	if (rc)
		goto cleanup;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		if (!online[cpu])
			continue;
		rc = perfctr_reopen(p, cpu);
		if (rc == 0) {
			opened++;
		} else if (!first_err) {
			first_err = -rc;
			if (!opened)
				break; /* the first CPU speaks for the machine */
		}
	}
	if (!opened) {
		perfctr_explain(first_err ? first_err : ENODEV, why, n);
		rc = -(first_err ? first_err : ENODEV);
		goto cleanup;
	}
	*out = p;
	return 0;
cleanup:
	perfctr_free(p);
	return rc;
}

void perfctr_free(struct perfctr *p)
{
	if (!p)
		return;
	if (p->fd)
		for (int cpu = 0; cpu < p->ncpu; cpu++)
			close_cpu(p, cpu);
	free(p->fd);
	free(p);
}

int perfctr_is_open(const struct perfctr *p, int cpu)
{
	return p && cpu >= 0 && cpu < p->ncpu && p->fd[2 * cpu] >= 0;
}

int perfctr_read(struct perfctr *p, int cpu, double *cycles, double *instructions)
{
	struct group_read g;
	ssize_t r;
	double scale;

	*cycles = *instructions = NAN;
	if (!perfctr_is_open(p, cpu))
		return 0;
	r = read(p->fd[2 * cpu], &g, sizeof(g));
	if (r < 0 || (size_t)r < sizeof(g) || g.nr != 2) {
		int err = r < 0 ? errno : EIO;

		close_cpu(p, cpu);
		return -err;
	}
	if (g.running == 0)
		return 0; /* never scheduled on the PMU (multiplexed out): unknown */
	scale = g.running < g.enabled ? (double)g.enabled / (double)g.running : 1.0;
	*cycles = (double)g.v[0] * scale;
	*instructions = (double)g.v[1] * scale;
	return 0;
}
