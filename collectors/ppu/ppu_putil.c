/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-process PPU utilisation (ppu.proc_util). Each tick asks the library
 * for the samples newer than the newest one already read on that device, so
 * each sample counts once; of several samples of one process the newest is
 * emitted. The library lists only processes with non-zero utilisation in a
 * sample period, so when a read brings new samples, a process the device
 * runs that has none in them was idle: it gets 0. A read with nothing new
 * (PPU_ERR_NOT_FOUND) leaves every value as it was. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppu_putil.h"
#include "sysroot.h"

/* A process the device cannot list is forgotten after this long without a
 * sample (the library keeps about a second of samples). */
#define PPU_PUTIL_STALE_NS 10000000000ull
#define PPU_PUTIL_FIRST_CAP 64u

int ppu_putil_init(struct ppu_putil *pu, int stream, const struct ppu_lib *l, unsigned int ndev)
{
	memset(pu, 0, sizeof(*pu));
	pu->stream = stream;
	pu->api = l->util_api;
	pu->devs = calloc(ndev ? ndev : 1, sizeof(*pu->devs));
	pu->buf = calloc(PPU_PUTIL_FIRST_CAP, PPU_PROC_UTIL_STRIDE);
	if (!pu->devs || !pu->buf)
		return -ENOMEM;
	pu->ndev = ndev;
	pu->cap = PPU_PUTIL_FIRST_CAP;
	return 0;
}

void ppu_putil_fini(struct ppu_putil *pu)
{
	for (unsigned int i = 0; pu->devs && i < pu->ndev; i++)
		free(pu->devs[i].procs);
	free(pu->devs);
	free(pu->buf);
	memset(pu, 0, sizeof(*pu));
}

void ppu_proc_label(unsigned int pid, char *buf, size_t n)
{
	char path[64], comm[64];
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	len = sysroot_read_file(path, comm, sizeof(comm));
	if (len <= 0)
		snprintf(comm, sizeof(comm), "?");
	else if (comm[len - 1] == '\n')
		comm[len - 1] = '\0';
	snprintf(buf, n, "%u %s", pid, comm);
}

static uint64_t ppu_putil_key(unsigned int dev, unsigned int pid)
{
	return ((uint64_t)dev << 32) | pid;
}

/* The stream's one status: the first problem met says what it is. */
static void ppu_putil_say(struct ppu_putil *pu, struct emitter *out, uint64_t ts, const char *msg)
{
	if (pu->said)
		return;
	emit_status(out, (uint32_t)pu->stream, STATUS_STREAM, ts, msg);
	pu->said = true;
}

/* Grows the buffer to hold want entries, bounded; false when it cannot. A
 * library that asks for no more than it was given gets twice the room. */
static bool ppu_putil_grow(struct ppu_putil *pu, unsigned int want)
{
	unsigned int cap;
	void *nb;

	if (want <= pu->cap)
		want = pu->cap * 2;
	if (want > PPU_PUTIL_MAX)
		return false;
	cap = want + want / 4 + 16;
	if (cap > PPU_PUTIL_MAX)
		cap = PPU_PUTIL_MAX;
	nb = calloc(cap, PPU_PROC_UTIL_STRIDE);
	if (!nb)
		return false;
	free(pu->buf);
	pu->buf = nb;
	pu->cap = cap;
	return true;
}

/* Reads device dev's new samples into buf; *n is their count on PPU_OK.
 * Grows the buffer when the library asks for more room, and falls back to
 * the older call when the newer one is refused. */
static ppu_ret_t ppu_putil_read(struct ppu_putil *pu, const struct ppu_lib *l, struct emitter *out,
				unsigned int dev, ppu_device_t h, unsigned int *n, uint64_t ts)
{
	char msg[256], sym[96];
	ppu_ret_t r = PPU_ERR_UNKNOWN;

	for (int tries = 0; tries < 3; tries++) {
		*n = pu->cap;
		r = ppu_lib_proc_util(l, pu->api, h, pu->devs[dev].last_seen, pu->buf, n);
		if (r == PPU_ERR_NOT_SUPPORTED && pu->api == 2 &&
		    l->device_get_process_utilization) {
			pu->api = 1;
			continue;
		}
		if (r != PPU_ERR_INSUFFICIENT_SIZE)
			break;
		if (!ppu_putil_grow(pu, *n)) {
			ppu_lib_util_symbol(l, pu->api, sym, sizeof(sym));
			snprintf(msg, sizeof(msg),
				 "%s on device %u has %u samples, more than the %u asys reads at "
				 "once: those of this refresh are skipped",
				 sym, dev, *n, PPU_PUTIL_MAX);
			ppu_putil_say(pu, out, ts, msg);
			break;
		}
	}
	return r;
}

static int ppu_putil_cmp(const void *a, const void *b)
{
	const struct ppu_proc_util *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->timestamp < y->timestamp ? -1 : x->timestamp > y->timestamp;
}

/* Keeps the newest sample of each process that is newer than last_seen, in
 * pid order; returns their count and moves last_seen to the newest. */
static unsigned int ppu_putil_newest(struct ppu_proc_util *s, unsigned int n,
				     unsigned long long *last_seen)
{
	unsigned long long seen = *last_seen;
	unsigned int k = 0;

	qsort(s, n, sizeof(*s), ppu_putil_cmp);
	for (unsigned int i = 0; i < n; i++) {
		if (s[i].pid == 0 || s[i].timestamp <= seen)
			continue;
		if (s[i].timestamp > *last_seen)
			*last_seen = s[i].timestamp;
		if (k > 0 && s[k - 1].pid == s[i].pid)
			s[k - 1] = s[i];
		else
			s[k++] = s[i];
	}
	return k;
}

/* Marks pid seen at ts, adding it: 1 when added, 0 when it was there,
 * -1 when it cannot be kept. */
static int ppu_putil_track(struct ppu_putil_dev *pd, unsigned int pid, uint64_t ts)
{
	for (size_t i = 0; i < pd->nprocs; i++)
		if (pd->procs[i].pid == pid) {
			pd->procs[i].seen_ns = ts;
			return 0;
		}
	if (pd->nprocs == pd->cap) {
		size_t cap = pd->cap ? pd->cap * 2 : 16;
		struct ppu_putil_proc *np;

		if (cap > 2 * PPU_PUTIL_MAX)
			return -1;
		np = realloc(pd->procs, cap * sizeof(*np));
		if (!np)
			return -1;
		pd->procs = np;
		pd->cap = cap;
	}
	pd->procs[pd->nprocs++] = (struct ppu_putil_proc){pid, ts};
	return 1;
}

/* A library value: a share in %, or not available (0xFFFFFFFF and the
 * like, anything above 100). */
static double ppu_putil_value(unsigned int v)
{
	return v <= 100 ? (double)v : NAN;
}

/* One process's values; s NULL: an idle process, all 0. */
static void ppu_putil_emit(struct ppu_putil *pu, struct emitter *out, unsigned int dev,
			   unsigned int pid, const struct ppu_proc_util *s, uint64_t ts)
{
	double v[PPU_PROC_UTIL_NFIELDS] = {0, 0, 0, 0};
	char label[128];
	int added = ppu_putil_track(&pu->devs[dev], pid, ts);

	if (added < 0)
		return;
	if (added) {
		ppu_proc_label(pid, label, sizeof(label));
		emit_label(out, (uint32_t)pu->stream, ppu_putil_key(dev, pid), ts, label);
	}
	if (s) {
		v[PPU_PROC_UTIL_SM] = ppu_putil_value(s->sm);
		v[PPU_PROC_UTIL_MEM] = ppu_putil_value(s->mem);
		v[PPU_PROC_UTIL_ENC] = ppu_putil_value(s->enc);
		v[PPU_PROC_UTIL_DEC] = ppu_putil_value(s->dec);
	}
	emit_sample(out, (uint32_t)pu->stream, ppu_putil_key(dev, pid), ts, v,
		    PPU_PROC_UTIL_NFIELDS);
}

static bool ppu_putil_has(const unsigned int *pids, size_t n, unsigned int pid)
{
	for (size_t i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

static bool ppu_putil_in_batch(const struct ppu_proc_util *s, unsigned int n, unsigned int pid)
{
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (s[mid].pid == pid)
			return true;
		if (s[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Ends the series of processes no longer there: not sampled this tick and
 * not on the device (or, when it cannot list them, silent for a while). */
static void ppu_putil_forget(struct ppu_putil *pu, struct emitter *out, unsigned int dev,
			     const unsigned int *running, size_t nrunning, uint64_t ts)
{
	struct ppu_putil_dev *pd = &pu->devs[dev];
	size_t k = 0;

	for (size_t i = 0; i < pd->nprocs; i++) {
		struct ppu_putil_proc p = pd->procs[i];
		bool here = p.seen_ns == ts;

		if (!here && running && ppu_putil_has(running, nrunning, p.pid))
			here = true;
		if (!here && (running || ts - p.seen_ns > PPU_PUTIL_STALE_NS)) {
			emit_gone(out, (uint32_t)pu->stream, ppu_putil_key(dev, p.pid), ts);
			continue;
		}
		pd->procs[k++] = p;
	}
	pd->nprocs = k;
}

/* Says once why a device gives no samples; NOT_SUPPORTED stops asking it. */
static void ppu_putil_failed(struct ppu_putil *pu, const struct ppu_lib *l, struct emitter *out,
			     unsigned int dev, ppu_ret_t r, uint64_t ts)
{
	char msg[320], sym[96], ebuf[64];

	ppu_lib_util_symbol(l, pu->api, sym, sizeof(sym));
	if (r == PPU_ERR_NOT_SUPPORTED) {
		pu->devs[dev].unsupported = true;
		snprintf(msg, sizeof(msg),
			 "per-process PPU utilisation is not supported on device %u: %s answers "
			 "%s",
			 dev, sym, ppu_lib_strerror(l, r, ebuf, sizeof(ebuf)));
	} else {
		snprintf(msg, sizeof(msg),
			 "per-process PPU utilisation: %s failed on device %u: %s", sym, dev,
			 ppu_lib_strerror(l, r, ebuf, sizeof(ebuf)));
	}
	ppu_putil_say(pu, out, ts, msg);
}

ppu_ret_t ppu_putil_sample(struct ppu_putil *pu, const struct ppu_lib *l, struct emitter *out,
			   unsigned int dev, ppu_device_t h, const unsigned int *running,
			   size_t nrunning, uint64_t ts)
{
	struct ppu_putil_dev *pd;
	struct ppu_proc_util *s;
	unsigned int n = 0;
	char msg[768], sym[96];
	ppu_ret_t r;

	if (dev >= pu->ndev || pu->devs[dev].unsupported)
		return PPU_OK;
	pd = &pu->devs[dev];
	if (!pu->api) {
		ppu_lib_symbol(l, "DeviceGetProcessUtilization", sym, sizeof(sym));
		snprintf(msg, sizeof(msg), "per-process PPU utilisation needs %s, which %s lacks",
			 sym, l->path);
		ppu_putil_say(pu, out, ts, msg);
		return PPU_OK;
	}
	r = ppu_putil_read(pu, l, out, dev, h, &n, ts);
	if (r == PPU_ERR_GPU_IS_LOST)
		return r;
	if (r == PPU_OK) {
		s = pu->buf;
		n = ppu_putil_newest(s, n, &pd->last_seen);
		for (unsigned int i = 0; i < n; i++)
			ppu_putil_emit(pu, out, dev, s[i].pid, &s[i], ts);
		/* New samples: the processes the library left out were idle. */
		for (size_t i = 0; n && running && i < nrunning; i++)
			if (!ppu_putil_in_batch(s, n, running[i]))
				ppu_putil_emit(pu, out, dev, running[i], NULL, ts);
	} else if (r != PPU_ERR_NOT_FOUND && r != PPU_ERR_INSUFFICIENT_SIZE) {
		ppu_putil_failed(pu, l, out, dev, r, ts);
	}
	ppu_putil_forget(pu, out, dev, running, nrunning, ts);
	return PPU_OK;
}

void ppu_putil_gone(struct ppu_putil *pu, struct emitter *out, unsigned int dev, uint64_t ts)
{
	struct ppu_putil_dev *pd;

	if (dev >= pu->ndev)
		return;
	pd = &pu->devs[dev];
	for (size_t i = 0; i < pd->nprocs; i++)
		emit_gone(out, (uint32_t)pu->stream, ppu_putil_key(dev, pd->procs[i].pid), ts);
	pd->nprocs = 0;
}
