/* SPDX-License-Identifier: GPL-2.0-only */
/* A test HGML: a real shared library with the HGML calls (and the same calls
 * with the nvml prefix) that simulates devices. asys loads it through the
 * same dlopen path as on a server (PPU_HOME or ASYS_HGML_LIBRARY).
 *
 * Environment:
 *   FAKE_HGML_DEVICES=N        devices (default 4, at most 64)
 *   FAKE_HGML_NAME=S           device name (default "PPU")
 *   FAKE_HGML_INIT_FAIL=1      hgmlInit fails with "Driver Not Loaded"
 *   FAKE_HGML_LOST=I:MS        device I is lost MS ms after the first init
 *   FAKE_HGML_GPM_BUSY=LIST    GPM sampling refused on these devices ("all" or
 *                              "0,2"); FAKE_HGML_GPM_ERROR=in_use (default),
 *                              no_permission or not_supported says how;
 *                              FAKE_HGML_GPM_BUSY_MS=MS: only for the first MS ms
 *   FAKE_HGML_NO_GPM=LIST      devices without GPM support
 *   FAKE_HGML_PROCS=N          N processes per device instead of 1 + d % 3
 *   FAKE_HGML_PCIE_X8=LIST     these devices run PCIe gen 4 x8 (the rest gen 5 x16)
 *   FAKE_HGML_SHARED=1         two more processes, pids 4000900 and 4000901, on both
 *                              devices 0 and 1 (one job on two devices)
 *   FAKE_HGML_PUTIL=HOW        the per-process utilisation calls: not_supported
 *                              (both answer Not Supported), new_not_supported (only
 *                              GetProcessesUtilizationInfo does), huge (both claim
 *                              0xfffffff0 samples: Insufficient Size, always)
 *   FAKE_HGML_PUTIL_IDLE=LIST  on these devices only the first process has samples
 *                              (the others are idle: the library leaves them out)
 * Built with -DFAKE_HGML_OLD it lacks the symbols an old library lacks
 * (_v3/_v2 processes, the enforced power limit, all GPM calls,
 * GetProcessesUtilizationInfo): a missing symbol is a build of this file,
 * since a library cannot hide an export, so the old build is how the older
 * GetProcessUtilization path is tested.
 *
 * Patterns (t = whole seconds since the first init, d = device index):
 *   utilization gpu = (10 d + t) % 100, memory = gpu / 2
 *   clocks: SM 1000 + 10 d MHz, memory 1600 MHz; temperature 40 + d C
 *   power 100 + 2 gpu W, limit 400 W; PCIe gen 5 x16 (or gen 4 x8); bus id 00000000:(16+d):00.0
 *   processes: 1 + d % 3 per device, pid 4000000 + 100 d + i (device 0's
 *   first one is the caller itself), (i + 1)(d + 1) GiB each; memory total
 *   96 GiB, used = processes + 512 MiB. With FAKE_HGML_SHARED, pids 4000900
 *   and 4000901 follow on devices 0 and 1 (i = 1, 2 on device 0; 2, 3 on 1)
 *   per-process utilisation (both calls), for process i on device d:
 *     sm = 1 + (10 d + i) % 100, mem = sm / 2, enc = (d + i) % 100,
 *     dec = 2 d % 100 for even i, 0xffffffff (not available) for odd i;
 *   one sample per process every 20 ms (timestamps: CLOCK_REALTIME us, on
 *   multiples of 20000), the last 50 periods kept; a call returns those newer
 *   than lastSeenTimeStamp, period by period, or Not Found when none is.
 *   With FAKE_HGML_SHARED (defaults otherwise) the PPU% sums over devices:
 *     pid 4000900: 2 (device 0) + 13 (device 1) = 15
 *     pid 4000901: 3 (device 0) + 14 (device 1) = 17
 *     the two as one job: 32; device 0's own process (the caller): 1
 *   fakeHgmlUtilStats(d, out[4]) gives, for device d: samples returned,
 *   samples returned again (not newer than one returned before), calls of
 *   GetProcessesUtilizationInfo, calls of GetProcessUtilization.
 *   GPM (s = the per-device sample number of sample2, from 1):
 *     ids 1..13: (10 d + id + s) % 100; 20, 21, 60..97: 100 (d + 1) + id MiB/s;
 *     160..165: 1000 (d + 1) + id; 2048..2051: 50 + d + (id - 2048)
 */
#include "config.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libhgml_int.h"

struct fk_sample {
	unsigned int magic;
	int dev;
	unsigned long long seq;
};

struct fk_pci {
	char bus_id_legacy[16];
	unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
};

struct fk_proc {
	unsigned int pid;
	unsigned long long used;
	unsigned int gi, ci;
};

struct fk_proc_v1 {
	unsigned int pid;
	unsigned long long used;
};

struct fk_metric {
	unsigned int id;
	int ret;
	double value;
	char *sn, *ln, *unit;
};

struct fk_metrics_get {
	unsigned int version, num;
	struct fk_sample *s1, *s2;
	struct fk_metric m[];
};

struct fk_util {
	unsigned int gpu, memory;
};

struct fk_mem {
	unsigned long long total, free, used;
};

struct fk_gpm_support {
	unsigned int version, supported;
};

static struct fk_dev fk_devs[FK_MAX_DEV];
static _Atomic int fk_inited;
static _Atomic unsigned long long fk_t0;

_Atomic unsigned long long fk_util_t0;

unsigned long long fk_real_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000000 + (unsigned long long)ts.tv_nsec / 1000;
}

static unsigned long long fk_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000 + (unsigned long long)ts.tv_nsec / 1000000;
}

static unsigned int fk_count(void)
{
	const char *s = getenv("FAKE_HGML_DEVICES");
	long n = s ? strtol(s, NULL, 10) : 4;

	return n < 0 ? 0 : n > FK_MAX_DEV ? FK_MAX_DEV : (unsigned int)n;
}

/* "all", or a comma list of indices. */
int fk_in_list(const char *env, unsigned int d)
{
	const char *s = getenv(env);
	char *end;

	if (!s || !*s)
		return 0;
	if (!strcmp(s, "all"))
		return 1;
	while (*s) {
		long v = strtol(s, &end, 10);

		if (end == s)
			return 0;
		if (v == (long)d)
			return 1;
		s = *end == ',' ? end + 1 : end;
	}
	return 0;
}

int fk_dev_ok(const struct fk_dev *dv)
{
	const char *s = getenv("FAKE_HGML_LOST");
	char *end;
	long idx, ms;

	if (!fk_inited)
		return FK_UNINITIALIZED;
	if (!dv || dv < fk_devs || dv >= fk_devs + fk_count())
		return FK_INVALID_ARGUMENT;
	if (s && *s) {
		idx = strtol(s, &end, 10);
		ms = *end == ':' ? strtol(end + 1, NULL, 10) : 0;
		if (idx == (long)dv->index && fk_now_ms() >= fk_t0 + (unsigned long long)ms)
			return FK_GPU_IS_LOST;
	}
	return FK_OK;
}

static unsigned int fk_util_gpu(unsigned int d)
{
	return (unsigned int)((10 * d + (fk_now_ms() - fk_t0) / 1000) % 100);
}

static unsigned int fk_nproc(unsigned int d)
{
	const char *s = getenv("FAKE_HGML_PROCS");

	return s && *s ? (unsigned int)strtoul(s, NULL, 10) % 1000 : 1 + d % 3;
}

/* The device's processes, with FAKE_HGML_SHARED's two on devices 0 and 1. */
unsigned int fk_nproc_all(unsigned int d)
{
	const char *s = getenv("FAKE_HGML_SHARED");
	int shared = s && *s && strcmp(s, "0") && d < 2 && fk_count() >= 2;

	return fk_nproc(d) + (shared ? 2 : 0);
}

void fk_proc_at(unsigned int d, unsigned int i, unsigned int *pid, unsigned long long *used)
{
	if (i >= fk_nproc(d))
		*pid = 4000900 + (i - fk_nproc(d));
	else
		*pid = (d == 0 && i == 0) ? (unsigned int)getpid() : 4000000 + 100 * d + i;
	*used = (unsigned long long)(i + 1) * (d + 1) * FK_GIB;
}

/* ---- implementations, exported below under both prefixes ---- */

static int fk_init(void)
{
	unsigned long long zero = 0;
	const char *f = getenv("FAKE_HGML_INIT_FAIL");

	if (f && *f && strcmp(f, "0"))
		return FK_DRIVER_NOT_LOADED;
	atomic_compare_exchange_strong(&fk_t0, &zero, fk_now_ms());
	zero = 0;
	atomic_compare_exchange_strong(&fk_util_t0, &zero, fk_real_us());
	for (unsigned int i = 0; i < FK_MAX_DEV; i++)
		fk_devs[i].index = i;
	fk_inited++;
	return FK_OK;
}

static int fk_shutdown(void)
{
	if (!fk_inited)
		return FK_UNINITIALIZED;
	fk_inited--;
	return FK_OK;
}

static const char *fk_error_string(int r)
{
	switch (r) {
	case FK_OK:
		return "Success";
	case FK_UNINITIALIZED:
		return "Uninitialized";
	case FK_INVALID_ARGUMENT:
		return "Invalid Argument";
	case FK_NOT_SUPPORTED:
		return "Not Supported";
	case FK_NO_PERMISSION:
		return "Insufficient Permissions";
	case FK_INSUFFICIENT_SIZE:
		return "Insufficient Size";
	case FK_DRIVER_NOT_LOADED:
		return "Driver Not Loaded";
	case FK_GPU_IS_LOST:
		return "GPU is lost";
	case FK_IN_USE:
		return "In use by another client";
	default:
		return "Unknown Error";
	}
}

static int fk_get_count(unsigned int *n)
{
	if (!fk_inited)
		return FK_UNINITIALIZED;
	*n = fk_count();
	return FK_OK;
}

static int fk_get_handle(unsigned int i, struct fk_dev **d)
{
	if (!fk_inited)
		return FK_UNINITIALIZED;
	if (i >= fk_count() || !d)
		return FK_INVALID_ARGUMENT;
	*d = &fk_devs[i];
	return fk_dev_ok(*d);
}

/* "PPU-0000000i-...": deterministic, so a test can name it. */
static int fk_get_uuid(struct fk_dev *d, char *uuid, unsigned int len)
{
	int r = fk_dev_ok(d);

	if (r)
		return r;
	if (!uuid || len < 41)
		return FK_INSUFFICIENT_SIZE;
	snprintf(uuid, len, "PPU-%08x-0000-4000-8000-00000000a5%02x", d->index, d->index & 0xff);
	return FK_OK;
}

static int fk_get_name(struct fk_dev *d, char *name, unsigned int len)
{
	const char *n = getenv("FAKE_HGML_NAME");
	int r = fk_dev_ok(d);

	if (r)
		return r;
	if (!name || !len)
		return FK_INVALID_ARGUMENT;
	snprintf(name, len, "%s", n && *n ? n : "PPU");
	return FK_OK;
}

static int fk_get_pci(struct fk_dev *d, struct fk_pci *p)
{
	int r = fk_dev_ok(d);

	if (r)
		return r;
	memset(p, 0, sizeof(*p));
	p->bus = 0x10 + d->index;
	p->pci_device_id = 0x10001ded;
	snprintf(p->bus_id_legacy, sizeof(p->bus_id_legacy), "0000:%02X:00.0", p->bus);
	snprintf(p->bus_id, sizeof(p->bus_id), "00000000:%02X:00.0", p->bus);
	return FK_OK;
}

static int fk_get_util(struct fk_dev *d, struct fk_util *u)
{
	int r = fk_dev_ok(d);

	if (r)
		return r;
	u->gpu = fk_util_gpu(d->index);
	u->memory = u->gpu / 2;
	return FK_OK;
}

static int fk_get_mem(struct fk_dev *d, struct fk_mem *m)
{
	unsigned long long used = 512ull * 1024 * 1024, u;
	unsigned int pid;
	int r = fk_dev_ok(d);

	if (r)
		return r;
	for (unsigned int i = 0; i < fk_nproc_all(d->index); i++) {
		fk_proc_at(d->index, i, &pid, &u);
		used += u;
	}
	m->total = 96 * FK_GIB;
	m->used = used;
	m->free = m->total - used;
	return FK_OK;
}

static int fk_get_clock(struct fk_dev *d, int type, unsigned int *mhz)
{
	int r = fk_dev_ok(d);

	if (r)
		return r;
	if (type == 1)
		*mhz = 1000 + 10 * d->index;
	else if (type == 2)
		*mhz = 1600;
	else
		return FK_NOT_SUPPORTED;
	return FK_OK;
}

static int fk_get_power(struct fk_dev *d, unsigned int *mw)
{
	int r = fk_dev_ok(d);

	if (r)
		return r;
	*mw = (100 + 2 * fk_util_gpu(d->index)) * 1000;
	return FK_OK;
}

#ifndef FAKE_HGML_OLD
static int fk_get_power_limit(struct fk_dev *d, unsigned int *mw)
{
	int r = fk_dev_ok(d);

	if (r)
		return r;
	*mw = 400000;
	return FK_OK;
}
#endif

static int fk_get_temp(struct fk_dev *d, int sensor, unsigned int *c)
{
	int r = fk_dev_ok(d);

	if (r)
		return r;
	if (sensor != 0)
		return FK_NOT_SUPPORTED;
	*c = 40 + d->index;
	return FK_OK;
}

static int fk_get_pcie_gen(struct fk_dev *d, unsigned int *g)
{
	int r = fk_dev_ok(d);

	if (!r)
		*g = fk_in_list("FAKE_HGML_PCIE_X8", d->index) ? 4 : 5;
	return r;
}

static int fk_get_pcie_width(struct fk_dev *d, unsigned int *w)
{
	int r = fk_dev_ok(d);

	if (!r)
		*w = fk_in_list("FAKE_HGML_PCIE_X8", d->index) ? 8 : 16;
	return r;
}

/* v2/v3 fill 24-byte entries, v1 16-byte ones. */
static int fk_get_procs(struct fk_dev *d, unsigned int *n, void *infos, int v1)
{
	unsigned int want, pid;
	unsigned long long used;
	int r = fk_dev_ok(d);

	if (r)
		return r;
	if (!n)
		return FK_INVALID_ARGUMENT;
	want = fk_nproc_all(d->index);
	if (*n < want || !infos) {
		*n = want;
		return FK_INSUFFICIENT_SIZE;
	}
	for (unsigned int i = 0; i < want; i++) {
		fk_proc_at(d->index, i, &pid, &used);
		if (v1) {
			struct fk_proc_v1 *p = (struct fk_proc_v1 *)infos + i;

			p->pid = pid;
			p->used = used;
		} else {
			struct fk_proc *p = (struct fk_proc *)infos + i;

			p->pid = pid;
			p->used = used;
			p->gi = p->ci = 0xffffffffu;
		}
	}
	*n = want;
	return FK_OK;
}

#ifndef FAKE_HGML_OLD
#define FK_SAMPLE_MAGIC 0x9e3779b9u

static int fk_gpm_support(struct fk_dev *d, struct fk_gpm_support *s)
{
	int r = fk_dev_ok(d);

	if (r)
		return r;
	if (!s || s->version != 1)
		return FK_INVALID_ARGUMENT;
	s->supported = !fk_in_list("FAKE_HGML_NO_GPM", d->index);
	return FK_OK;
}

static int fk_gpm_alloc(struct fk_sample **s)
{
	if (!fk_inited)
		return FK_UNINITIALIZED;
	*s = calloc(1, sizeof(**s));
	if (!*s)
		return FK_INSUFFICIENT_SIZE;
	(*s)->magic = FK_SAMPLE_MAGIC;
	(*s)->dev = -1;
	return FK_OK;
}

static int fk_gpm_free(struct fk_sample *s)
{
	if (!s || s->magic != FK_SAMPLE_MAGIC)
		return FK_INVALID_ARGUMENT;
	s->magic = 0;
	free(s);
	return FK_OK;
}

static int fk_gpm_get(struct fk_dev *d, struct fk_sample *s)
{
	const char *busy_ms = getenv("FAKE_HGML_GPM_BUSY_MS");
	const char *how = getenv("FAKE_HGML_GPM_ERROR");
	int r = fk_dev_ok(d);

	if (r)
		return r;
	if (!s || s->magic != FK_SAMPLE_MAGIC)
		return FK_INVALID_ARGUMENT;
	if (fk_in_list("FAKE_HGML_NO_GPM", d->index))
		return FK_NOT_SUPPORTED;
	if (fk_in_list("FAKE_HGML_GPM_BUSY", d->index) &&
	    (!busy_ms || fk_now_ms() < fk_t0 + strtoull(busy_ms, NULL, 10))) {
		if (how && !strcmp(how, "no_permission"))
			return FK_NO_PERMISSION;
		if (how && !strcmp(how, "not_supported"))
			return FK_NOT_SUPPORTED;
		return FK_IN_USE;
	}
	s->dev = (int)d->index;
	s->seq = ++d->seq;
	return FK_OK;
}

static double fk_gpm_value(unsigned int d, unsigned int id, unsigned long long s, int *ret)
{
	*ret = FK_OK;
	if (id >= 1 && id <= 13 && id != 8)
		return (double)((10ull * d + id + s) % 100);
	if (id == 20 || id == 21 || (id >= 60 && id <= 97))
		return 100.0 * (d + 1) + id;
	if (id >= 160 && id <= 165)
		return 1000.0 * (d + 1) + id;
	if (id >= 2048 && id <= 2051)
		return 50.0 + d + (id - 2048);
	*ret = FK_NOT_SUPPORTED;
	return 0;
}

static int fk_gpm_metrics(struct fk_metrics_get *g)
{
	if (!fk_inited)
		return FK_UNINITIALIZED;
	if (!g || g->version != 1 || !g->s1 || !g->s2 || g->s1->magic != FK_SAMPLE_MAGIC ||
	    g->s2->magic != FK_SAMPLE_MAGIC || g->s1->dev < 0 || g->s1->dev != g->s2->dev ||
	    g->s2->seq <= g->s1->seq || g->num > 210)
		return FK_INVALID_ARGUMENT;
	for (unsigned int i = 0; i < g->num; i++) {
		g->m[i].value =
		    fk_gpm_value((unsigned int)g->s2->dev, g->m[i].id, g->s2->seq, &g->m[i].ret);
		g->m[i].sn = g->m[i].ln = g->m[i].unit = NULL;
	}
	return FK_OK;
}
#endif

/* ---- exports: hgml* and nvml* ---- */

FK_BOTH(int, Init_v2, (void), (), fk_init)
FK_BOTH(int, Init, (void), (), fk_init)
FK_BOTH(int, Shutdown, (void), (), fk_shutdown)
FK_BOTH(const char *, ErrorString, (int r), (r), fk_error_string)
FK_BOTH(int, DeviceGetCount_v2, (unsigned int *n), (n), fk_get_count)
FK_BOTH(int, DeviceGetHandleByIndex_v2, (unsigned int i, struct fk_dev **d), (i, d), fk_get_handle)
FK_BOTH(int, DeviceGetName, (struct fk_dev * d, char *n, unsigned int l), (d, n, l), fk_get_name)
FK_BOTH(int, DeviceGetUUID, (struct fk_dev * d, char *n, unsigned int l), (d, n, l), fk_get_uuid)
FK_BOTH(int, DeviceGetUtilizationRates, (struct fk_dev * d, struct fk_util *u), (d, u), fk_get_util)
FK_BOTH(int, DeviceGetMemoryInfo, (struct fk_dev * d, struct fk_mem *m), (d, m), fk_get_mem)
FK_BOTH(int, DeviceGetClockInfo, (struct fk_dev * d, int t, unsigned int *v), (d, t, v),
	fk_get_clock)
FK_BOTH(int, DeviceGetPowerUsage, (struct fk_dev * d, unsigned int *v), (d, v), fk_get_power)
FK_BOTH(int, DeviceGetTemperature, (struct fk_dev * d, int s, unsigned int *v), (d, s, v),
	fk_get_temp)
FK_BOTH(int, DeviceGetCurrPcieLinkGeneration, (struct fk_dev * d, unsigned int *v), (d, v),
	fk_get_pcie_gen)
FK_BOTH(int, DeviceGetCurrPcieLinkWidth, (struct fk_dev * d, unsigned int *v), (d, v),
	fk_get_pcie_width)
FK_BOTH(int, DeviceGetComputeRunningProcesses, (struct fk_dev * d, unsigned int *n, void *p),
	(d, n, p, 1), fk_get_procs)
#ifdef FAKE_HGML_OLD
FK_BOTH(int, DeviceGetPciInfo, (struct fk_dev * d, struct fk_pci *p), (d, p), fk_get_pci)
#else
FK_BOTH(int, DeviceGetPciInfo_v3, (struct fk_dev * d, struct fk_pci *p), (d, p), fk_get_pci)
FK_BOTH(int, DeviceGetEnforcedPowerLimit, (struct fk_dev * d, unsigned int *v), (d, v),
	fk_get_power_limit)
FK_BOTH(int, DeviceGetComputeRunningProcesses_v3, (struct fk_dev * d, unsigned int *n, void *p),
	(d, n, p, 0), fk_get_procs)
FK_BOTH(int, DeviceGetComputeRunningProcesses_v2, (struct fk_dev * d, unsigned int *n, void *p),
	(d, n, p, 0), fk_get_procs)
FK_BOTH(int, GpmQueryDeviceSupport, (struct fk_dev * d, struct fk_gpm_support *s), (d, s),
	fk_gpm_support)
FK_BOTH(int, GpmSampleAlloc, (struct fk_sample * *s), (s), fk_gpm_alloc)
FK_BOTH(int, GpmSampleFree, (struct fk_sample * s), (s), fk_gpm_free)
FK_BOTH(int, GpmSampleGet, (struct fk_dev * d, struct fk_sample *s), (d, s), fk_gpm_get)
FK_BOTH(int, GpmMetricsGet, (struct fk_metrics_get * g), (g), fk_gpm_metrics)
#endif
