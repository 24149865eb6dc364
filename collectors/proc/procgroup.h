/* SPDX-License-Identifier: GPL-2.0-only */
/* What a process runs in, named from its /proc/PID/cgroup: a Kubernetes pod,
 * a Docker, containerd, CRI-O or podman container, an LXC container, a Slurm
 * job, a systemd unit, or nothing. Pure parsing, an optional look-up of the
 * container's name in the runtime's state files (through the sysroot), and a
 * cache, because thousands of processes share a few cgroups. */
#ifndef ASYS_PROCGROUP_H
#define ASYS_PROCGROUP_H

#include <stddef.h>
#include <stdint.h>

/* Lines whose path is longer than this are skipped (the kernel allows 4096;
 * every layout recognised here is far shorter). */
#define PROCGROUP_PATH_MAX 1024
/* Bytes of display text, NUL included: "pod 1a2b3c4d namespace/name". */
#define PROCGROUP_DISPLAY_MAX 128
#define PROCGROUP_NAME_MAX 96
#define PROCGROUP_ID_MAX 65   /* 64 hex digits of a container id, a job id, a unit */
#define PROCGROUP_UID_MAX 65  /* a pod uid: a UUID, or 32 hex digits for a static pod */
#define PROCGROUP_STEP_MAX 24 /* a Slurm step: "0", "batch", "extern" */

enum procgroup_kind {
	PROCGROUP_NONE = 0,   /* the root cgroup, or nothing readable */
	PROCGROUP_OTHER,      /* a cgroup of no known layout: its last component */
	PROCGROUP_UNIT,	      /* a systemd unit or slice: id = "foo.service" */
	PROCGROUP_POD,	      /* Kubernetes: pod_uid; id = the container, if any */
	PROCGROUP_DOCKER,     /* id = 64 hex digits */
	PROCGROUP_CONTAINERD, /* cri-containerd-, nerdctl- */
	PROCGROUP_CRIO,
	PROCGROUP_PODMAN, /* libpod- */
	PROCGROUP_LXC,	  /* id = the container's name */
	PROCGROUP_SLURM,  /* id = the job number, step = the step */
};

enum procgroup_qos {
	PROCGROUP_QOS_NONE = 0,
	PROCGROUP_QOS_GUARANTEED,
	PROCGROUP_QOS_BURSTABLE,
	PROCGROUP_QOS_BESTEFFORT,
};

struct procgroup {
	enum procgroup_kind kind;
	/* For a pod: the runtime of its container (PROCGROUP_DOCKER,
	 * PROCGROUP_CONTAINERD, PROCGROUP_CRIO), or PROCGROUP_NONE when the
	 * path does not say (cgroupfs driver) or no container is named. */
	enum procgroup_kind runtime;
	enum procgroup_qos qos;
	char id[PROCGROUP_ID_MAX];
	char pod_uid[PROCGROUP_UID_MAX]; /* with dashes, as the kubelet names its directory */
	char step[PROCGROUP_STEP_MAX];
	long long slurm_uid; /* the job owner's uid from cgroup v1 uid_N, or -1 */
	/* From the runtime's state (procgroup_resolve): the Docker or nerdctl
	 * name, the pod's "namespace/name" or its host name, cut to fit; ""
	 * when unknown. Only [A-Za-z0-9._-] and '/': it needs no escaping. */
	char name[PROCGROUP_NAME_MAX];
	char container[PROCGROUP_NAME_MAX]; /* a pod's container name, when the runtime says */
	/* Short name for the CONTAINER column and the proc.cpu label: "pod
	 * 1a2b3c4d", "docker 0123456789ab web", "job 12345", "foo.service";
	 * "" for PROCGROUP_NONE. Control characters escaped (str_escape). */
	char display[PROCGROUP_DISPLAY_MAX];
	/* The cgroup path the name came from, escaped and capped, for details. */
	char path[PROCGROUP_DISPLAY_MAX * 2];
};

/* Classifies the text of /proc/PID/cgroup (len bytes, need not be
 * NUL-terminated; a NUL ends it). Of the lines (v2 "0::/path", v1
 * "N:controllers:/path"), the one naming the most specific thing wins: a
 * container, pod or job before a systemd unit before any other cgroup; among
 * equals the deeper path, then v2, pids, cpu/cpuacct, memory, name=systemd,
 * other v1 lines in that order. Returns 0 (out->kind may be PROCGROUP_NONE)
 * or -EINVAL when no line could be read; out is always set. */
int procgroup_parse(const char *text, size_t len, struct procgroup *out);

/* Classifies one cgroup path ("/system.slice/docker-<id>.scope"). */
void procgroup_classify(const char *path, size_t len, struct procgroup *out);

/* Looks the name up in the runtime's files under the sysroot (see
 * doc/architecture.md, "Container names"): Docker's config.v2.json, the
 * OCI config.json of containerd and CRI-O, the kubelet's etc-hosts.
 * Each is opened O_NOFOLLOW, must be a regular file and is read to at most
 * 256 KiB. Sets g->name (and g->container) and rebuilds g->display; returns
 * 1 when a name was found, 0 when nothing names it (missing or unreadable
 * files included), -ENOMEM. */
int procgroup_resolve(struct procgroup *g);

/* Rebuilds g->display from the other fields. */
void procgroup_format(struct procgroup *g);

/* A bounded cache from the text of /proc/PID/cgroup to its procgroup. */
struct procgroup_cache;

#define PROCGROUP_RESOLVE 1u /* flag: look names up (procgroup_resolve) */
/* A name not found is looked up again after this long. */
#define PROCGROUP_RETRY_NS (10ull * 1000000000ull)
/* Texts longer than this are classified every time, not cached. */
#define PROCGROUP_TEXT_MAX 8192

struct procgroup_cache_stats {
	uint64_t hits, misses, evictions, resolves;
};

/* cap entries (1..65536); NULL when out of memory or cap is out of range. */
struct procgroup_cache *procgroup_cache_new(size_t cap, unsigned flags);
void procgroup_cache_free(struct procgroup_cache *c); /* NULL is fine */
/* The procgroup of this cgroup text, classified (and resolved) on the first
 * call and when a missing name is due again. The pointer stays valid until
 * the next call on c. Never NULL: a text that cannot be kept (too long, no
 * memory) is classified into a scratch entry. */
const struct procgroup *procgroup_cache_get(struct procgroup_cache *c, const char *text, size_t len,
					    uint64_t now_ns);
size_t procgroup_cache_count(const struct procgroup_cache *c);
struct procgroup_cache_stats procgroup_cache_stats(const struct procgroup_cache *c);

#endif
