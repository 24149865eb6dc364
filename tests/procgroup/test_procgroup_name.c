/* SPDX-License-Identifier: GPL-2.0-only */
/* procgroup_resolve against a sysroot holding the runtimes' state files
 * (Docker, containerd, CRI-O, nerdctl, the kubelet), hostile versions of
 * them, and the cache: each distinct text classified once, bounded, a
 * missing name looked up again only after PROCGROUP_RETRY_NS. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "pg_test.h"
#include "procgroup.h"
#include "sysroot.h"

#define DOCKER "/var/lib/docker/containers/"
#define TASKS "/run/containerd/io.containerd.runtime.v2.task/"
#define CRIO "/run/containers/storage/overlay-containers/"
#define PODS "/var/lib/kubelet/pods/"

static void mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		ck_assert_msg(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s", path);
		*p = '/';
	}
}

static void put(const char *root, const char *rel, const char *data, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	mkdirs(path);
	f = fopen(path, "w");
	ck_assert_msg(f, "create %s", path);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void put_fixture(const char *root, const char *rel, const char *fixture)
{
	size_t len;
	char *data = pg_slurp(fixture, &len);

	put(root, rel, data, len);
	free(data);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void root_free(char *root)
{
	sysroot_set(NULL);
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(root);
}

/* A sysroot with the fixtures' state files where the runtimes keep them. */
static char *root_new(void)
{
	const char *tmp = getenv("TMPDIR");
	char *root = malloc(4096);

	snprintf(root, 4096, "%s/pgtest.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert(mkdtemp(root));
	put_fixture(root, DOCKER ID_DOCKERV1 "/config.v2.json", "state/docker_web.json");
	put_fixture(root, DOCKER ID_BADNAME "/config.v2.json", "state/docker_badname.json");
	put_fixture(root, DOCKER ID_PODCGFS2 "/config.v2.json", "state/docker_shim.json");
	put_fixture(root, TASKS "k8s.io/" ID_PODBURST "/config.json", "state/containerd_pod.json");
	put_fixture(root, TASKS "default/" ID_NERDCTL "/config.json", "state/nerdctl.json");
	put_fixture(root, CRIO ID_PODBESTEFF "/userdata/config.json", "state/crio_pod.json");
	put_fixture(root, PODS UID_CGBURST "/etc-hosts", "state/etc-hosts");
	put_fixture(root, PODS UID_GUAR "/etc-hosts", "state/etc-hosts-hostnet");
	sysroot_set(root);
	return root;
}

static void parse_text(const char *text, struct procgroup *g)
{
	ck_assert_int_eq(procgroup_parse(text, strlen(text), g), 0);
}

static void resolve(const char *fixture, int found, const char *display, const char *container)
{
	struct procgroup g;
	size_t len;
	char *text = pg_slurp(fixture, &len);

	ck_assert_int_eq(procgroup_parse(text, len, &g), 0);
	ck_assert_msg(procgroup_resolve(&g) == found, "%s: want %d", fixture, found);
	ck_assert_str_eq(g.display, display);
	ck_assert_str_eq(g.container, container);
	free(text);
}

START_TEST(names_found)
{
	char *root = root_new();

	/* the top-level "Name", not the label or the string that hold one */
	resolve("cgroup/docker_v1", 1, "docker 6f1c3a260be1 web", "");
	resolve("cgroup/nerdctl", 1, "containerd aa470170773a redis-1", "");
	resolve("cgroup/pod_burstable_systemd", 1, "pod 1a2b3c4d ml/trainer-0", "worker");
	resolve("cgroup/pod_besteffort_systemd", 1, "pod 9f8e7d6c kube-system/node-exporter-x2x9q",
		"node-exporter");
	/* cgroupfs driver: the runtime is not in the path, each is tried */
	resolve("cgroup/pod_besteffort_cgroupfs", 1, "pod 77aa88bb batch/etl-28461", "etl");
	/* no runtime state: the kubelet's hosts file gives the host name */
	resolve("cgroup/pod_burstable_cgroupfs", 1, "pod 0c1d2e3f nginx-7c5ddbdf54-xkz2q", "");
	root_free(root);
}
END_TEST

START_TEST(names_missing)
{
	static const char aliases[] = "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n"
				      "fe00::2\tip6-allrouters\n\n# Entries added by HostAliases.\n"
				      "10.0.0.1\tdecoy\n";
	char *root = root_new();
	struct procgroup g;

	resolve("cgroup/docker_v2", 0, "docker f45d3d5de96c", "");
	/* a host-network pod's hosts file is the node's */
	resolve("cgroup/pod_guaranteed_systemd", 0, "pod 5e5e5e5e", "");
	/* a pod without its own line: the host aliases are not its name */
	put(root, PODS UID_BEFF "/etc-hosts", aliases, strlen(aliases));
	parse_text("0::/kubepods/besteffort/pod" UID_BEFF "\n", &g);
	ck_assert_int_eq(procgroup_resolve(&g), 0);
	ck_assert_str_eq(g.display, "pod 9f8e7d6c");
	/* a name with an escape sequence in it is refused */
	parse_text("0::/docker/" ID_BADNAME "\n", &g);
	ck_assert_int_eq(procgroup_resolve(&g), 0);
	ck_assert_str_eq(g.display, "docker ef70568fc076");
	/* kinds with nothing to look up */
	resolve("cgroup/session", 0, "session-3.scope", "");
	resolve("cgroup/slurm_v1", 0, "job 12345", "");
	resolve("cgroup/root", 0, "", "");
	root_free(root);
	/* without a sysroot holding any of it */
	root = root_new();
	sysroot_set("/nonexistent/pgtest");
	resolve("cgroup/pod_burstable_systemd", 0, "pod 1a2b3c4d", "");
	root_free(root);
}
END_TEST

/* Writes DOCKER/<ID_DOCKERV2>/config.v2.json with data and resolves it. */
static int docker_v2_with(const char *root, const char *data, size_t len, char *display)
{
	struct procgroup g;
	int rc;

	put(root, DOCKER ID_DOCKERV2 "/config.v2.json", data, len);
	parse_text("0::/system.slice/docker-" ID_DOCKERV2 ".scope\n", &g);
	rc = procgroup_resolve(&g);
	strcpy(display, g.display);
	return rc;
}

START_TEST(hostile_json)
{
	static const char *const bad[] = {
	    "",
	    "{",
	    "[\"Name\",\"/x\"]",
	    "{\"Name\":\"/x",
	    "{\"Name\":/x\"}",
	    "{\"Name\":42}",
	    "{\"Name\":{\"Name\":\"/x\"}}",
	    "{\"A\":{\"Name\":\"/x\"},\"B\":[1,2,{\"Name\":\"/y\"}]}",
	    "{\"A\":\"\\\"Name\\\":\\\"/x\\\"\"}",
	    "{\"Name\":\"/a b\"}",
	    "{\"Name\":\"/\"}",
	    "{\"Name\":\"/a\\u001b\"}",
	    "{\"Name\":\"/../../etc\"}",
	    "{\"A\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[}",
	};
	char *root = root_new(), display[PROCGROUP_DISPLAY_MAX];
	size_t big = 300 * 1024;
	char *doc = malloc(big + 64);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(docker_v2_with(root, bad[i], strlen(bad[i]), display) == 0, "%s",
			      bad[i]);
		ck_assert_str_eq(display, "docker f45d3d5de96c");
	}
	/* nesting and odd spacing around the top-level key */
	strcpy(doc, " {\"A\" : [ {\"Name\":\"/y\"} , \"]}\" ] ,\n\t\"Name\"\t:\t\"/ok_1.x-2\" } ");
	ck_assert_int_eq(docker_v2_with(root, doc, strlen(doc), display), 1);
	ck_assert_str_eq(display, "docker f45d3d5de96c ok_1.x-2");
	/* only the first 256 KiB are read: a name past them is not found */
	memset(doc, ' ', big);
	doc[0] = '{';
	strcpy(doc + big - 30, "\"Name\":\"/far\"}");
	ck_assert_int_eq(docker_v2_with(root, doc, strlen(doc), display), 0);
	/* a name too long for the field is cut, never overflowed */
	doc[0] = '\0';
	strcat(doc, "{\"Name\":\"/");
	memset(doc + strlen(doc), 'n', 200);
	strcpy(doc + 10 + 200, "\"}");
	ck_assert_int_eq(docker_v2_with(root, doc, strlen(doc), display), 1);
	ck_assert_uint_lt(strlen(display), PROCGROUP_DISPLAY_MAX);
	free(doc);
	root_free(root);
}
END_TEST

START_TEST(files_refused)
{
	char *root = root_new(), path[4096], target[4096];
	struct procgroup g;

	/* a link in place of the file is not followed */
	snprintf(path, sizeof(path), "%s" DOCKER ID_DOCKERV2, root);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	strcat(path, "/config.v2.json");
	snprintf(target, sizeof(target), "%s" DOCKER ID_DOCKERV1 "/config.v2.json", root);
	ck_assert_int_eq(symlink(target, path), 0);
	parse_text("0::/docker/" ID_DOCKERV2 "\n", &g);
	ck_assert_int_eq(procgroup_resolve(&g), 0);
	ck_assert_str_eq(g.display, "docker f45d3d5de96c");
	/* a FIFO is refused, not waited on */
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(procgroup_resolve(&g), 0);
	/* a directory */
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	ck_assert_int_eq(procgroup_resolve(&g), 0);
	/* the same container through the real file: the link was the reason */
	parse_text("0::/docker/" ID_DOCKERV1 "\n", &g);
	ck_assert_int_eq(procgroup_resolve(&g), 1);
	/* a hand-made procgroup with a path in its id reads nothing */
	strcpy(g.id, "../../../etc");
	ck_assert_int_eq(procgroup_resolve(&g), 0);
	root_free(root);
}
END_TEST

static const struct procgroup *get(struct procgroup_cache *c, const char *text, uint64_t now)
{
	const struct procgroup *g = procgroup_cache_get(c, text, strlen(text), now);

	ck_assert_ptr_nonnull(g);
	return g;
}

START_TEST(cache_once)
{
	static const char *const fx[] = {"cgroup/docker_v1", "cgroup/pod_burstable_systemd",
					 "cgroup/session"};
	static const char *const want[] = {"docker 6f1c3a260be1 web", "pod 1a2b3c4d ml/trainer-0",
					   "session-3.scope"};
	char *root = root_new(), *text[3];
	struct procgroup_cache *c = procgroup_cache_new(64, PROCGROUP_RESOLVE);
	struct procgroup_cache_stats st;

	for (int i = 0; i < 3; i++)
		text[i] = pg_slurp(fx[i], NULL);
	for (int i = 0; i < 3000; i++)
		ck_assert_str_eq(get(c, text[i % 3], (uint64_t)i * 1000000)->display, want[i % 3]);
	st = procgroup_cache_stats(c);
	ck_assert_uint_eq(st.misses, 3);
	ck_assert_uint_eq(st.hits, 2997);
	/* a session has no name to look up */
	ck_assert_uint_eq(st.resolves, 2);
	ck_assert_uint_eq(procgroup_cache_count(c), 3);
	procgroup_cache_free(c);
	/* without the flag nothing is read */
	c = procgroup_cache_new(64, 0);
	ck_assert_str_eq(get(c, text[0], 0)->display, "docker 6f1c3a260be1");
	ck_assert_uint_eq(procgroup_cache_stats(c).resolves, 0);
	procgroup_cache_free(c);
	for (int i = 0; i < 3; i++)
		free(text[i]);
	root_free(root);
}
END_TEST

START_TEST(cache_evicts)
{
	struct procgroup_cache *c = procgroup_cache_new(4, 0);
	char text[64], want[64];
	unsigned seed = 1;

	for (int i = 0; i < 10; i++) {
		snprintf(text, sizeof(text), "0::/system.slice/unit%d.service\n", i);
		get(c, text, 0);
	}
	ck_assert_uint_eq(procgroup_cache_count(c), 4);
	ck_assert_uint_eq(procgroup_cache_stats(c).evictions, 6);
	ck_assert_str_eq(get(c, "0::/system.slice/unit9.service\n", 0)->display, "unit9.service");
	ck_assert_uint_eq(procgroup_cache_stats(c).hits, 1);
	/* churn over more texts than slots: every answer is its own text's */
	for (int i = 0; i < 5000; i++) {
		int k = (int)(rand_r(&seed) % 20);

		snprintf(text, sizeof(text), "0::/system.slice/unit%d.service\n", k);
		snprintf(want, sizeof(want), "unit%d.service", k);
		ck_assert_str_eq(get(c, text, 0)->display, want);
	}
	ck_assert_uint_eq(procgroup_cache_count(c), 4);
	procgroup_cache_free(c);
	ck_assert_ptr_null(procgroup_cache_new(0, 0));
	ck_assert_ptr_null(procgroup_cache_new(65537, 0));
	procgroup_cache_free(NULL);
}
END_TEST

START_TEST(cache_retries_missing_names)
{
	const char *text = "0::/system.slice/docker-" ID_DOCKERV2 ".scope\n";
	const uint64_t s = 1000000000ull;
	char *root = root_new();
	struct procgroup_cache *c = procgroup_cache_new(8, PROCGROUP_RESOLVE);

	ck_assert_str_eq(get(c, text, 100 * s)->display, "docker f45d3d5de96c");
	ck_assert_str_eq(get(c, text, 105 * s)->display, "docker f45d3d5de96c");
	ck_assert_uint_eq(procgroup_cache_stats(c).resolves, 1);
	/* the container's state appears after its first process was seen */
	put_fixture(root, DOCKER ID_DOCKERV2 "/config.v2.json", "state/docker_web.json");
	ck_assert_str_eq(get(c, text, 110 * s - 1)->display, "docker f45d3d5de96c");
	ck_assert_str_eq(get(c, text, 110 * s)->display, "docker f45d3d5de96c web");
	ck_assert_uint_eq(procgroup_cache_stats(c).resolves, 2);
	/* found: not read again */
	get(c, text, 500 * s);
	ck_assert_uint_eq(procgroup_cache_stats(c).resolves, 2);
	procgroup_cache_free(c);
	root_free(root);
}
END_TEST

START_TEST(cache_long_text)
{
	struct procgroup_cache *c = procgroup_cache_new(8, 0);
	char *text = malloc(PROCGROUP_TEXT_MAX * 2), *p = text;

	/* longer than PROCGROUP_TEXT_MAX: answered, not kept */
	for (int i = 0; i < 4; i++) {
		p += sprintf(p, "%d:blkio:/", 20 - i);
		memset(p, 'x', 2500);
		p += 2500;
		*p++ = '\n';
	}
	strcpy(p, "0::/system.slice/long.service\n");
	ck_assert_uint_gt(strlen(text), PROCGROUP_TEXT_MAX);
	ck_assert_str_eq(get(c, text, 0)->display, "long.service");
	ck_assert_str_eq(get(c, text, 0)->display, "long.service");
	ck_assert_uint_eq(procgroup_cache_count(c), 0);
	ck_assert_uint_eq(procgroup_cache_stats(c).misses, 2);
	ck_assert_str_eq(procgroup_cache_get(c, NULL, 0, 0)->display, "");
	free(text);
	procgroup_cache_free(c);
}
END_TEST

Suite *procgroup_cache_suite(void)
{
	Suite *s = suite_create("procgroup_cache");
	TCase *tc = tcase_create("cache");

	tcase_add_test(tc, cache_once);
	tcase_add_test(tc, cache_evicts);
	tcase_add_test(tc, cache_retries_missing_names);
	tcase_add_test(tc, cache_long_text);
	suite_add_tcase(s, tc);
	return s;
}

Suite *procgroup_name_suite(void)
{
	Suite *s = suite_create("procgroup_resolve");
	TCase *tc = tcase_create("resolve");

	tcase_add_test(tc, names_found);
	tcase_add_test(tc, names_missing);
	tcase_add_test(tc, hostile_json);
	tcase_add_test(tc, files_refused);
	suite_add_tcase(s, tc);
	return s;
}
