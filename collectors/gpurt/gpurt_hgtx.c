/* SPDX-License-Identifier: GPL-2.0-only */
/* hgtx.ranges from the NVTX v2 probes (gpurt_hgtx.bpf.h): one entity per
 * (process, name hash), in the default domain, named from the range_names
 * map the first time it is seen. Each refresh moves the BPF side to a new
 * epoch, then reads the min and max of the one just closed. A process whose
 * NVTX library loaded libasys-inject.so (a workload asys started) has its
 * ranges counted through the region by the hgtx collector: the probes see
 * the same calls, and leave that process out. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gpurt_int.h"
#include "gpurt.skel.h"
#include "hgtx.h"
#include "hgtx_stream.h"
#include "util.h"

struct rent {
	struct ktab_key ek; /* first: the table's key */
	uint32_t pid;
	bool injected; /* the region counts this process's ranges */
};

static uint64_t range_entity(uint32_t pid, uint64_t hash)
{
	/* splitmix64 over (pid, name hash): the same entity in every run and
	 * replay; the hgtx collector's keys are other 64-bit hashes, so the
	 * two producers' entities meet only by a collision */
	uint64_t x = ((uint64_t)pid * 0x9e3779b97f4a7c15ull) ^ hash;

	return util_mix64(x) >> 1; /* clear of STATUS_STREAM and ENTITY_CPU_TOTAL */
}

void gpurt_hgtx_init(struct gpurt_state *s)
{
	ktab_init(&s->rents, sizeof(struct rent), 64, KTAB_MIXED);
}

void gpurt_hgtx_free(struct gpurt_state *s)
{
	ktab_fini(&s->rents);
}

/* The entry of (pid, hash), labelled the first time; NULL without memory. */
static struct rent *rent_get(struct gpurt_state *s, struct emitter *out,
			     const struct gpurt_range_key *k, uint64_t ts)
{
	uint64_t ent = range_entity(k->pid, k->hash);
	struct rent *r;
	int fresh = ktab_get(&s->rents, 0, ent, (void **)&r);

	if (fresh != 1)
		return r;
	r->pid = k->pid;
	/* the library registers with the region at its first NVTX call, before
	 * any range of it can end and be read here */
	if (hgtx_region_serves(k->pid)) {
		r->injected = true;
		gpurt_pid_note(s, k->pid, 0); /* its end still sweeps its entries */
		return r;
	}
	struct gpurt_range_name nm;
	char label[HGTX_STREAM_LABEL_MAX];
	if (bpf_map_lookup_elem(s->scan.fd_range_names, k, &nm))
		util_strlcpy(nm.s, "?", sizeof(nm.s));
	nm.s[sizeof(nm.s) - 1] = '\0';
	hgtx_stream_label(label, "", nm.s);
	gpurt_pid_note(s, k->pid, 0);
	emit_label(out, s->s_ranges, ent, ts, label);
	return r;
}

static void range_emit(struct gpurt_state *s, struct emitter *out, const struct gpurt_range_key *k,
		       const struct gpurt_range *r, uint32_t epoch)
{
	uint64_t ts = asys_now_ns();
	struct rent *e = rent_get(s, out, k, ts);
	uint32_t slot = epoch & 1;
	bool ended = r->epoch[slot] == epoch && r->count;
	double v[HGTX_NFIELDS] = {
	    [HGTX_PID] = k->pid,
	    [HGTX_DEPTH] = r->depth,
	    [HGTX_COLOR] = r->color == GPURT_NO_COLOR ? NAN : (double)r->color,
	    [HGTX_COUNT] = (double)r->count,
	    [HGTX_TOTAL_NS] = (double)r->total_ns,
	    [HGTX_SELF_NS] = (double)r->self_ns,
	    [HGTX_MIN_NS] = ended ? (double)r->min_ns[slot] : NAN,
	    [HGTX_MAX_NS] = ended ? (double)r->max_ns[slot] : NAN,
	};

	if (e && !e->injected)
		emit_sample(out, s->s_ranges, e->ek.key, ts, v, HGTX_NFIELDS);
}

/* hgtx.ranges once the probes have timed a range: the Top ranges pane shows
 * whenever the stream exists, and most sessions see no NVTX v2 library. A
 * stream of another schema under the name is left alone. */
static bool ranges_stream(struct gpurt_state *s)
{
	struct gpurt_range_key key;

	if (s->s_ranges >= 0)
		return true;
	if (s->s_ranges == -1 && !bpf_map_get_next_key(s->scan.fd_ranges, NULL, &key)) {
		int id = stream_table_add(s->streams, CATALOGUE_STREAM(STREAM_HGTX_RANGES));
		s->s_ranges = id < 0 ? -2 : id;
	}
	return s->s_ranges >= 0;
}

/* Every aggregate of pid (all when pid is 0), with the min and max of epoch. */
static void ranges_read(struct gpurt_state *s, struct emitter *out, uint32_t pid, uint32_t epoch)
{
	int fd = s->scan.fd_ranges;
	struct gpurt_range_key key, next;
	bool first = true;

	if (!ranges_stream(s))
		return;
	while (!bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		struct gpurt_range r;

		first = false;
		key = next;
		if ((!pid || key.pid == pid) && !bpf_map_lookup_elem(fd, &key, &r))
			range_emit(s, out, &key, &r, epoch);
	}
}

void gpurt_hgtx_read(struct gpurt_state *s, struct emitter *out)
{
	volatile __u32 *epoch = &s->skel->bss->range_epoch;
	uint32_t closed = *epoch;

	/* ranges that end from now on go to the other slot */
	*epoch = closed + 1;
	ranges_read(s, out, 0, closed);
}

/* A range of the process that ended leaves the table, and its series (the
 * region's own collector ends those it counted). */
static bool rent_drop(void *rec, void *ctx)
{
	const struct rent *r = rec;
	const struct gpurt_drop *d = ctx;

	if (r->pid != d->pid)
		return false;
	if (!r->injected)
		emit_gone(d->out, d->s->s_ranges, r->ek.key, d->ts);
	return true;
}

void gpurt_hgtx_final(struct gpurt_state *s, struct emitter *out, uint32_t pid)
{
	struct gpurt_drop d = {s, out, pid, 0};

	ranges_read(s, out, pid, s->skel->bss->range_epoch);
	if (!s->rents.n)
		return;
	d.ts = asys_now_ns();
	ktab_sweep(&s->rents, rent_drop, &d);
}
