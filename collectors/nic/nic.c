/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#ifndef HAVE_MNL
#error "nic.c needs libmnl (configure --enable-mnl)"
#endif

/* NIC collector: every netdev over rtnetlink (RTM_GETSTATS, one dump per
 * tick) and every RDMA port from its sysfs counters (kept fds, pread), its
 * hw_counters over RDMA netlink (STAT_GET) where the kernel has it. RoCE
 * traffic bypasses the netdev counters, hence the two streams. */

#include <errno.h>
#include <math.h>
#include <net/if.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "collector.h"
#include "nic.h"
#include "nic_netlink.h"
#include "nic_opts.h"
#include "nic_rdma.h"
#include "util.h"

/* A read is preempted when it costs over twice its usual time plus 100 us
 * (a wake on a busy VM): a read that fast is never a preemption. */
#define NIC_SLOW_READ_FACTOR 2.0
#define NIC_SLOW_READ_NS 100000.0
/* The usual cost: a moving average over about twenty reads. */
#define NIC_READ_COST_WEIGHT 0.05
/* The rate is said to fall short below 95% of what was asked. */
#define NIC_RATE_OK 0.95

#define NIC_RESCAN_NS 1000000000ull	/* RDMA ports and link names, at most 1/s */
#define NIC_RATE_CHECK_NS 2000000000ull /* achieved rate judged over 2 s */

static const struct stream_desc *const nic_streams[] = {CATALOGUE_STREAM(STREAM_NIC_LINK),
							CATALOGUE_STREAM(STREAM_NIC_RDMA), NULL};

struct nic_link {
	uint32_t ifindex;
	char name[IF_NAMESIZE];
	char rdma[NIC_RDMA_NAME_MAX]; /* "" when no RDMA device maps here */
	uint64_t seen;		      /* dump generation it last appeared in */
	uint64_t v[NIC_L_NFIELDS];    /* counters of that dump */
	bool selected;
	bool announced; /* label sent; a removal then sends gone */
};

struct nic_state {
	regex_t re[NIC_MAX_RE];
	int nre;
	int link_sid, rdma_sid;
	struct nic_nl *nl;
	struct nic_rdma *rdma;
	struct nic_link *links; /* sorted by ifindex */
	size_t nlinks, caplinks;
	size_t cursor; /* dumps come in ifindex order: guess the next */
	uint64_t gen;
	bool unknown_link; /* the last dump had an ifindex we cannot name */
	struct emitter *out;
	uint64_t ts;
	uint64_t last_scan_ns;
	double hz;
	uint64_t rate_t0, rate_ticks;
	double nl_cost_ns, rdma_cost_ns; /* running mean of one read, for the slow-read rule */
	uint64_t slow_reads;
	bool rate_told, rdma_told, nl_told;
	int nl_err;
	char err[256];
};

static double nic_frequency(const struct asys_options *o)
{
	const struct nic_opts *no = options_get(o, &nic_options);

	if (no->metrics_given)
		return no->metrics ? no->frequency : 0.0;
	return o->delay_s > 0 ? 1.0 / o->delay_s : 1.0;
}

/* ---- selection ---- */

static int nic_regex_compile(struct nic_state *s, const char *list, char *err, size_t errlen)
{
	char *copy, *save = NULL, *tok;
	int rc = 0;

	if (!list || !*list)
		return 0;
	copy = util_strdup(list);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int e;

		if (s->nre >= NIC_MAX_RE) {
			snprintf(err, errlen, "--nic-device-include: more than %d expressions",
				 NIC_MAX_RE);
			rc = -E2BIG;
			break;
		}
		e = regcomp(&s->re[s->nre], tok, REG_EXTENDED | REG_NOSUB);
		if (e) {
			char msg[128];

			regerror(e, &s->re[s->nre], msg, sizeof(msg));
			snprintf(err, errlen, "--nic-device-include '%s': %s", tok, msg);
			rc = -EINVAL;
			break;
		}
		s->nre++;
	}
	free(copy);
	return rc;
}

static bool nic_match(const struct nic_state *s, const char *a, const char *b)
{
	if (s->nre == 0)
		return true;
	for (int i = 0; i < s->nre; i++) {
		if (a && *a && regexec(&s->re[i], a, 0, NULL, 0) == 0)
			return true;
		if (b && *b && regexec(&s->re[i], b, 0, NULL, 0) == 0)
			return true;
	}
	return false;
}

/* ---- links ---- */

static struct nic_link *link_find(struct nic_state *s, uint32_t ifindex)
{
	size_t lo = 0, hi = s->nlinks;

	if (s->cursor < s->nlinks && s->links[s->cursor].ifindex == ifindex)
		return &s->links[s->cursor++];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->links[mid].ifindex < ifindex)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->nlinks && s->links[lo].ifindex == ifindex) {
		s->cursor = lo + 1;
		return &s->links[lo];
	}
	return NULL;
}

static struct nic_link *link_insert(struct nic_state *s, uint32_t ifindex)
{
	size_t pos = 0;

	if (s->nlinks == s->caplinks) {
		size_t cap = s->caplinks ? s->caplinks * 2 : 16;
		struct nic_link *nl = realloc(s->links, cap * sizeof(*nl));

		if (!nl)
			return NULL;
		s->links = nl;
		s->caplinks = cap;
	}
	while (pos < s->nlinks && s->links[pos].ifindex < ifindex)
		pos++;
	memmove(&s->links[pos + 1], &s->links[pos], (s->nlinks - pos) * sizeof(*s->links));
	s->nlinks++;
	memset(&s->links[pos], 0, sizeof(s->links[pos]));
	s->links[pos].ifindex = ifindex;
	return &s->links[pos];
}

static void link_label(struct nic_state *s, struct nic_link *l)
{
	char label[IF_NAMESIZE + NIC_RDMA_NAME_MAX + 16];

	if (!s->out)
		return;
	if (l->rdma[0])
		snprintf(label, sizeof(label), "%s (rdma: %s)", l->name, l->rdma);
	else
		snprintf(label, sizeof(label), "%s", l->name);
	emit_label(s->out, (uint32_t)s->link_sid, l->ifindex, s->ts, label);
	l->announced = true;
}

/* Name, RDMA mapping and selection of one link; relabels on a change. */
static void link_update(struct nic_state *s, struct nic_link *l, const char *name)
{
	const char *rdma = "";
	bool changed = strcmp(l->name, name) != 0;

	for (size_t i = 0; s->rdma && i < nic_rdma_count(s->rdma); i++) {
		const struct nic_rdma_port *p = nic_rdma_port_at(s->rdma, i);

		if (p->present && !strcmp(p->netdev, name)) {
			rdma = p->dev;
			break;
		}
	}
	changed |= strcmp(l->rdma, rdma) != 0;
	util_strlcpy(l->name, name, sizeof(l->name));
	util_strlcpy(l->rdma, rdma, sizeof(l->rdma));
	l->selected = nic_match(s, l->name, l->rdma);
	if (l->selected && (changed || !l->announced))
		link_label(s, l);
}

static void on_link_name(void *ctx, uint32_t ifindex, const char *name)
{
	struct nic_state *s = ctx;
	struct nic_link *l = link_find(s, ifindex);

	if (!l) {
		l = link_insert(s, ifindex);
		if (!l)
			return;
		l->seen = s->gen;
	}
	link_update(s, l, name);
}

static void on_link_stats(void *ctx, uint32_t ifindex, const char *name,
			  const uint64_t v[NIC_L_NFIELDS])
{
	struct nic_state *s = ctx;
	struct nic_link *l = link_find(s, ifindex);

	if (!l && name) { /* RTM_GETLINK fallback: names come with the stats */
		on_link_name(s, ifindex, name);
		l = link_find(s, ifindex);
	}
	if (!l) {
		s->unknown_link = true; /* named after this dump */
		return;
	}
	l->seen = s->gen;
	memcpy(l->v, v, sizeof(l->v));
}

/* A read that took far longer than usual was preempted somewhere between the
 * clock and the counters: its time stamp is unsure by that much, which at
 * 1 kHz would show as a false peak. Such a sample is left out; counters are
 * cumulative, so the next interval covers it. */
static bool nic_read_ok(struct nic_state *s, double *mean, uint64_t cost)
{
	bool ok = !*mean || (double)cost <= NIC_SLOW_READ_FACTOR * *mean + NIC_SLOW_READ_NS;

	*mean = *mean ? (1 - NIC_READ_COST_WEIGHT) * *mean + NIC_READ_COST_WEIGHT * (double)cost
		      : (double)cost;
	if (!ok)
		s->slow_reads++;
	return ok;
}

static void links_emit(struct nic_state *s)
{
	for (size_t i = 0; i < s->nlinks; i++) {
		struct nic_link *l = &s->links[i];
		double d[NIC_L_NFIELDS];

		if (l->seen != s->gen || !l->selected)
			continue;
		if (!l->announced)
			link_label(s, l);
		for (int f = 0; f < NIC_L_NFIELDS; f++)
			d[f] = (double)l->v[f];
		emit_sample(s->out, (uint32_t)s->link_sid, l->ifindex, s->ts, d, NIC_L_NFIELDS);
	}
}

/* Links missing from the last full dump are gone (deleted, moved away). */
static void links_reap(struct nic_state *s)
{
	size_t k = 0;

	for (size_t i = 0; i < s->nlinks; i++) {
		struct nic_link *l = &s->links[i];

		if (l->seen == s->gen) {
			s->links[k++] = *l;
			continue;
		}
		if (l->announced && s->out)
			emit_gone(s->out, (uint32_t)s->link_sid, l->ifindex, s->ts);
	}
	s->nlinks = k;
	s->cursor = 0;
}

/* ---- RDMA ports ---- */

static void rdma_label(struct nic_state *s, struct nic_rdma_port *p)
{
	char label[NIC_RDMA_NAME_MAX + IF_NAMESIZE + 16];

	if (p->netdev[0])
		snprintf(label, sizeof(label), "%s/%u (%s)", p->dev, p->port, p->netdev);
	else
		snprintf(label, sizeof(label), "%s/%u", p->dev, p->port);
	emit_label(s->out, (uint32_t)s->rdma_sid, nic_rdma_entity(p), s->ts, label);
	p->announced = true;
}

static void rdma_rescan(struct nic_state *s)
{
	if (!s->rdma)
		return;
	nic_rdma_scan(s->rdma);
	for (size_t i = 0; i < nic_rdma_count(s->rdma); i++) {
		struct nic_rdma_port *p = nic_rdma_port_at(s->rdma, i);

		p->selected = nic_match(s, p->dev, p->netdev);
		if (!p->present && p->announced && s->out)
			emit_gone(s->out, (uint32_t)s->rdma_sid, nic_rdma_entity(p), s->ts);
	}
	nic_rdma_reap(s->rdma);
	/* The netdev side learns its RDMA name (label and selection). */
	for (size_t i = 0; i < s->nlinks; i++) {
		char name[IF_NAMESIZE];

		util_strlcpy(name, s->links[i].name, sizeof(name));
		link_update(s, &s->links[i], name);
	}
}

/* ---- collector ---- */

static void nic_fini(void *state)
{
	struct nic_state *s = state;

	if (!s)
		return;
	for (int i = 0; i < s->nre; i++)
		regfree(&s->re[i]);
	nic_nl_free(s->nl);
	nic_rdma_free(s->rdma);
	free(s->links);
	free(s);
}

static int nic_init(const struct coll_ctx *ctx, void **state)
{
	struct nic_state *s = calloc(1, sizeof(*s));
	int rc, nports;

	*state = s;
	if (!s)
		return -ENOMEM;
	s->hz = nic_frequency(ctx->opts);
	rc = nic_regex_compile(
	    s, ((const struct nic_opts *)options_get(ctx->opts, &nic_options))->include, s->err,
	    sizeof(s->err));
	if (rc)
		return rc;
	s->link_sid = stream_table_add(ctx->streams, CATALOGUE_STREAM(STREAM_NIC_LINK));
	s->rdma_sid = stream_table_add(ctx->streams, CATALOGUE_STREAM(STREAM_NIC_RDMA));
	if (s->link_sid < 0 || s->rdma_sid < 0) {
		snprintf(s->err, sizeof(s->err), "nic: cannot register the NIC streams");
		return s->link_sid < 0 ? s->link_sid : s->rdma_sid;
	}
	s->rdma = nic_rdma_new();
	nports = s->rdma ? nic_rdma_scan(s->rdma) : -ENOMEM;
	for (size_t i = 0; s->rdma && i < nic_rdma_count(s->rdma); i++) {
		struct nic_rdma_port *p = nic_rdma_port_at(s->rdma, i);

		p->selected = nic_match(s, p->dev, p->netdev);
	}
	s->nl = nic_nl_new(false, &rc);
	if (s->nl)
		rc = nic_nl_dump_links(s->nl, on_link_name, s);
	if (rc) {
		s->nl_err = rc;
		snprintf(s->err, sizeof(s->err), "cannot read netdev counters over rtnetlink: %s",
			 strerror(-rc));
		if (nports <= 0)
			return rc; /* nothing at all to show */
	}
	return 0;
}

static void nic_check_rate(struct nic_state *s, uint64_t now)
{
	double hz;

	if (s->rate_told)
		return;
	if (!s->rate_t0) {
		s->rate_t0 = now;
		s->rate_ticks = 0;
		return;
	}
	s->rate_ticks++;
	if (now - s->rate_t0 < NIC_RATE_CHECK_NS)
		return;
	hz = (double)s->rate_ticks * 1e9 / (double)(now - s->rate_t0);
	s->rate_told = true;
	if (hz < NIC_RATE_OK * s->hz) {
		char msg[256];

		snprintf(msg, sizeof(msg),
			 "NIC sampling asked for %.0f Hz, the counters deliver %.0f Hz here", s->hz,
			 hz);
		emit_status(s->out, (uint32_t)s->link_sid, STATUS_STREAM, s->ts, msg);
		emit_status(s->out, (uint32_t)s->rdma_sid, STATUS_STREAM, s->ts, msg);
	}
}

/* The links' counters, in one rtnetlink dump; a status while it fails. */
static void nic_sample_links(struct nic_state *s, struct emitter *out, uint64_t t0)
{
	char msg[160];
	int rc;

	if (!s->nl) {
		if (!s->nl_told)
			emit_status(out, (uint32_t)s->link_sid, STATUS_STREAM, s->ts, s->err);
		s->nl_told = true;
		return;
	}
	s->gen++;
	s->cursor = 0;
	s->unknown_link = false;
	rc = nic_nl_dump_stats(s->nl, on_link_stats, s);
	if (rc) {
		snprintf(msg, sizeof(msg), "rtnetlink stats dump failed: %s", strerror(-rc));
		if (!s->nl_told)
			emit_status(out, (uint32_t)s->link_sid, STATUS_STREAM, s->ts, msg);
		s->nl_told = true;
		return;
	}
	uint64_t t1 = asys_now_ns();

	s->ts = t0 + (t1 - t0) / 2;
	if (nic_read_ok(s, &s->nl_cost_ns, t1 - t0))
		links_emit(s);
	links_reap(s);
	if (s->unknown_link) { /* a new link: name it, sample it next tick */
		s->cursor = 0;
		nic_nl_dump_links(s->nl, on_link_name, s);
	}
	if (s->nl_told)
		emit_status(out, (uint32_t)s->link_sid, STATUS_STREAM, s->ts, "");
	s->nl_told = false;
}

/* The selected RDMA ports' counters, each stamped with its own read. */
static void nic_sample_rdma(struct nic_state *s, struct emitter *out)
{
	size_t n = nic_rdma_count(s->rdma);

	if (n == 0 && !s->rdma_told) {
		char msg[256];

		snprintf(msg, sizeof(msg), "no RDMA devices in /sys/class/infiniband (%s)",
			 nic_rdma_source(s->rdma));
		emit_status(out, (uint32_t)s->rdma_sid, STATUS_STREAM, s->ts, msg);
		s->rdma_told = true;
	}
	for (size_t i = 0; i < n; i++) {
		struct nic_rdma_port *p = nic_rdma_port_at(s->rdma, i);
		double v[NIC_R_NFIELDS];
		uint64_t r0, r1;

		if (!p->selected || !p->present)
			continue;
		if (!p->announced)
			rdma_label(s, p);
		r0 = asys_now_ns();
		if (nic_rdma_read(s->rdma, p, v) < 0)
			continue; /* every read failed: gone, the rescan will tell */
		r1 = asys_now_ns();
		if (nic_read_ok(s, &s->rdma_cost_ns, r1 - r0))
			emit_sample(out, (uint32_t)s->rdma_sid, nic_rdma_entity(p),
				    r0 + (r1 - r0) / 2, v, NIC_R_NFIELDS);
	}
}

static int nic_sample(void *state, struct emitter *out, uint64_t now_ns)
{
	struct nic_state *s = state;
	uint64_t t0;

	s->out = out;
	t0 = emit_tick_start(out); /* the engine's read at the wake, when first */
	s->ts = t0;
	if (!s->last_scan_ns || t0 - s->last_scan_ns >= NIC_RESCAN_NS) {
		rdma_rescan(s); /* the first tick also labels what init found */
		s->last_scan_ns = t0 ? t0 : 1;
	}
	nic_sample_links(s, out, t0);
	if (s->rdma)
		nic_sample_rdma(s, out);
	nic_check_rate(s, now_ns);
	return 0;
}

static const char *nic_last_error(const void *state)
{
	const struct nic_state *s = state;

	return s && s->err[0] ? s->err : NULL;
}

const struct collector nic_collector = {
    .name = "nic",
    .streams = nic_streams,
    .options = &nic_options,
    .frequency = nic_frequency,
    .init = nic_init,
    .sample = nic_sample,
    .fini = nic_fini,
    .last_error = nic_last_error,
};
