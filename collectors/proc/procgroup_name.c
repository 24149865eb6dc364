/* SPDX-License-Identifier: GPL-2.0-only */
/* Container and pod names from the runtimes' state files. Those files are
 * root's, but what they hold came from users (a container's name, its
 * labels), so the JSON is walked with every length bounded and a name is
 * taken only when it is made of the characters the runtimes allow in names:
 * nothing there needs escaping, and anything else is refused. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procgroup.h"
#include "procgroup_int.h"
#include "sysroot.h"
#include "util.h"

/* config.v2.json and an OCI config.json run to tens of KiB (environment,
 * mounts, a seccomp profile); what we want comes before the big parts. */
#define PG_FILE_MAX (256 * 1024)

#define DOCKER_DIR "/var/lib/docker/containers/"
#define CONTAINERD_TASKS "/run/containerd/io.containerd.runtime.v2.task/"
#define CRIO_DIR "/run/containers/storage/overlay-containers/"
#define KUBELET_PODS "/var/lib/kubelet/pods/"

static ssize_t pg_read(const char *path, char *buf, size_t cap)
{
	struct stat st;
	ssize_t r;
	int fd = sysroot_open(path, O_RDONLY | O_NOFOLLOW);

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		r = -EINVAL;
	else
		r = sysroot_pread_all(fd, buf, cap);
	close(fd);
	return r;
}

/* "ns/name" into dst, cut at cap - 1 bytes (the characters are all ASCII). */
static void join_name(char *dst, size_t cap, const char *ns, const char *name)
{
	size_t n = util_strlcpy(dst, ns, cap);

	if (n >= cap)
		return;
	if (n + 1 < cap) {
		dst[n] = '/';
		util_strlcpy(dst + n + 1, name, cap - n - 1);
	}
}

/* Where a runtime's JSON names the pod: under obj (and obj2, if set). */
struct pod_keys {
	const char *obj, *obj2, *ns, *name, *ctr;
};

static size_t pod_key_path(const struct pod_keys *pk, const char *leaf, const char **k)
{
	size_t d = 0;

	k[d++] = pk->obj;
	if (pk->obj2)
		k[d++] = pk->obj2;
	k[d++] = leaf;
	return d;
}

/* "namespace/name" (or the name alone) and the container's name. */
static int pod_from_json(struct procgroup *g, char *buf, const char *path,
			 const struct pod_keys *pk)
{
	const char *k[3];
	char ns[64], name[PROCGROUP_NAME_MAX];
	size_t d;
	ssize_t len = pg_read(path, buf, PG_FILE_MAX);

	if (len <= 0)
		return 0;
	d = pod_key_path(pk, pk->name, k);
	if (!procgroup_json_name(buf, (size_t)len, k, d, name, sizeof(name)))
		return 0;
	d = pod_key_path(pk, pk->ns, k);
	if (procgroup_json_name(buf, (size_t)len, k, d, ns, sizeof(ns)))
		join_name(g->name, sizeof(g->name), ns, name);
	else
		util_strlcpy(g->name, name, sizeof(g->name));
	d = pod_key_path(pk, pk->ctr, k);
	procgroup_json_name(buf, (size_t)len, k, d, g->container, sizeof(g->container));
	return 1;
}

/* The kubelet's hosts file for the pod: its own line (the pod's IP, then
 * its host name last) follows the fixed localhost lines. The host name is
 * the pod's name unless the pod sets spec.hostname; a host-network pod's
 * file is the node's and is not used. */
static int pod_from_kubelet(struct procgroup *g, char *buf)
{
	static const char head[] = "# Kubernetes-managed hosts file.\n";
	char path[256];
	char *line, *save = NULL;
	ssize_t len;

	snprintf(path, sizeof(path), KUBELET_PODS "%s/etc-hosts", g->pod_uid);
	len = pg_read(path, buf, 64 * 1024);
	if (len <= 0 || strncmp(buf, head, strlen(head)))
		return 0;
	for (line = strtok_r(buf + strlen(head), "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f, *last = NULL, *fsave = NULL, *ip = strtok_r(line, " \t", &fsave);

		/* the host aliases follow their own comment: not the pod's */
		if (!ip || ip[0] == '#')
			return 0;
		if (!strcmp(ip, "127.0.0.1") || !strcmp(ip, "::1") || !strncmp(ip, "fe00::", 6))
			continue;
		while ((f = strtok_r(NULL, " \t", &fsave)))
			last = f;
		if (!last || !procgroup_name_ok(last, strlen(last), 63))
			return 0;
		util_strlcpy(g->name, last, sizeof(g->name));
		return 1;
	}
	return 0;
}

static const struct pod_keys keys_containerd = {
    "annotations", NULL, "io.kubernetes.cri.sandbox-namespace", "io.kubernetes.cri.sandbox-name",
    "io.kubernetes.cri.container-name"};
static const struct pod_keys keys_crio = {"annotations", NULL, "io.kubernetes.pod.namespace",
					  "io.kubernetes.pod.name", "io.kubernetes.container.name"};
/* dockershim's labels */
static const struct pod_keys keys_docker = {"Config", "Labels", "io.kubernetes.pod.namespace",
					    "io.kubernetes.pod.name",
					    "io.kubernetes.container.name"};

/* The runtime's state first (it has the namespace), the kubelet's hosts
 * file last; with the cgroupfs driver the path does not name the runtime,
 * so each is tried. */
static int pod_resolve(struct procgroup *g, char *buf)
{
	char path[256];
	int rt = g->runtime, any = rt == PROCGROUP_NONE;

	if (g->id[0] && (rt == PROCGROUP_CONTAINERD || any)) {
		snprintf(path, sizeof(path), CONTAINERD_TASKS "k8s.io/%s/config.json", g->id);
		if (pod_from_json(g, buf, path, &keys_containerd))
			return 1;
	}
	if (g->id[0] && (rt == PROCGROUP_CRIO || any)) {
		snprintf(path, sizeof(path), CRIO_DIR "%s/userdata/config.json", g->id);
		if (pod_from_json(g, buf, path, &keys_crio))
			return 1;
	}
	if (g->id[0] && (rt == PROCGROUP_DOCKER || any)) {
		snprintf(path, sizeof(path), DOCKER_DIR "%s/config.v2.json", g->id);
		if (pod_from_json(g, buf, path, &keys_docker))
			return 1;
	}
	return pod_from_kubelet(g, buf);
}

/* Only hex digits and dashes go into a path: never "..", never a '/'. */
static int path_token_ok(const char *s)
{
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') || *s == '-'))
			return 0;
	return 1;
}

int procgroup_resolve(struct procgroup *g)
{
	static const char *const k_docker[] = {"Name"};
	static const char *const k_nerdctl[] = {"annotations", "nerdctl/name"};
	char path[256], *buf;
	ssize_t len;
	int found = 0;

	if ((g->kind != PROCGROUP_POD && g->kind != PROCGROUP_DOCKER &&
	     g->kind != PROCGROUP_CONTAINERD) ||
	    !path_token_ok(g->id) || !path_token_ok(g->pod_uid))
		return 0;
	buf = malloc(PG_FILE_MAX);
	if (!buf)
		return -ENOMEM;
	g->name[0] = '\0';
	g->container[0] = '\0';
	if (g->kind == PROCGROUP_POD) {
		found = pod_resolve(g, buf);
	} else if (g->kind == PROCGROUP_DOCKER) {
		snprintf(path, sizeof(path), DOCKER_DIR "%s/config.v2.json", g->id);
		len = pg_read(path, buf, PG_FILE_MAX);
		found = len > 0 && procgroup_json_name(buf, (size_t)len, k_docker, 1, g->name,
						       sizeof(g->name));
	} else {
		snprintf(path, sizeof(path), CONTAINERD_TASKS "default/%s/config.json", g->id);
		len = pg_read(path, buf, PG_FILE_MAX);
		found = len > 0 && procgroup_json_name(buf, (size_t)len, k_nerdctl, 2, g->name,
						       sizeof(g->name));
	}
	free(buf);
	procgroup_format(g);
	return found;
}
