/* SPDX-License-Identifier: GPL-2.0-only */
/* gpurt: device and pinned memory per process, failed allocations and kernel
 * launches per kernel, from eBPF uprobes on the PPU runtime libraries (see
 * gpurt.bpf.c). This side attaches the probe table once per library file
 * (gpurt_scan.c, from a thread of its own: gpurt_watch.c), turns the BPF
 * maps into samples each refresh, and emits the counts a process left at its
 * exit (the `exits` ring) as its last samples. */
#include "config.h"

#ifndef HAVE_BPF
#error "gpurt.c needs libbpf: configure found no libbpf, clang or bpftool"
#endif

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "demangle.h"
#include "gpurt_api.h"
#include "gpurt_int.h"
#include "gpurt.skel.h"
#include "gpurt_probes.h"
#include "gpurt_syms.h"
#include "gpurt_watch.h"
#include "stream.h"
#include "util.h"

#define GPURT_NAME_TRIES 10 /* refreshes to wait for a handle's name */

/* hgtx.ranges is not among them: it is registered at the first range the
 * NVTX v2 probes time (gpurt_hgtx.c), since its pane shows whenever the
 * stream exists */
static const struct stream_desc *const gpurt_streams[] = {
    CATALOGUE_STREAM(STREAM_GPURT_MEM), CATALOGUE_STREAM(STREAM_GPURT_KERNELS),
    CATALOGUE_STREAM(STREAM_GPURT_COPY), NULL};

/* What the kernels pane says when launches are not counted. */
#define GPURT_NO_TRACE "kernel launches are not counted (-t none): use -t hggc"

static uint64_t gpurt_entity(const struct gpurt_launch_key *k)
{
	/* splitmix64 over (pid, by, addr): stable across runs and replays */
	uint64_t x = ((uint64_t)k->pid << 1 | k->by) * 0x9e3779b97f4a7c15ull ^ k->addr;

	return util_mix64(x) >> 1; /* clear of STATUS_STREAM and ENTITY_CPU_TOTAL */
}

static struct gpurt_pid *pid_find(const struct gpurt_state *s, uint32_t pid)
{
	for (size_t i = 0; i < s->npids; i++)
		if (s->pids[i].pid == pid)
			return &s->pids[i];
	return NULL;
}

bool gpurt_pid_note(struct gpurt_state *s, uint32_t pid, uint32_t stream)
{
	struct gpurt_pid *p = pid_find(s, pid);

	if (!p) {
		if (s->npids == s->cappids) {
			size_t cap = s->cappids ? s->cappids * 2 : 64;
			struct gpurt_pid *v = realloc(s->pids, cap * sizeof(*v));
			if (!v)
				return false;
			s->pids = v;
			s->cappids = cap;
		}
		p = &s->pids[s->npids++];
		*p = (struct gpurt_pid){.pid = pid};
	}
	if (p->labelled & stream)
		return false;
	p->labelled |= stream;
	return true;
}

void gpurt_pid_label(struct gpurt_state *s, struct emitter *out, int stream, uint32_t pid,
		     uint64_t ts)
{
	char cmd[256];

	(void)s;
	gpurt_scan_cmdline(pid, cmd, sizeof(cmd));
	emit_label(out, stream, pid, ts, cmd);
}

static const char *gpurt_last_error(const void *state)
{
	const struct gpurt_state *s = state;
	return s && s->err[0] ? s->err : NULL;
}

static void gpurt_fini(void *state)
{
	struct gpurt_state *s = state;
	if (!s)
		return;
	gpurt_watch_stop(s->watch);
	ring_buffer__free(s->exits);
	gpurt_scan_fini(&s->scan);
	gpurt_bpf__destroy(s->skel);
	gpurt_syms_free(s->syms);
	gpurt_hgtx_free(s);
	ktab_fini(&s->kents);
	free(s->pids);
	free(s->dead);
	free(s);
}

static int gpurt_init(const struct coll_ctx *ctx, void **state)
{
	const struct asys_options *o = ctx->opts;
	struct gpurt_state *s = calloc(1, sizeof(*s));
	int r;
	if (!s)
		return -ENOMEM;
	*state = s;
	gpurt_libbpf_quiet();
	s->s_mem = stream_table_add(ctx->streams, CATALOGUE_STREAM(STREAM_GPURT_MEM));
	s->s_kern = stream_table_add(ctx->streams, CATALOGUE_STREAM(STREAM_GPURT_KERNELS));
	s->s_copy = stream_table_add(ctx->streams, CATALOGUE_STREAM(STREAM_GPURT_COPY));
	s->s_ranges = -1;
	s->streams = ctx->streams;
	ktab_init(&s->kents, sizeof(struct kent), 256, KTAB_MIXED);
	gpurt_hgtx_init(s);
	if (s->s_mem < 0 || s->s_kern < 0 || s->s_copy < 0) {
		r = s->s_mem < 0 ? s->s_mem : s->s_kern < 0 ? s->s_kern : s->s_copy;
		snprintf(s->err, sizeof(s->err), "runtime probes: cannot register streams (%s)",
			 strerror(-r));
		return r;
	}
	r = gpurt_scan_init(&s->scan, o, options_get(o, &gpurt_options), s->err, sizeof(s->err));
	if (r)
		return r;
	if (!gpurt_scan_privileged()) {
		snprintf(s->err, sizeof(s->err),
			 "run asys with sudo, or once: sudo setcap cap_bpf,cap_perfmon+ep "
			 "$(command -v asys) (the runtime probes need root or CAP_BPF and "
			 "CAP_PERFMON)");
		return -EPERM;
	}
	s->syms = gpurt_syms_new();
	if (!s->syms)
		return -ENOMEM;
	s->scan.opts = o;
	s->need_load = !s->scan.tree;
	/* a followed command is let go to exec when init returns (and a
	 * followed process may load the runtime at any moment): its first
	 * runtime call must find the probes in place */
	return s->need_load ? 0 : gpurt_load(s);
}

static void set_status(struct gpurt_state *s, struct emitter *out, uint64_t ts, const char *text)
{
	if (s->status_sent && !strcmp(s->status, text))
		return;
	util_strlcpy(s->status, text, sizeof(s->status));
	s->status_sent = true;
	emit_status(out, s->s_mem, STATUS_STREAM, ts, text);
	emit_status(out, s->s_copy, STATUS_STREAM, ts, text);
	emit_status(out, s->s_kern, STATUS_STREAM, ts,
		    s->scan.track_launch || *text ? text : GPURT_NO_TRACE);
}

/* where: the stub's file and offset, from the exits ring, for a process
 * whose maps are gone */
static void kent_name(struct gpurt_state *s, struct kent *k, const struct gpurt_where *where,
		      char *buf, size_t n)
{
	int r = -ENOENT;
	char path[4096];
	if (k->key.by == GPURT_LAUNCH_BY_STUB) {
		r = gpurt_syms_name(s->syms, (int)k->key.pid, k->key.addr, buf, n);
		if (r && where && where->file.ino &&
		    !gpurt_watch_path(s->watch, where->file.dev, where->file.ino, path,
				      sizeof(path)))
			r = gpurt_syms_name_file(s->syms, path, where->file.dev, where->file.ino,
						 where->off, buf, n);
	} else {
		struct gpurt_handle_key hk = {.pid = k->key.pid, .handle = k->key.addr};
		struct gpurt_name nm;
		if (!bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.names), &hk, &nm)) {
			nm.name[sizeof(nm.name) - 1] = '\0';
			demangle_name(nm.name, buf, n);
			r = 0;
		} else {
			snprintf(buf, n, "handle 0x%llx", (unsigned long long)k->key.addr);
		}
	}
	if (!r || !--k->tries)
		k->tries = 0;
}

/* One kernel's count: labelled the first time (and again once named). */
static void kern_emit(struct gpurt_state *s, struct emitter *out,
		      const struct gpurt_launch_key *key, uint64_t count,
		      const struct gpurt_where *where, uint64_t ts)
{
	uint64_t ent = gpurt_entity(key);
	struct kent *k;
	int fresh = ktab_get(&s->kents, 0, ent, (void **)&k);

	if (fresh < 0)
		return;
	if (fresh) {
		k->key = *key;
		k->tries = GPURT_NAME_TRIES;
		gpurt_pid_note(s, key->pid, 0);
	}
	if (where && k->tries) /* its last sample: the name found now is final */
		k->tries = 1;
	if (fresh || k->tries) {
		char name[512], label[600];
		kent_name(s, k, where, name, sizeof(name));
		if (fresh || !k->tries) {
			snprintf(label, sizeof(label), "%u\t%s", key->pid, name);
			emit_label(out, s->s_kern, ent, ts, label);
		}
	}
	double v[GPURT_KERNELS_NFIELDS] = {
	    [GPURT_KERNELS_LAUNCHES] = (double)count,
	    [GPURT_KERNELS_PID] = (double)key->pid,
	};
	emit_sample(out, s->s_kern, ent, ts, v, GPURT_KERNELS_NFIELDS);
}

static void read_kernels(struct gpurt_state *s, struct emitter *out)
{
	int fd = bpf_map__fd(s->skel->maps.launches);
	struct gpurt_launch_key key, next;
	bool first = true;
	while (!bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		__u64 count;
		if (!bpf_map_lookup_elem(fd, &key, &count))
			kern_emit(s, out, &key, count, NULL, asys_now_ns());
	}
}

static void mem_emit(struct gpurt_state *s, struct emitter *out, uint32_t pid,
		     const struct gpurt_mem *m, uint64_t ts)
{
	if (gpurt_pid_note(s, pid, GPURT_IN_MEM))
		gpurt_pid_label(s, out, s->s_mem, pid, ts);
	double v[GPURT_MEM_NFIELDS] = {
	    [GPURT_MEM_DEVICE_BYTES] = (double)m->device_bytes,
	    [GPURT_MEM_PINNED_BYTES] = (double)m->pinned_bytes,
	    [GPURT_MEM_ALLOCS] = (double)m->allocs,
	    [GPURT_MEM_FREES] = (double)m->frees,
	    [GPURT_MEM_FAILS] = (double)m->fails,
	    [GPURT_MEM_LAST_FAIL_SIZE] = m->fails ? (double)m->last_fail_size : NAN,
	    [GPURT_MEM_LAST_FAIL_NS] = m->last_fail_ns ? (double)m->last_fail_ns : NAN,
	};
	emit_sample(out, s->s_mem, pid, ts, v, GPURT_MEM_NFIELDS);
}

static void read_mem(struct gpurt_state *s, struct emitter *out)
{
	int fd = bpf_map__fd(s->skel->maps.mem);
	__u32 key, next;
	bool first = true;
	while (!bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		struct gpurt_mem m;
		if (!bpf_map_lookup_elem(fd, &key, &m))
			mem_emit(s, out, key, &m, asys_now_ns());
	}
}

/* A kernel of the process that ended leaves the table, and its series. */
static bool kent_drop(void *rec, void *ctx)
{
	const struct kent *k = rec;
	const struct gpurt_drop *d = ctx;
	if (k->key.pid != d->pid)
		return false;
	emit_gone(d->out, d->s->s_kern, k->ek.key, d->ts);
	return true;
}

/* A process that ended: say so, and sweep what the BPF side kept for it
 * (also for one never emitted for: the names of handles it never launched). */
static void forget(struct gpurt_state *s, struct emitter *out, uint32_t pid)
{
	/* the last copies and ranges, read before the sweep */
	if (s->scan.track_mem)
		gpurt_copy_final(s, out, pid);
	if (s->scan.track_launch)
		gpurt_hgtx_final(s, out, pid);
	gpurt_scan_sweep_pid(&s->scan, pid);
	struct gpurt_pid *p = pid_find(s, pid);
	if (!p)
		return;
	uint64_t ts = asys_now_ns();
	emit_gone(out, s->s_mem, pid, ts);
	struct gpurt_drop d = {s, out, pid, ts};
	if (ktab_sweep(&s->kents, kent_drop, &d))
		return;
	*p = s->pids[--s->npids];
}

/* A record of the exits ring: a kernel's last count, or the end of a
 * process (its memory totals). count in an END record says some counts
 * found no room in the ring and stayed in the maps: then the process is
 * left for the maps' read and the /proc check to finish. */
static int on_exit_rec(void *ctx, void *data, size_t len)
{
	struct gpurt_state *s = ctx;
	struct gpurt_exit e;
	if (len < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	if (e.kind == GPURT_EXIT_LAUNCHES && s->scan.track_launch && e.key.pid == e.pid) {
		kern_emit(s, s->out, &e.key, e.count, &e.where, asys_now_ns());
	} else if (e.kind == GPURT_EXIT_END) {
		if (e.has_mem && s->scan.track_mem)
			mem_emit(s, s->out, e.pid, &e.mem, asys_now_ns());
		if (!e.count)
			forget(s, s->out, e.pid);
	}
	return 0;
}

/* Processes we emit for that are gone from /proc, noted before the exits
 * ring is read: the exit tracepoint runs before a process leaves /proc, so
 * their records are in the ring by then. */
static void find_dead(struct gpurt_state *s)
{
	uint32_t *v = realloc(s->dead, (s->npids ? s->npids : 1) * sizeof(*v));
	s->ndead = 0;
	if (!v)
		return;
	s->dead = v;
	for (size_t i = 0; i < s->npids; i++)
		if (!gpurt_scan_pid_alive(s->pids[i].pid))
			s->dead[s->ndead++] = s->pids[i].pid;
}

/* The exits ring is mapped once a probe is attached: only a probed process
 * writes to it, and its mapping shows its whole 1 MiB twice in the RSS (the
 * data pages are mapped back to back). What a process wrote before the first
 * mapping waits in the kernel's ring. */
static int exits_map(struct gpurt_state *s, size_t nattached)
{
	if (s->exits || nattached == 0)
		return 0;
	s->exits = ring_buffer__new(bpf_map__fd(s->skel->maps.exits), on_exit_rec, s, NULL);
	return s->exits ? 0 : -errno;
}

static void gpurt_tick(struct gpurt_state *s, struct emitter *out)
{
	size_t nlibs, nattached;
	int r;
	find_dead(s);
	s->out = out;
	gpurt_watch_counts(s->watch, &nlibs, &nattached);
	r = exits_map(s, nattached);
	if (s->exits)
		ring_buffer__consume(s->exits);
	/* Only the uprobes write these maps, and the links stay until asys
	 * ends: before the first attach they are empty, and a walk of an empty
	 * hash map still visits each of its (up to 65,536) buckets. */
	if (nattached && s->scan.track_mem) {
		read_mem(s, out);
		gpurt_copy_read(s, out);
	}
	if (nattached && s->scan.track_launch) {
		read_kernels(s, out);
		gpurt_hgtx_read(s, out);
	}
	for (size_t i = 0; i < s->ndead; i++)
		if (pid_find(s, s->dead[i])) /* else its END record did it */
			forget(s, out, s->dead[i]);
	/* no runtime library in use is the normal idle state, no status */
	if (r) {
		snprintf(s->err, sizeof(s->err), "runtime probes: cannot read the exits ring: %s",
			 strerror(-r));
		set_status(s, out, asys_now_ns(), s->err);
	} else if (nlibs > 0 && nattached == 0)
		set_status(s, out, asys_now_ns(),
			   "runtime libraries found, but none of their symbols could be probed");
	else
		set_status(s, out, asys_now_ns(), "");
}

static int gpurt_sample(void *state, struct emitter *out, uint64_t now_ns)
{
	struct gpurt_state *s = state;
	(void)now_ns;
	if (s->need_load) {
		s->need_load = false;
		s->load_failed = gpurt_load(s) != 0;
		if (s->load_failed)
			set_status(s, out, asys_now_ns(), s->err);
	}
	if (!s->load_failed)
		gpurt_tick(s, out);
	return 0;
}

/* After the last tick: what processes left since (a recording of `-- cmd`
 * stops as the command ends, before the next tick would read it). */
static void gpurt_flush(void *state, struct emitter *out)
{
	struct gpurt_state *s = state;
	if (s && s->watch && !s->load_failed)
		gpurt_tick(s, out);
}

size_t gpurt_attached(void *state)
{
	struct gpurt_state *s = state;
	size_t nlibs = 0, nattached = 0;
	if (s && s->watch)
		gpurt_watch_counts(s->watch, &nlibs, &nattached);
	return nattached;
}

const struct collector gpurt_collector = {
    .name = "gpurt",
    .streams = gpurt_streams,
    .options = &gpurt_options,
    .frequency = gpurt_frequency,
    .init = gpurt_init,
    .sample = gpurt_sample,
    .flush = gpurt_flush,
    .fini = gpurt_fini,
    .last_error = gpurt_last_error,
};
