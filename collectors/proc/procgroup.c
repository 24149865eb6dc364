/* SPDX-License-Identifier: GPL-2.0-only */
/* /proc/PID/cgroup to a kind and a short name. Every layout is matched on
 * whole path components, so a directory named like a layout's prefix but
 * with the wrong id (not 64 hex digits, not a job number) falls through to
 * the systemd unit or plain cgroup it then is. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "procgroup.h"
#include "strsafe.h"
#include "util.h"

/* Deeper paths are named by their last component only. */
#define PG_MAX_COMP 64

struct pg_comp {
	const char *s;
	size_t n;
};

/* The order in which lines of equal rank and depth are preferred. */
enum pg_source { PG_SRC_V2, PG_SRC_PIDS, PG_SRC_CPU, PG_SRC_MEM, PG_SRC_SYSTEMD, PG_SRC_V1 };

static int comp_is(struct pg_comp c, const char *lit)
{
	size_t n = strlen(lit);

	return c.n == n && !memcmp(c.s, lit, n);
}

static int comp_starts(struct pg_comp c, const char *lit)
{
	size_t n = strlen(lit);

	return c.n >= n && !memcmp(c.s, lit, n);
}

static int comp_ends(struct pg_comp c, const char *lit)
{
	size_t n = strlen(lit);

	return c.n >= n && !memcmp(c.s + c.n - n, lit, n);
}

static const char *comp_find(struct pg_comp c, const char *lit)
{
	size_t n = strlen(lit);
	const char *last = NULL;

	for (size_t i = 0; i + n <= c.n; i++)
		if (!memcmp(c.s + i, lit, n))
			last = c.s + i;
	return last;
}

static int is_hex64(const char *s, size_t n)
{
	if (n != 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* The decimal number s[0..n) (1..18 digits), or -1. */
static long long parse_num(const char *s, size_t n)
{
	long long v = 0;

	if (n == 0 || n > 18)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* Copies s[0..n) into dst (cap bytes) escaped for a terminal. */
static void esc_copy(char *dst, size_t cap, const char *s, size_t n)
{
	char tmp[PROCGROUP_PATH_MAX + 1];

	if (n > PROCGROUP_PATH_MAX)
		n = PROCGROUP_PATH_MAX;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	str_escape(dst, cap, tmp, 0);
}

/* A pod uid as the path spells it: the systemd driver writes '_' for '-'.
 * Kubernetes uids are lowercase UUIDs, a static pod's 32 hex digits. */
static int copy_uid(char *dst, const char *s, size_t n)
{
	if (n < 8 || n >= PROCGROUP_UID_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i] == '_' ? '-' : s[i];

		if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || ch == '-'))
			return 0;
		dst[i] = ch;
	}
	dst[n] = '\0';
	return 1;
}

static const struct {
	const char *prefix;
	enum procgroup_kind kind;
} runtime_prefix[] = {
    {"cri-containerd-", PROCGROUP_CONTAINERD},
    {"nerdctl-", PROCGROUP_CONTAINERD},
    {"docker-", PROCGROUP_DOCKER},
    /* the runtimes' monitors (conmon) are named with their container */
    {"crio-conmon-", PROCGROUP_CRIO},
    {"crio-", PROCGROUP_CRIO},
    {"libpod-conmon-", PROCGROUP_PODMAN},
    {"libpod-", PROCGROUP_PODMAN},
};

/* A container's own cgroup: PREFIX<64 hex>[.scope], or the bare id when
 * bare_ok (kind PROCGROUP_NONE then: the path does not name the runtime). */
static int runtime_comp(struct pg_comp c, int bare_ok, enum procgroup_kind *kind, char *id)
{
	for (size_t i = 0; i < ARRAY_SIZE(runtime_prefix); i++) {
		struct pg_comp r = c;
		size_t pn = strlen(runtime_prefix[i].prefix);

		if (!comp_starts(c, runtime_prefix[i].prefix))
			continue;
		r.s += pn;
		r.n -= pn;
		if (comp_ends(r, ".scope"))
			r.n -= strlen(".scope");
		if (!is_hex64(r.s, r.n))
			continue;
		memcpy(id, r.s, 64);
		id[64] = '\0';
		*kind = runtime_prefix[i].kind;
		return 1;
	}
	if (bare_ok && is_hex64(c.s, c.n)) {
		memcpy(id, c.s, 64);
		id[64] = '\0';
		*kind = PROCGROUP_NONE;
		return 1;
	}
	return 0;
}

/* kubepods[.slice]/[kubepods-]burstable[.slice]/pod<uid> or
 * kubepods-burstable-pod<uid_>.slice, then the container; also under a
 * prefix (kind's kubelet.slice/kubelet-kubepods.slice). */
static int classify_pod(const struct pg_comp *c, int n, struct procgroup *g)
{
	int kube = 0;

	for (int i = 0; i < n; i++) {
		const char *p;

		if (comp_find(c[i], "kubepods")) {
			kube = 1;
			if (comp_find(c[i], "-burstable"))
				g->qos = PROCGROUP_QOS_BURSTABLE;
			else if (comp_find(c[i], "-besteffort"))
				g->qos = PROCGROUP_QOS_BESTEFFORT;
			p = comp_find(c[i], "-pod");
			if (!p || !comp_ends(c[i], ".slice"))
				continue;
			p += strlen("-pod");
			if (!copy_uid(g->pod_uid, p,
				      (size_t)(c[i].s + c[i].n - strlen(".slice") - p)))
				continue;
		} else if (!kube) {
			continue;
		} else if (comp_is(c[i], "burstable")) {
			g->qos = PROCGROUP_QOS_BURSTABLE;
			continue;
		} else if (comp_is(c[i], "besteffort")) {
			g->qos = PROCGROUP_QOS_BESTEFFORT;
			continue;
		} else if (!comp_starts(c[i], "pod") ||
			   !copy_uid(g->pod_uid, c[i].s + 3, c[i].n - 3)) {
			continue;
		}
		g->kind = PROCGROUP_POD;
		if (g->qos == PROCGROUP_QOS_NONE)
			g->qos = PROCGROUP_QOS_GUARANTEED;
		if (i + 1 < n && !runtime_comp(c[i + 1], 1, &g->runtime, g->id))
			g->runtime = PROCGROUP_NONE;
		return 1;
	}
	g->qos = PROCGROUP_QOS_NONE;
	return 0;
}

/* cgroup v1: slurm[_NODE]/uid_N/job_N/step_S/...; cgroup v2:
 * system.slice/[NODE_]slurmstepd.scope/job_N/step_S/... */
static int classify_slurm(const struct pg_comp *c, int n, struct procgroup *g)
{
	int i = 0;
	long long job = -1;

	while (i < n && !comp_is(c[i], "slurm") && !comp_starts(c[i], "slurm_") &&
	       !comp_ends(c[i], "slurmstepd.scope"))
		i++;
	g->slurm_uid = -1;
	for (i++; i < n; i++) {
		if (comp_starts(c[i], "uid_") && g->slurm_uid < 0)
			g->slurm_uid = parse_num(c[i].s + 4, c[i].n - 4);
		else if (comp_starts(c[i], "job_") &&
			 (job = parse_num(c[i].s + 4, c[i].n - 4)) >= 0)
			break;
	}
	if (job < 0) {
		g->slurm_uid = -1;
		return 0;
	}
	g->kind = PROCGROUP_SLURM;
	snprintf(g->id, sizeof(g->id), "%lld", job);
	if (i + 1 < n && comp_starts(c[i + 1], "step_"))
		esc_copy(g->step, sizeof(g->step), c[i + 1].s + 5, c[i + 1].n - 5);
	return 1;
}

/* lxc.payload.NAME (LXC 4, LXD), lxc.payload/NAME, lxc/NAME (cgroup v1),
 * and the monitor lxc.monitor.NAME, which is named with its container. */
static int lxc_comp(const struct pg_comp *c, int n, int i, struct procgroup *g)
{
	struct pg_comp name = {NULL, 0};

	if (comp_starts(c[i], "lxc.payload.") && c[i].n > 12)
		name = (struct pg_comp){c[i].s + 12, c[i].n - 12};
	else if (comp_starts(c[i], "lxc.monitor.") && c[i].n > 12)
		name = (struct pg_comp){c[i].s + 12, c[i].n - 12};
	else if ((comp_is(c[i], "lxc") || comp_is(c[i], "lxc.payload")) && i + 1 < n)
		name = c[i + 1];
	if (!name.n)
		return 0;
	g->kind = PROCGROUP_LXC;
	esc_copy(g->id, sizeof(g->id), name.s, name.n);
	return 1;
}

static int classify_container(const struct pg_comp *c, int n, struct procgroup *g)
{
	/* the deepest wins: docker in docker, a container inside LXC */
	for (int i = n - 1; i >= 0; i--) {
		if (runtime_comp(c[i], 0, &g->kind, g->id))
			return 1;
		if (i > 0 && comp_is(c[i - 1], "docker") && is_hex64(c[i].s, c[i].n)) {
			g->kind = PROCGROUP_DOCKER;
			memcpy(g->id, c[i].s, 64);
			g->id[64] = '\0';
			return 1;
		}
		if (lxc_comp(c, n, i, g))
			return 1;
	}
	return 0;
}

static int is_unit(struct pg_comp c)
{
	static const char *const suffix[] = {".service", ".scope", ".slice",
					     ".socket",	 ".mount", ".swap"};

	for (size_t i = 0; i < ARRAY_SIZE(suffix); i++)
		if (comp_ends(c, suffix[i]) && c.n > strlen(suffix[i]))
			return 1;
	return 0;
}

/* The deepest unit; a unit's init.scope (the user manager's own process)
 * is named by the unit above it. */
static int classify_unit(const struct pg_comp *c, int n, struct procgroup *g)
{
	for (int i = n - 1; i >= 0; i--) {
		if (!is_unit(c[i]))
			continue;
		if (comp_is(c[i], "init.scope") && i > 0 && is_unit(c[i - 1]))
			i--;
		g->kind = PROCGROUP_UNIT;
		esc_copy(g->id, sizeof(g->id), c[i].s, c[i].n);
		return 1;
	}
	return 0;
}

/* The kind and ids, without the escaped path and the display name. */
static void classify_raw(const char *path, size_t len, struct procgroup *g)
{
	struct pg_comp c[PG_MAX_COMP];
	int n = 0, deep = 0;
	size_t i = 0;

	memset(g, 0, sizeof(*g));
	g->slurm_uid = -1;
	while (i < len) {
		size_t j = i;

		while (j < len && path[j] != '/')
			j++;
		if (j > i) {
			/* past the cap, the last slot holds the last component */
			deep |= n == PG_MAX_COMP;
			if (!deep)
				n++;
			c[n - 1] = (struct pg_comp){path + i, j - i};
		}
		i = j + 1;
	}
	if (n == 0)
		return;
	if (deep || !(classify_pod(c, n, g) || classify_slurm(c, n, g) ||
		      classify_container(c, n, g) || classify_unit(c, n, g))) {
		g->kind = PROCGROUP_OTHER;
		esc_copy(g->id, sizeof(g->id), c[n - 1].s, c[n - 1].n);
	}
}

void procgroup_classify(const char *path, size_t len, struct procgroup *g)
{
	if (len > PROCGROUP_PATH_MAX)
		len = PROCGROUP_PATH_MAX;
	classify_raw(path, len, g);
	esc_copy(g->path, sizeof(g->path), path, len);
	procgroup_format(g);
}

static const char *kind_word(enum procgroup_kind k)
{
	switch (k) {
	case PROCGROUP_DOCKER:
		return "docker";
	case PROCGROUP_CONTAINERD:
		return "containerd";
	case PROCGROUP_CRIO:
		return "crio";
	case PROCGROUP_PODMAN:
		return "podman";
	case PROCGROUP_LXC:
		return "lxc";
	case PROCGROUP_SLURM:
		return "job";
	default:
		return "";
	}
}

void procgroup_format(struct procgroup *g)
{
	const char *sep = g->name[0] ? " " : "";
	char *d = g->display;
	size_t n = sizeof(g->display);

	switch (g->kind) {
	case PROCGROUP_NONE:
		d[0] = '\0';
		break;
	case PROCGROUP_POD:
		snprintf(d, n, "pod %.8s%s%s", g->pod_uid, sep, g->name);
		break;
	case PROCGROUP_DOCKER:
	case PROCGROUP_CONTAINERD:
	case PROCGROUP_CRIO:
	case PROCGROUP_PODMAN:
		snprintf(d, n, "%s %.12s%s%s", kind_word(g->kind), g->id, sep, g->name);
		break;
	case PROCGROUP_LXC:
	case PROCGROUP_SLURM:
		snprintf(d, n, "%s %s", kind_word(g->kind), g->id);
		break;
	default:
		util_strlcpy(d, g->id, n);
		break;
	}
}

static int controller_source(struct pg_comp t)
{
	if (comp_is(t, "pids"))
		return PG_SRC_PIDS;
	if (comp_is(t, "cpu") || comp_is(t, "cpuacct"))
		return PG_SRC_CPU;
	if (comp_is(t, "memory"))
		return PG_SRC_MEM;
	if (comp_is(t, "name=systemd"))
		return PG_SRC_SYSTEMD;
	return PG_SRC_V1;
}

/* "N:controllers:/path": the path and where the line ranks, or -1. */
static int parse_line(const char *s, const char *e, const char **path, size_t *plen)
{
	const char *c1 = memchr(s, ':', (size_t)(e - s)), *c2, *p;
	int src = PG_SRC_V1, v2;

	if (!c1 || parse_num(s, (size_t)(c1 - s)) < 0)
		return -1;
	c2 = memchr(c1 + 1, ':', (size_t)(e - c1 - 1));
	if (!c2 || c2 + 1 >= e || c2[1] != '/' || (size_t)(e - c2 - 1) > PROCGROUP_PATH_MAX)
		return -1;
	v2 = c2 == c1 + 1 && parse_num(s, (size_t)(c1 - s)) == 0;
	for (p = c1 + 1; !v2 && p < c2;) {
		const char *q = memchr(p, ',', (size_t)(c2 - p));
		struct pg_comp t = {p, (size_t)((q ? q : c2) - p)};
		int ts = controller_source(t);

		if (ts < src)
			src = ts;
		p = q ? q + 1 : c2;
	}
	*path = c2 + 1;
	*plen = (size_t)(e - c2 - 1);
	return v2 ? PG_SRC_V2 : src;
}

static int kind_rank(enum procgroup_kind k)
{
	return k == PROCGROUP_NONE ? 0 : k == PROCGROUP_OTHER ? 1 : k == PROCGROUP_UNIT ? 2 : 3;
}

static int path_depth(const char *p, size_t n)
{
	int d = 0;

	for (size_t i = 0; i < n; i++)
		d += p[i] == '/' && i + 1 < n && p[i + 1] != '/';
	return d;
}

/* Lines of cgroup v1 mostly repeat one path: each distinct one (up to
 * PG_SEEN) is classified once to rank it, and the winner once more in full. */
#define PG_SEEN 4

struct pg_seen {
	const char *p;
	size_t n;
	long rank;
};

static long line_rank(struct pg_seen *seen, int *nseen, const char *path, size_t plen)
{
	struct procgroup cand;
	long rank;

	for (int k = 0; k < *nseen; k++)
		if (seen[k].n == plen && !memcmp(seen[k].p, path, plen))
			return seen[k].rank;
	classify_raw(path, plen, &cand);
	rank = (long)kind_rank(cand.kind) << 24 | (long)path_depth(path, plen) << 8;
	if (*nseen < PG_SEEN)
		seen[(*nseen)++] = (struct pg_seen){path, plen, rank};
	return rank;
}

int procgroup_parse(const char *text, size_t len, struct procgroup *out)
{
	const char *p = text, *end, *nul, *best_path = NULL;
	struct pg_seen seen[PG_SEEN];
	size_t best_len = 0;
	long best = -1;
	int nseen = 0;

	memset(out, 0, sizeof(*out));
	out->slurm_uid = -1;
	if (!text)
		return -EINVAL;
	nul = memchr(text, '\0', len);
	end = nul ? nul : text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end, *path;
		size_t plen;
		int src = parse_line(p, e, &path, &plen);
		long score;

		p = e + 1;
		if (src < 0)
			continue;
		score = line_rank(seen, &nseen, path, plen) | (long)(PG_SRC_V1 - src);
		if (score > best) {
			best = score;
			best_path = path;
			best_len = plen;
		}
		/* the kernel prints the v2 line last: anything after it is a
		 * cgroup name with a newline, made to look like another line */
		if (src == PG_SRC_V2)
			break;
	}
	if (best < 0)
		return -EINVAL;
	procgroup_classify(best_path, best_len, out);
	return 0;
}
